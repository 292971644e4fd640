"""The CI gate's verdict on a run, as data: :class:`RunGate` and each :class:`GateFailure`.

:meth:`~ragas_boot.runs.RunResult.gate` computes it; ``reporting/gates.py`` turns it into lines.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["GateFailure", "GateFailureKind", "RunGate"]

_FROZEN = ConfigDict(frozen=True)


class GateFailure(BaseModel):
    """A metric that fails the run's gate."""

    model_config = _FROZEN

    metric: str = Field(description="Bean name of the metric.")
    kind: GateFailureKind = Field(
        description="nothing_scored: every evaluation failed; under_fail_under: the mean is "
        "under (or, with nothing scored, has no value against) the required mean; "
        "over_maximum: a lower-is-better metric's mean is over 1 - fail_under; no_quorum: "
        "evaluations lacked their quorum of judges (quorum-failure FAIL); "
        "under_min_pass_rate: samples' pass rates are under the required one."
    )
    mean: float | None = Field(description="The metric's mean score; None when none exists.")
    failed: int = Field(description="Evaluations of the metric that failed.")
    count: int = Field(
        default=0,
        description="no_quorum: evaluations without quorum; under_min_pass_rate: samples under.",
    )
    lowest_pass_rate: float | None = Field(
        default=None, description="under_min_pass_rate: the lowest sample pass rate."
    )


#: Why a metric fails the run's gate.
GateFailureKind = Literal[
    "nothing_scored", "under_fail_under", "over_maximum", "no_quorum", "under_min_pass_rate"
]


class RunGate(BaseModel):
    """The CI gate's verdict on a run (a dataset's or a suite's).

    A metric fails it when no sample could be scored (every evaluation failed), or when
    ``fail_under`` is given and its mean is under it (or does not exist); for a
    lower-is-better metric (NoiseSensitivity, Hallucination) the gate is on ``1 - score``,
    so its mean may be at most ``1 - fail_under``. It also fails a metric with an evaluation
    that lacked its quorum of judges (unless ``quorum-failure: SKIP``), and, with a minimum
    pass rate (``--min-pass-rate`` or the metric's ``min-pass-rate``), one with a sample whose
    share of passing repeats is under it. With ``min_sample_pass_rate`` (a suite's
    ``min-pass-rate``) the run fails it when fewer samples than that share pass every
    metric (:attr:`SampleRun.passed`).
    """

    model_config = _FROZEN

    fail_under: float | None = Field(description="Mean every metric needs; None: not checked.")
    min_pass_rate: float | None = Field(
        default=None,
        description="Per-sample pass rate given for every metric (--min-pass-rate); None: each "
        "metric's own min-pass-rate, if any.",
    )
    min_sample_pass_rate: float | None = Field(
        default=None,
        description="Share of samples that must pass every metric (a suite's min-pass-rate); "
        "None: not checked.",
    )
    samples: int = Field(
        default=0, description="Samples the pass rate counts (all but simulator failures)."
    )
    passed_samples: int = Field(default=0, description="Samples that passed every metric.")
    simulator_failures: int = Field(
        default=0,
        description="Samples whose simulated user or tool failed: left out of samples and "
        "the pass rate, never the agent's failures.",
    )
    failures: list[GateFailure] = Field(description="The metrics that fail it, in run order.")
    passed: bool = Field(
        description="Whether no metric fails it and enough samples passed every metric."
    )

    @property
    def sample_pass_rate(self) -> float | None:
        """``passed_samples / samples``; None for a run of no sample."""
        return self.passed_samples / self.samples if self.samples else None

    @property
    def samples_passed_gate(self) -> bool:
        """Whether the share of passing samples reaches ``min_sample_pass_rate`` (True when
        it is not checked; a run of no sample reaches nothing above 0)."""
        required = self.min_sample_pass_rate
        if required is None:
            return True
        rate = self.sample_pass_rate
        return (rate if rate is not None else 0.0) >= required - 1e-12
