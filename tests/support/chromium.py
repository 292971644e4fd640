"""Screenshots in headless Chromium, for the tests that look at a page as a reader would (the
HTML report, the documentation site)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

#: The browser, when the machine has one (Debian's ``chromium`` package in CI).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(url: str, shot: Path, *, width: int, height: int) -> bytes:
    """Render ``url`` in a fresh headless profile and return the PNG written to ``shot``.

    Raises:
        AssertionError: Chromium is missing, failed, or wrote something that is not a PNG of
            the asked size.
    """
    assert CHROMIUM is not None, "chromium is not installed"
    completed = subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={shot.parent / f'{shot.stem}-profile'}",
            f"--screenshot={shot}", f"--window-size={width},{height}", url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (width, height)
    return data
