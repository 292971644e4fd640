"""From settings to judges: one :class:`JudgeSpec` per (provider, chat model)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from pydantic import SecretStr

from ragas_boot.chat.judge import JudgeModel, JudgeSpec, LocalModelSpec, ProviderLimits
from ragas_boot.chat.local import (
    BUNDLED_MODEL_ID,
    LOCAL_API_KEY,
    UNSTARTED_BASE_URL,
    LocalJudge,
    LocalModelPool,
    require_local_runtime,
    resolve_model_path,
)
from ragas_boot.chat.openai_judge import OpenAICompatibleJudge, api_base_url
from ragas_boot.config.settings import (
    ChatModelSettings,
    LocalChatModelSettings,
    ProvidersSettings,
    RagasSettings,
    RateLimitSettings,
)
from ragas_boot.errors import ConfigError

__all__ = [
    "DEFAULT_PROVIDER_NAME",
    "LOCAL_PROVIDER_NAME",
    "build_judges",
    "judge_specs",
    "resolve_limits",
]

#: Provider name of the judges declared under ``default-provider`` (Java's bucket key).
DEFAULT_PROVIDER_NAME = "default"
#: Provider name of the embedded local judges (``providers.local``).
LOCAL_PROVIDER_NAME = "local"

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
        failure_threshold=providers.circuit_breaker.failure_threshold,
        open_for=providers.circuit_breaker.open_for,
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
    headers: dict[str, SecretStr],
    max_tokens: int | None = None,
    local: LocalModelSpec | None = None,
) -> JudgeSpec:
    defaults = providers.default_options
    options = model.options
    if max_tokens is None:
        max_tokens = defaults.max_tokens
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
        max_tokens=options.max_tokens if options.max_tokens is not None else max_tokens,
        top_p=options.top_p if options.top_p is not None else defaults.top_p,
        structured_output=structured_output or providers.structured_output,  # type: ignore[arg-type]
        limits=limits,
        headers=headers,
        local=local,
        max_answer_chars=providers.max_answer_chars,
    )


def _local_specs(settings: RagasSettings) -> list[tuple[JudgeSpec, str]]:
    """The judges of ``providers.local`` with the YAML key of each (checks the extra)."""
    providers = settings.providers
    local = providers.local
    prefix = f"{_PREFIX}.local"
    if any(p.name == LOCAL_PROVIDER_NAME for p in providers.openai_compatible):
        # Judges share rate limits and concurrency by provider name.
        raise ConfigError(
            f"an openai-compatible provider is named '{LOCAL_PROVIDER_NAME}', the name of the "
            "embedded local provider",
            key=f"{_PREFIX}.openai-compatible",
            hint="Rename it, or disable providers.local",
        )
    origins = settings.source.origins
    models = local.chat_models
    keys = [f"{prefix}.chat-models[{index}]" for index in range(len(models))]
    if not models:
        default_id = Path(local.model_path).stem.lower() if local.model_path else BUNDLED_MODEL_ID
        models = [LocalChatModelSettings(id=default_id)]
        keys = [f"{prefix}.chat-models"]
    limits = resolve_limits(
        providers,
        LOCAL_PROVIDER_NAME,
        local.rate_limit,
        max_concurrency=local.max_concurrency,
        timeout=local.timeout,
    )
    paths: dict[str | None, Path] = {}
    specs: list[tuple[JudgeSpec, str]] = []
    for model, key in zip(models, keys, strict=True):
        configured = model.model_path if model.model_path is not None else local.model_path
        if configured not in paths:
            if configured is None:
                require_local_runtime()  # before naming the model package, the bigger install
            path_key = (
                f"{key}.model-path" if model.model_path is not None else f"{prefix}.model-path"
            )
            paths[configured] = resolve_model_path(
                configured, key=path_key, file=origins.get(path_key)
            )
        model_spec = LocalModelSpec(
            model_path=paths[configured],
            n_ctx=local.n_ctx,
            n_threads=local.n_threads,
            seed=local.seed,
            chat_format=local.chat_format,
            max_string_length=local.max_string_length,
            max_array_items=local.max_array_items,
        )
        spec = _spec(
            providers,
            model,
            provider=LOCAL_PROVIDER_NAME,
            base_url=UNSTARTED_BASE_URL,
            api_key=SecretStr(LOCAL_API_KEY),
            completions_path="/v1/chat/completions",
            limits=limits,
            structured_output=local.structured_output,
            headers={},
            max_tokens=local.max_tokens,
            local=model_spec,
        )
        specs.append((spec, key))
    require_local_runtime()  # a model-path typo is reported first: it needs no install to fix
    return specs


def judge_specs(settings: RagasSettings) -> list[JudgeSpec]:
    """Every judge the settings declare, in YAML order.

    The embedded ``local`` provider's judges (when ``providers.local.enabled``) come after
    the openai-compatible ones; an enabled local provider with no ``chat-models`` has one
    judge, ``smollm2-135m`` on the bundled model (or the GGUF's file name on another).

    Raises:
        ConfigError: the same judge id twice (give one an ``alias``), a ``completions-path``
            the OpenAI client cannot reach, ``default-provider`` models without
            ``spring.ai.openai.base-url`` / ``api-key``, or a local ``model-path`` that does
            not exist.
        MissingExtraError: the local provider is enabled without the ``[local]`` extra.
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

    if providers.local.enabled:
        for spec, key in _local_specs(settings):
            add(spec, key)
    return specs


def build_judges(
    specs: Sequence[JudgeSpec], *, local_models: LocalModelPool | None = None
) -> list[JudgeModel]:
    """One judge per spec; no network traffic happens and no model is loaded here.

    A spec with ``local`` set becomes a :class:`~ragas_boot.chat.local.LocalJudge` on the
    ``local_models`` server of its model (started on the judge's first use); every other spec
    becomes an :class:`OpenAICompatibleJudge`.

    Raises:
        ValueError: local specs without a ``local_models`` pool to own their servers.
        MissingExtraError: local specs without the ``[local]`` extra.
    """
    judges: list[JudgeModel] = []
    for spec in specs:
        if spec.local is None:
            judges.append(OpenAICompatibleJudge(spec=spec))
            continue
        if local_models is None:
            raise ValueError(
                f"judge '{spec.id}' runs on the embedded local model: pass "
                "local_models=LocalModelPool() (and close it) to own its server"
            )
        judges.append(LocalJudge(spec=spec, server=local_models.server(spec.local, spec.model)))
    return judges
