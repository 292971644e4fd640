"""The judges' side: what the run says each judge decided on a labelled sample.

One job: reading a judge's say out of an :class:`~ragas_boot.runs.records.Evaluation`: its
score, or for TopicAdherence labelled with off-topic subjects whether it named any (and which,
matched against the people's by :func:`same_subject`), and its reason or why it was excluded.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragas_boot.metrics.results import MetricResult
from ragas_boot.runs.calibration.labels import LabelledRow
from ragas_boot.runs.calibration.report import Basis, ItemAgreement
from ragas_boot.runs.records import Evaluation

__all__ = ["item_agreement", "judge_reason", "judge_value", "off_topic", "same_subject"]


def same_subject(first: str, second: str) -> bool:
    """Whether two off-topic subjects name the same thing: one contains the other, case and
    spacing aside."""
    a, b = " ".join(first.lower().split()), " ".join(second.lower().split())
    return bool(a and b) and (a in b or b in a)


def item_agreement(rows: Sequence[LabelledRow], judge: str) -> ItemAgreement | None:
    """``judge``'s off-topic subjects against the people's over the rows both named some for
    (None when there are none)."""
    samples = labelled = found = matched = confirmed = 0
    for _, evaluation, human in rows:
        named = off_topic(evaluation.result, judge) if evaluation.result is not None else None
        if human.off_topic is None or named is None:
            continue
        samples += 1
        labelled += len(human.off_topic)
        found += len(named)
        matched += sum(any(same_subject(s, n) for n in named) for s in human.off_topic)
        confirmed += sum(any(same_subject(n, s) for s in human.off_topic) for n in named)
    if not samples:
        return None
    return ItemAgreement(
        samples=samples,
        labelled=labelled,
        found=found,
        matched=matched,
        precision=confirmed / found if found else None,
        recall=matched / labelled if labelled else None,
    )


def off_topic(result: MetricResult, judge_id: str) -> list[str] | None:
    """The topics a judge called off topic (TopicAdherence's per-judge details), if recorded."""
    judges = result.metadata.get("judges")
    detail = judges.get(judge_id) if isinstance(judges, dict) else None
    verdicts = detail.get("verdicts") if isinstance(detail, dict) else None
    if not isinstance(verdicts, list):
        return None
    return [
        str(v.get("topic")) for v in verdicts if isinstance(v, dict) and v.get("on_topic") is False
    ]


def judge_value(evaluation: Evaluation, judge_id: str, basis: Basis) -> float | None:
    """A judge's score on a sample, as calibration compares it (None: it did not score)."""
    result = evaluation.result
    if result is None:
        return None
    if basis == "off_topic":
        found = off_topic(result, judge_id)
        return None if found is None else (0.0 if found else 1.0)
    return result.model_scores.get(judge_id)


def judge_reason(evaluation: Evaluation, judge_id: str) -> str:
    """What ``judge_id`` said on the sample: its reason, why it was excluded, or the
    evaluation's error."""
    result = evaluation.result
    if result is None:
        return evaluation.error.message if evaluation.error is not None else "failed"
    for exclusion in result.exclusions:
        if exclusion.judge_id == judge_id:
            return f"excluded at {exclusion.step}: {exclusion.kind}: {exclusion.message}"
    return result.reasons().get(judge_id, "")
