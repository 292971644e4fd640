"""What the tests that run ``ragas-boot`` as a real subprocess (and signal or kill it) share."""

from __future__ import annotations

import os
import time
from collections.abc import Callable


def cli_env(secret: str) -> dict[str, str]:
    """This environment without the ragas-boot settings a developer's shell may hold (the
    home folder kept), the judge key as ``JUDGE_KEY`` and a wide terminal."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SPRING_", "RAGAS_")) or k == "RAGAS_BOOT_HOME"
    }
    env.update(COLUMNS="200", JUDGE_KEY=secret)
    return env


def wait_until(condition: Callable[[], object], what: str, limit_s: float = 300.0) -> None:
    """Poll ``condition``; the limit only guards against a hang (it is not a measurement)."""
    end = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < end, f"never happened: {what}"
        time.sleep(0.05)
