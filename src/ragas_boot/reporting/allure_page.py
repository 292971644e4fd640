"""The Allure attachment of one evaluation: a self-contained HTML page.

Score, the quorum check (``min-judges``), each judge's score and reason, exclusions, the
explanation, a timeline of the judge calls and, per step, prompts and raw answers; the
plugin's ``AllureAttacher`` attaches it to the test's Allure step. A metric run with
``repeat: N`` gets one such page per repeat (named ``repeat i/N``) and, after the last one,
a page of the repeats (:func:`render_repeats_page`): pass rate, 95% Wilson interval,
stability and each repeat's score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape
from ragas_boot.reporting._style import style_tag
from ragas_boot.runs.pytest_session import criterion_label

if TYPE_CHECKING:
    from ragas_boot.config.settings import AllureSettings
    from ragas_boot.execution.listeners import EvaluationFinished
    from ragas_boot.execution.results import StepRecord
    from ragas_boot.metrics.results import MetricResult

__all__ = ["page_name", "render_page", "render_repeats_page", "repeats_page_name"]


def _repeat_of(event: EvaluationFinished) -> tuple[int, int] | None:
    """``(index, runs)`` of a repeat of ``repeat: N`` (0-based index), else None."""
    if event.repeat is None:
        return None
    return event.repeat, getattr(event.config, "repeat", event.repeat + 1)


def page_name(event: EvaluationFinished) -> str:
    """The attachment's name: ``AgentGoalAccuracyMetric = 0.500``; a repeat's adds
    ``(repeat 2/3)``."""
    name = f"{criterion_label(event.metric, _definition(event))} = {_score(event.score)}"
    repeat = _repeat_of(event)
    return name if repeat is None else f"{name} (repeat {repeat[0] + 1}/{repeat[1]})"


def _definition(event: EvaluationFinished) -> object:
    """The criterion an evaluation checked, when it was passed inline (``definition=``)."""
    return getattr(event.config, "definition", None) or event.metadata.get("definition")


def repeats_page_name(result: MetricResult) -> str:
    """The repeats page's name: ``AgentGoalAccuracyMetric = 0.500 (3 repeats)``."""
    runs = result.repeats.runs if result.repeats is not None else 1
    return f"{result.metric} = {_score(result.score)} ({runs} repeats)"


def _quorum_html(quorum: Any) -> str:
    """The quorum line: met, or missed (the score is then undefined)."""
    if quorum is None:
        return ""
    verdict = "met" if quorum.met else "MISSED: no score"
    css = "good" if quorum.met else "poor"
    return (
        f"<p>Quorum: {quorum.answered} of {quorum.asked} judges answered, min-judges "
        f"{quorum.required} - <span class='badge {css}'>{escape(verdict)}</span></p>"
    )


def _cut(text: str, limit: int) -> str:
    if limit <= 0 or len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters)"


def _score(value: float | None) -> str:
    return fmt.score(value)


def _score_class(value: float | None) -> str:
    if value is None:
        return "none"
    return "good" if value >= 0.8 else "fair" if value >= 0.5 else "poor"


def _gantt(steps: Sequence[StepRecord]) -> str:
    """An inline SVG timeline: one bar per judge call, steps laid end to end."""
    bars: list[tuple[str, float, float, bool]] = []
    offset = 0.0
    for step in steps:
        for call in step.calls:
            start = offset + call.started_s + call.wait_s
            bars.append((f"{step.name} · {call.judge_id}", start, call.latency_s, call.ok))
        offset += step.duration_s
    if not bars:
        return ""
    total = max(start + length for _, start, length, _ in bars) or 1.0
    label_width, bar_width, row = 330, 420, 20
    height = row * len(bars) + 24
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_width + bar_width + 70}" '
        f'height="{height}" role="img" aria-label="judge call timeline">'
    ]
    for index, (label, start, length, ok) in enumerate(bars):
        y = index * row + 4
        x = label_width + start / total * bar_width
        width = max(2.0, length / total * bar_width)
        colour = "#2c67e8" if ok else "#eb5146"
        parts.append(
            f'<text x="0" y="{y + 13}" font-size="12">{escape(label[:48])}</text>'
            f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="14" fill="{colour}"/>'
            f'<text x="{x + width + 4:.1f}" y="{y + 12}" font-size="11">'
            f"{length * 1000:.0f} ms</text>"
        )
    axis_y = row * len(bars) + 16
    parts.append(
        f'<text x="{label_width}" y="{axis_y}" font-size="11" fill="#5b6478">0</text>'
        f'<text x="{label_width + bar_width - 40}" y="{axis_y}" font-size="11" '
        f'fill="#5b6478">{total * 1000:.0f} ms</text></svg>'
    )
    return "".join(parts)


def render_page(event: EvaluationFinished, settings: AllureSettings | None = None) -> str:
    """A self-contained HTML page: score, judges' scores and reasons, exclusions,
    explanation, a timeline of the judge calls and, per step, prompts and raw answers."""
    from ragas_boot.config.settings import AllureSettings

    options = settings or AllureSettings()
    result = event.result
    esc = escape
    reasons = event.metadata.get("reasons") or {}
    explanation = getattr(result, "explanation", "") or ""
    mode = getattr(result, "mode", None)
    excluded: dict[str, list[str]] = {}
    for exclusion in event.exclusions:
        excluded.setdefault(exclusion.judge_id, []).append(
            f"{exclusion.step}: {exclusion.kind} - {exclusion.message}"
        )
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{esc(event.metric)}</title>{style_tag()}</head><body><main>",
        f"<h1>{esc(event.metric)} <span class='badge {_score_class(event.score)}'>"
        f"{_score(event.score)}</span></h1>",
        f"<div class='meta'>{event.duration_s * 1000:.0f} ms"
        + (
            f" · repeat {repeat[0] + 1} of {repeat[1]}"
            if (repeat := _repeat_of(event)) is not None
            else ""
        )
        + (f" · mode {esc(str(mode))}" if mode else "")
        + (f" · aggregation {esc(result.aggregation)}" if result is not None else "")
        + "</div>",
    ]
    out.append(_quorum_html(getattr(result, "quorum", None)))
    if event.error:
        out.append(f"<h2>Error</h2><pre>{esc(event.error)}</pre>")
    if explanation:
        out.append(f"<h2>Explanation</h2><p>{esc(explanation)}</p>")
    judges = list(dict.fromkeys([*event.judge_ids, *event.model_scores, *excluded]))
    if judges:
        out.append("<h2>Judges</h2><table><tr><th>judge</th><th>score</th><th>reason</th></tr>")
        for judge in judges:
            if judge in event.model_scores:
                score = f"{event.model_scores[judge]:.3f}"
                reason = str(reasons.get(judge, ""))
            elif judge in excluded:
                score = "excluded"
                reason = "; ".join(excluded[judge])
            else:
                score, reason = fmt.MISSING, ""
            out.append(f"<tr><td>{esc(judge)}</td><td>{esc(score)}</td><td>{esc(reason)}</td></tr>")
        out.append("</table>")
    else:
        out.append("<p class='meta'>Computed without judges.</p>")
    chart = _gantt(event.steps)
    if chart:
        out.append(f"<h2>Timeline</h2>{chart}")
    for step in event.steps:
        out.append(f"<h2>Step {step.index + 1}: {esc(step.name)} ({esc(step.kind)})</h2>")
        for call in step.calls:
            status = "ok" if call.ok else f"failed: {call.error_kind} - {call.error_message}"
            out.append(
                f"<details><summary>{esc(call.judge_id)} - {esc(status)} "
                f"({call.latency_s * 1000:.0f} ms, {call.attempts} attempt(s))</summary>"
            )
            if options.include_prompts:
                prompt = _cut(call.prompt, options.max_prompt_length)
                out.append(f"<div>Prompt</div><pre>{esc(prompt)}</pre>")
            if options.include_responses and call.raw_text is not None:
                answer = _cut(call.raw_text, options.max_response_length)
                out.append(f"<div>Answer</div><pre>{esc(answer)}</pre>")
            out.append("</details>")
    out.append("</main></body></html>")
    return "\n".join(out)


def render_repeats_page(result: MetricResult, threshold: float) -> str:
    """A self-contained HTML page of the repeats of one evaluation (``repeat: N``): the
    mean score, pass rate with its 95% Wilson interval, stability, the first missed quorum
    and each repeat's score against ``threshold``."""
    from ragas_boot.metrics.results import meets_threshold

    repeats = result.repeats
    esc = escape
    out = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        f"<title>{esc(result.metric)}</title>{style_tag()}</head><body><main>",
        f"<h1>{esc(result.metric)} <span class='badge {_score_class(result.score)}'>"
        f"{_score(result.score)}</span></h1>",
    ]
    if repeats is None:
        out.append("<p class='meta'>Scored once.</p></main></body></html>")
        return "\n".join(out)
    stability = "unstable" if repeats.unstable else "stable"
    out += [
        f"<div class='meta'>mean of {repeats.runs} repeats · threshold {threshold:g}"
        f" · {result.duration_s * 1000:.0f} ms</div>",
        "<h2>Repeats</h2><table><tr><th>runs</th><th>passed</th><th>pass rate</th>"
        "<th>95% CI</th><th>stability</th></tr>",
        f"<tr><td>{repeats.runs}</td><td>{repeats.passed}/{repeats.scored}</td>"
        f"<td>{fmt.percent(repeats.pass_rate)}</td>"
        f"<td>{fmt.interval(repeats.ci_low, repeats.ci_high)}</td>"
        f"<td><span class='badge {'fair' if repeats.unstable else 'good'}'>{stability}"
        "</span></td></tr></table>",
    ]
    if repeats.unstable:
        out.append(
            "<p>Unstable: the repeats fall on both sides of the threshold, so the judges' "
            "verdict on this sample is not reproducible.</p>"
        )
    out.append(_quorum_html(result.quorum))
    out.append("<table><tr><th>repeat</th><th>score</th><th>verdict</th></tr>")
    for index, value in enumerate(repeats.scores):
        if value is None:
            verdict = "no score"
        else:
            passes = meets_threshold(value, threshold, lower_is_better=result.lower_is_better)
            verdict = "pass" if passes else "fail"
        out.append(f"<tr><td>{index + 1}</td><td>{_score(value)}</td><td>{verdict}</td></tr>")
    out.append("</table></main></body></html>")
    return "\n".join(out)
