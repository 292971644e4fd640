"""Evaluations seen during a test run, each tied to the test that ran it.

The pytest plugin registers a :class:`ScoreRecorder` on every metric bean it hands out; the
beans call it after each evaluation (from whichever thread ran the evaluation) and
:func:`~ragas_boot.testing.assert_score` adds the thresholds it checked. The plugin renders
the records as the terminal summary and the ``--ragas-report`` JSON file.

Only the standard library is imported here, so the plugin can create a recorder at start-up
without loading the engine.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragas_boot.execution.listeners import EvaluationFinished, EvaluationStarted
    from ragas_boot.execution.results import JudgeCall
    from ragas_boot.metrics.results import MetricResult

__all__ = [
    "EvaluationRecord",
    "ExclusionRecord",
    "QuorumRecord",
    "RepeatRecord",
    "ScoreCheck",
    "ScoreRecorder",
    "active_recorder",
    "recording",
]

#: Order among a bean's listeners: after the logging listener, like Java's Allure listener.
RECORDER_ORDER = 100


#: ``assert_score(equals=...)``'s default tolerance: float rounding only (not shown in labels).
EQUALS_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class ScoreCheck:
    """A threshold :func:`assert_score` checked, and whether the score met it."""

    at_least: float | None
    at_most: float | None
    passed: bool
    #: ``equals=`` of :func:`assert_score` (then ``at_least``/``at_most`` are its bounds).
    equals: float | None = None
    tolerance: float = 0.0

    def label(self) -> str:
        """``>= 0.8``, ``<= 0.6``, ``0.2..0.8``, ``== 1`` or ``== 0.5 ± 0.05``."""
        if self.equals is not None:
            shown = self.tolerance > EQUALS_TOLERANCE
            return f"== {self.equals:g}" + (f" ± {self.tolerance:g}" if shown else "")
        if self.at_least is not None and self.at_most is not None:
            return f"{self.at_least:g}..{self.at_most:g}"
        if self.at_least is not None:
            return f">= {self.at_least:g}"
        return f"<= {self.at_most:g}"


@dataclass(frozen=True, slots=True)
class ExclusionRecord:
    """A judge left out of an evaluation, and why."""

    judge_id: str
    step: str
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class RepeatRecord:
    """How an evaluation's repeats (``repeat: N``) came out: ``MetricResult.repeats`` as
    plain data (it crosses from pytest-xdist workers and goes into the JSON report)."""

    runs: int
    scores: tuple[float | None, ...]
    scored: int
    passed: int
    failed: int
    pass_rate: float | None
    ci_low: float | None
    ci_high: float | None
    unstable: bool

    @classmethod
    def from_summary(cls, summary: Any) -> RepeatRecord:
        """From a :class:`~ragas_boot.metrics.results.RepeatSummary`."""
        return cls.from_json({name: getattr(summary, name) for name in cls.__dataclass_fields__})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RepeatRecord:
        """From :meth:`to_json`."""
        return cls(**{**data, "scores": tuple(data["scores"])})

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {**dataclasses.asdict(self), "scores": list(self.scores)}


@dataclass(frozen=True, slots=True)
class QuorumRecord:
    """An evaluation's quorum check (``min-judges``): ``MetricResult.quorum`` as plain data."""

    required: int
    answered: int
    asked: int
    met: bool

    @classmethod
    def from_quorum(cls, quorum: Any) -> QuorumRecord:
        """From a :class:`~ragas_boot.metrics.results.Quorum`."""
        return cls(**{name: getattr(quorum, name) for name in cls.__dataclass_fields__})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QuorumRecord:
        """From :meth:`to_json`."""
        return cls(**data)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return dataclasses.asdict(self)


@dataclass(slots=True)
class EvaluationRecord:
    """One evaluation of one metric, as the recorder saw it.

    Attributes:
        test: node id of the test that ran it (``None`` outside a test).
        metric: metric name (``AgentGoalAccuracyMetric``).
        score: the aggregated score; ``None`` when undefined or when every judge failed.
        model_scores: judge id → that judge's score.
        exclusions: judges left out, with step and reason.
        reasons: judge id → the reason its verdict gave.
        explanation: how the score came about (or the error, when it failed).
        mode: the metric mode that ran.
        duration_s: wall time of the evaluation.
        error: why the evaluation failed, when it did.
        result: the :class:`MetricResult`, when the evaluation produced one.
        checks: thresholds checked on it by ``assert_score``.
        calls: every judge call it made (tokens answered and billed, cost), failed ones too.
        repeats: how its repeats came out (pass rate, interval, stability), when the metric
            ran ``repeat: N`` (N > 1); the record then stands for all N.
        quorum: its quorum check, when ``min-judges`` is set.
        criterion: the criterion checked when it was passed inline (``definition=``), which
            gives the evaluation a row of its own in the score table.
    """

    test: str | None
    metric: str
    score: float | None
    model_scores: dict[str, float]
    exclusions: list[ExclusionRecord]
    reasons: dict[str, str]
    explanation: str
    mode: str | None
    duration_s: float
    error: str | None = None
    result: MetricResult | None = field(default=None, repr=False)
    checks: list[ScoreCheck] = field(default_factory=list)
    calls: list[JudgeCall] = field(default_factory=list, repr=False)
    repeats: RepeatRecord | None = None
    quorum: QuorumRecord | None = None
    criterion: str | None = None

    @classmethod
    def from_result(cls, result: MetricResult, *, test: str | None) -> EvaluationRecord:
        """The record of a finished evaluation."""
        return cls(
            test=test,
            metric=result.metric,
            score=result.score,
            model_scores=dict(result.model_scores),
            exclusions=_exclusions(result.exclusions),
            reasons=result.reasons(),
            explanation=result.explanation or (result.undefined_reason or ""),
            mode=result.mode,
            duration_s=result.duration_s,
            result=result,
            calls=[call for step in result.steps for call in step.calls],
            repeats=None if result.repeats is None else RepeatRecord.from_summary(result.repeats),
            quorum=None if result.quorum is None else QuorumRecord.from_quorum(result.quorum),
            criterion=_definition(result.metadata.get("definition")),
        )

    @classmethod
    def from_event(cls, event: EvaluationFinished, *, test: str | None) -> EvaluationRecord:
        """The record of a listener event (a failed evaluation has no result)."""
        if event.result is not None:
            return cls.from_result(event.result, test=test)
        reasons = event.metadata.get("reasons")
        return cls(
            test=test,
            metric=event.metric,
            score=event.score,
            model_scores=dict(event.model_scores),
            exclusions=_exclusions(event.exclusions),
            reasons=dict(reasons) if isinstance(reasons, Mapping) else {},
            explanation=event.error or "",
            mode=getattr(getattr(event.config, "mode", None), "value", None),
            duration_s=event.duration_s,
            error=event.error,
            calls=[call for step in event.steps for call in step.calls],
            criterion=_definition(getattr(event.config, "definition", None)),
        )

    def to_wire(self) -> dict[str, Any]:
        """The record as plain data a pytest-xdist worker sends to the controller (the
        result object stays behind; everything the summary and the report show goes)."""
        return {
            "test": self.test,
            "metric": self.metric,
            "criterion": self.criterion,
            **self.to_json(),
        }

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> EvaluationRecord:
        """A record sent by a worker (:meth:`to_wire`)."""
        return cls(
            test=data["test"],
            metric=data["metric"],
            score=data["score"],
            model_scores=dict(data["model_scores"]),
            exclusions=[ExclusionRecord(**item) for item in data["exclusions"]],
            reasons=dict(data["reasons"]),
            explanation=data["explanation"],
            mode=data["mode"],
            duration_s=data["duration_s"],
            error=data["error"],
            checks=[ScoreCheck(**item) for item in data["checks"]],
            repeats=RepeatRecord.from_json(data["repeats"]) if data.get("repeats") else None,
            quorum=QuorumRecord.from_json(data["quorum"]) if data.get("quorum") else None,
            criterion=data.get("criterion"),
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (no result object)."""
        return {
            "score": self.score,
            "model_scores": dict(self.model_scores),
            "exclusions": [
                {"judge_id": e.judge_id, "step": e.step, "kind": e.kind, "message": e.message}
                for e in self.exclusions
            ],
            "reasons": dict(self.reasons),
            "explanation": self.explanation,
            "mode": self.mode,
            "duration_s": round(self.duration_s, 6),
            "error": self.error,
            "checks": [
                {"at_least": c.at_least, "at_most": c.at_most, "passed": c.passed}
                | ({"equals": c.equals, "tolerance": c.tolerance} if c.equals is not None else {})
                for c in self.checks
            ],
            "repeats": None if self.repeats is None else self.repeats.to_json(),
            "quorum": None if self.quorum is None else self.quorum.to_json(),
        }


def _definition(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _exclusions(items: Any) -> list[ExclusionRecord]:
    return [
        ExclusionRecord(
            judge_id=item.judge_id, step=item.step, kind=item.kind, message=item.message
        )
        for item in items
    ]


class ScoreRecorder:
    """A metric listener that keeps every evaluation, tagged with the current test.

    Thread-safe: beans call it from the container's I/O thread as well as from test threads.

    Args:
        current_test: returns the node id of the running test (``None`` between tests).
    """

    order = RECORDER_ORDER

    def __init__(self, *, current_test: Callable[[], str | None] = lambda: None) -> None:
        self._current_test = current_test
        self._lock = threading.Lock()
        self._records: list[EvaluationRecord] = []

    def __repr__(self) -> str:
        return f"ScoreRecorder(records={len(self._records)})"

    @property
    def records(self) -> list[EvaluationRecord]:
        """Every record, in the order the evaluations finished."""
        with self._lock:
            return list(self._records)

    def before_evaluation(self, event: EvaluationStarted) -> None:
        """Nothing to do before an evaluation."""

    def after_evaluation(self, event: EvaluationFinished) -> None:
        """Keep the finished evaluation; of ``repeat: N``, the repeats together (the metric's
        last event), not each repeat."""
        if event.repeat is None:
            self._add(EvaluationRecord.from_event(event, test=self._current_test()))

    def extend(self, records: Iterable[EvaluationRecord]) -> None:
        """Keep records made elsewhere (a pytest-xdist worker's, on the controller)."""
        with self._lock:
            self._records.extend(records)

    def _add(self, record: EvaluationRecord) -> EvaluationRecord:
        with self._lock:
            self._records.append(record)
        return record

    def record_for(
        self, result: MetricResult | float, *, metric: str | None = None
    ) -> EvaluationRecord | None:
        """The record of ``result``, or of the current test's latest evaluation scoring it.

        A :class:`MetricResult` is found by identity; a bare score (what
        ``multi_turn_score`` returns) by equality among the current test's evaluations,
        latest first, optionally of one ``metric`` only.
        """
        test = self._current_test()
        with self._lock:
            for record in reversed(self._records):
                if not isinstance(result, int | float):
                    if record.result is result:
                        return record
                    continue
                if record.test != test or record.score != result:
                    continue
                if metric is None or _same_metric(record.metric, metric):
                    return record
        return None

    def check(self, result: MetricResult | float, check: ScoreCheck) -> EvaluationRecord | None:
        """Attach ``check`` to the record of ``result``; keep a result not seen before."""
        record = self.record_for(result)
        if record is None and not isinstance(result, int | float):
            record = self._add(EvaluationRecord.from_result(result, test=self._current_test()))
        if record is not None:
            with self._lock:
                record.checks.append(check)
        return record


def _same_metric(name: str, wanted: str) -> bool:
    def key(text: str) -> str:
        return text.replace("_", "").replace("-", "").lower().removesuffix("metric")

    return key(name) == key(wanted)


_active: list[ScoreRecorder] = []


def active_recorder() -> ScoreRecorder | None:
    """The recorder of the innermost running pytest session with the plugin, if any."""
    return _active[-1] if _active else None


@contextmanager
def recording(recorder: ScoreRecorder) -> Iterator[ScoreRecorder]:
    """Make ``recorder`` the active one for the duration (nested sessions stack)."""
    _active.append(recorder)
    try:
        yield recorder
    finally:
        _active.remove(recorder)
