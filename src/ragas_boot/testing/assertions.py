"""``assert_score``: a threshold check whose failure says what every judge thought."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ragas_boot._pytest.recording import (
    EQUALS_TOLERANCE,
    ScoreCheck,
    active_recorder,
    evaluation_of_result,
)

if TYPE_CHECKING:
    from ragas_boot.metrics.results import MetricResult
    from ragas_boot.runs.pytest_session import PytestEvaluation

__all__ = ["assert_score", "describe_evaluation"]

_REASON_WIDTH = 160


def _bound(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise TypeError(f"assert_score: {name} must be a number, got {value!r}")
    return float(value)


def _short(text: str, width: int = _REASON_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def describe_evaluation(record: PytestEvaluation) -> list[str]:
    """Lines telling how a score came about: each judge's score and reason, exclusions, why.

    Used by :func:`assert_score`'s failure message; indented, without the headline.
    """
    lines: list[str] = []
    result = record.result
    model_scores = result.model_scores if result is not None else {}
    details = []
    if result is not None and result.mode:
        details.append(f"mode {result.mode}")
    if result is not None and model_scores:
        details.append(f"aggregation {result.aggregation}")
        details.append(f"agreement {result.agreement:.2f}")
    if details:
        lines.append("  " + ", ".join(details))
    asked = list(result.judge_ids) if result is not None else []
    for judge in model_scores:
        if judge not in asked:
            asked.append(judge)
    if model_scores and result is not None:
        reasons = result.reasons()
        width = max(len(judge) for judge in model_scores)
        lines.append(f"  judges ({len(model_scores)} of {len(asked)} scored):")
        for judge, score in model_scores.items():
            reason = reasons.get(judge, "")
            line = f"    {judge.ljust(width)}  {score:.3f}"
            lines.append(line + (f"  {_short(reason)}" if reason else ""))
    elif result is not None and result.aggregation == "NONE":
        lines.append("  judges: none (computed without an LLM)")
    if result is not None:
        exclusions = result.exclusions
    else:
        exclusions = record.error.failures if record.error is not None else []
    if exclusions:
        lines.append(f"  excluded ({len({e.judge_id for e in exclusions})}):")
        for exclusion in exclusions:
            lines.append(
                f"    {exclusion.judge_id} at {exclusion.step}: {exclusion.kind}"
                + (f" - {_short(exclusion.message)}" if exclusion.message else "")
            )
    explanation = _explanation(record)
    if explanation:
        lines.append(f"  explanation: {explanation}")
    return lines


def _explanation(record: PytestEvaluation) -> str:
    """How the score came about, why it is undefined, or why the evaluation failed."""
    if record.result is not None:
        return record.result.explanation or (record.result.undefined_reason or "")
    return record.error.message if record.error is not None else ""


def assert_score(
    result: MetricResult | float,
    *,
    at_least: float | None = None,
    at_most: float | None = None,
    equals: float | None = None,
    tolerance: float = EQUALS_TOLERANCE,
    msg: str | None = None,
) -> None:
    """Fail unless the score lies within the bounds (both inclusive), or equals a value.

    ``equals=x`` is Java's ``isEqualTo(x)``: the score must lie within ``tolerance`` of ``x``
    (default ``1e-9``, so only float rounding passes; a judged score that may vary takes a
    wider one, ``equals=0.5, tolerance=0.05``). It cannot be combined with the bounds.

    The failure message names the metric and the score and, for each judge, its score and
    reason, the judges that were excluded and why, and the metric's explanation. Given a bare
    score (what ``multi_turn_score`` returns) inside a pytest test with the ragas-boot plugin,
    the details come from that test's latest evaluation with that score. Every check also
    shows in the plugin's terminal summary and ``--ragas-report``.

    Example:
        >>> result = metric.evaluate(sample)                       # doctest: +SKIP
        >>> assert_score(result, at_least=0.8)                     # doctest: +SKIP
        >>> assert_score(metric.multi_turn_score(sample), at_most=0.6)  # doctest: +SKIP
        >>> assert_score(tool_call_accuracy.evaluate(sample), equals=1.0)  # doctest: +SKIP

    Args:
        result: a :class:`~ragas_boot.MetricResult`, or a score.
        at_least: the lowest passing score.
        at_most: the highest passing score.
        equals: the score expected (within ``tolerance``); not with ``at_least``/``at_most``.
        tolerance: how far from ``equals`` the score may lie (absolute, ``>= 0``).
        msg: text put before the details in the failure message.

    Raises:
        AssertionError: the score is out of bounds, or undefined (``None``).
        TypeError: no bound was given, ``equals`` came with a bound, or a bound is not a number.
        ValueError: ``at_least`` is greater than ``at_most``, or ``tolerance`` is negative.
    """
    __tracebackhide__ = True
    low, high = _bound("at_least", at_least), _bound("at_most", at_most)
    expected = _bound("equals", equals)
    margin = _bound("tolerance", tolerance) or 0.0
    if margin < 0:
        raise ValueError(f"assert_score: tolerance={margin:g} is negative")
    if expected is not None:
        if low is not None or high is not None:
            raise TypeError("assert_score takes equals= or at_least=/at_most=, not both")
        low, high = expected - margin, expected + margin
    elif low is None and high is None:
        raise TypeError("assert_score needs at_least=, at_most=, both, or equals=")
    if low is not None and high is not None and low > high:
        raise ValueError(f"assert_score: at_least={low:g} is greater than at_most={high:g}")

    if isinstance(result, int | float) and not isinstance(result, bool):
        score: float | None = float(result)
        metric = "score"
    elif hasattr(result, "score") and hasattr(result, "metric"):
        score = result.score
        metric = result.metric
    else:
        raise TypeError(f"assert_score takes a MetricResult or a score, got {result!r}")

    passed = score is not None and (low is None or score >= low) and (high is None or score <= high)
    check = ScoreCheck(
        at_least=low,
        at_most=high,
        passed=passed,
        equals=expected,
        tolerance=margin if expected is not None else 0.0,
    )
    recorder = active_recorder()
    record = recorder.check(result, check) if recorder is not None else None
    if record is None and not isinstance(result, int | float):
        record = evaluation_of_result(result, test=None)
    if passed:
        return

    if record is not None:
        metric = record.row
    if score is None:
        reason = _explanation(record) if record is not None else ""
        headline = f"{metric}: the score is undefined" + (f" ({reason})" if reason else "")
    elif expected is not None:
        headline = f"{metric}: score {score:.3f}, expected {check.label()}"
    elif low is not None and score < low:
        headline = f"{metric}: score {score:.3f} is below at_least={low:g}"
    else:
        headline = f"{metric}: score {score:.3f} is above at_most={high:g}"
    lines = [f"{msg}: {headline}" if msg else headline]
    if record is not None:
        lines.extend(describe_evaluation(record))
    raise AssertionError("\n".join(lines))
