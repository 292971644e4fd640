"""Decompose: each judge splits a text into statements, claims or entities."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.executor import PromptSource
from ragas_boot.metrics.steps.chain import Chain

__all__ = ["Claims", "Entities", "Statements", "clean_items", "decompose", "item_key"]


class Statements(BaseModel):
    """Standalone statements a text makes."""

    statements: list[str] = Field(
        description="Each a full sentence, understandable alone (no pronouns), one fact each."
    )


class Claims(BaseModel):
    """Atomic factual claims a text makes."""

    claims: list[str] = Field(
        description="Each an atomic, self-contained factual claim (pronouns replaced)."
    )


class Entities(BaseModel):
    """Named entities a text mentions."""

    entities: list[str] = Field(
        description="Distinct named entities (people, places, organisations, dates, numbers)."
    )


def item_key(text: str) -> str:
    """The key a statement is matched by: blanks collapsed, case folded."""
    return " ".join(text.split()).casefold()


def clean_items(items: Sequence[str]) -> list[str]:
    """Blank items dropped, blanks collapsed, duplicates (by :func:`item_key`) removed."""
    seen: dict[str, str] = {}
    for item in items:
        cleaned = " ".join(str(item).split())
        if cleaned and item_key(cleaned) not in seen:
            seen[item_key(cleaned)] = cleaned
    return list(seen.values())


async def decompose(
    chain: Chain,
    step: str,
    judges: Sequence[JudgeModel],
    prompt: PromptSource,
    output_model: type[Statements] | type[Claims] | type[Entities],
) -> dict[str, list[str]]:
    """Ask each judge to split a text; judge id → its cleaned items (failures excluded).

    An empty list is a valid answer (the text states nothing); the metric decides what an
    empty list means for its score.
    """
    judges = chain.alive(judges)
    if not judges:
        return {}
    record = await chain.run(step, judges, prompt, output_model)
    field = next(iter(output_model.model_fields))
    found: dict[str, list[str]] = {}
    for call in record.calls:
        if call.ok:
            found[call.judge_id] = clean_items(getattr(call.value, field))
        else:
            chain.exclude_call(call)
    return found
