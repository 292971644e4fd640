"""A report write killed mid-way leaves ``.NAME.XXXX.tmp``; the next write of that report
removes it, and never the temporary file of a write still under way in another process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A writer that stops half-way through a report and says so: then it can be killed there.
WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from ragas_boot.cli._reports import write_atomically

    def pieces():
        yield '{"half": '
        print("writing", flush=True)
        time.sleep(3600)
        yield "1}"

    write_atomically(Path(sys.argv[1]), pieces())
    """
)


@contextmanager
def _writer_stopped_half_way(report: Path) -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(report)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "writing\n"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        assert process.stdout is not None
        process.stdout.close()


def _temporaries(report: Path) -> list[Path]:
    return sorted(report.parent.glob(f".{report.name}.*.tmp"))


def test_the_next_run_removes_what_a_killed_write_left(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    report = tmp_path / "run.json"
    with _writer_stopped_half_way(report) as writer:
        os.kill(writer.pid, signal.SIGKILL)
        assert writer.wait() == -signal.SIGKILL
    leftover = _temporaries(report)
    assert len(leftover) == 1  # the killed write's file (its text still in its buffer)
    unrelated = tmp_path / ".other.json.abc123.tmp"  # another report's: not this run's to touch
    unrelated.write_text("x", encoding="utf-8")

    result = run_cli(
        "evaluate", dataset_file, "--metric", "tool_call_accuracy", "--config", config_file,
        "--out", report, "--no-history",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert _temporaries(report) == []
    assert json.loads(report.read_text(encoding="utf-8"))["samples"]
    assert unrelated.exists()


def test_a_write_under_way_in_another_process_keeps_its_file(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    report = tmp_path / "run.json"
    with _writer_stopped_half_way(report):
        in_flight = _temporaries(report)
        assert len(in_flight) == 1
        result = run_cli(
            "evaluate", dataset_file, "--metric", "tool_call_accuracy", "--config", config_file,
            "--out", report, "--no-history",
        )  # fmt: skip
        assert result.code == 0, result.err
        assert _temporaries(report) == in_flight  # the other writer's file is still there
        assert json.loads(report.read_text(encoding="utf-8"))["samples"]
