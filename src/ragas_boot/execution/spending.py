"""What a run's judge calls cost, and the spend cap that stops sending them.

Every response that reports usage is billed (answers, invalid answers that were re-asked,
error bodies with a ``usage`` block); a judge with a price turns its billed tokens into a
cost. A :class:`SpendMeter` adds those costs up while a run goes on. With a cap, each
attempt first *reserves* its worst case (:func:`worst_case_cost`: the prompt's estimated
tokens plus the judge's ``max-tokens`` of output, at its price) and is refused before it is
sent (:class:`~ragas_boot.errors.BudgetExceededError`) once what was spent plus what is
reserved reaches the cap; when the answer comes, its reservation is released and its real
cost counted. So calls in flight can no longer run a run past its cap: a run spends at most
the cap plus one call's worst case (the last call admitted below the cap), as long as
providers bill no more than the estimate (prompt tokens are estimated as characters / 4).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ragas_boot.chat.specs import LocalSpec
from ragas_boot.config.settings import PriceSettings
from ragas_boot.errors import BudgetExceededError

if TYPE_CHECKING:
    from ragas_boot.chat.embeddings.model import EmbeddingModel
    from ragas_boot.chat.judge import JudgeModel

__all__ = ["CHARS_PER_TOKEN", "SpendMeter", "cap_coverage", "estimate_tokens", "worst_case_cost"]

log = logging.getLogger(__name__)

#: Characters per token of prompt estimates (OpenAI's rule of thumb for English text).
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Tokens of ``text``, estimated as characters / :data:`CHARS_PER_TOKEN` (no tokenizer of
    the judges' models is known offline)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def worst_case_cost(prompt_tokens: int, max_output_tokens: int, price: PriceSettings) -> float:
    """What one call costs at most: its prompt and a full ``max-tokens`` answer at ``price``."""
    return price.cost(input_tokens=prompt_tokens, output_tokens=max_output_tokens)


def cap_coverage(
    judges: Iterable[JudgeModel], embedding_models: Iterable[EmbeddingModel] = ()
) -> tuple[list[str], list[str]]:
    """Which of a run's models a spend cap counts, as ``(counted, not counted)`` ids.

    A judge is counted when it has a price (its billed tokens are priced against the cap) or
    is the embedded local model (it costs nothing). An embedding model has no price, so only
    the local one counts. The calls of the others are sent and never counted: a cap over
    none of a run's models cannot stop it at all.
    """
    counted: list[str] = []
    uncounted: list[str] = []
    for judge in judges:
        spec = judge.spec
        free_or_priced = spec.price is not None or isinstance(spec, LocalSpec)
        (counted if free_or_priced else uncounted).append(judge.id)
    for model in embedding_models:
        (counted if model.spec.local else uncounted).append(model.id)
    return counted, uncounted


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
        self._reserved = 0.0
        self._refused = 0
        self._lock = threading.Lock()
        self._uncounted: set[str] = set()

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

    @property
    def reserved(self) -> float:
        """The worst cases of the calls in flight (released as their answers come)."""
        with self._lock:
            return self._reserved

    def reserve(self, judge_id: str, worst_case: float = 0.0) -> float:
        """Let a call be sent, holding ``worst_case`` of the cap until :meth:`release`; or
        refuse it. Returns what was reserved (pass it to :meth:`release`).

        A call is let through while what was spent plus what is reserved is below the cap,
        so the cap is passed by at most the worst case of the last call let through.

        Raises:
            BudgetExceededError: the cap is reached, counting the calls in flight.
        """
        with self._lock:
            if self._max_cost is None:
                return 0.0
            if self._spent + self._reserved < self._max_cost:
                self._reserved += worst_case
                return worst_case
            self._refused += 1
            # One snapshot: the error's spent and reserved are what the refusal saw.
            spent, reserved = self._spent, self._reserved
        raise BudgetExceededError(
            judge_id=judge_id, max_cost=self._max_cost, spent=spent, reserved=reserved
        )

    def uncounted(self, judge_id: str) -> None:
        """Say once, before its first call, that a judge's calls escape the cap (it has no
        price): a cap that cannot be enforced must not look like one that is."""
        with self._lock:
            if self._max_cost is None or judge_id in self._uncounted:
                return
            self._uncounted.add(judge_id)
        log.warning(
            "judge '%s' has no price: its calls are sent and not counted against the spend cap "
            "of %g (give its chat model a price to cap them)",
            judge_id,
            self._max_cost,
        )

    def release(self, reserved: float) -> None:
        """The call that reserved ``reserved`` is over (its real cost went to :meth:`add`)."""
        if reserved:
            with self._lock:
                self._reserved = max(0.0, self._reserved - reserved)
