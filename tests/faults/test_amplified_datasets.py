"""Datasets that expand: a few kilobytes of YAML whose aliases repeat a 100 KiB string
thousands of times. Counting aliased *values* let both through (a 922 MB report; a 102 MB
prompt to every judge); counting the characters they add stops both while the file is read,
with exit 2 naming the file and the line, before any judge is built or asked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIG = "x" * (100 * 1024)

SAMPLE_HEAD = (
    "name: amplified\n"
    "samples:\n"
    "  - id: s1\n"
    "    user_input_messages:\n"
    f'      - {{type: human, content: &big "{BIG}"}}\n'
)


def _metadata_bomb(path: Path) -> int:
    """The first case: one sample's metadata repeats the description 9,000 times."""
    refs = "\n".join(f"        d{index}: *big" for index in range(9000))
    text = (
        SAMPLE_HEAD
        + "      - {type: ai, content: done}\n"
        + "    reference_tool_calls: []\n"
        + "    metadata:\n      description:\n"
        + refs
        + "\n"
    )
    path.write_text(text, encoding="utf-8")
    return len(text)


def _turns_bomb(path: Path) -> int:
    """The second case: the one message is repeated as 1,000 conversation turns."""
    turns = "\n".join("      - {type: human, content: *big}" for _ in range(1000))
    text = SAMPLE_HEAD + turns + "\n      - {type: ai, content: done}\n"
    path.write_text(text, encoding="utf-8")
    return len(text)


@pytest.mark.parametrize("build", [_metadata_bomb, _turns_bomb], ids=["metadata", "turns"])
def test_an_alias_amplified_dataset_is_refused_with_its_file_and_line(tmp_path, build):
    dataset = tmp_path / "amplified.yaml"
    size = build(dataset)
    assert size < 400_000  # a small file: it is what it expands to that must be refused
    completed = subprocess.run(
        [sys.executable, "-m", "ragas_boot", "evaluate", str(dataset),
         "--metric", "agent_goal_accuracy", "--out", str(tmp_path / "report.json")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 2, completed.stderr[-2000:]
    message = completed.stderr
    assert f"{dataset}:" in message
    assert "characters of text" in message and "alias bomb" in message
    line = int(message.split(f"{dataset}:", 1)[1].split(":", 1)[0])
    # The refusal names an alias line of the file, well before its end.
    assert "*big" in dataset.read_text(encoding="utf-8").splitlines()[line - 1]
    assert "Traceback" not in message
    assert not (tmp_path / "report.json").exists()
