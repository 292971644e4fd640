"""From settings to judges: one :class:`JudgeSpec` per (provider, chat model)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from ragas_boot.chat.judge import JudgeModel, JudgeSpec, ProviderLimits
from ragas_boot.chat.openai_judge import OpenAICompatibleJudge, api_base_url
from ragas_boot.config.settings import (
    ChatModelSettings,
    ProvidersSettings,
    RagasSettings,
    RateLimitSettings,
)
from ragas_boot.errors import ConfigError

__all__ = ["DEFAULT_PROVIDER_NAME", "build_judges", "judge_specs", "resolve_limits"]

#: Provider name of the judges declared under ``default-provider`` (Java's bucket key).
DEFAULT_PROVIDER_NAME = "default"

_PREFIX = "spring.ai.ragas.providers"


def resolve_limits(
    providers: ProvidersSettings,
    name: str,
    rate_limit: RateLimitSettings | None,
    *,
    max_concurrency: int | None = None,
    timeout: timedelta | None = None,
) -> ProviderLimits:
    """A provider's limits: its own settings, else the global ``rate-limit.default-*`` ones."""
    defaults = providers.rate_limit
    own = rate_limit or RateLimitSettings()
    rps = own.rps if own.rps is not None else defaults.default_rps
    return ProviderLimits(
        provider=name,
        rps=rps if rps and rps > 0 else None,
        strategy=own.strategy or defaults.default_strategy,
        wait_timeout=own.timeout if own.timeout is not None else defaults.default_timeout,
        max_concurrency=max_concurrency or providers.max_concurrency,
        call_timeout=timeout or providers.timeout,
    )


def _spec(
    providers: ProvidersSettings,
    model: ChatModelSettings,
    *,
    provider: str,
    base_url: str,
    api_key: object,
    completions_path: str,
    limits: ProviderLimits,
    structured_output: object,
    headers: dict[str, str],
) -> JudgeSpec:
    defaults = providers.default_options
    options = model.options
    return JudgeSpec(
        id=model.judge_id,
        model=model.id,
        provider=provider,
        base_url=base_url,
        api_key=api_key,  # type: ignore[arg-type]
        completions_path=completions_path,
        temperature=options.temperature
        if options.temperature is not None
        else defaults.temperature,
        max_tokens=options.max_tokens if options.max_tokens is not None else defaults.max_tokens,
        top_p=options.top_p if options.top_p is not None else defaults.top_p,
        structured_output=structured_output or providers.structured_output,  # type: ignore[arg-type]
        limits=limits,
        headers=headers,
    )


def judge_specs(settings: RagasSettings) -> list[JudgeSpec]:
    """Every judge the settings declare, in YAML order.

    Raises:
        ConfigError: the same judge id twice (give one an ``alias``), a ``completions-path``
            the OpenAI client cannot reach, or ``default-provider`` models without
            ``spring.ai.openai.base-url`` / ``api-key``.
    """
    providers = settings.providers
    specs: list[JudgeSpec] = []
    declared_at: dict[str, str] = {}

    def add(spec: JudgeSpec, key: str) -> None:
        if spec.id in declared_at:
            raise ConfigError(
                f"judge id '{spec.id}' is declared twice (also at {declared_at[spec.id]})",
                key=key,
                hint="Give one of them an 'alias' so results can tell them apart",
            )
        declared_at[spec.id] = key
        specs.append(spec)

    for p_index, provider in enumerate(providers.openai_compatible):
        p_key = f"{_PREFIX}.openai-compatible[{p_index}]"
        try:
            api_base_url(provider.base_url, provider.completions_path)
        except ValueError as error:
            raise ConfigError(str(error), key=f"{p_key}.completions-path") from None
        limits = resolve_limits(
            providers,
            provider.name,
            provider.rate_limit,
            max_concurrency=provider.max_concurrency,
            timeout=provider.timeout,
        )
        for m_index, model in enumerate(provider.chat_models):
            add(
                _spec(
                    providers,
                    model,
                    provider=provider.name,
                    base_url=provider.base_url,
                    api_key=provider.api_key,
                    completions_path=provider.completions_path,
                    limits=limits,
                    structured_output=provider.structured_output,
                    headers=provider.headers,
                ),
                f"{p_key}.chat-models[{m_index}]",
            )

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
        path = settings.openai.chat.completions_path or "/v1/chat/completions"
        for m_index, model in enumerate(default.models):
            add(
                _spec(
                    providers,
                    model,
                    provider=DEFAULT_PROVIDER_NAME,
                    base_url=openai.base_url,
                    api_key=openai.api_key,
                    completions_path=path,
                    limits=limits,
                    structured_output=None,
                    headers={},
                ),
                f"{_PREFIX}.default-provider.models[{m_index}]",
            )
    return specs


def build_judges(specs: Sequence[JudgeSpec]) -> list[JudgeModel]:
    """One :class:`OpenAICompatibleJudge` per spec (no network traffic happens here)."""
    return [OpenAICompatibleJudge(spec=spec) for spec in specs]
