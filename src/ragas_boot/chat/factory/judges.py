"""From settings to judge specs: one spec per (provider, chat model), of the provider's kind."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from pydantic import SecretStr

from ragas_boot.chat.factory.gigachat import gigachat_judge_specs
from ragas_boot.chat.factory.local import local_judge_specs
from ragas_boot.chat.factory.prices import batch_discount
from ragas_boot.chat.factory.providers import (
    DEFAULT_PROVIDER_NAME,
    LOCAL_PROVIDER_NAME,
    PREFIX,
    UniqueIds,
    batch_spec,
    judge_fields,
    only_openai_compatible,
    provider_limits,
    provider_tls,
    resolve_limits,
)
from ragas_boot.chat.langchain.models import check_chat_class
from ragas_boot.chat.openai.endpoints import api_base_url
from ragas_boot.chat.specs import (
    JudgeSpec,
    LangChainModelSpec,
    LangChainSpec,
    OpenAICompatibleSpec,
)
from ragas_boot.config.settings import RagasSettings, StructuredOutputMode, Transport
from ragas_boot.errors import ConfigError

__all__ = ["judge_specs"]

#: Modes only a LangChain chat class can do.
_LANGCHAIN_ONLY: Final = frozenset({StructuredOutputMode.NATIVE})
#: The arguments of a LangChain class that hold its base URL (shown; checked for loopback).
_URL_ARGUMENTS: Final = ("base_url", "api_base", "anthropic_api_url", "host")


def _openai_mode(mode: StructuredOutputMode | None, key: str) -> StructuredOutputMode | None:
    if mode in _LANGCHAIN_ONLY:
        raise ConfigError(
            f"structured-output '{mode.value}' needs a LangChain chat class",
            key=key,
            hint="Use prompt, json_object, json_schema or function_calling",
        )
    return mode


def _openai_compatible_specs(settings: RagasSettings) -> Iterator[tuple[JudgeSpec, str]]:
    """The judges of ``providers.openai-compatible``, then of ``default-provider`` (one at a
    time: a duplicate id is reported before a later provider is checked)."""
    providers = settings.providers
    for p_index, provider in enumerate(providers.openai_compatible):
        p_key = f"{PREFIX}.openai-compatible[{p_index}]"
        try:
            api_base_url(provider.base_url, provider.completions_path)
        except ValueError as error:
            raise ConfigError(str(error), key=f"{p_key}.completions-path") from None
        limits = provider_limits(providers, provider)
        tls = provider_tls(provider, p_key)
        mode = _openai_mode(provider.structured_output, f"{p_key}.structured-output")
        batch = batch_spec(providers.batch, provider.batch)
        own_discount = provider.batch.discount if provider.batch is not None else None
        discount = batch_discount(provider.base_url, own_discount or providers.batch.discount)
        for m_index, model in enumerate(provider.chat_models):
            transport = model.transport or provider.transport or providers.transport
            batched = transport is Transport.BATCH
            spec = OpenAICompatibleSpec(
                **judge_fields(
                    providers,
                    model,
                    provider=provider.name,
                    limits=limits,
                    structured_output=mode,
                    max_prompt_tokens=provider.max_prompt_tokens,
                    base_url=provider.base_url,
                    batch_discount=discount if batched else None,
                ),
                base_url=provider.base_url,
                api_key=provider.api_key,
                completions_path=provider.completions_path,
                headers=provider.headers,
                json_object_schema=provider.json_object_schema,
                transport=transport,
                tls=tls,
                batch=batch,
            )
            yield spec, f"{p_key}.chat-models[{m_index}]"

    default = providers.default_provider
    if default.enabled and default.models:
        openai = settings.openai
        if not openai.base_url or openai.api_key is None:
            missing = "base-url" if not openai.base_url else "api-key"
            raise ConfigError(
                "default-provider has models but spring.ai.openai has no " + missing,
                key=f"spring.ai.openai.{missing}",
                hint="Set it, or declare the models under openai-compatible",
            )
        limits = resolve_limits(providers, DEFAULT_PROVIDER_NAME, default.rate_limit)
        path = openai.chat.completions_path or "/v1/chat/completions"
        discount = batch_discount(openai.base_url, providers.batch.discount)
        for m_index, model in enumerate(default.models):
            transport = model.transport or providers.transport
            spec = OpenAICompatibleSpec(
                **judge_fields(
                    providers,
                    model,
                    provider=DEFAULT_PROVIDER_NAME,
                    limits=limits,
                    structured_output=None,
                    base_url=openai.base_url,
                    batch_discount=discount if transport is Transport.BATCH else None,
                ),
                base_url=openai.base_url,
                api_key=openai.api_key,
                completions_path=path,
                transport=transport,
                batch=batch_spec(providers.batch, None),
            )
            yield spec, f"{PREFIX}.default-provider.models[{m_index}]"


def _langchain_specs(settings: RagasSettings) -> Iterator[tuple[JudgeSpec, str]]:
    """The judges of ``providers.langchain``: any LangChain chat class, one per chat model."""
    providers = settings.providers
    taken = {p.name for p in providers.openai_compatible} | {LOCAL_PROVIDER_NAME}
    for p_index, provider in enumerate(providers.langchain):
        p_key = f"{PREFIX}.langchain[{p_index}]"
        if provider.name in taken:
            # Judges share rate limits and concurrency by provider name.
            raise ConfigError(
                f"provider name '{provider.name}' is already used by another provider",
                key=f"{p_key}.name",
                hint="Provider names must be unique across openai-compatible, langchain and local",
            )
        taken.add(provider.name)
        check_chat_class(provider.class_path, key=f"{p_key}.class")
        arguments = {key.replace("-", "_"): value for key, value in provider.arguments.items()}
        langchain = LangChainModelSpec(
            class_path=provider.class_path,
            arguments=tuple(arguments.items()),
            model_argument=provider.model_argument.replace("-", "_"),
        )
        secrets = [value for value in arguments.values() if isinstance(value, SecretStr)]
        base_url = next(
            (str(arguments[name]) for name in _URL_ARGUMENTS if arguments.get(name)), ""
        )
        limits = resolve_limits(
            providers,
            provider.name,
            provider.rate_limit,
            max_concurrency=provider.max_concurrency,
            timeout=provider.timeout,
        )
        for m_index, model in enumerate(provider.chat_models):
            only_openai_compatible(model, f"{p_key}.chat-models[{m_index}]")
            spec = LangChainSpec(
                **judge_fields(
                    providers,
                    model,
                    provider=provider.name,
                    limits=limits,
                    structured_output=provider.structured_output or StructuredOutputMode.NATIVE,
                    base_url=base_url,
                ),
                base_url=base_url,
                api_key=secrets[0] if secrets else SecretStr(""),
                langchain=langchain,
            )
            yield spec, f"{p_key}.chat-models[{m_index}]"


def judge_specs(settings: RagasSettings) -> list[JudgeSpec]:
    """Every judge the settings declare, in YAML order, each of its provider's kind.

    The openai-compatible and ``default-provider`` judges
    (:class:`~ragas_boot.chat.specs.OpenAICompatibleSpec`), then the ``langchain`` and
    GigaChat ones (:class:`~ragas_boot.chat.specs.LangChainSpec`), then the embedded ``local``
    provider's (:class:`~ragas_boot.chat.specs.LocalSpec`, when ``providers.local.enabled``);
    an enabled local provider with no ``chat-models`` has one judge, ``smollm2-135m`` on the
    bundled model (or the GGUF's file name on another).

    Raises:
        ConfigError: the same judge id twice (give one an ``alias``), a ``completions-path``
            the OpenAI client cannot reach, ``default-provider`` models without
            ``spring.ai.openai.base-url`` / ``api-key``, or a local ``model-path`` that does
            not exist.
        MissingExtraError: the local provider is enabled without the ``[local]`` extra.
    """
    providers = settings.providers
    if providers.openai_compatible or providers.default_provider.models:
        _openai_mode(providers.structured_output, f"{PREFIX}.structured-output")
    specs: list[JudgeSpec] = []
    ids = UniqueIds("judge")

    def add(found: Iterable[tuple[JudgeSpec, str]]) -> None:
        for spec, key in found:
            ids.claim(spec.id, key)
            specs.append(spec)

    add(_openai_compatible_specs(settings))
    add(_langchain_specs(settings))
    add(gigachat_judge_specs(settings))
    if providers.local.enabled:
        local = providers.local
        mode = _openai_mode(local.structured_output, f"{PREFIX}.local.structured-output")
        add(local_judge_specs(settings, mode))
    return specs
