"""``MetricResult``: all one evaluation produced, as frozen data (rendered elsewhere)."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from ragas_boot._trusted import trusted
from ragas_boot.chat.judge import TokenUsage
from ragas_boot.config.settings import QuorumFailure
from ragas_boot.execution.aggregation import WILSON_CONFIDENCE, wilson_interval
from ragas_boot.execution.results import Exclusion, StepRecord

__all__ = [
    "Details",
    "MetricResult",
    "Quorum",
    "RepeatSummary",
    "combine_repeats",
    "meets_threshold",
]


class Quorum(BaseModel):
    """Whether enough judges answered for the score to count (``min-judges``)."""

    model_config = ConfigDict(frozen=True)

    required: int = Field(description="Judges that must answer (min-judges).")
    answered: int = Field(description="Judges that answered every step they were asked.")
    asked: int = Field(description="Judges asked.")
    met: bool = Field(description="answered >= required; when not, the score is undefined.")
    on_failure: QuorumFailure = Field(
        description="FAIL: gates count a missed quorum as not passed; SKIP: they leave it out."
    )

    @property
    def reason(self) -> str:
        """``no quorum (2 of 4 answered): min-judges is 3``: why the score is undefined."""
        return (
            f"no quorum ({self.answered} of {self.asked} answered): min-judges is {self.required}"
        )


class RepeatSummary(BaseModel):
    """How the verdicts of one sample's repeated evaluations (``repeat: N``) came out."""

    model_config = ConfigDict(frozen=True)

    runs: int = Field(description="Repeats run.")
    scores: list[float | None] = Field(
        description="Each repeat's score, in order; None when undefined or failed."
    )
    scored: int = Field(description="Repeats with a score.")
    passed: int = Field(description="Repeats whose score meets the threshold.")
    failed: int = Field(default=0, description="Repeats that raised (no judge answered, ...).")
    pass_rate: float | None = Field(description="passed / scored; None when nothing scored.")
    ci_low: float | None = Field(description="Lower end of the Wilson interval of pass_rate.")
    ci_high: float | None = Field(description="Upper end of the Wilson interval of pass_rate.")
    confidence: float = Field(description="Confidence level of the interval (0.95).")
    unstable: bool = Field(
        description="Whether the repeats fall on both sides of the threshold (some pass, some "
        "do not): the judges' verdict on this sample is not reproducible."
    )


Details = Callable[[], tuple[dict[str, Any], str]]
"""Builds a result's ``metadata`` and ``explanation`` when they are first read."""

_LAZY = ("metadata", "explanation")
"""The fields a result may build when first read (see :meth:`MetricResult.built`)."""


class MetricResult(BaseModel):
    """The full result of one metric on one sample.

    ``score`` is ``None`` only when the metric is undefined for the sample (for example
    TopicAdherence PRECISION when the judges found no topics, or fewer judges answered than
    ``min-judges`` requires); ``undefined_reason`` then says why. A failure of every judge is
    an error, never a ``None`` or ``0.0`` score.

    A judge-less metric's result may build its ``metadata`` and ``explanation`` only when
    they are first read, dumped, compared or pickled (:meth:`built`): scoring many samples
    costs what the scores cost, and the details are the same whenever they are built.
    """

    model_config = ConfigDict(frozen=True)

    _details: Details | None = PrivateAttr(default=None)

    metric: str = Field(description="Metric name, e.g. AgentGoalAccuracyMetric.")
    score: float | None = Field(description="Aggregated score in [0, 1]; None when undefined.")
    model_scores: dict[str, float] = Field(
        default_factory=dict, description="Judge id → that judge's score."
    )
    exclusions: list[Exclusion] = Field(
        default_factory=list, description="Judges left out, with step and reason."
    )
    steps: list[StepRecord] = Field(
        default_factory=list, description="Every step with each judge's prompt, answer, timing."
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Metric-specific details (matches, verdicts, topics)."
    )
    explanation: str = Field(default="", description="How the score came about, in `language`.")
    agreement: float = Field(
        default=1.0, description="Share of judges on the majority side (1.0 = unanimous)."
    )
    disagreement: bool = Field(default=False, description="Whether any judge voted otherwise.")
    aggregation: str = Field(default="AVERAGE", description="How judges' scores were combined.")
    judge_ids: list[str] = Field(default_factory=list, description="Judges asked, in order.")
    language: str = Field(default="en", description="Language of prompts and explanation.")
    mode: str | None = Field(default=None, description="The metric mode that ran.")
    config: dict[str, Any] = Field(default_factory=dict, description="The effective config.")
    undefined_reason: str | None = Field(default=None, description="Why score is None.")
    duration_s: float = Field(default=0.0, description="Wall time of the evaluation.")
    usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Answered tokens of all judges (answers used)."
    )
    billed_usage: TokenUsage = Field(
        default_factory=TokenUsage,
        description="Billed tokens of all judges: every response that reported usage.",
    )
    cost: float | None = Field(
        default=None,
        description="Cost of the billed tokens of judges with a price; None when none has one.",
    )
    sample_id: str | None = Field(default=None, description="The sample's id, when it has one.")
    lower_is_better: bool = Field(
        default=False,
        description="Whether a lower score is better (NoiseSensitivity, Hallucination); the "
        "threshold is then a maximum.",
    )
    quorum: Quorum | None = Field(
        default=None, description="The quorum check, when min-judges is set; else None."
    )
    repeats: RepeatSummary | None = Field(
        default=None,
        description="The repeats' pass rate, interval and stability when repeat > 1; the "
        "score is then the mean of the repeats' scores.",
    )

    def passes(self, threshold: float) -> bool | None:
        """Whether the score meets ``threshold`` (a maximum when lower is better)."""
        if self.score is None:
            return None
        return meets_threshold(self.score, threshold, lower_is_better=self.lower_is_better)

    @property
    def excluded_judges(self) -> list[str]:
        """Ids of the excluded judges (each once, in order)."""
        return list(dict.fromkeys(exclusion.judge_id for exclusion in self.exclusions))

    def reasons(self) -> dict[str, str]:
        """Judge id → the reason its final verdict gave, when the metric records one."""
        reasons = self.metadata.get("reasons")
        return dict(reasons) if isinstance(reasons, dict) else {}

    @classmethod
    def built(cls, details: Details, values: dict[str, Any]) -> MetricResult:
        """A result from ``values`` this library built itself, not validated again: every
        field but ``metadata`` and ``explanation``, typed as declared (a judge-less metric's
        figures); those two come from ``details`` when first read. ``values`` becomes the
        result's own (it is not copied).

        Raises:
            TypeError: ``values`` lacks a field or has one too many.
        """
        if values.keys() != _BUILT_FIELDS:
            missing = sorted(_BUILT_FIELDS.difference(values))
            unknown = sorted(set(values).difference(_BUILT_FIELDS))
            raise TypeError(f"MetricResult.built: missing {missing}, unknown {unknown}")
        return trusted(cls, values, {"_details": details})

    def _settle(self) -> None:
        """Build ``metadata`` and ``explanation`` if they are still pending."""
        private = self.__pydantic_private__
        details = private.get("_details") if private else None
        if details is not None:
            metadata, explanation = details()
            # A model_copy(update=...) of a pending result keeps what it was given.
            self.__dict__.setdefault("metadata", metadata)
            self.__dict__.setdefault("explanation", explanation)
            private["_details"] = None  # type: ignore[index]

    if not TYPE_CHECKING:  # keep attribute typos visible to mypy

        def __getattr__(self, name: str) -> Any:
            if name in _LAZY and name not in self.__dict__:
                self._settle()
                return self.__dict__[name]
            return super().__getattr__(name)

    # No return annotation: pydantic then keeps the fields' own JSON schema.
    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        self._settle()
        return handler(self)

    def __eq__(self, other: object) -> bool:
        self._settle()
        if isinstance(other, MetricResult):
            other._settle()
        return super().__eq__(other)

    __hash__ = BaseModel.__hash__

    def __repr_args__(self) -> Any:
        self._settle()
        return super().__repr_args__()

    def __iter__(self) -> Any:
        self._settle()
        return super().__iter__()

    def __getstate__(self) -> dict[Any, Any]:
        self._settle()
        return super().__getstate__()


_BUILT_FIELDS = frozenset(MetricResult.model_fields).difference(_LAZY)


def meets_threshold(score: float, threshold: float, *, lower_is_better: bool = False) -> bool:
    """``score >= threshold``, or ``score <= threshold`` for a lower-is-better metric."""
    return score <= threshold if lower_is_better else score >= threshold


def combine_repeats(results: Sequence[MetricResult | None], threshold: float) -> MetricResult:
    """One result from the repeats of an evaluation (None: a repeat that raised).

    The score is the mean of the repeats' scores; ``model_scores`` each judge's mean;
    steps, exclusions, tokens and time are those of every repeat (each step marked with its
    repeat); ``quorum`` is the first missed one, if any; ``repeats`` holds the pass rate over
    the scored repeats, its Wilson interval and whether the repeats fall on both sides of
    ``threshold``.

    Raises:
        ValueError: no repeat produced a result.
    """
    defined = [result for result in results if result is not None]
    if not defined:
        raise ValueError("no repeat produced a result")
    base = defined[0]
    scores = [result.score if result is not None else None for result in results]
    verdicts = [result.passes(threshold) for result in defined]
    scored = sum(1 for verdict in verdicts if verdict is not None)
    passed = sum(1 for verdict in verdicts if verdict)
    low, high = wilson_interval(passed, scored) if scored else (None, None)
    values = [score for score in scores if score is not None]
    by_judge: dict[str, list[float]] = {}
    for result in defined:
        for judge_id, value in result.model_scores.items():
            by_judge.setdefault(judge_id, []).append(value)
    usage = TokenUsage()
    billed = TokenUsage()
    cost: float | None = None
    for result in defined:
        usage = usage + result.usage
        billed = billed + result.billed_usage
        if result.cost is not None:
            cost = (cost or 0.0) + result.cost
    missed = next(
        (r.quorum for r in defined if r.quorum is not None and not r.quorum.met), base.quorum
    )
    score = statistics.fmean(values) if values else None
    reason = next((r.undefined_reason for r in defined if r.undefined_reason), None)
    return base.model_copy(
        update={
            "score": score,
            "model_scores": {judge: statistics.fmean(v) for judge, v in by_judge.items()},
            "steps": [
                step.model_copy(update={"repeat": index})
                for index, result in enumerate(results)
                if result is not None
                for step in result.steps
            ],
            "exclusions": [item for result in defined for item in result.exclusions],
            "usage": usage,
            "billed_usage": billed,
            "cost": cost,
            "duration_s": sum(result.duration_s for result in defined),
            "quorum": missed,
            "undefined_reason": None if score is not None else reason,
            "repeats": RepeatSummary(
                runs=len(results),
                scores=scores,
                scored=scored,
                passed=passed,
                failed=len(results) - len(defined),
                pass_rate=passed / scored if scored else None,
                ci_low=low,
                ci_high=high,
                confidence=WILSON_CONFIDENCE,
                unstable=0 < passed < scored,
            ),
        }
    )
