"""Example 09: two recorded runs, the second regressed; both regression gates exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_example_09_catches_the_regression(ragas_boot_home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPRING_", "HISTORY_URL"))}
    completed = subprocess.run(
        [sys.executable, "examples/09_regression_gate/offline.py"],
        cwd=ROOT,
        env=env | {"COLUMNS": "160", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 1, completed.stderr
    out, err = completed.stdout, completed.stderr
    assert "evaluate --baseline exit code: 1; runs diff exit code: 1" in out
    rows = [line for line in out.splitlines() if line.startswith("│ agent_goal_accuracy")]
    diff_rows = [row for row in rows if "REGRESSED" in row]
    assert len(diff_rows) == 2  # printed by evaluate --baseline and by runs diff
    assert "1.000" in diff_rows[0] and "0.667" in diff_rows[0] and "-33.3 pp" in diff_rows[0]
    assert "│ oslo-weather │ agent_goal_accuracy │ 1.000 │ 0.000 │ pass → fail │" in out
    assert err.count("REGRESSION agent_goal_accuracy: pass rate fell from 100.0% to 66.7%") == 2
    assert err.count("Run recorded: ") == 2
    assert (ragas_boot_home / "history.db").is_file()  # the test's home, not the repository
