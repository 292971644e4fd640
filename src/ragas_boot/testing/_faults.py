"""Injected faults: which share of a model's requests fails, and how, drawn from a seed."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ragas_boot.testing.records import FaultName
from ragas_boot.testing.replies import Reply

__all__ = ["FaultPlan"]


class FaultPlan:
    """The faults ``inject_faults`` set for a model: each request draws once from the plan's
    seeded random, so a sequential client sees the same faults on every run."""

    __slots__ = ("hang_seconds", "limits", "retry_after", "rng", "trickle_seconds")

    def __init__(
        self,
        *,
        rates: Sequence[tuple[FaultName, float]],
        retry_after: float,
        hang_seconds: float,
        trickle_seconds: float,
        seed: int,
    ) -> None:
        total = 0.0
        limits: list[tuple[float, FaultName]] = []
        for name, rate in rates:
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"fault rate for {name} must be within [0, 1], got {rate}")
            total += rate
            limits.append((total, name))
        if total > 1.0 + 1e-9:
            raise ValueError(f"fault rates add up to {total:g}, more than 1")
        self.limits = tuple(limits)
        self.retry_after = retry_after
        Reply.hang(hang_seconds), Reply.trickle(trickle_seconds)  # checked now, not when drawn
        self.hang_seconds = hang_seconds
        self.trickle_seconds = trickle_seconds
        self.rng = random.Random(seed)

    def draw(self) -> FaultName | None:
        point = self.rng.random()
        for limit, name in self.limits:
            if point < limit:
                return name
        return None

    def reply(self, fault: FaultName) -> Reply:
        if fault == "429":
            return Reply.error(429, retry_after=self.retry_after)
        if fault == "500":
            return Reply.error(500)
        if fault == "garbage":
            return Reply.garbage()
        if fault == "hang":
            return Reply.hang(self.hang_seconds)
        if fault == "trickle":
            return Reply.trickle(self.trickle_seconds)
        return Reply.drop()
