"""Judges and embedding models: chat models that answer a prompt with a validated pydantic
object, and models that embed texts.

The package is laid out by transport: ``openai/`` (OpenAI-compatible endpoints: the lean
``direct`` transport, ``ChatOpenAI``, the tool agent), ``langchain/`` (any LangChain chat
class, GigaChat), ``local/`` (the embedded llama.cpp model), ``embeddings/``; ``factory/``
makes every spec from the settings and builds the judges and models from them; the modules
here hold what all of them share. This module is the public face:

* the protocols a metric is written against: :class:`JudgeModel` (answers with a
  :class:`JudgeAnswer`, its :class:`TokenUsage`) and :class:`EmbeddingModel`
  (:class:`EmbeddingAnswer`);
* the judges, to build one by hand: :class:`OpenAICompatibleJudge`, :class:`LangChainJudge`,
  :class:`LocalJudge`, each from a spec of its kind (:class:`JudgeSpec` and its kinds
  :class:`OpenAICompatibleSpec`, :class:`LangChainSpec` with :class:`LangChainModelSpec`,
  :class:`LocalSpec` with :class:`LocalModelSpec`; :class:`ProviderLimits`, :class:`TlsFiles`),
  or the specs ``application.yaml`` declares (:func:`judge_specs`, :func:`embedding_specs`,
  :class:`EmbeddingSpec`);
* the embedded local model: :class:`LocalModelServer` (an endpoint where one is needed),
  :class:`LocalModelPool`, :func:`bundled_model_path`.

The container builds judges from the settings (``chat/factory/build.py``); structured output,
endpoints and provider names are the transports' own business and stay in their modules.

This package is the only importer of ``langchain_openai`` and of the provider classes a
configuration names (``langchain_gigachat``, ``langchain_anthropic``, ...), all lazily.
"""

from ragas_boot.chat.embeddings.model import EmbeddingAnswer, EmbeddingModel
from ragas_boot.chat.factory.embeddings import embedding_specs
from ragas_boot.chat.factory.judges import judge_specs
from ragas_boot.chat.judge import JudgeAnswer, JudgeModel, TokenUsage
from ragas_boot.chat.langchain.judge import LangChainJudge
from ragas_boot.chat.local.judge import LocalJudge
from ragas_boot.chat.local.runtime import bundled_model_path
from ragas_boot.chat.local.server import LocalModelPool, LocalModelServer
from ragas_boot.chat.openai.judge import OpenAICompatibleJudge
from ragas_boot.chat.specs import (
    EmbeddingSpec,
    JudgeSpec,
    LangChainModelSpec,
    LangChainSpec,
    LocalModelSpec,
    LocalSpec,
    OpenAICompatibleSpec,
    ProviderLimits,
    TlsFiles,
)

__all__ = [
    "EmbeddingAnswer",
    "EmbeddingModel",
    "EmbeddingSpec",
    "JudgeAnswer",
    "JudgeModel",
    "JudgeSpec",
    "LangChainJudge",
    "LangChainModelSpec",
    "LangChainSpec",
    "LocalJudge",
    "LocalModelPool",
    "LocalModelServer",
    "LocalModelSpec",
    "LocalSpec",
    "OpenAICompatibleJudge",
    "OpenAICompatibleSpec",
    "ProviderLimits",
    "TlsFiles",
    "TokenUsage",
    "bundled_model_path",
    "embedding_specs",
    "judge_specs",
]
