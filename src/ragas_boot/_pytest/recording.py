"""Evaluations seen during a test run, each tied to the test that ran it.

The pytest plugin registers a :class:`ScoreRecorder` on every metric bean it hands out; the
beans call it after each evaluation (from whichever thread ran the evaluation) and
:func:`~ragas_boot.testing.assert_score` adds the thresholds it checked. Each record is a
:class:`~ragas_boot.runs.pytest_session.PytestEvaluation`: the
:class:`~ragas_boot.runs.records.Evaluation` a dataset run would keep, made by the same
translation (``runs/evaluations.py``), with its test and checks. The plugin renders them as
the terminal summary and the ``--ragas-report`` JSON file.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ragas_boot.runs.evaluations import evaluation_error, finished_evaluation
from ragas_boot.runs.pytest_session import EQUALS_TOLERANCE, PytestEvaluation, ScoreCheck
from ragas_boot.runs.records import Evaluation, EvaluationError

if TYPE_CHECKING:
    from ragas_boot.execution.listeners import EvaluationFinished, EvaluationStarted
    from ragas_boot.metrics.results import MetricResult

__all__ = [
    "EQUALS_TOLERANCE",
    "ScoreCheck",
    "ScoreRecorder",
    "active_recorder",
    "evaluation_of_event",
    "evaluation_of_result",
    "recording",
]

#: Order among a bean's listeners: after the logging listener, like Java's Allure listener.
RECORDER_ORDER = 100

#: The pass mark of a result whose config does not say (MetricConfig's default).
_DEFAULT_THRESHOLD = 0.5


def _definition(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _run_name(label: str) -> str:
    """The bean name (``aspect_critic:no-profanity`` for a named criterion) of a metric
    known by its label, as a dataset run names it; the label when no registered metric has
    that class name."""
    from ragas_boot.metrics.registry import metric_class

    name, colon, criterion = label.partition(":")
    try:
        bean = metric_class(name).bean_name
    except KeyError:
        return label
    return f"{bean}:{criterion}" if colon else bean


def _threshold(result: MetricResult) -> float:
    value = result.config.get("threshold")
    return float(value) if isinstance(value, int | float) else _DEFAULT_THRESHOLD


def evaluation_of_result(result: MetricResult, *, test: str | None) -> PytestEvaluation:
    """The record of a result the recorder did not see made (``assert_score`` on a result of
    a bean the plugin did not hand out), its pass mark read from its config."""
    evaluation = finished_evaluation(
        _run_name(result.metric),
        result,
        threshold=_threshold(result),
        duration_s=result.duration_s,
    )
    return PytestEvaluation.of(
        evaluation,
        test=test,
        label=result.metric,
        criterion=_definition(result.metadata.get("definition")),
    )


def evaluation_of_event(event: EvaluationFinished, *, test: str | None) -> PytestEvaluation:
    """The record of a finished evaluation, from the bean's event: scored or undefined with
    its result, else failed with its error (its steps and judges' failures the event's: of
    ``repeat: N``, every repeat's)."""
    name = event.bean_name or _run_name(event.metric)
    config = event.config
    criterion = _definition(getattr(config, "definition", None))
    if event.result is not None:
        threshold = getattr(config, "threshold", None)
        evaluation = finished_evaluation(
            name,
            event.result,
            threshold=threshold if isinstance(threshold, float) else _threshold(event.result),
            duration_s=event.duration_s,
        )
    else:
        error = (
            evaluation_error(event.failure)
            if event.failure is not None
            else EvaluationError(kind="error", type="Exception", message=event.error or "failed")
        )
        error = error.model_copy(
            update={"steps": list(event.steps), "failures": list(event.exclusions)}
        )
        evaluation = Evaluation(
            metric=name,
            status="failed",
            error=error,
            duration_s=event.duration_s,
            no_quorum=event.min_judges is not None and error.kind == "all_judges_failed",
        )
    return PytestEvaluation.of(evaluation, test=test, label=event.metric, criterion=criterion)


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
        self._records: list[PytestEvaluation] = []

    def __repr__(self) -> str:
        return f"ScoreRecorder(records={len(self._records)})"

    @property
    def records(self) -> list[PytestEvaluation]:
        """Every record, in the order the evaluations finished."""
        with self._lock:
            return list(self._records)

    def before_evaluation(self, event: EvaluationStarted) -> None:
        """Nothing to do before an evaluation."""

    def after_evaluation(self, event: EvaluationFinished) -> None:
        """Keep the finished evaluation; of ``repeat: N``, the repeats together (the metric's
        last event), not each repeat."""
        if event.repeat is None:
            self._add(evaluation_of_event(event, test=self._current_test()))

    def extend(self, records: Iterable[PytestEvaluation]) -> None:
        """Keep records made elsewhere (a pytest-xdist worker's, on the controller)."""
        with self._lock:
            self._records.extend(records)

    def _add(self, record: PytestEvaluation) -> PytestEvaluation:
        with self._lock:
            self._records.append(record)
        return record

    def _find(self, result: MetricResult | float, test: str | None) -> int | None:
        """Where the record of ``result`` is (the lock held): a :class:`MetricResult` by
        identity, a bare score (what ``multi_turn_score`` returns) by equality among
        ``test``'s evaluations, latest first."""
        for index in range(len(self._records) - 1, -1, -1):
            record = self._records[index]
            if not isinstance(result, int | float):
                if record.result is result:
                    return index
            elif record.test == test and record.score == result:
                return index
        return None

    def record_for(self, result: MetricResult | float) -> PytestEvaluation | None:
        """The record of ``result``, or of the current test's latest evaluation scoring it."""
        test = self._current_test()
        with self._lock:
            index = self._find(result, test)
            return None if index is None else self._records[index]

    def check(self, result: MetricResult | float, check: ScoreCheck) -> PytestEvaluation | None:
        """Add ``check`` to the record of ``result`` (keeping a result not seen before) and
        return the record; None for a bare score no evaluation of the test gave."""
        test = self._current_test()
        with self._lock:
            index = self._find(result, test)
            if index is None:
                if isinstance(result, int | float):
                    return None
                self._records.append(evaluation_of_result(result, test=test))
                index = len(self._records) - 1
            record = self._records[index] = self._records[index].with_check(check)
            return record


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
