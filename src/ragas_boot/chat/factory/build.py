"""From specs to judges and embedding models: each spec's kind picks its class. Nothing is
sent and no model is loaded here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import SecretStr

from ragas_boot.chat.embeddings.gigachat import GigaChatEmbeddingModel
from ragas_boot.chat.embeddings.local import LocalEmbeddingModel
from ragas_boot.chat.embeddings.model import EmbeddingModel
from ragas_boot.chat.embeddings.openai_compatible import OpenAICompatibleEmbeddingModel
from ragas_boot.chat.factory.providers import find_starter, starter_limits
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.chat.langchain.judge import LangChainJudge
from ragas_boot.chat.langchain.models import provider_name_of
from ragas_boot.chat.local.judge import LocalJudge
from ragas_boot.chat.local.server import LocalModelPool
from ragas_boot.chat.openai.judge import OpenAICompatibleJudge
from ragas_boot.chat.specs import EmbeddingSpec, JudgeSpec, LangChainSpec, LocalSpec
from ragas_boot.config.settings import RagasSettings, StructuredOutputMode
from ragas_boot.errors import ConfigError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["build_embedding_models", "build_judges", "registered_judges"]


def build_judges(
    specs: Sequence[JudgeSpec], *, local_models: LocalModelPool | None = None
) -> list[JudgeModel]:
    """One judge per spec; no network traffic happens and no model is loaded here.

    A :class:`~ragas_boot.chat.specs.LocalSpec` becomes a
    :class:`~ragas_boot.chat.local.judge.LocalJudge` on the ``local_models`` server of its
    model (started on the judge's first use); a :class:`~ragas_boot.chat.specs.LangChainSpec`
    a :class:`~ragas_boot.chat.langchain.judge.LangChainJudge`; every other spec an
    :class:`~ragas_boot.chat.openai.judge.OpenAICompatibleJudge`.

    Raises:
        ValueError: local specs without a ``local_models`` pool to own their servers.
        MissingExtraError: local specs without the ``[local]`` extra.
    """
    judges: list[JudgeModel] = []
    for spec in specs:
        if isinstance(spec, LangChainSpec):
            judges.append(LangChainJudge(spec=spec))
        elif isinstance(spec, LocalSpec):
            if local_models is None:
                raise ValueError(
                    f"judge '{spec.id}' runs on the embedded local model: pass "
                    "local_models=LocalModelPool() (and close it) to own its server"
                )
            server = local_models.server(spec.local, spec.model)
            judges.append(LocalJudge(spec=spec, server=server))
        else:
            judges.append(OpenAICompatibleJudge(spec=spec))
    return judges


def registered_judges(
    settings: RagasSettings,
    chat_models: Mapping[str, BaseChatModel],
    *,
    taken: Sequence[str] = (),
) -> list[JudgeModel]:
    """Judges on chat model instances registered in code (Java: auto-detected beans).

    Each judge's provider is named after its class (``ChatAnthropic`` → ``anthropic``, see
    :func:`~ragas_boot.chat.langchain.models.provider_name_of`); ``external-starters.<that
    name>`` gives its rate limit, concurrency, timeout and structured output (default
    ``native``), and ``enabled: false`` there leaves it out.

    Raises:
        ConfigError: a judge id is taken, or a value is not a LangChain chat model.
    """
    from langchain_core.language_models import BaseChatModel

    providers = settings.providers
    judges: list[JudgeModel] = []
    seen = set(taken)
    for judge_id, model in chat_models.items():
        if not isinstance(model, BaseChatModel):
            raise ConfigError(
                f"chat model '{judge_id}' is a {type(model).__name__}, not a LangChain "
                "BaseChatModel"
            )
        if judge_id in seen:
            raise ConfigError(
                f"judge id '{judge_id}' of a registered chat model is already declared",
                hint="Register it under another id",
            )
        seen.add(judge_id)
        name = provider_name_of(model)
        starter = find_starter(providers, name)
        if starter is not None and not starter.enabled:
            continue
        model_id = str(
            getattr(model, "model", None) or getattr(model, "model_name", None) or judge_id
        )
        spec = LangChainSpec(
            id=judge_id,
            model=model_id,
            provider=name,
            api_key=SecretStr(""),
            structured_output=(starter.structured_output if starter else None)
            or StructuredOutputMode.NATIVE,
            limits=starter_limits(providers, name),
        )
        judges.append(LangChainJudge(spec=spec, model=model))
    return judges


def build_embedding_models(specs: Sequence[EmbeddingSpec]) -> list[EmbeddingModel]:
    """One model per spec; no network traffic happens and no weights load here."""
    models: list[EmbeddingModel] = []
    for spec in specs:
        if spec.local:
            models.append(LocalEmbeddingModel(spec=spec))
        elif spec.langchain is not None:
            models.append(GigaChatEmbeddingModel(spec=spec))
        else:
            models.append(OpenAICompatibleEmbeddingModel(spec=spec))
    return models
