"""What a judge is: the :class:`JudgeModel` protocol and the values it passes around."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ragas_boot.config.settings import (
    PriceSettings,
    RateLimitStrategy,
    StructuredOutputMode,
    Transport,
)

__all__ = [
    "DEFAULT_MAX_PROMPT_TOKENS",
    "JudgeAnswer",
    "JudgeModel",
    "JudgeSpec",
    "LangChainModelSpec",
    "LocalModelSpec",
    "ProviderLimits",
    "TlsFiles",
    "TokenUsage",
    "no_tokens",
]

OutputT = TypeVar("OutputT", bound=BaseModel)
OutputT_co = TypeVar("OutputT_co", bound=BaseModel, covariant=True)

#: The largest prompt sent to a judge whose context is not known (estimated tokens): room for
#: every judge prompt of the built-in metrics on real conversations, and a bound on what one
#: amplified sample can cost (about $0.08 at $2.50 per million prompt tokens).
DEFAULT_MAX_PROMPT_TOKENS = 32_768


class TokenUsage(BaseModel):
    """Tokens one call (or a sum of calls) used, as the provider reported them."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")
    total_tokens: int = Field(default=0, ge=0, description="Prompt plus completion tokens.")
    cached_input_tokens: int = Field(
        default=0, ge=0, description="Of the prompt tokens, those read from the provider's cache."
    )

    def __add__(self, other: TokenUsage) -> TokenUsage:
        # A zero side gives the other one back (both are frozen): a run keeps every judge
        # call's answered and billed usage, usually the same sum, now one object.
        if not other._any():
            return self
        if not self._any():
            return other
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
        )

    def _any(self) -> bool:
        return bool(
            self.total_tokens or self.input_tokens or self.output_tokens or self.cached_input_tokens
        )

    def cost(self, price: PriceSettings) -> float:
        """What these tokens cost at ``price``."""
        return price.cost(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cached_input_tokens=self.cached_input_tokens,
        )


_NO_TOKENS = TokenUsage()


def no_tokens() -> TokenUsage:
    """Zero tokens, one shared instance (TokenUsage is frozen): the default usage of the many
    judge calls and results that have none (a zero of its own costs ~0.5 KiB each)."""
    return _NO_TOKENS


@dataclass(frozen=True, slots=True)
class JudgeAnswer(Generic[OutputT_co]):
    """A judge's validated answer to one structured call.

    Attributes:
        value: the parsed, validated output model.
        raw_text: the answer exactly as received (message content or tool-call arguments).
        usage: tokens the call used.
        latency_s: seconds from sending the request to having the parsed answer.
    """

    value: OutputT_co
    raw_text: str
    usage: TokenUsage
    latency_s: float


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
    """A LangChain chat class and how to build it: the judge makes one instance per event loop.

    Attributes:
        class_path: dotted path of a ``BaseChatModel`` subclass.
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


@dataclass(frozen=True, slots=True)
class JudgeSpec:
    """Everything needed to build one judge: one (provider, chat model) pair.

    Attributes:
        id: judge id (the alias, else the model id); unique across providers.
        model: model id sent to the provider.
        provider: provider name.
        base_url: provider base URL as configured (Spring AI form, no ``/v1``); shown in
            reprs with its credentials masked.
        completions_path: path appended to ``base_url`` for chat completions.
        api_key: the key, kept secret.
        temperature: sampling temperature.
        max_tokens: completion token cap.
        top_p: nucleus sampling.
        structured_output: how JSON is asked for.
        limits: rate limit, concurrency and timeout shared with the provider's other judges.
        headers: extra HTTP headers (values are secrets: never in reprs).
        local: for a judge of the embedded ``local`` provider, the model its server loads;
            ``base_url`` is then only known once that server has started.
        max_answer_chars: longest answer read and kept; a longer one is cut (visibly) and
            fails the call.
        langchain: for a judge on a LangChain chat class (a ``langchain`` provider, GigaChat,
            a model registered in code), the class and its arguments.
        json_object_schema: in ``json_object`` mode, send the schema beside the type too.
        transport: how an OpenAI-compatible judge sends calls (its own lean client, or
            langchain-openai's ``ChatOpenAI``); other judges ignore it.
        price: price per million tokens; ``None``: reports show this judge's tokens only.
        tls: the provider's CA bundle and client certificate (``ca-bundle``, ``client-cert``,
            ``client-key``), for HTTPS calls of OpenAI-compatible judges on both transports.
        max_prompt_tokens: largest prompt (estimated tokens, format block included) the
            executor sends to this judge; a larger one fails unsent.
        seed: sampling seed sent with every request (OpenAI's ``seed``) and part of the
            response cache's key; ``None`` sends none (judges). Set on the copies that play
            a model role (``execution/roles.py``).
    """

    id: str
    model: str
    provider: str
    base_url: str = field(repr=False)
    api_key: SecretStr = field(repr=False)
    completions_path: str = "/v1/chat/completions"
    temperature: float = 0.0
    max_tokens: int = 1000
    top_p: float = 1.0
    structured_output: StructuredOutputMode = StructuredOutputMode.PROMPT
    limits: ProviderLimits = field(default_factory=lambda: ProviderLimits(provider="default"))
    headers: dict[str, SecretStr] = field(default_factory=dict, repr=False)
    local: LocalModelSpec | None = None
    max_answer_chars: int = 100_000
    langchain: LangChainModelSpec | None = None
    json_object_schema: bool = True
    transport: Transport = Transport.DIRECT
    price: PriceSettings | None = None
    tls: TlsFiles = field(default_factory=TlsFiles)
    max_prompt_tokens: int = DEFAULT_MAX_PROMPT_TOKENS
    seed: int | None = None

    def __post_init__(self) -> None:
        # Modes given by name ("direct", "JSON_SCHEMA"), as YAML gives them, become the enum
        # members the transports compare by identity: a spec built by hand with the string
        # "direct" otherwise quietly took the langchain transport.
        for name, kind in (("transport", Transport), ("structured_output", StructuredOutputMode)):
            value = getattr(self, name)
            if not isinstance(value, kind):
                object.__setattr__(self, name, kind(value))


@runtime_checkable
class JudgeModel(Protocol):
    """A chat model that answers a prompt with an instance of a pydantic output model.

    A judge makes exactly one attempt per call; retries, rate limits and timeouts belong to
    the executor. It may be called from any event loop.
    """

    @property
    def id(self) -> str:
        """Judge id: unique, used by metric configs, results and reports."""
        ...

    @property
    def provider(self) -> str:
        """Name of the provider the judge belongs to."""
        ...

    @property
    def spec(self) -> JudgeSpec:
        """The settings the judge was built from."""
        ...

    def prepare(self) -> None:
        """Make what the first call in the running loop needs (client, lazy imports).

        The executor calls it before timing a step, so one-off set-up cost is never counted
        as a judge's latency.
        """
        ...

    async def ainvoke_structured(
        self, prompt: str, output_model: type[OutputT]
    ) -> JudgeAnswer[OutputT]:
        """Send one prompt; return the validated answer.

        Raises:
            JudgeHTTPError: the server answered with an error status.
            JudgeTimeoutError: no answer in time.
            JudgeConnectionError: the server could not be reached.
            JudgeOutputError: the answer is empty, not JSON, or does not fit ``output_model``.
        """
        ...

    async def aclose(self) -> None:
        """Close the judge's HTTP clients."""
        ...
