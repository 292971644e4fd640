"""ASCII Gantt chart of judge latencies (Java's AsciiGanttChart, with the tick drift fixed).

In the Java chart the tick rule advanced one character per label while the label row advanced
by the label's length, so ticks drifted away from their numbers (``┼┼``). Here every tick is
placed at the same column as the first character of its label.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["render_gantt"]

_MIN_LABEL = 35


def _nice_interval(max_ms: float, markers: int) -> float:
    if max_ms <= 0:
        return 1000.0
    raw = max_ms / max(1, markers)
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for step in (1, 2, 5, 10):
        if step * magnitude >= raw:
            return float(step * magnitude)
    return float(10 * magnitude)


def _tick_label(ms: float) -> str:
    return f"{ms / 1000:.1f}s" if ms >= 10_000 else f"{ms:.0f}"


def _fit(label: str, width: int) -> str:
    return label if len(label) <= width else label[: width - 3] + "..."


def render_gantt(items: Sequence[tuple[str, float]], *, width: int = 100) -> str:
    """Render ``(label, milliseconds)`` items as bars on a shared time axis.

    Items are sorted by label. Returns ``"No execution data"`` for no items.
    """
    if not items:
        return "No execution data"
    rows = sorted(items, key=lambda item: item[0])
    label_width = max(_MIN_LABEL, max(len(label) for label, _ in rows) + 2)
    label_width = min(label_width, max(_MIN_LABEL, width // 2))
    bar_width = max(20, width - label_width - 10)
    max_ms = max(ms for _, ms in rows)

    header = [" "] * (bar_width + 8)
    rule = ["─"] * (bar_width + 1)
    rule[0] = "├"
    rule[bar_width] = "┤"
    if max_ms > 0:
        markers = min(7, bar_width // 10)
        interval = _nice_interval(max_ms, markers)
        next_free = 0
        tick = 0.0
        while tick <= max_ms + 1e-9:
            position = round(tick / max_ms * bar_width)
            text = _tick_label(tick)
            if position >= next_free and position + len(text) <= len(header):
                header[position : position + len(text)] = list(text)
                if 0 < position < bar_width:
                    rule[position] = "┼"
                next_free = position + len(text) + 1
            tick += interval
    else:
        header[0] = "0"

    lines = ["Time(ms)".ljust(label_width) + "".join(header).rstrip()]
    lines.append(" " * label_width + "".join(rule))
    for label, ms in rows:
        filled = round(ms / max_ms * bar_width) if max_ms > 0 else 0
        bar = "█" * filled + "░" * (bar_width - filled)
        lines.append(f"{_fit(label, label_width - 1).ljust(label_width)}{bar} {ms:.0f}ms")
    return "\n".join(lines)
