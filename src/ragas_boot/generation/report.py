"""What a generation run did: the cases kept, the candidates refused and why, what it spent.

One report for both generators (``generate suite``, ``generate testset``): the candidate is
kept as plain data whatever its shape, the rejection reason is a short code the generator
declares (the suite generator's are in :mod:`ragas_boot.generation.suite`), and coverage is a
table of groups and values each generator fills with its own keys (per tool and per enum
value of each argument; per document, single-hop and multi-hop). The renderers live in
:mod:`ragas_boot.reporting.generation`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CALL_KINDS",
    "AgentCheck",
    "CallKind",
    "CallTally",
    "GenerationReport",
    "Rejection",
    "StopReason",
]

#: What a model call was for: writing a candidate (``generation``), a model check of one
#: that is not a vote (``check``), a judge's vote on one (``judge_vote``).
CallKind = Literal["generation", "check", "judge_vote"]
CALL_KINDS: tuple[CallKind, ...] = ("generation", "check", "judge_vote")

#: Why the loop stopped: enough kept with the coverage asked for (``complete``), the call or
#: cost budget spent (``max_calls``, ``max_cost``), nothing left to ask (``exhausted``: a
#: generator with a finite source, such as traces or documents).
StopReason = Literal["complete", "max_calls", "max_cost", "exhausted"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CallTally(_Frozen):
    """Model calls of one kind (or of all kinds), as the executor made them."""

    calls: int = Field(default=0, ge=0, description="Calls made, response-cache answers included.")
    requests: int = Field(
        default=0, ge=0, description="HTTP requests sent (retries and re-asks included)."
    )
    cached: int = Field(default=0, ge=0, description="Calls the response cache answered.")
    failed: int = Field(default=0, ge=0, description="Calls that gave no valid answer.")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens billed.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens billed.")
    cost: float | None = Field(
        default=None, description="What the calls cost; None when no model has a price."
    )

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: CallTally) -> CallTally:
        cost = (
            None
            if self.cost is None and other.cost is None
            else (self.cost or 0.0) + (other.cost or 0.0)
        )
        return CallTally(
            calls=self.calls + other.calls,
            requests=self.requests + other.requests,
            cached=self.cached + other.cached,
            failed=self.failed + other.failed,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cost=cost,
        )


class Rejection(_Frozen):
    """A candidate that was not kept, with why."""

    reason: str = Field(
        description="Reason code (unknown_tool, invalid_arguments, missing_required, "
        "near_duplicate, judges_rejected, ...), the same for every candidate refused alike."
    )
    message: str = Field(description="What exactly was wrong, for people.")
    candidate: dict[str, Any] = Field(
        default_factory=dict, description="The candidate as the model wrote it."
    )
    attempt: int = Field(ge=0, description="The generation call that wrote it (0-based).")


class AgentCheck(_Frozen):
    """A kept case the agent under test failed when run once (``--validate-with-agent``):
    reported, never dropped."""

    case_id: str = Field(description="The kept case.")
    failures: list[str] = Field(description="What the agent did wrong, one line each.")


class GenerationReport(_Frozen):
    """A generation run: kept cases, rejected candidates with reasons, calls, cost, coverage."""

    kind: Literal["suite", "testset"] = Field(description="What was generated.")
    output: str | None = Field(default=None, description="The file written, if any.")
    requested: int = Field(ge=0, description="Cases asked for (--count).")
    kept: list[str] = Field(default_factory=list, description="Ids of the kept cases, in order.")
    review: list[str] = Field(
        default_factory=list,
        description="Kept cases marked for a person's review (taken from traces).",
    )
    rejected: list[Rejection] = Field(
        default_factory=list, description="Candidates not kept, each with its reason."
    )
    calls: dict[str, CallTally] = Field(
        default_factory=dict,
        description="Model calls by kind: generation, check, judge_vote.",
    )
    coverage: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="Kept cases per value of each group (tool → name → cases; tool.argument "
        "→ enum value → cases; document → file → cases; ...); a value no case reaches is 0.",
    )
    min_coverage: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Share of coverage values that had to be reached (--min-coverage).",
    )
    stop_reason: StopReason = Field(description="Why generation stopped.")
    generator: str | None = Field(default=None, description="The model that wrote candidates.")
    judges: list[str] = Field(default_factory=list, description="The judges that voted.")
    seed: int = Field(default=0, description="The generation's base seed.")
    agent_checks: list[AgentCheck] | None = Field(
        default=None,
        description="Kept cases the agent failed (--validate-with-agent); None when not run.",
    )
    agent_checked: int = Field(
        default=0, ge=0, description="Kept cases the agent was run on (--validate-with-agent)."
    )

    @property
    def kept_count(self) -> int:
        """Cases kept."""
        return len(self.kept)

    @property
    def complete(self) -> bool:
        """Whether as many cases were kept as asked for."""
        return len(self.kept) >= self.requested

    @property
    def rejected_by_reason(self) -> dict[str, int]:
        """Rejections counted by reason code, most frequent first (then by code)."""
        counts: dict[str, int] = {}
        for rejection in self.rejected:
            counts[rejection.reason] = counts.get(rejection.reason, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    @property
    def total(self) -> CallTally:
        """Every model call of the run."""
        total = CallTally()
        for tally in self.calls.values():
            total = total + tally
        return total

    @property
    def calls_per_kept_case(self) -> float | None:
        """Model calls (all kinds, cache answers included) per kept case."""
        return self.total.calls / len(self.kept) if self.kept else None

    @property
    def tokens_per_kept_case(self) -> float | None:
        """Tokens billed per kept case."""
        return self.total.tokens / len(self.kept) if self.kept else None

    @property
    def coverage_share(self) -> float:
        """Share of coverage values reached by at least one kept case (1.0 with none)."""
        cells = [count for values in self.coverage.values() for count in values.values()]
        return sum(1 for count in cells if count) / len(cells) if cells else 1.0

    @property
    def uncovered(self) -> list[str]:
        """``group=value`` of every coverage value no kept case reaches."""
        return [
            f"{group}={value}"
            for group, values in self.coverage.items()
            for value, count in values.items()
            if not count
        ]
