"""What the specs of every provider share: the provider names, unique ids, the limits and TLS
files a provider's judges and embedding models take, and the options every judge has."""

from __future__ import annotations

import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

from ragas_boot.chat.factory.prices import judge_prices
from ragas_boot.chat.openai.tls import check_tls_files
from ragas_boot.chat.specs import DEFAULT_MAX_PROMPT_TOKENS, BatchSpec, ProviderLimits, TlsFiles
from ragas_boot.config.settings import (
    BatchSettings,
    ChatModelSettings,
    ExternalStarterSettings,
    HedgingSettings,
    OpenAICompatibleProviderSettings,
    ProviderBatchSettings,
    ProvidersSettings,
    RateLimitSettings,
    StructuredOutputMode,
)
from ragas_boot.errors import ConfigError

__all__ = [
    "DEFAULT_PROVIDER_NAME",
    "GIGACHAT_PROVIDER_NAME",
    "LOCAL_PROVIDER_NAME",
    "PREFIX",
    "UniqueIds",
    "batch_spec",
    "find_starter",
    "judge_fields",
    "only_openai_compatible",
    "provider_limits",
    "provider_tls",
    "resolve_limits",
    "starter_limits",
]

#: Provider name of the judges declared under ``default-provider`` (Java's bucket key).
DEFAULT_PROVIDER_NAME: Final = "default"
#: Provider name of the embedded local judges (``providers.local``).
LOCAL_PROVIDER_NAME: Final = "local"
#: Provider name (and ``external-starters`` key) of the judges of ``spring.ai.gigachat``.
GIGACHAT_PROVIDER_NAME: Final = "gigachat"
#: Where the providers are declared.
PREFIX: Final = "spring.ai.ragas.providers"


class UniqueIds:
    """Where each id of one kind was declared; declaring one twice is a start-up error.

    Args:
        what: the kind of id, for the message (``judge``, ``embedding model``).
    """

    def __init__(self, what: str) -> None:
        self._what = what
        self._declared_at: dict[str, str] = {}

    def claim(self, id: str, key: str) -> None:
        """Record that ``id`` is declared at the YAML ``key``.

        Raises:
            ConfigError: ``id`` was declared before (names both keys; hints at ``alias``).
        """
        if id in self._declared_at:
            raise ConfigError(
                f"{self._what} id '{id}' is declared twice (also at {self._declared_at[id]})",
                key=key,
                hint="Give one of them an 'alias' so results can tell them apart",
            )
        self._declared_at[id] = key


def resolve_limits(
    providers: ProvidersSettings,
    name: str,
    rate_limit: RateLimitSettings | None,
    *,
    max_concurrency: int | None = None,
    timeout: timedelta | None = None,
    hedging: HedgingSettings | None = None,
) -> ProviderLimits:
    """A provider's limits: its own settings, else the global ``rate-limit.default-*`` ones."""
    hedge = hedging or HedgingSettings()
    hedge_on = hedge.enabled if hedge.enabled is not None else providers.hedging.enabled
    hedge_after = hedge.delay if hedge.delay is not None else providers.hedging.delay
    defaults = providers.rate_limit
    own = rate_limit or RateLimitSettings()
    rps = own.rps if own.rps is not None else defaults.default_rps
    shared = own.shared if own.shared is not None else defaults.default_shared
    shared_file = None
    if shared:
        # One file per machine by default: every process that shares a provider's limit must
        # name the same file, whatever its working directory.
        shared_file = Path(
            own.shared_file
            or defaults.shared_file
            or Path(tempfile.gettempdir()) / "ragas-boot-rate-limits.sqlite3"
        ).expanduser()
    return ProviderLimits(
        provider=name,
        rps=rps if rps and rps > 0 else None,
        strategy=own.strategy or defaults.default_strategy,
        wait_timeout=own.timeout if own.timeout is not None else defaults.default_timeout,
        max_concurrency=max_concurrency or providers.max_concurrency,
        call_timeout=timeout or providers.timeout,
        failure_threshold=providers.circuit_breaker.failure_threshold,
        open_for=providers.circuit_breaker.open_for,
        shared_file=shared_file,
        hedge=bool(hedge_on),
        hedge_after=hedge_after,
    )


def provider_limits(
    providers: ProvidersSettings, provider: OpenAICompatibleProviderSettings
) -> ProviderLimits:
    """The limits of an openai-compatible provider (its judges and embedding models)."""
    return resolve_limits(
        providers,
        provider.name,
        provider.rate_limit,
        max_concurrency=provider.max_concurrency,
        timeout=provider.timeout,
        hedging=provider.hedging,
    )


def find_starter(providers: ProvidersSettings, name: str) -> ExternalStarterSettings | None:
    """``external-starters.<name>``: the exact key, else case-insensitively (as Java)."""
    starters = providers.external_starters
    if name in starters:
        return starters[name]
    lowered = {key.lower(): value for key, value in starters.items()}
    return lowered.get(name.lower())


def starter_limits(providers: ProvidersSettings, name: str) -> ProviderLimits:
    """The limits of a provider whose models come from a starter's bean (GigaChat, a
    registered chat model): ``external-starters.<name>``'s own, else the global defaults.

    Its judges and embedding models take these, so they share one rate limit and concurrency.
    """
    starter = find_starter(providers, name)
    return resolve_limits(
        providers,
        name,
        starter.rate_limit if starter else None,
        max_concurrency=starter.max_concurrency if starter else None,
        timeout=starter.timeout if starter else None,
    )


def provider_tls(provider: OpenAICompatibleProviderSettings, key: str) -> TlsFiles:
    """The provider's ``ca-bundle``, ``client-cert`` and ``client-key`` (``key``: the
    provider's YAML key, for errors).

    Raises:
        ConfigError: a file is missing or is not PEM (named by its key), whatever the
            ``base-url``'s scheme: the files are loaded now, not on the first call, and a
            garbage file beside an ``http://`` URL is a mistake too, found before it turns
            ``https://``.
    """
    tls = TlsFiles(
        ca_bundle=provider.ca_bundle,
        client_cert=provider.client_cert,
        client_key=provider.client_key,
    )
    check_tls_files(
        tls,
        owner=f"provider '{provider.name}'",
        ca_key=f"{key}.ca-bundle",
        cert_key=f"{key}.client-cert",
    )
    return tls


def judge_fields(
    providers: ProvidersSettings,
    model: ChatModelSettings,
    *,
    provider: str,
    limits: ProviderLimits,
    structured_output: StructuredOutputMode | None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    max_prompt_tokens: int | None = None,
    context_tokens: int | None = None,
    base_url: str = "",
    catalog: bool = True,
    batch_discount: float | None = None,
) -> dict[str, Any]:
    """What every judge's spec holds but where it is reached (the
    :class:`~ragas_boot.chat.specs.JudgeSpec` fields but ``base_url`` and ``api_key``): the
    model's own options over the provider's (``max_tokens``, ``temperature``, ``top_p``, a
    ``max_prompt_tokens``), over ``default-options``.

    Args:
        context_tokens: the model's own context, when known (a local model's ``n-ctx``): the
            prompt bound when none is set.
        base_url: where the provider answers (finds it in the price catalog).
        catalog: whether the price catalog may price the model (``providers.price-catalog``
            too); false for the embedded local model.
        batch_discount: for a judge that sends batches, the share of the price its batch
            calls are billed at when neither ``batch-price`` nor the catalog says; ``None``
            for the others.
    """
    defaults = providers.default_options
    options = model.options
    if max_tokens is None:
        max_tokens = defaults.max_tokens
    prompt_cap = model.max_prompt_tokens or max_prompt_tokens or providers.max_prompt_tokens
    if prompt_cap is None:
        # The model's own context is known: a prompt beyond it cannot be read at all.
        prompt_cap = context_tokens
    if temperature is None:
        temperature = defaults.temperature
    if top_p is None:
        top_p = defaults.top_p
    price, batch_price, price_source = judge_prices(
        model,
        provider=provider,
        base_url=base_url,
        catalog=catalog and providers.price_catalog,
        batch_discount=batch_discount,
    )
    return {
        "id": model.judge_id,
        "model": model.id,
        "provider": provider,
        "temperature": options.temperature if options.temperature is not None else temperature,
        "max_tokens": options.max_tokens if options.max_tokens is not None else max_tokens,
        "top_p": options.top_p if options.top_p is not None else top_p,
        "structured_output": structured_output or providers.structured_output,
        "limits": limits,
        "max_answer_chars": providers.max_answer_chars,
        "price": price,
        "max_prompt_tokens": prompt_cap or DEFAULT_MAX_PROMPT_TOKENS,
        "batch_price": batch_price,
        "price_source": price_source,
    }


def batch_spec(defaults: BatchSettings, own: ProviderBatchSettings | None) -> BatchSpec:
    """A provider's batch keys over ``providers.batch``'s, resolved."""

    def pick(name: str) -> Any:
        value = getattr(own, name) if own is not None else None
        return value if value is not None else getattr(defaults, name)

    return BatchSpec(
        min_size=pick("min_size"),
        poll_interval=pick("poll_interval"),
        max_poll_interval=pick("max_poll_interval"),
        timeout=pick("timeout"),
        completion_window=pick("completion_window"),
        max_requests=pick("max_requests"),
        max_file_bytes=pick("max_file_bytes"),
        quiet_period=pick("quiet_period"),
        retry_synchronously=pick("retry_synchronously"),
    )


def only_openai_compatible(model: ChatModelSettings, key: str) -> None:
    """Refuse the keys only an OpenAI-compatible provider's chat model takes.

    Raises:
        ConfigError: ``transport`` or ``batch-price`` is set (named by its key).
    """
    for name, value in (("transport", model.transport), ("batch-price", model.batch_price)):
        if value is not None:
            raise ConfigError(
                f"{name} is set on a model of a provider that is not OpenAI-compatible",
                key=f"{key}.{name}",
                hint="Only openai-compatible (and default-provider) models choose a transport "
                "or have a batch price; remove it",
            )
