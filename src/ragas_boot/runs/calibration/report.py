"""What a calibration reports: every judge and panel against the people, as frozen data.

One job: the result models of :func:`~ragas_boot.runs.calibration.calibrate` (rendered by
``reporting/calibration.py``) and their JSON Schema. Nothing here computes a figure.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.runs.records import DatasetInfo, JudgeInfo

__all__ = [
    "AgreementFigures",
    "Basis",
    "CalibrationReport",
    "CostUnit",
    "Disagreement",
    "Estimate",
    "HumanAgreement",
    "ItemAgreement",
    "JudgeCalibration",
    "JudgeVerdict",
    "MetricCalibration",
    "PanelCalibration",
    "calibration_json_schema",
]

#: What a panel's cost counts: the providers' prices (when the results carry a cost per call),
#: else tokens.
CostUnit = Literal["cost", "tokens"]

#: How a metric's verdicts are compared: each score against the metric's threshold, or, for
#: TopicAdherence labelled with off-topic subjects, whether any subject was off topic.
Basis = Literal["threshold", "off_topic"]

_FROZEN = ConfigDict(frozen=True)


class Estimate(BaseModel):
    """A figure with its bootstrap confidence interval."""

    model_config = _FROZEN

    value: float | None = Field(
        description="The figure on the labelled samples; None if undefined."
    )
    low: float | None = Field(default=None, description="Lower bound of the interval.")
    high: float | None = Field(default=None, description="Upper bound of the interval.")


class AgreementFigures(BaseModel):
    """How one rater's verdicts (a judge's, or a panel's) agree with the people's."""

    model_config = _FROZEN

    items: int = Field(description="Samples with both a human verdict and this rater's verdict.")
    accuracy: Estimate = Field(description="Share of samples where the verdicts agree.")
    precision: Estimate = Field(description="Of the samples it passed, the share people passed.")
    recall: Estimate = Field(description="Of the samples people passed, the share it passed.")
    kappa: Estimate = Field(description="Cohen's κ against the people's verdicts.")
    mae: Estimate | None = Field(
        default=None,
        description="Mean absolute error of its scores against the people's (mean) scores, "
        "on the samples people scored; None when nobody gave a score.",
    )
    mae_items: int = Field(default=0, description="Samples behind mae.")
    confusion: list[list[int]] = Field(
        description="Confusion matrix, rows = people (fail, pass), columns = this rater "
        "(fail, pass)."
    )


class ItemAgreement(BaseModel):
    """Item level (TopicAdherence): the off-topic subjects a judge named against the people's.

    A judge's subject matches a person's when, case and spacing aside, one contains the other.
    """

    model_config = _FROZEN

    samples: int = Field(description="Samples with the people's off_topic and the judge's topics.")
    labelled: int = Field(description="Off-topic subjects the people named.")
    found: int = Field(description="Topics the judge called off topic.")
    matched: int = Field(description="People's subjects the judge also called off topic.")
    precision: float | None = Field(
        description="Share of the judge's off-topic topics that people named too; None when "
        "it found none."
    )
    recall: float | None = Field(description="matched / labelled; None when people named none.")


class JudgeCalibration(BaseModel):
    """One judge on one metric, against the people."""

    model_config = _FROZEN

    judge_id: str = Field(description="The judge.")
    figures: AgreementFigures = Field(description="Its agreement with the people.")
    cost: float = Field(description="What it cost over the run's samples (see cost_unit).")
    items: ItemAgreement | None = Field(
        default=None,
        description="Off-topic subjects against the people's (TopicAdherence labelled with "
        "off_topic); None otherwise.",
    )


class PanelCalibration(BaseModel):
    """A panel (judges + aggregation) on one metric, against the people."""

    model_config = _FROZEN

    judges: list[str] = Field(description="The panel's judges, in run order.")
    aggregation: str = Field(description="How their scores combine (AVERAGE, MEDIAN, ...).")
    figures: AgreementFigures = Field(description="The panel's agreement with the people.")
    cost: float = Field(description="Sum of its judges' costs (see cost_unit).")
    no_verdict: int = Field(
        description="Labelled samples without a panel verdict (no judge scored, or no consensus)."
    )


class HumanAgreement(BaseModel):
    """How much the annotators agree among themselves: the ceiling for the judges."""

    model_config = _FROZEN

    annotators: list[str] = Field(description="Annotators (names, else 'annotator N').")
    items: int = Field(description="Samples labelled by at least two annotators.")
    alpha: float | None = Field(
        description="Krippendorff's α of their verdicts (nominal); None when undefined."
    )
    alpha_scores: float | None = Field(
        default=None,
        description="Krippendorff's α of their scores (interval), when they gave scores.",
    )


class JudgeVerdict(BaseModel):
    """One judge's say on a sample the panel got wrong."""

    model_config = _FROZEN

    judge_id: str = Field(description="The judge.")
    score: float | None = Field(description="Its score; None when it was excluded.")
    passed: bool | None = Field(description="Its verdict (pass = True); None when excluded.")
    reason: str = Field(description="Its reason, or why it was excluded.")


class Disagreement(BaseModel):
    """A sample where the panel's verdict is not the people's."""

    model_config = _FROZEN

    sample_id: str = Field(description="The sample.")
    human_passed: bool = Field(description="The people's verdict (pass = True).")
    human_notes: list[str] = Field(description="Annotators' notes and off-topic subjects.")
    panel_score: float | None = Field(description="The panel's aggregated score.")
    panel_passed: bool = Field(description="The panel's verdict.")
    judges: list[JudgeVerdict] = Field(description="Each judge's score, verdict and reason.")


class MetricCalibration(BaseModel):
    """Every judge and panel on one metric, against the people's labels."""

    model_config = _FROZEN

    metric: str = Field(description="Bean name of the metric.")
    threshold: float = Field(description="Pass mark that turns scores into verdicts.")
    lower_is_better: bool = Field(default=False, description="Whether the threshold is a maximum.")
    basis: Basis = Field(
        description="threshold: scores against the threshold; off_topic: TopicAdherence "
        "labelled with off-topic subjects, a pass being no subject off topic."
    )
    labelled: int = Field(description="Samples with a human verdict on this metric.")
    ties: int = Field(description="Samples left out: the annotators split evenly.")
    human_pass_rate: float | None = Field(description="Share of labelled samples people passed.")
    human: HumanAgreement | None = Field(
        description="The annotators' agreement; None when every sample has one annotator."
    )
    judges: list[JudgeCalibration] = Field(description="One per judge, best κ first.")
    panels: list[PanelCalibration] = Field(
        description="The run's full panel under each aggregation, best κ first."
    )
    front: list[PanelCalibration] = Field(
        description="The Pareto front of cost against κ over every searched panel, cheapest "
        "first: each is the best panel at its cost."
    )
    best: PanelCalibration | None = Field(
        description="The panel with the highest κ (the cheapest among equals)."
    )
    searched: int = Field(description="Panels (judge subsets × aggregations) compared.")
    disagreements: list[Disagreement] = Field(
        description="Samples where the full panel under the run's aggregation disagrees with "
        "the people."
    )
    panel_aggregation: str = Field(description="The run's aggregation, used for disagreements.")


class CalibrationReport(BaseModel):
    """The judges of a run against people's labels (``ragas-boot calibrate``)."""

    model_config = _FROZEN

    dataset: DatasetInfo = Field(description="The dataset run.")
    judges: list[JudgeInfo] = Field(description="Every judge of the run.")
    metrics: list[MetricCalibration] = Field(description="One per metric with labels.")
    unlabelled_metrics: list[str] = Field(
        description="Metrics of the run that no sample labels (not calibrated)."
    )
    cost_unit: CostUnit = Field(description="What cost figures count: cost, or tokens.")
    seed: int = Field(description="Seed of the bootstrap.")
    resamples: int = Field(description="Bootstrap resamples per interval.")
    confidence: float = Field(description="Coverage of the intervals.")

    def metric(self, name: str) -> MetricCalibration:
        """The calibration of ``name`` (bean name).

        Raises:
            KeyError: the metric was not calibrated.
        """
        for calibration in self.metrics:
            if calibration.metric == name:
                return calibration
        raise KeyError(name)


def calibration_json_schema() -> dict[str, Any]:
    """The JSON Schema of a calibration report (draft 2020-12)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **CalibrationReport.model_json_schema(mode="serialization"),
        "title": "ragas-boot calibration report",
    }
