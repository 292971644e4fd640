"""Allure attachments: one HTML page per evaluation, on the test step that ran it.

Active only when allure-pytest is installed and reporting (``--alluredir``), and
``spring.ai.ragas.allure.enabled`` is not set to ``false``; ragas-boot does not depend on
allure. Allure keeps its "current step" per thread, while judge metrics finish on the
container's I/O thread, so a page is attached on the test's own thread: at once when the
evaluation ran there (computed metrics), else when the Allure step that was open at the time
closes, or at the end of the test phase.
"""

from __future__ import annotations

import html
import importlib
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ragas_boot._pytest.state import RagasPluginState
    from ragas_boot.config.settings import AllureSettings, RagasSettings
    from ragas_boot.execution.listeners import EvaluationFinished, EvaluationStarted
    from ragas_boot.execution.results import StepRecord

__all__ = ["AllureAttacher", "allure_enabled", "render_page", "start_allure"]

_ENABLED_KEY = "spring.ai.ragas.allure.enabled"


def allure_enabled(config: pytest.Config, settings: RagasSettings) -> bool:
    """allure-pytest is reporting, and the YAML does not switch the attachments off.

    ``spring.ai.ragas.allure.enabled`` defaults to ``false`` in the Java library, where it
    also gates the Allure beans; here running with ``--alluredir`` is the opt-in, and only an
    explicit ``false`` turns the pages off.
    """
    if config.pluginmanager.get_plugin("allure_listener") is None:
        return False
    return settings.allure.enabled or _ENABLED_KEY not in settings.source.origins


def _cut(text: str, limit: int) -> str:
    if limit <= 0 or len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters)"


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _score_class(value: float | None) -> str:
    if value is None:
        return "none"
    return "good" if value >= 0.8 else "fair" if value >= 0.5 else "poor"


_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:16px;color:#1d2433}
h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:18px 0 6px}
.badge{display:inline-block;padding:2px 10px;border-radius:10px;color:#fff;font-weight:600}
.good{background:#09a232}.fair{background:#eb9b46}.poor{background:#eb5146}.none{background:#7281a1}
table{border-collapse:collapse}td,th{border:1px solid #d6dbe6;padding:4px 8px;text-align:left;
vertical-align:top}th{background:#f2f4f8}.meta{color:#5b6478}
pre{white-space:pre-wrap;background:#f7f8fa;border:1px solid #e3e6ee;padding:8px;margin:4px 0}
details{margin:4px 0}summary{cursor:pointer}
"""


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
            f'<text x="0" y="{y + 13}" font-size="12">{html.escape(label[:48])}</text>'
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
    esc = html.escape
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
        f"<title>{esc(event.metric)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{esc(event.metric)} <span class='badge {_score_class(event.score)}'>"
        f"{_score(event.score)}</span></h1>",
        f"<div class='meta'>{event.duration_s * 1000:.0f} ms"
        + (f" · mode {esc(str(mode))}" if mode else "")
        + (f" · aggregation {esc(result.aggregation)}" if result is not None else "")
        + "</div>",
    ]
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
                score, reason = "-", ""
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
    out.append("</body></html>")
    return "\n".join(out)


class AllureAttacher:
    """A metric listener that attaches :func:`render_page` to the test's Allure step.

    Args:
        state: the plugin's state (which test runs, on which thread).
        settings: ``spring.ai.ragas.allure`` (prompts and answers shown, cut lengths).
        attach: the Allure call, ``attach(html, name)``.
    """

    order = 101

    def __init__(self, *, state: RagasPluginState, settings: AllureSettings, attach: Any) -> None:
        self._state = state
        self._settings = settings
        self._attach = attach
        self._lock = threading.Lock()
        self._pending: list[tuple[str | None, str, str]] = []
        self._steps: list[str] = []

    def before_evaluation(self, event: EvaluationStarted) -> None:
        """Nothing to do before an evaluation."""

    def after_evaluation(self, event: EvaluationFinished) -> None:
        """Attach the page now on the test's thread, else keep it for that thread."""
        page = render_page(event, self._settings)
        name = f"{event.metric} = {_score(event.score)}"
        if self._on_test_thread():
            self._attach(page, name)
            return
        with self._lock:
            step = self._steps[-1] if self._steps else None
            self._pending.append((step, name, page))

    def _on_test_thread(self) -> bool:
        state = self._state
        return state.current_test is not None and threading.get_ident() == state.test_thread

    def step_started(self, uuid: str) -> None:
        """An Allure step opened on the test's thread."""
        if self._on_test_thread():
            with self._lock:
                self._steps.append(uuid)

    def step_stopping(self, uuid: str) -> None:
        """An Allure step is about to close: attach the pages of evaluations made in it."""
        with self._lock:
            if uuid not in self._steps:
                return
            self._steps.remove(uuid)
            mine = [item for item in self._pending if item[0] == uuid]
            self._pending = [item for item in self._pending if item[0] != uuid]
        for _, name, page in mine:
            self._attach(page, name)

    def flush(self) -> None:
        """Attach every page still waiting (end of a test phase, on the test's thread)."""
        with self._lock:
            waiting, self._pending = self._pending, []
            self._steps.clear()
        for _, name, page in waiting:
            self._attach(page, name)


def start_allure(state: RagasPluginState, settings: RagasSettings) -> AllureAttacher | None:
    """Make the attacher and hook it into Allure's steps, when Allure reporting is on."""
    if not allure_enabled(state.config, settings):
        return None
    # Imported by name: allure ships no type information and is not a dependency.
    allure = importlib.import_module("allure")
    allure_commons = importlib.import_module("allure_commons")

    def attach(page: str, name: str) -> None:
        allure.attach(page, name=name, attachment_type=allure.attachment_type.HTML)

    attacher = AllureAttacher(state=state, settings=settings.allure, attach=attach)
    first: Callable[[Callable[..., None]], Callable[..., None]] = allure_commons.hookimpl(
        tryfirst=True
    )

    class _StepHooks:
        """Runs before allure-pytest's own step hooks, while the step is still current."""

        @first
        def start_step(self, uuid: str, title: str, params: Any) -> None:
            attacher.step_started(uuid)

        @first
        def stop_step(self, uuid: str, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
            attacher.step_stopping(uuid)

    hooks = _StepHooks()
    allure_commons.plugin_manager.register(hooks)
    state.config.add_cleanup(lambda: allure_commons.plugin_manager.unregister(hooks))
    return attacher
