"""What a judge or an embedding model is built from: one spec per kind of provider.

:class:`JudgeSpec` holds what every judge has (id, model, provider, sampling options,
structured output, limits, price, bounds; where it is reached and with which key); each kind
adds its own: :class:`OpenAICompatibleSpec` (paths, headers, TLS, transport),
:class:`LangChainSpec` (a chat class and its arguments) and :class:`LocalSpec` (a GGUF model
and its llama.cpp settings). A :class:`JudgeSpec` made by hand, as it is, is an
OpenAI-compatible judge with the defaults (:meth:`OpenAICompatibleSpec.of`), or the spec of a
LangChain chat model given as an instance (:meth:`LangChainSpec.of`). Embedding models
have :class:`EmbeddingSpec`. ``chat/factory/`` makes them from the settings.

Every spec lists its secrets (:meth:`JudgeSpec.secret_values`): what ``chat/failures.scrub``
masks in whatever a provider sends back.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from ragas_boot.config.settings import (
    PriceSettings,
    PriceSource,
    RateLimitStrategy,
    StructuredOutputMode,
    Transport,
)

__all__ = [
    "BATCH_ADMISSION",
    "DEFAULT_MAX_PROMPT_TOKENS",
    "BatchSpec",
    "EmbeddingSpec",
    "JudgeSpec",
    "LangChainModelSpec",
    "LangChainSpec",
    "LocalModelSpec",
    "LocalSpec",
    "OpenAICompatibleSpec",
    "ProviderLimits",
    "TlsFiles",
]

#: The largest prompt sent to a judge whose context is not known (estimated tokens): room for
#: every judge prompt of the built-in metrics on real conversations, and a bound on what one
#: amplified sample can cost (about $0.08 at $2.50 per million prompt tokens).
DEFAULT_MAX_PROMPT_TOKENS = 32_768


@dataclass(frozen=True, slots=True)
class ProviderLimits:
    """The limits a provider's judges share (resolved from the provider's and global settings).

    Attributes:
        provider: provider name; judges with the same name share these limits.
        rps: requests per second; ``None`` means no rate limit.
        strategy: WAIT for a token or REJECT the call when none is left.
        wait_timeout: longest WAIT for a token; zero means forever.
        max_concurrency: calls in flight at once.
        call_timeout: per-attempt timeout of one HTTP call.
        failure_threshold: attempts in a row of one judge that time out, cannot connect or
            get a 5xx before its calls fail fast (its circuit opens); 0 = never.
        open_for: how long the circuit stays open before one probe is let through.
        shared_file: the SQLite file where the rate limit is shared with other processes on
            the machine (``rate-limit.shared``); ``None`` keeps it per process.
        hedge: send a second copy of an attempt still unanswered after ``hedge_after``.
        hedge_after: the delay before the copy; ``None`` = the provider's observed p95.
    """

    provider: str
    rps: float | None = None
    strategy: RateLimitStrategy = RateLimitStrategy.WAIT
    wait_timeout: timedelta = timedelta(0)
    max_concurrency: int = 16
    call_timeout: timedelta = timedelta(seconds=120)
    failure_threshold: int = 5
    open_for: timedelta = timedelta(seconds=30)
    shared_file: Path | None = None
    hedge: bool = False
    hedge_after: timedelta | None = None


#: Calls of one provider's batch judges in flight at once: as many as a run has ready (a batch
#: call waits hours in its batch, not on a connection; the batch file's own limits split them).
BATCH_ADMISSION = 1_000_000


@dataclass(frozen=True, slots=True)
class BatchSpec:
    """How a judge on ``transport: batch`` sends its calls through the provider's batch API
    (``providers.batch`` and the provider's own ``batch`` keys, resolved).

    Attributes:
        min_size: calls of one round below which they are sent synchronously (0: never).
        poll_interval: first wait between two status polls of a batch.
        max_poll_interval: longest wait between two polls (each wait doubles up to it).
        timeout: how long a batch may take before it is cancelled and its calls time out.
        completion_window: the ``completion_window`` sent with each batch.
        max_requests: requests per batch file at most.
        max_file_bytes: bytes per batch file at most.
        quiet_period: outside a dataset run, how long no new call must come before the
            calls collected are sent.
        retry_synchronously: a call that failed in a batch is sent again synchronously.
    """

    min_size: int = 0
    poll_interval: timedelta = timedelta(seconds=30)
    max_poll_interval: timedelta = timedelta(minutes=10)
    timeout: timedelta = timedelta(hours=25)
    completion_window: str = "24h"
    max_requests: int = 50_000
    max_file_bytes: int = 200 * 1024 * 1024
    quiet_period: timedelta = timedelta(seconds=1)
    retry_synchronously: bool = False


@dataclass(frozen=True, slots=True)
class LocalModelSpec:
    """A GGUF model the embedded local server loads; judges with equal specs share one server.

    Attributes:
        model_path: the GGUF file (checked to exist when the spec is made).
        n_ctx: context window in tokens.
        n_threads: CPU threads; ``None`` means half the logical CPUs.
        seed: sampling seed of requests that send none.
        chat_format: llama.cpp chat format; ``None`` means the GGUF's own template.
        max_string_length: in constrained answers, JSON strings without a ``maxLength`` are
            closed after this many characters; 0 means no cap.
        max_array_items: in constrained answers, JSON arrays without a ``maxItems`` are closed
            after this many items; 0 means no cap.
        decoder: greedy schema-constrained answers with ``"llguidance"`` or llama.cpp's
            ``"grammar"`` (see :class:`~ragas_boot.config.settings.LocalDecoder`).
        stop_loops: with llguidance, close a greedy answer that has started repeating itself.
    """

    model_path: Path
    n_ctx: int = 4096
    n_threads: int | None = None
    seed: int = 0
    chat_format: str | None = None
    max_string_length: int = 400
    max_array_items: int = 16
    decoder: str = "llguidance"
    stop_loops: bool = True


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """A provider's own TLS files, on top of the system trust store and certifi's bundle.

    Attributes:
        ca_bundle: a PEM file of extra CA certificates to trust (a company CA, a gateway's
            self-signed root); ``None``: the system store and certifi only.
        client_cert: a PEM client certificate (with its key, unless ``client_key`` is given)
            presented to gateways that ask for one (mutual TLS).
        client_key: the client certificate's PEM private key, when it is a separate file.
    """

    ca_bundle: str | None = None
    client_cert: str | None = None
    client_key: str | None = None


@dataclass(frozen=True, slots=True)
class LangChainModelSpec:
    """A LangChain class and how to build it: the judge makes one instance per event loop.

    Attributes:
        class_path: dotted path of a ``BaseChatModel`` (or ``Embeddings``) subclass.
        arguments: keyword arguments of the class (``SecretStr`` values are passed unwrapped;
            the model id and options are added by the judge).
        model_argument: the argument that takes the model id.
        extra: the pip extra that installs the class's package (named when it is missing).
    """

    class_path: str
    arguments: tuple[tuple[str, Any], ...] = ()
    model_argument: str = "model"
    extra: str | None = None

    def __repr__(self) -> str:
        names = ", ".join(name for name, _ in self.arguments)
        return f"LangChainModelSpec({self.class_path!r}, arguments=[{names}])"

    def secret_values(self) -> tuple[str, ...]:
        """The values of the secret arguments."""
        return tuple(
            value.get_secret_value() for _, value in self.arguments if isinstance(value, SecretStr)
        )


def _header_values(headers: dict[str, SecretStr]) -> tuple[str, ...]:
    return tuple(
        value.get_secret_value() if isinstance(value, SecretStr) else str(value)
        for value in headers.values()
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeSpec:
    """What every judge is built from, whatever reaches its model: one (provider, chat model).

    The kinds of provider add their own: :class:`OpenAICompatibleSpec`,
    :class:`LangChainSpec`, :class:`LocalSpec`. Made as it is (in a script, for the tool
    agent), it is an OpenAI-compatible judge with that kind's defaults
    (:meth:`OpenAICompatibleSpec.of`).

    Attributes:
        id: judge id (the alias, else the model id); unique across providers.
        model: model id sent to the provider.
        provider: provider name.
        base_url: where the model answers, as configured (Spring AI form, no ``/v1``); empty
            for a chat model given in code; shown in reprs with its credentials masked.
        api_key: the key, kept secret.
        temperature: sampling temperature.
        max_tokens: completion token cap.
        top_p: nucleus sampling.
        structured_output: how JSON is asked for.
        limits: rate limit, concurrency and timeout shared with the provider's other judges.
        max_answer_chars: longest answer read and kept; a longer one is cut (visibly) and
            fails the call.
        price: price per million tokens; ``None``: reports show this judge's tokens only.
        max_prompt_tokens: largest prompt (estimated tokens, format block included) the
            executor sends to this judge; a larger one fails unsent.
        batch_price: price per million tokens of the calls a provider's batch answered
            (``None``: :attr:`price`).
        price_source: where :attr:`price` and :attr:`batch_price` came from (the config or
            the price catalog); ``None`` for a judge without a price.
        seed: sampling seed sent with every request (OpenAI's ``seed``) and part of the
            response cache's key; ``None`` sends none (judges). Set on the copies that play
            a model role (``execution/roles.py``).
    """

    id: str
    model: str
    provider: str
    base_url: str = field(default="", repr=False)
    api_key: SecretStr = field(default_factory=lambda: SecretStr(""), repr=False)
    temperature: float = 0.0
    max_tokens: int = 1000
    top_p: float = 1.0
    structured_output: StructuredOutputMode = StructuredOutputMode.PROMPT
    limits: ProviderLimits = field(default_factory=lambda: ProviderLimits(provider="default"))
    max_answer_chars: int = 100_000
    price: PriceSettings | None = None
    max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS
    batch_price: PriceSettings | None = None
    price_source: PriceSource | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        # A mode given by name ("JSON_SCHEMA"), as YAML gives it, becomes the enum member the
        # transports compare by identity.
        _as_member(self, "structured_output", StructuredOutputMode)

    def secret_values(self) -> tuple[str, ...]:
        """Every secret the spec holds but its base URL's credentials (masked apart)."""
        return (self.api_key.get_secret_value(),)

    @property
    def sends_batches(self) -> bool:
        """Whether its calls go through a provider's batch API (``transport: batch``)."""
        return False

    @property
    def call_limits(self) -> ProviderLimits:
        """The limits each call is admitted under (the executor's gate and timeout): the
        provider's, but for a judge that sends batches."""
        return self.limits

    @property
    def call_price(self) -> PriceSettings | None:
        """The price a call is billed at unless it says otherwise: :attr:`batch_price` for a
        judge that sends batches (when it has one), else :attr:`price`."""
        if self.sends_batches and self.batch_price is not None:
            return self.batch_price
        return self.price


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAICompatibleSpec(JudgeSpec):
    """A judge on an OpenAI-compatible chat-completions endpoint (``openai-compatible``,
    ``default-provider``).

    Attributes:
        completions_path: path appended to ``base_url`` for chat completions.
        headers: extra HTTP headers (values are secrets: never in reprs).
        json_object_schema: in ``json_object`` mode, send the schema beside the type too.
        transport: how calls are sent (its own lean client, langchain-openai's
            ``ChatOpenAI``, or the provider's batch API).
        tls: the provider's CA bundle and client certificate (``ca-bundle``, ``client-cert``,
            ``client-key``), for HTTPS calls on both transports.
        proxied: whether calls go through the proxy the environment sets; false for the
            embedded local model's own endpoint on 127.0.0.1.
        batch: how batches are sent, on ``transport: batch``.
    """

    base_url: str = field(repr=False)
    api_key: SecretStr = field(repr=False)
    completions_path: str = "/v1/chat/completions"
    headers: dict[str, SecretStr] = field(default_factory=dict, repr=False)
    json_object_schema: bool = True
    transport: Transport = Transport.DIRECT
    tls: TlsFiles = field(default_factory=TlsFiles)
    proxied: bool = True
    batch: BatchSpec = field(default_factory=BatchSpec)

    def __post_init__(self) -> None:
        JudgeSpec.__post_init__(self)
        # "direct" given as a string otherwise quietly took the langchain transport.
        _as_member(self, "transport", Transport)

    def secret_values(self) -> tuple[str, ...]:
        """The API key and the header values."""
        return (self.api_key.get_secret_value(), *_header_values(self.headers))

    @property
    def sends_batches(self) -> bool:
        """Whether its calls go through the provider's batch API."""
        return self.transport is Transport.BATCH

    @property
    def call_limits(self) -> ProviderLimits:
        """The provider's limits; on ``transport: batch`` a gate of its own (the provider's
        name with `` (batch)``) with no rate limit, no concurrency cap to speak of
        (:data:`BATCH_ADMISSION`), no call timeout (the batch's ``timeout`` bounds it), no
        circuit breaker (a batch's failed lines come back all at once) and no hedging. The
        calls it sends synchronously (``min-size``, ``retry-synchronously``) keep
        :attr:`limits`' concurrency and timeout."""
        if self.transport is not Transport.BATCH:
            return self.limits
        return ProviderLimits(
            provider=f"{self.limits.provider} (batch)",
            max_concurrency=BATCH_ADMISSION,
            call_timeout=timedelta(0),
            failure_threshold=0,
        )

    @classmethod
    def of(cls, spec: JudgeSpec) -> OpenAICompatibleSpec:
        """``spec`` as an OpenAI-compatible judge's: itself, a plain :class:`JudgeSpec` with
        this kind's defaults, or a local judge's served endpoint (never proxied).

        Raises:
            TypeError: ``spec`` is a LangChain chat class's.
        """
        if isinstance(spec, OpenAICompatibleSpec):
            return spec
        if isinstance(spec, LangChainSpec):
            raise TypeError(
                f"judge '{spec.id}' runs on a LangChain chat class, not an OpenAI-compatible "
                "endpoint"
            )
        return cls(**_common_fields(spec), proxied=not isinstance(spec, LocalSpec))


@dataclass(frozen=True, slots=True, kw_only=True)
class LangChainSpec(JudgeSpec):
    """A judge on a LangChain chat class: a ``langchain`` provider, GigaChat, or a chat model
    given in code.

    ``base_url`` is the class's own (shown, never posted to by ragas-boot); ``api_key`` its
    first secret argument.

    Attributes:
        langchain: the class and its arguments; ``None`` for a chat model given in code.
    """

    langchain: LangChainModelSpec | None = None

    def secret_values(self) -> tuple[str, ...]:
        """The API key and the secret class arguments."""
        own = self.langchain.secret_values() if self.langchain is not None else ()
        return (self.api_key.get_secret_value(), *own)

    @classmethod
    def of(cls, spec: JudgeSpec) -> LangChainSpec:
        """``spec`` as a LangChain judge's: itself, or a plain :class:`JudgeSpec` with no
        class (for a chat model given as an instance).

        Raises:
            TypeError: ``spec`` is another kind's.
        """
        if isinstance(spec, LangChainSpec):
            return spec
        if type(spec) is not JudgeSpec:
            raise TypeError(
                f"judge '{spec.id}' has a spec of another kind ({type(spec).__name__}), not "
                "a LangChain chat class's"
            )
        return cls(**_common_fields(spec))


@dataclass(frozen=True, slots=True, kw_only=True)
class LocalSpec(JudgeSpec):
    """A judge of the embedded ``local`` provider: a GGUF model run in process.

    ``base_url`` is a placeholder until the model's endpoint is served (only the tool-suite
    agent needs one).

    Attributes:
        local: the model its server loads.
    """

    local: LocalModelSpec


@dataclass(frozen=True, slots=True)
class EmbeddingSpec:
    """Everything needed to build one embedding model.

    Attributes:
        id: the id results know the model by (alias, else model id); unique.
        model: model id sent to the provider.
        provider: provider name (shares rate limits and concurrency with its judges).
        base_url: provider base URL as configured (Spring AI form, no ``/v1``); shown in
            reprs with its credentials masked.
        api_key: the key, kept secret.
        embeddings_path: path appended to ``base_url`` for embedding calls.
        dimensions: the ``dimensions`` option sent, or ``None`` for the model's own size.
        limits: the provider's limits.
        headers: extra HTTP headers (values are secrets: never in reprs).
        local: whether this is the local provider's in-process model.
        tls: the provider's CA bundle and client certificate (as its judges use them).
        langchain: the LangChain ``Embeddings`` class and its arguments (GigaChat), or
            ``None`` for the OpenAI-compatible and local models.
    """

    id: str
    model: str
    provider: str
    base_url: str = field(repr=False)
    api_key: SecretStr = field(repr=False)
    embeddings_path: str = "/v1/embeddings"
    dimensions: int | None = None
    limits: ProviderLimits = field(default_factory=lambda: ProviderLimits(provider="default"))
    headers: dict[str, SecretStr] = field(default_factory=dict, repr=False)
    local: bool = False
    tls: TlsFiles = field(default_factory=TlsFiles)
    langchain: LangChainModelSpec | None = None

    def secret_values(self) -> tuple[str, ...]:
        """The API key, the header values and the secret class arguments."""
        own = self.langchain.secret_values() if self.langchain is not None else ()
        return (self.api_key.get_secret_value(), *_header_values(self.headers), *own)


def _common_fields(spec: JudgeSpec) -> dict[str, Any]:
    """What every judge's spec holds, of ``spec``."""
    return {item.name: getattr(spec, item.name) for item in dataclasses.fields(JudgeSpec)}


def _as_member(spec: object, name: str, kind: Any) -> None:
    value = getattr(spec, name)
    if not isinstance(value, kind):
        object.__setattr__(spec, name, kind(value))
