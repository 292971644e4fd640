"""Rating: each judge rates on a 0..k scale with a reason; normalised to [0, 1]."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, Field, create_model

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.executor import PromptSource
from ragas_boot.metrics.steps.chain import Chain

__all__ = ["Rating", "rate", "rating_model"]


@dataclass(frozen=True)
class Rating:
    """One judge's rating: as given, and normalised to [0, 1]."""

    raw: int
    maximum: int
    reason: str

    @property
    def clamped(self) -> bool:
        """Whether the judge answered outside 0..maximum (the score is then clamped)."""
        return not 0 <= self.raw <= self.maximum

    @property
    def score(self) -> float:
        """``raw / maximum``, clamped to [0, 1]."""
        return min(1.0, max(0.0, self.raw / self.maximum))

    def as_dict(self) -> dict[str, Any]:
        """The rating as plain data (for metadata)."""
        return {
            "rating": self.raw,
            "score": self.score,
            "clamped": self.clamped,
            "reason": self.reason,
        }


@lru_cache(maxsize=32)
def rating_model(maximum: int, extra: tuple[tuple[str, str], ...] = ()) -> type[BaseModel]:
    """The output model of a rating on 0..``maximum``: ``reason`` first, then ``rating``.

    The schema bounds the rating; validation accepts any integer, and :class:`Rating` clamps
    (the result records that it did). ``extra`` adds boolean fields (name, description).
    """
    fields: dict[str, Any] = {
        "reason": (str, Field(description="Why, in one or two sentences, before the rating.")),
        "rating": (
            int,
            Field(
                description=f"An integer from 0 to {maximum}.",
                json_schema_extra={"minimum": 0, "maximum": maximum},
            ),
        ),
    }
    for name, description in extra:
        fields[name] = (bool, Field(description=description))
    return create_model(f"Rating0To{maximum}", __doc__="A rating with its reason.", **fields)


async def rate(
    chain: Chain,
    step: str,
    judges: Sequence[JudgeModel],
    prompt: PromptSource,
    maximum: int = 2,
) -> dict[str, Rating]:
    """Each alive judge's rating; failures excluded. Judge id → rating."""
    judges = chain.alive(judges)
    if not judges:
        return {}
    record = await chain.run(step, judges, prompt, rating_model(maximum))
    ratings: dict[str, Rating] = {}
    for call in record.calls:
        if call.ok:
            ratings[call.judge_id] = Rating(
                raw=call.value.rating, maximum=maximum, reason=call.value.reason
            )
        else:
            chain.exclude_call(call)
    return ratings
