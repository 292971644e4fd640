"""``$GITHUB_STEP_SUMMARY`` naming something other than a regular file never hangs a run.

A FIFO with no reader would block ``open`` for ever, after every judge was paid for; a
directory or a device is no summary either. Such a target is refused with a warning naming it,
every ``--out`` report is written anyway, and the run exits as its gate says. These run the
installed script: a hang must fail the test (its timeout), not the test session.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragas_boot.reporting.markdown import append_step_summary

SCRIPT = Path(sys.executable).with_name("ragas-boot")


def _run(
    tmp_path: Path, dataset: Path, summary: Path
) -> tuple[subprocess.CompletedProcess[str], list[Path]]:
    (tmp_path / "application.yaml").write_text(
        "spring.ai.ragas.metrics.logging.enabled: false\n", encoding="utf-8"
    )
    # The summary's report first: every report after it must be written too.
    outs = [tmp_path / "summary.md", tmp_path / "run.json", tmp_path / "run.xml"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPRING_", "RAGAS_CONFIG"))}
    env.update(COLUMNS="200", GITHUB_STEP_SUMMARY=str(summary))
    completed = subprocess.run(
        [str(SCRIPT), "evaluate", str(dataset), "--metric", "tool_call_accuracy",
         "--no-history", *(arg for out in outs for arg in ("--out", str(out)))],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    return completed, outs


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "summary-fifo"
    os.mkfifo(path)
    return path


def _directory(tmp_path: Path) -> Path:
    path = tmp_path / "summary-dir"
    path.mkdir()
    return path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (_fifo, "a FIFO"),
        (_directory, "a directory"),
        (lambda _: Path(os.devnull), "a character device"),
    ],
)
def test_a_summary_that_is_not_a_regular_file_is_refused_with_a_warning(
    tmp_path, dataset_file, make, kind
):
    summary = make(tmp_path)
    try:
        completed, outs = _run(tmp_path, dataset_file, summary)
    except subprocess.TimeoutExpired:  # pragma: no cover - the bug this guards against
        pytest.fail(f"the run hung on $GITHUB_STEP_SUMMARY={summary}")
    assert completed.returncode == 0, completed.stderr  # the gate passed
    for out in outs:
        assert out.is_file(), f"{out.name} was not written"
    assert (
        f"warning: $GITHUB_STEP_SUMMARY ({summary}) is {kind}, not a regular file: "
        "the summary is not appended" in completed.stderr
    )
    assert "Traceback" not in completed.stderr
    # Every report is written before the summary is appended.
    written = [completed.stderr.index(f"Report written: {out}") for out in outs]
    assert max(written) < completed.stderr.index("warning: $GITHUB_STEP_SUMMARY")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_append_step_summary_refuses_a_fifo_and_a_directory(tmp_path):
    fifo, directory = _fifo(tmp_path), _directory(tmp_path)
    # A reader holds the FIFO open, so that a regression fails here instead of hanging.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        for target, kind in ((fifo, "a FIFO"), (directory, "a directory")):
            with pytest.raises(OSError, match=f"is {kind}, not a regular file"):
                append_step_summary("## x\n", environ={"GITHUB_STEP_SUMMARY": str(target)})
        assert os.read(reader, 100) == b""  # nothing was written into the FIFO
    finally:
        os.close(reader)
    assert list(directory.iterdir()) == []


def test_a_regular_file_behind_a_symbolic_link_is_appended(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("earlier\n", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    assert append_step_summary("## x", environ={"GITHUB_STEP_SUMMARY": str(link)}) == link
    assert real.read_text(encoding="utf-8") == "earlier\n## x\n"
