"""Judges: chat models that answer a prompt with a validated pydantic object.

This package is the only importer of ``langchain_openai`` and of the provider classes a
configuration names (``langchain_gigachat``, ``langchain_anthropic``, ...), all lazily.
"""

from ragas_boot.chat.factory import (
    DEFAULT_PROVIDER_NAME,
    LOCAL_PROVIDER_NAME,
    build_judges,
    judge_specs,
)
from ragas_boot.chat.judge import (
    JudgeAnswer,
    JudgeModel,
    JudgeSpec,
    LangChainModelSpec,
    LocalModelSpec,
    ProviderLimits,
    TlsFiles,
    TokenUsage,
)
from ragas_boot.chat.langchain_judge import LangChainJudge
from ragas_boot.chat.local import (
    LocalJudge,
    LocalModelPool,
    LocalModelServer,
    bundled_model_path,
)
from ragas_boot.chat.openai_judge import OpenAICompatibleJudge, api_base_url
from ragas_boot.chat.structured import format_instructions, output_schema, parse_structured

__all__ = [
    "DEFAULT_PROVIDER_NAME",
    "LOCAL_PROVIDER_NAME",
    "JudgeAnswer",
    "JudgeModel",
    "JudgeSpec",
    "LangChainJudge",
    "LangChainModelSpec",
    "LocalJudge",
    "LocalModelPool",
    "LocalModelServer",
    "LocalModelSpec",
    "OpenAICompatibleJudge",
    "ProviderLimits",
    "TlsFiles",
    "TokenUsage",
    "api_base_url",
    "build_judges",
    "bundled_model_path",
    "format_instructions",
    "judge_specs",
    "output_schema",
    "parse_structured",
]
