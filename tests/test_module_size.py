"""No source module over 700 lines: a module that long holds more than one concern."""

from __future__ import annotations

from pathlib import Path

import ragas_boot

#: The standard's bound (the brief's and STYLE.md's "no source module over 700 lines").
MAX_LINES = 700


def _sizes() -> dict[str, int]:
    root = Path(ragas_boot.__file__).parent
    return {
        path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(root.rglob("*.py"))
    }


def test_no_source_module_is_over_700_lines():
    sizes = _sizes()
    assert "metrics/base.py" in sizes, "the package's modules were not found"
    over = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by concern): {over}"
