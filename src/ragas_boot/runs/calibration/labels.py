"""The people's side: their consensus on each sample, and how much they agree.

One job: reading a sample's labels for one metric (:mod:`ragas_boot.samples.labels`) into
the verdict calibration compares judges with (a majority; an even split gives none), and
the annotators' agreement among themselves (Krippendorff's α), the judges' ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragas_boot.runs.calibration.figures import Stats
from ragas_boot.runs.calibration.report import HumanAgreement
from ragas_boot.runs.records import Evaluation, MetricInfo
from ragas_boot.samples import HumanLabel

__all__ = ["Human", "LabelledRow", "consensus", "human_agreement"]


@dataclass(frozen=True, slots=True)
class Human:
    """The people's consensus on one sample."""

    passed: bool
    score: float | None
    notes: list[str]
    off_topic: list[str] | None


#: A labelled sample: its id, the metric's evaluation of it, the people's consensus.
LabelledRow = tuple[str, Evaluation, Human]


def consensus(labels: Sequence[HumanLabel], info: MetricInfo) -> Human | None:
    """The people's verdict on a sample from its labels for one metric (the majority at the
    metric's threshold), their mean score and notes; None when they split evenly."""
    votes = [
        label.verdict_at(info.threshold, lower_is_better=info.lower_is_better) for label in labels
    ]
    yes = sum(votes)
    if yes * 2 == len(votes):
        return None  # a split: no verdict to calibrate against
    scores = [label.score for label in labels if label.score is not None]
    notes = []
    for label in labels:
        who = f"{label.annotator}: " if label.annotator else ""
        if label.off_topic:
            notes.append(f"{who}off topic: {', '.join(label.off_topic)}")
        if label.note:
            notes.append(f"{who}{label.note}")
    subjects = [label.off_topic for label in labels if label.off_topic is not None]
    return Human(
        passed=yes * 2 > len(votes),
        score=sum(scores) / len(scores) if scores else None,
        notes=notes,
        off_topic=list(dict.fromkeys(s for found in subjects for s in found)) if subjects else None,
    )


def human_agreement(
    every_label: Sequence[tuple[str, list[HumanLabel]]], info: MetricInfo, stats: Stats
) -> HumanAgreement | None:
    """The annotators' agreement (Krippendorff's α of their verdicts, and of their
    scores when they gave some) over the samples two or more of them labelled; None when
    every sample has one annotator."""
    # Only samples two or more people labelled say anything about their agreement.
    every_label = [(sample_id, labels) for sample_id, labels in every_label if len(labels) > 1]
    if not every_label:
        return None
    names: list[str] = []
    for _, labels in every_label:
        for position, label in enumerate(labels, start=1):
            name = label.annotator or f"annotator {position}"
            if name not in names:
                names.append(name)
    verdicts: list[list[float | None]] = [[None] * len(every_label) for _ in names]
    scores: list[list[float | None]] = [[None] * len(every_label) for _ in names]
    for column, (_, labels) in enumerate(every_label):
        for position, label in enumerate(labels, start=1):
            row = names.index(label.annotator or f"annotator {position}")
            verdicts[row][column] = float(
                label.verdict_at(info.threshold, lower_is_better=info.lower_is_better)
            )
            scores[row][column] = label.score
    shared = sum(1 for _, labels in every_label if len(labels) > 1)
    scored = sum(
        1
        for column in range(len(every_label))
        if sum(scores[row][column] is not None for row in range(len(names))) > 1
    )
    return HumanAgreement(
        annotators=names,
        items=shared,
        alpha=stats.alpha(verdicts, "nominal"),
        alpha_scores=stats.alpha(scores, "interval") if scored else None,
    )
