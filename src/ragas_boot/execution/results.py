"""What the executor hands back: each judge's outcome at each step, as frozen data."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot._trusted import trusted
from ragas_boot.chat.judge import TokenUsage, no_tokens

__all__ = ["BilledCall", "CacheOutcome", "CallSpend", "Exclusion", "JudgeCall", "StepRecord"]

#: What the response cache did for a call: answered it, was asked and had nothing, or was not
#: asked (cache off, or a judge it does not cover such as temperature above 0).
CacheOutcome = Literal["hit", "miss", "off"]


class JudgeCall(BaseModel):
    """One judge's outcome at one step: an answer or a failure, never both.

    ``latency_s`` counts only time spent in HTTP attempts; time waiting for a rate-limit
    token or a concurrency slot is ``wait_s``; backoff sleeps are in neither.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    judge_id: str = Field(description="The judge.")
    provider: str = Field(description="Its provider.")
    step: str = Field(description="Step name, e.g. CompareOutcome.")
    prompt: str = Field(description="The prompt the judge was sent (without format block).")
    ok: bool = Field(description="Whether a valid answer came back.")
    value: Any = Field(default=None, description="The parsed answer (a pydantic model) when ok.")
    raw_text: str | None = Field(default=None, description="The last raw answer received.")
    raw_attempts: list[str] = Field(
        default_factory=list, description="Every raw answer received, invalid ones included."
    )
    error_kind: str | None = Field(default=None, description="Failure kind when not ok.")
    error_message: str | None = Field(default=None, description="Failure message when not ok.")
    attempts: int = Field(default=0, description="HTTP attempts made (retries included).")
    latency_s: float = Field(default=0.0, description="Seconds spent in HTTP attempts.")
    wait_s: float = Field(default=0.0, description="Seconds waiting for rate limit/concurrency.")
    started_s: float = Field(default=0.0, description="Start, seconds after the step began.")
    usage: TokenUsage = Field(
        default_factory=no_tokens,
        description="Answered tokens: those of the answer used (none on a cache hit).",
    )
    billed_usage: TokenUsage = Field(
        default_factory=no_tokens,
        description="Billed tokens: every response that reported usage (re-asked invalid "
        "answers, retried attempts, error bodies with usage, a failed call's answers).",
    )
    cost: float | None = Field(
        default=None, description="What the billed tokens cost; None when the judge has no price."
    )
    cache: CacheOutcome = Field(
        default="off", description="hit (answered from the response cache), miss, or off."
    )
    saved_usage: TokenUsage = Field(
        default_factory=no_tokens,
        description="On a cache hit, the tokens the cached answer cost when first asked.",
    )
    saved_cost: float | None = Field(
        default=None,
        description="On a cache hit, what those tokens cost at the judge's price (None: the "
        "judge has no price).",
    )

    @property
    def cached(self) -> bool:
        """Whether the answer came from the response cache (no request was sent)."""
        return self.cache == "hit"


class StepRecord(BaseModel):
    """One step of a metric: the same question put to several judges at once."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Step name.")
    index: int = Field(description="0-based position among the metric's steps.")
    kind: str = Field(default="LLM", description="LLM or COMPUTE.")
    calls: list[JudgeCall] = Field(default_factory=list, description="One per judge, judge order.")
    duration_s: float = Field(default=0.0, description="Wall time of the step.")
    repeat: int = Field(
        default=0, description="Which repeat of the evaluation ran it (0-based; see repeat)."
    )

    @classmethod
    def computed(cls, name: str, index: int, duration_s: float = 0.0) -> StepRecord:
        """A step that asked no judge (a judge-less metric's), built without validation."""
        return trusted(
            cls,
            {
                "name": name,
                "index": index,
                "kind": "COMPUTE",
                "calls": [],
                "duration_s": duration_s,
                "repeat": 0,
            },
        )

    @property
    def successes(self) -> list[JudgeCall]:
        """Calls that produced an answer."""
        return [call for call in self.calls if call.ok]

    @property
    def failures(self) -> list[JudgeCall]:
        """Calls that did not."""
        return [call for call in self.calls if not call.ok]

    @property
    def usage(self) -> TokenUsage:
        """Answered tokens of every judge at this step."""
        total = TokenUsage()
        for call in self.calls:
            total = total + call.usage
        return total

    @property
    def billed_usage(self) -> TokenUsage:
        """Billed tokens of every judge at this step."""
        total = TokenUsage()
        for call in self.calls:
            total = total + call.billed_usage
        return total


class Exclusion(BaseModel):
    """A judge left out of a result, and why."""

    model_config = ConfigDict(frozen=True)

    judge_id: str = Field(description="The judge.")
    step: str = Field(description="The step it failed at.")
    kind: str = Field(description="Failure kind (timeout, rate_limited, invalid_output, ...).")
    message: str = Field(description="What went wrong.")

    @classmethod
    def from_call(cls, call: JudgeCall) -> Exclusion:
        """The exclusion a failed call stands for."""
        return cls(
            judge_id=call.judge_id,
            step=call.step,
            kind=call.error_kind or "error",
            message=call.error_message or "",
        )


class BilledCall(Protocol):
    """What :meth:`CallSpend.of` reads of a call: a :class:`JudgeCall`, or the slim record a
    spooled run keeps of one (``ragas_boot.runs.records.CallFacts``)."""

    @property
    def usage(self) -> TokenUsage: ...

    @property
    def billed_usage(self) -> TokenUsage: ...

    @property
    def cost(self) -> float | None: ...


@dataclass(frozen=True, slots=True)
class CallSpend:
    """What some judge calls used and cost, summed (see :meth:`of`).

    Attributes:
        usage: answered tokens (the answers that were used).
        billed_usage: billed tokens (every response that reported usage).
        cost: the cost of the calls of judges with a price; ``None`` when none had one.
        unpriced_tokens: billed tokens of calls whose judge has no price (not in ``cost``).
    """

    usage: TokenUsage
    billed_usage: TokenUsage
    cost: float | None
    unpriced_tokens: int

    @classmethod
    def of(cls, calls: Iterable[BilledCall]) -> CallSpend:
        """The sum over ``calls``, in order."""
        spend = cls(usage=TokenUsage(), billed_usage=TokenUsage(), cost=None, unpriced_tokens=0)
        for call in calls:
            spend = spend.plus(call)
        return spend

    def plus(self, call: BilledCall) -> CallSpend:
        """This spend and ``call``'s (a run's summaries add their calls one at a time)."""
        cost, unpriced = self.cost, self.unpriced_tokens
        if call.cost is not None:
            cost = (cost or 0.0) + call.cost
        else:
            unpriced += call.billed_usage.total_tokens
        return CallSpend(
            usage=self.usage + call.usage,
            billed_usage=self.billed_usage + call.billed_usage,
            cost=cost,
            unpriced_tokens=unpriced,
        )
