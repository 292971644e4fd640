"""What a run's judge calls cost, and the spend cap that stops sending them.

Every response that reports usage is billed (answers, invalid answers that were re-asked,
error bodies with a ``usage`` block); a judge with a price turns its billed tokens into a
cost. A :class:`SpendMeter` adds those costs up while a run goes on; with a cap, a call is
refused before it is sent (:class:`~ragas_boot.errors.BudgetExceededError`) once the run has
spent the cap. Calls already in flight when the cap is reached still finish and are billed,
so a run may end a little over its cap, never by more than the calls it had in flight.
"""

from __future__ import annotations

import math
import threading

from ragas_boot.errors import BudgetExceededError

__all__ = ["SpendMeter"]


class SpendMeter:
    """Adds up the cost of a run's judge calls; refuses new ones past ``max_cost``.

    Args:
        max_cost: the cap, in the judges' price currency; ``None`` counts without a cap.

    Raises:
        ValueError: ``max_cost`` is not a positive finite number.
    """

    def __init__(self, *, max_cost: float | None = None) -> None:
        if max_cost is not None and not (math.isfinite(max_cost) and max_cost > 0):
            raise ValueError(f"max_cost must be a positive number, got {max_cost!r}")
        self._max_cost = max_cost
        self._spent = 0.0
        self._refused = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SpendMeter(max_cost={self._max_cost!r}, spent={self.spent:.6g})"

    @property
    def max_cost(self) -> float | None:
        """The cap, or ``None``."""
        return self._max_cost

    @property
    def spent(self) -> float:
        """What the calls billed so far cost (judges without a price count 0)."""
        with self._lock:
            return self._spent

    @property
    def refused(self) -> int:
        """Calls refused because the cap was reached."""
        with self._lock:
            return self._refused

    @property
    def exhausted(self) -> bool:
        """Whether the cap is reached (never without a cap)."""
        with self._lock:
            return self._max_cost is not None and self._spent >= self._max_cost

    def add(self, cost: float | None) -> None:
        """Count the cost of one billed response (``None``: the judge has no price)."""
        if cost:
            with self._lock:
                self._spent += cost

    def admit(self, judge_id: str) -> None:
        """Let a call be sent, or refuse it.

        Raises:
            BudgetExceededError: the cap is reached.
        """
        with self._lock:
            if self._max_cost is None or self._spent < self._max_cost:
                return
            self._refused += 1
            spent = self._spent
        raise BudgetExceededError(judge_id=judge_id, max_cost=self._max_cost, spent=spent)
