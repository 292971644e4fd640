"""What a judge is: the :class:`JudgeModel` protocol, the answer and token usage it gives back,
and :class:`ModelIdentity`, the id, provider and spec every judge and embedding model take from
their spec."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.specs import JudgeSpec
from ragas_boot.config.settings import PriceSettings

__all__ = [
    "JudgeAnswer",
    "JudgeModel",
    "ModelIdentity",
    "TokenUsage",
    "no_tokens",
]

OutputT = TypeVar("OutputT", bound=BaseModel)
OutputT_co = TypeVar("OutputT_co", bound=BaseModel, covariant=True)


class _Identified(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def provider(self) -> str: ...


SpecT_co = TypeVar("SpecT_co", bound=_Identified, covariant=True)


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
        batched: whether a provider batch answered it (billed at the judge's batch price).
    """

    value: OutputT_co
    raw_text: str
    usage: TokenUsage
    latency_s: float
    batched: bool = False


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


class ModelIdentity(Generic[SpecT_co]):
    """The id, provider and spec a judge or an embedding model takes from its spec, written
    once for all of them (set ``_spec`` in ``__init__``)."""

    __slots__ = ()

    _spec: SpecT_co

    @property
    def id(self) -> str:
        """The id results and reports know it by (unique, used by metric configs)."""
        return self._spec.id

    @property
    def provider(self) -> str:
        """Name of the provider it belongs to."""
        return self._spec.provider

    @property
    def spec(self) -> SpecT_co:
        """The settings it was built from."""
        return self._spec
