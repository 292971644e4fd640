"""Console tables of a run, as plain text."""

from __future__ import annotations

from ragas_boot.reporting import render_console


def _line(text: str, *words: str) -> str:
    return next(line for line in text.splitlines() if all(word in line for word in words))


def test_the_evaluate_view_has_a_row_per_sample_and_the_metric_summary(run):
    text = render_console(run, "evaluate", width=160)
    assert "Results (report-test: 9 samples × 3 metrics)" in text
    header = _line(text, "Sample", "agent_goal_accuracy", "topic_adherence", "tool_call_accuracy")
    assert header
    assert "failed (all judges failed)" in _line(text, "hostile<script>")
    assert "failed (sample validation)" in _line(text, "hostile<script>")
    wrong = _line(text, "flight-booking-wrong-date")
    assert "fail" in wrong and "0.000 fail" in wrong  # the wrong date: no tool call matches
    summary = _line(text, "│ agent_goal_accuracy")
    cells = [cell.strip() for cell in summary.strip(" │").split("│")]
    assert cells[5] == "0.50" and cells[8] == "1"  # threshold; one failed evaluation
    assert cells[-1].startswith("$")  # three of the judges have a price: the metric's cost
    assert "Failed evaluations (2)" in text
    assert "9 samples × 3 metrics: 25 scored, 0 undefined, 2 failed" in text
    assert "Judges" not in text.split("Metrics")[1]  # no judge table in this view


def test_the_compare_view_has_judges_and_agreement(run):
    text = render_console(run, "compare", width=160)
    assert "Results (" not in text
    down = _line(text, "gemini-2.5-flash (google)", "agent_goal_accuracy")
    assert "—" in down and "9/9" in down
    assert _line(text, "gpt-4o-mini (openai)", "agent_goal_accuracy")
    assert "Judge agreement (verdict = score >= 0.5)" in text
    assert "Fleiss κ, all judges" in text
    assert "gemini-2.5-flash" not in _line(text, "gpt-4o-mini · ")  # down all run: left out


def test_markup_in_user_data_is_printed_as_is(run):
    text = render_console(run, "evaluate", width=160)
    assert "hostile<script>" in text
