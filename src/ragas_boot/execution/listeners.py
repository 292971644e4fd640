"""Listener events around each metric evaluation, and the logging listener's summary box."""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragas_boot._text import printable
from ragas_boot.config.settings import LoggingLevel
from ragas_boot.execution.gantt import render_gantt
from ragas_boot.execution.results import Exclusion, StepRecord

__all__ = [
    "EvaluationFinished",
    "EvaluationStarted",
    "ListenerRegistry",
    "LoggingListener",
    "MetricListener",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EvaluationStarted:
    """Sent once before a metric starts work on a sample."""

    metric: str
    sample: Any
    config: Any
    judge_ids: list[str]
    total_steps: int


@dataclass(frozen=True, slots=True)
class EvaluationFinished:
    """Sent once after a metric finished a sample, successfully or not (with ``repeat: N``,
    once per repeat and once for the repeats together: see ``repeat``).

    Unlike the Java library, an evaluation that fails (every judge failed) still sends this
    event, with ``error`` set and ``score`` ``None``, so reports show what happened.
    """

    metric: str
    sample: Any
    config: Any
    judge_ids: list[str]
    score: float | None
    model_scores: dict[str, float]
    steps: list[StepRecord]
    exclusions: list[Exclusion]
    duration_s: float
    error: str | None = None
    result: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)
    repeat: int | None = None
    """Of a metric run with ``repeat: N``: this repeat's 0-based index. After the N repeats'
    events, one more (``repeat`` None) stands for them together: the combined result (its
    ``repeats`` holding their pass rate), or, when none scored, the first error with every
    repeat's steps. None for an ordinary evaluation."""
    bean_name: str | None = None
    """The metric's bean name, ``aspect_critic:no-profanity`` for a named criterion's bean
    (what a dataset run names it); None from a sender that does not say."""
    failure: BaseException | None = None
    """The exception of a failed evaluation (``error`` is its message)."""
    min_judges: int | None = None
    """The quorum the evaluation asked for (``min-judges``, the YAML default included); None:
    any one judge."""


@runtime_checkable
class MetricListener(Protocol):
    """Receives evaluation events; ``order`` sorts listeners (lowest first)."""

    order: int

    def before_evaluation(self, event: EvaluationStarted) -> None:
        """Called before the metric's first step."""
        ...

    def after_evaluation(self, event: EvaluationFinished) -> None:
        """Called after the metric's last step (or its failure)."""
        ...


class ListenerRegistry:
    """An ordered set of listeners; a listener that raises is logged and skipped."""

    def __init__(self, listeners: Iterable[MetricListener] = ()) -> None:
        self._listeners: list[MetricListener] = []
        for listener in listeners:
            self.add(listener)

    def add(self, listener: MetricListener) -> None:
        """Register a listener (kept sorted by ``order``)."""
        self._listeners.append(listener)
        self._listeners.sort(key=lambda item: item.order)

    def remove(self, listener: MetricListener) -> None:
        """Unregister a listener."""
        self._listeners.remove(listener)

    @property
    def listeners(self) -> list[MetricListener]:
        """The listeners, in call order."""
        return list(self._listeners)

    def __len__(self) -> int:
        return len(self._listeners)

    def notify_before(self, event: EvaluationStarted) -> None:
        """Call every listener's ``before_evaluation``."""
        for listener in self._listeners:
            try:
                listener.before_evaluation(event)
            except Exception:
                log.exception("listener %r failed in before_evaluation", listener)

    def notify_after(self, event: EvaluationFinished) -> None:
        """Call every listener's ``after_evaluation``."""
        for listener in self._listeners:
            try:
                listener.after_evaluation(event)
            except Exception:
                log.exception("listener %r failed in after_evaluation", listener)


def _short_reason(exclusion: Exclusion) -> str:
    kinds = {
        "rate_limited": "rate limited",
        "rate_limit_rejected": "rate limit rejected",
        "server_error": "server error",
        "auth": "auth error",
        "timeout": "timeout",
        "connection": "connection error",
    }
    if exclusion.kind in kinds:
        return kinds[exclusion.kind]
    if exclusion.kind == "invalid_output":
        message = exclusion.message.lower()
        if "empty" in message:
            return "empty response"
        if "not json" in message:
            return "parse error"
        return "invalid JSON for schema"
    text = exclusion.message or exclusion.kind
    return text if len(text) <= 47 else text[:47] + "..."


class LoggingListener:
    """Logs a summary box per evaluation: result, steps, a Gantt of judge latencies, scores.

    Args:
        level: MINIMAL logs only the result line; NORMAL adds steps and scores; VERBOSE adds
            prompts and Gantt charts.
        width: width of the box in characters.
        logger: where to log (``ragas_boot.metrics`` by default), at INFO.
    """

    order = -(2**31)

    def __init__(
        self,
        *,
        level: LoggingLevel = LoggingLevel.VERBOSE,
        width: int = 100,
        logger: logging.Logger | None = None,
    ) -> None:
        self._level = level
        self._width = width
        self._log = logger or logging.getLogger("ragas_boot.metrics")

    def before_evaluation(self, event: EvaluationStarted) -> None:
        """Log what is about to run."""
        if not self._log.isEnabledFor(logging.INFO):
            return
        self._log.info(
            "%s | Steps: %d | Models: %d (%s)",
            event.metric,
            event.total_steps,
            len(event.judge_ids),
            ", ".join(sorted(event.judge_ids)),
        )

    def after_evaluation(self, event: EvaluationFinished) -> None:
        """Log the summary box."""
        if not self._log.isEnabledFor(logging.INFO):
            return
        self._log.info("\n%s", self.render(event))

    def render(self, event: EvaluationFinished) -> str:
        """The summary box as text."""
        inner = self._width - 4
        lines: list[str] = []
        score = f"{event.score:.4f}" if event.score is not None else "N/A"
        lines.append(f"RESULT: {event.metric} = {score} ({event.duration_s * 1000:.0f}ms)")
        if event.error:
            lines.append(f"ERROR: {event.error}")
        if self._level is not LoggingLevel.MINIMAL:
            lines.extend(self._steps(event, inner))
            lines.extend(self._scores(event.model_scores, inner))
        if event.exclusions:
            lines.append("")
            lines.append(f"EXCLUDED ({len(event.exclusions)})")
            for exclusion in sorted(event.exclusions, key=lambda item: item.judge_id):
                lines.append(
                    f"  {exclusion.judge_id} @ {exclusion.step}: {_short_reason(exclusion)}"
                )
        return self._box(lines, inner)

    def _steps(self, event: EvaluationFinished, inner: int) -> list[str]:
        lines = ["", f"STEPS ({len(event.steps)})"]
        totals: dict[str, float] = {}
        for step in event.steps:
            ok, failed = len(step.successes), len(step.failures)
            status = f"{ok} OK" + (f", {failed} FAILED" if failed else "")
            lines.append(
                f"  [{step.index + 1}/{len(event.steps)}] {step.name} [{step.kind}] - {status} "
                f"({step.duration_s * 1000:.0f}ms)"
            )
            for call in step.calls:
                totals[call.judge_id] = totals.get(call.judge_id, 0.0) + call.latency_s * 1000
            if self._level is LoggingLevel.VERBOSE and step.calls:
                if len(step.calls) > 1:
                    chart = render_gantt(
                        [(call.judge_id, call.latency_s * 1000) for call in step.calls],
                        width=inner - 2,
                    )
                    lines.extend("  " + row for row in chart.splitlines())
                prompt = step.calls[0].prompt
                lines.append("  ┌─ Prompt")
                for paragraph in prompt.splitlines() or [""]:
                    for row in textwrap.wrap(paragraph, inner - 6) or [""]:
                        lines.append("  │ " + row)
                lines.append("  └─")
        if totals and self._level is LoggingLevel.VERBOSE:
            lines.append("")
            lines.append(f"TOTAL LLM TIME ({max(totals.values()):.0f}ms)")
            chart = render_gantt(list(totals.items()), width=inner - 2)
            lines.extend("  " + row for row in chart.splitlines())
        return lines

    @staticmethod
    def _scores(scores: dict[str, float], inner: int) -> list[str]:
        if not scores:
            return []
        lines = ["", "SCORES"]
        label_width = min(35, max(len(judge) for judge in scores) + 2)
        bar_width = max(10, inner - label_width - 10)
        for judge, value in sorted(scores.items()):
            filled = round(max(0.0, min(1.0, value)) * bar_width)
            label = judge if len(judge) < label_width else judge[: label_width - 4] + "..."
            bar = "█" * filled + "░" * (bar_width - filled)
            lines.append(f"  {label.ljust(label_width)}{bar} {value:.4f}")
        values: Sequence[float] = list(scores.values())
        low = min(scores, key=lambda key: scores[key])
        high = max(scores, key=lambda key: scores[key])
        lines.append(
            f"  min={scores[low]:.4f} ({low}) | max={scores[high]:.4f} ({high}) | "
            f"avg={sum(values) / len(values):.4f}"
        )
        return lines

    @staticmethod
    def _box(lines: list[str], inner: int) -> str:
        top = "╔" + "═" * (inner + 2) + "╗"
        bottom = "╚" + "═" * (inner + 2) + "╝"
        body = []
        for line in lines:
            # Prompts and ids quote the sample: control characters shown, never sent raw.
            for chunk in textwrap.wrap(
                printable(line), inner, replace_whitespace=False, drop_whitespace=False
            ) or [""]:
                body.append("║ " + chunk.ljust(inner) + " ║")
        return "\n".join([top, *body, bottom])
