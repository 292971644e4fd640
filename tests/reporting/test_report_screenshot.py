"""The HTML report renders in a real headless browser (skipped when chromium is absent)."""

from __future__ import annotations

from pathlib import Path

from ragas_boot.reporting import render_html
from support.chromium import CHROMIUM, screenshot


def test_chromium_renders_the_report(run, tmp_path: Path, unavailable):
    if CHROMIUM is None:
        unavailable("chromium", "chromium is not installed (apt-get install chromium)")
    page = tmp_path / "report.html"
    page.write_text(render_html(run), encoding="utf-8")
    data = screenshot(page.as_uri(), tmp_path / "report.png", width=1280, height=2000)
    assert len(data) > 50_000  # a rendered page, not a blank one
