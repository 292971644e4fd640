"""The HTML report renders in a real headless browser (skipped when chromium is absent)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

from ragas_boot.reporting import render_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_chromium_renders_the_report(run, tmp_path: Path, unavailable):
    if CHROMIUM is None:
        unavailable("chromium", "chromium is not installed (apt-get install chromium)")
    page = tmp_path / "report.html"
    page.write_text(render_html(run), encoding="utf-8")
    shot = tmp_path / "report.png"
    profile = tmp_path / "profile"
    completed = subprocess.run(
        [
            str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={profile}", f"--screenshot={shot}",
            "--window-size=1280,2000", page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 2000)
    assert len(data) > 50_000  # a rendered page, not a blank one
