"""How long a generator keeps asking, and what it has spent.

The cost: a generator makes model calls until it has kept ``count`` cases reaching
``min_coverage`` of its coverage table, or until ``max_calls`` calls (every kind, response-cache
answers included, so that a replay from the cache stops where the first run stopped and writes
the same file) or ``max_cost`` (the spend meter's cap, billed calls only) are spent. Every call
goes through :meth:`CallMeter.record` under its kind, which is all the report's call figures
come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragas_boot.execution.results import JudgeCall
from ragas_boot.execution.spending import SpendMeter
from ragas_boot.generation.report import CALL_KINDS, CallKind, CallTally, StopReason

__all__ = ["DEFAULT_CALLS_PER_CASE", "CallMeter", "Coverage", "GenerationBudget"]

#: ``max_calls`` when none is given: this many calls per case asked for (a generation and a
#: vote each, with room for rejected candidates and re-asks), so a model answering garbage
#: stops instead of running on.
DEFAULT_CALLS_PER_CASE = 6


@dataclass(frozen=True, slots=True)
class GenerationBudget:
    """When a generator stops.

    Attributes:
        count: cases to keep.
        min_coverage: share of coverage values (0..1) that kept cases must reach before the
            generator stops with ``count`` kept; it goes on past ``count`` until then.
        max_calls: model calls at most (cache answers included); default
            :data:`DEFAULT_CALLS_PER_CASE` per case asked for.
        max_cost: spend cap in the models' price currency (billed calls only); None: none.

    Raises:
        ValueError: a bound is out of range.
    """

    count: int
    min_coverage: float = 0.0
    max_calls: int | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"count must be at least 1, got {self.count}")
        if not 0.0 <= self.min_coverage <= 1.0:
            raise ValueError(f"min_coverage must be within 0..1, got {self.min_coverage}")
        if self.max_calls is not None and self.max_calls < 1:
            raise ValueError(f"max_calls must be at least 1, got {self.max_calls}")
        if self.max_cost is not None and not self.max_cost > 0:
            raise ValueError(f"max_cost must be above 0, got {self.max_cost}")

    @property
    def call_limit(self) -> int:
        """``max_calls``, else :data:`DEFAULT_CALLS_PER_CASE` per case asked for."""
        return self.max_calls if self.max_calls is not None else DEFAULT_CALLS_PER_CASE * self.count


class Coverage:
    """Kept cases per value of each group; values declared up front count 0 until reached.

    Args:
        targets: the values to reach, by group (``{"tool": ["get_weather", ...]}``).
    """

    def __init__(self, targets: dict[str, list[str]] | None = None) -> None:
        self._table: dict[str, dict[str, int]] = {
            group: dict.fromkeys(values, 0) for group, values in (targets or {}).items()
        }

    def add(self, group: str, value: str) -> None:
        """Count one kept case for ``value`` of ``group`` (an undeclared value is added)."""
        values = self._table.setdefault(group, {})
        values[value] = values.get(value, 0) + 1

    def share(self) -> float:
        """Share of declared values reached (1.0 when nothing is declared)."""
        cells = [count for values in self._table.values() for count in values.values()]
        return sum(1 for count in cells if count) / len(cells) if cells else 1.0

    def missing(self) -> list[tuple[str, str]]:
        """``(group, value)`` of each value no kept case reaches, in declaration order."""
        return [
            (group, value)
            for group, values in self._table.items()
            for value, count in values.items()
            if not count
        ]

    def table(self) -> dict[str, dict[str, int]]:
        """A copy of the table, for the report."""
        return {group: dict(values) for group, values in self._table.items()}


class CallMeter:
    """Counts a generator's model calls by kind and says when the budget is spent.

    Args:
        budget: the budget.
        spend: the spend meter the executor bills to (its cap is ``budget.max_cost``); a
            fresh one when not given.
    """

    def __init__(self, budget: GenerationBudget, spend: SpendMeter | None = None) -> None:
        self._budget = budget
        self._spend = spend if spend is not None else SpendMeter(max_cost=budget.max_cost)
        self._tallies: dict[CallKind, CallTally] = {kind: CallTally() for kind in CALL_KINDS}

    @property
    def budget(self) -> GenerationBudget:
        """The budget."""
        return self._budget

    @property
    def spend(self) -> SpendMeter:
        """The spend meter to bill calls to (``executor.metered(meter.spend)``)."""
        return self._spend

    @property
    def calls(self) -> int:
        """Calls made so far, every kind."""
        return sum(tally.calls for tally in self._tallies.values())

    @property
    def requests(self) -> int:
        """HTTP requests sent so far, every kind."""
        return sum(tally.requests for tally in self._tallies.values())

    def record(self, kind: CallKind, call: JudgeCall) -> None:
        """Count one model call under ``kind``."""
        billed = call.billed_usage
        self._tallies[kind] = self._tallies[kind] + CallTally(
            calls=1,
            requests=0 if call.cache == "hit" else call.attempts,
            cached=1 if call.cache == "hit" else 0,
            failed=0 if call.ok else 1,
            input_tokens=billed.input_tokens,
            output_tokens=billed.output_tokens,
            cost=call.cost,
        )

    def stop_reason(self, kept: int, coverage: float) -> StopReason | None:
        """Why the generator stops now, or ``None`` to go on.

        Args:
            kept: cases kept so far.
            coverage: the share of coverage values reached (:meth:`Coverage.share`).
        """
        if kept >= self._budget.count and coverage >= self._budget.min_coverage:
            return "complete"
        if self.calls >= self._budget.call_limit:
            return "max_calls"
        if self._spend.exhausted:
            return "max_cost"
        return None

    def room(self, calls: int) -> bool:
        """Whether ``calls`` more calls fit in ``max_calls`` (a candidate's checks are not
        started when its votes would overrun the budget)."""
        return self.calls + calls <= self._budget.call_limit

    def tallies(self) -> dict[str, CallTally]:
        """Calls by kind, for the report (kinds with no call left out)."""
        return {kind: tally for kind, tally in self._tallies.items() if tally.calls}
