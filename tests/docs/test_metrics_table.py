"""The metrics tables of README.md and docs/metrics.md are the registry's.

Run with ``RAGAS_UPDATE_DOCS=1`` to rewrite them after adding a metric.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragas_boot.metrics import METRICS
from ragas_boot.reporting.metrics_table import (
    FIXTURES_END,
    FIXTURES_START,
    TABLE_END,
    TABLE_START,
    render_fixtures_table,
    render_metrics_table,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["README.md", "docs/metrics.md"])
def test_the_metrics_table_lists_every_registered_metric(name):
    path = ROOT / name
    text = path.read_text(encoding="utf-8")
    assert TABLE_START in text and TABLE_END in text, f"{name} has no generated metrics table"
    head, rest = text.split(TABLE_START, 1)
    current, tail = rest.split(TABLE_END, 1)
    expected = "\n" + render_metrics_table(METRICS) + "\n"
    if current != expected and os.environ.get("RAGAS_UPDATE_DOCS") == "1":
        path.write_text(head + TABLE_START + expected + TABLE_END + tail, encoding="utf-8")
        current = expected
    assert current == expected, f"{name}: run RAGAS_UPDATE_DOCS=1 pytest {__file__}"
    for bean in METRICS:
        assert f"| `{bean}` |" in current


def test_the_testing_docs_list_every_metric_fixture():
    path = ROOT / "docs" / "testing.md"
    text = path.read_text(encoding="utf-8")
    assert FIXTURES_START in text and FIXTURES_END in text, "docs/testing.md has no fixture table"
    head, rest = text.split(FIXTURES_START, 1)
    current, tail = rest.split(FIXTURES_END, 1)
    expected = "\n" + render_fixtures_table(METRICS) + "\n"
    if current != expected and os.environ.get("RAGAS_UPDATE_DOCS") == "1":
        path.write_text(head + FIXTURES_START + expected + FIXTURES_END + tail, encoding="utf-8")
        current = expected
    assert current == expected, f"docs/testing.md: run RAGAS_UPDATE_DOCS=1 pytest {__file__}"
    for bean in METRICS:
        assert f"| `{bean}` |" in current
