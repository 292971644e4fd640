"""Verdicts: one call per judge, one verdict per statement, aligned by the statement itself."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any

from pydantic import BaseModel, Field, create_model

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.steps.chain import Chain
from ragas_boot.metrics.steps.decompose import item_key

__all__ = [
    "Verdict",
    "VerdictItem",
    "VerdictScale",
    "align_verdicts",
    "judge_statements",
    "numbered_list",
    "verdict_model",
]

Label = str | int | bool


@dataclass(frozen=True)
class VerdictScale:
    """The verdicts a step allows, and which of them count as "yes".

    Args:
        labels: the allowed values, as the schema lists them (``(1, 0)``, ``(True, False)``,
            ``("SUPPORTED", "CONTRADICTED", "NEUTRAL")``).
        positive: the labels that count (supported, attributed, faithful ...).
        meaning: what the verdict says, for the schema's description.
    """

    labels: tuple[Label, ...]
    positive: frozenset[Label]
    meaning: str

    def read(self, value: Any) -> Label | None:
        """The label ``value`` stands for (case-insensitive, ``"1"`` for 1, ``"true"``), or None."""
        for label in self.labels:
            if isinstance(label, bool):
                if isinstance(value, bool) and value is label:
                    return label
                if isinstance(value, str) and value.strip().lower() == str(label).lower():
                    return label
            elif isinstance(label, int):
                if isinstance(value, int) and not isinstance(value, bool) and value == label:
                    return label
                if isinstance(value, str) and value.strip() == str(label):
                    return label
            elif isinstance(value, str) and value.strip().casefold() == label.casefold():
                return label
        return None


class VerdictItem(BaseModel):
    """A judge's verdict on one statement (lenient; the scale is checked after parsing)."""

    statement: str = Field(description="The statement, copied exactly.")
    reason: str = Field(description="One short sentence, given before the verdict.")
    verdict: bool | int | str = Field(description="The verdict.")


@dataclass(frozen=True)
class Verdict:
    """A verdict aligned with the statement it is about."""

    statement: str
    verdict: Label
    reason: str
    positive: bool

    def as_dict(self) -> dict[str, Any]:
        """The verdict as plain data (for metadata)."""
        return {
            "statement": self.statement,
            "verdict": self.verdict,
            "positive": self.positive,
            "reason": self.reason,
        }


@lru_cache(maxsize=512)
def verdict_model(statements: tuple[str, ...], scale: VerdictScale) -> type[BaseModel]:
    """The output model of one judge's verdict call on ``statements``.

    Its JSON schema pins ``verdicts`` to one item per statement, in order (``prefixItems``),
    each with the statement as a constant and the verdict as one of the scale's labels, so a
    judge with constrained decoding answers every statement exactly once and any other judge
    is shown exactly what to write. Validation stays lenient (any strings, the length pinned);
    verdicts are then aligned to statements by :func:`align_verdicts`.
    """
    fields = VerdictItem.model_fields

    def one_per_statement(schema: dict[str, Any]) -> None:
        schema.pop("items", None)
        schema["prefixItems"] = [
            {
                "type": "object",
                "properties": {
                    "statement": {
                        "const": statement,
                        "description": fields["statement"].description,
                    },
                    "reason": {"type": "string", "description": fields["reason"].description},
                    "verdict": {"enum": list(scale.labels), "description": scale.meaning},
                },
                "required": ["statement", "reason", "verdict"],
                "additionalProperties": False,
            }
            for statement in statements
        ]

    count = len(statements)
    return create_model(
        f"Verdicts{count}",
        __doc__="One verdict per statement, in order.",
        verdicts=(
            Annotated[list[VerdictItem], Field(min_length=count, max_length=count)],
            Field(
                description=f"Exactly {count} verdicts, one per statement, in order.",
                json_schema_extra=one_per_statement,
            ),
        ),
    )


def align_verdicts(
    statements: Sequence[str], items: Sequence[VerdictItem], scale: VerdictScale
) -> list[Verdict] | str:
    """Each statement's verdict, matched by the statement text; or why they do not match.

    Matching ignores case and blanks; the order of the answer does not matter. A statement
    without a verdict, a verdict for an unknown statement, or a label outside the scale makes
    the whole answer unusable (the message says which).
    """
    by_key: dict[str, VerdictItem] = {}
    for item in items:
        by_key.setdefault(item_key(item.statement), item)
    known = {item_key(statement) for statement in statements}
    missing = [s for s in statements if item_key(s) not in by_key]
    unknown = [item.statement for item in items if item_key(item.statement) not in known]
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"missing {missing}")
        if unknown:
            parts.append(f"unexpected {unknown}")
        return "verdicts do not match the statements: " + ", ".join(parts)
    aligned = []
    for statement in statements:
        item = by_key[item_key(statement)]
        label = scale.read(item.verdict)
        if label is None:
            allowed = ", ".join(repr(value) for value in scale.labels)
            return f"verdict {item.verdict!r} for {statement!r} is not one of {allowed}"
        aligned.append(
            Verdict(
                statement=statement,
                verdict=label,
                reason=item.reason,
                positive=label in scale.positive,
            )
        )
    return aligned


def numbered_list(items: Sequence[str]) -> str:
    """Items as ``1. item`` lines."""
    return "\n".join(f"{number}. {item}" for number, item in enumerate(items, 1))


async def judge_statements(
    chain: Chain,
    step: str,
    judges: Sequence[JudgeModel],
    statements: dict[str, list[str]],
    prompt: Callable[[JudgeModel, list[str]], str],
    scale: VerdictScale,
) -> dict[str, list[Verdict]]:
    """Each judge's verdicts on its own statements, in one call per judge.

    Judges that have failed, or have no statements in ``statements``, are not asked. A
    failed call, or an answer that does not align (:func:`align_verdicts`), excludes the judge.

    Returns:
        judge id → verdicts aligned with that judge's statements.
    """
    asked = [j for j in chain.alive(judges) if statements.get(j.id)]
    if not asked:
        return {}
    record = await chain.run(
        step,
        asked,
        lambda judge: prompt(judge, statements[judge.id]),
        lambda judge: verdict_model(tuple(statements[judge.id]), scale),
    )
    verdicts: dict[str, list[Verdict]] = {}
    for call in record.calls:
        if not call.ok:
            chain.exclude_call(call)
            continue
        aligned = align_verdicts(statements[call.judge_id], call.value.verdicts, scale)
        if isinstance(aligned, str):
            chain.exclude(call.judge_id, step, aligned)
        else:
            verdicts[call.judge_id] = aligned
    return verdicts
