"""Judges and embedding models: chat models that answer a prompt with a validated pydantic
object, and models that embed texts.

The package is laid out by transport: ``openai/`` (OpenAI-compatible endpoints: the lean
``direct`` transport, ``ChatOpenAI``, the tool agent), ``langchain/`` (any LangChain chat
class, GigaChat), ``local/`` (the embedded llama.cpp model), ``embeddings/``; ``factory/``
makes every spec from the settings and builds the judges and models from them; the modules
here hold what all of them share. This module is the public face.

This package is the only importer of ``langchain_openai`` and of the provider classes a
configuration names (``langchain_gigachat``, ``langchain_anthropic``, ...), all lazily.
"""

from ragas_boot.chat.embeddings.model import EmbeddingAnswer, EmbeddingModel
from ragas_boot.chat.factory.build import build_embedding_models, build_judges
from ragas_boot.chat.factory.embeddings import embedding_specs
from ragas_boot.chat.factory.judges import judge_specs
from ragas_boot.chat.factory.providers import DEFAULT_PROVIDER_NAME, LOCAL_PROVIDER_NAME
from ragas_boot.chat.judge import JudgeAnswer, JudgeModel, TokenUsage
from ragas_boot.chat.langchain.judge import LangChainJudge
from ragas_boot.chat.local.judge import LocalJudge
from ragas_boot.chat.local.runtime import bundled_model_path
from ragas_boot.chat.local.server import LocalModelPool, LocalModelServer
from ragas_boot.chat.openai.endpoints import api_base_url
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
from ragas_boot.chat.structured import format_instructions, output_schema, parse_structured

__all__ = [
    "DEFAULT_PROVIDER_NAME",
    "LOCAL_PROVIDER_NAME",
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
    "api_base_url",
    "build_embedding_models",
    "build_judges",
    "bundled_model_path",
    "embedding_specs",
    "format_instructions",
    "judge_specs",
    "output_schema",
    "parse_structured",
]
