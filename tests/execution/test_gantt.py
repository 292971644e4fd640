"""The ASCII Gantt chart, with the Java tick drift fixed."""

from ragas_boot.execution.gantt import render_gantt


def _header_and_rule(text):
    lines = text.splitlines()
    return lines[0], lines[1], lines[2:]


def test_every_tick_sits_under_the_first_character_of_its_label():
    text = render_gantt(
        [("anthropic/claude-haiku-4.5", 1523.0), ("google/gemini-2.0-flash-001", 5102.0)],
        width=98,
    )
    header, rule, _ = _header_and_rule(text)
    assert "┼┼" not in rule
    label_start = header.index("0", len("Time(ms)"))
    ticks = [i for i, ch in enumerate(rule) if ch in "├┼"]
    assert ticks[0] == label_start
    for column in ticks[1:]:
        assert header[column].isdigit(), (column, header, rule)
        assert header[column - 1] == " "


def test_bars_are_proportional_and_sorted_by_label():
    text = render_gantt([("b-judge", 100.0), ("a-judge", 200.0)], width=80)
    _, _, rows = _header_and_rule(text)
    assert rows[0].startswith("a-judge")
    full = rows[0].count("█")
    half = rows[1].count("█")
    assert full > 0
    assert abs(half - full / 2) <= 1
    assert rows[0].endswith("200ms")


def test_zero_durations_draw_empty_bars_and_one_tick():
    text = render_gantt([("a", 0.0), ("b", 0.0)], width=80)
    header, _, rows = _header_and_rule(text)
    assert header.split()[-1] == "0"
    assert all("█" not in row for row in rows)


def test_long_runs_are_labelled_in_seconds():
    header, _, _ = _header_and_rule(render_gantt([("a", 25_000.0)], width=100))
    assert "10.0s" in header


def test_no_items():
    assert render_gantt([]) == "No execution data"
