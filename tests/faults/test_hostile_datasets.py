"""Hostile dataset files are refused with the file and line (exit 2 in the CLI), never expanded
or recursed into: alias bombs in metadata, 5,000 levels of nesting in YAML, JSON and JSONL,
deeply nested tool-call arguments, oversized files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragas_boot._loading import DATASET_LIMITS
from ragas_boot.cli import main
from ragas_boot.datasets import load_dataset
from ragas_boot.errors import DatasetError

MESSAGES = '[{type: human, content: "hi"}, {type: ai, content: "hello"}]'


def bomb_dataset() -> str:
    lines = [
        "samples:",
        "  - id: s1",
        f"    user_input_messages: {MESSAGES}",
        "    metadata:",
        '      a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
    ]
    for name, previous in zip("bcdefghij", "abcdefghi", strict=True):
        lines.append(f"      {name}: &{name} [{', '.join([f'*{previous}'] * 10)}]")
    return "\n".join(lines) + "\n"


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_alias_bomb_in_metadata_is_refused_at_its_line(tmp_path):
    path = write(tmp_path, "bomb.yaml", bomb_dataset())

    with pytest.raises(DatasetError) as caught:
        load_dataset(path)

    # a..e add 10 + 110 + 1,110 + 11,110 + 111,110 values; f's 1,111,110 cross 1,000,000.
    assert caught.value.line == 10
    assert "YAML aliases expand to more than 1,000,000 values" in str(caught.value)
    assert str(caught.value).startswith(f"{path}:10: refused:")


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        (
            "deep.yaml",
            f"samples:\n  - id: s1\n    user_input_messages: {MESSAGES}\n"
            f"    metadata: {{x: {deep(5_000)}}}\n",
            4,
        ),
        ("deep.json", json.dumps({"samples": [{"id": "s1"}]})[:-2] + ",\n" + deep(5_000) + "]}", 2),
        (
            "deep.jsonl",
            '{"id": "s1", "user_input": "q"}\n\n{"id": "s2", "metadata": ' + deep(5_000) + "}\n",
            3,
        ),
    ],
)
def test_five_thousand_levels_are_refused_with_the_line(tmp_path, name, text, line):
    path = write(tmp_path, name, text)

    with pytest.raises(DatasetError, match="nested deeper than 100 levels") as caught:
        load_dataset(path)

    assert caught.value.line == line


def test_nesting_within_the_bound_loads(tmp_path):
    nested: object = "leaf"
    for _ in range(98):  # + metadata's own mapping + the sample = 100 levels in the file
        nested = [nested]
    sample = {"id": "s1", "user_input": "q", "metadata": {"n": nested}}
    path = write(tmp_path, "ok.jsonl", json.dumps(sample) + "\n")

    assert load_dataset(path).samples[0].metadata["n"] == nested


def test_deeply_nested_tool_call_arguments_name_the_field(tmp_path):
    arguments = json.dumps({"a": json.loads(deep(200))})
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
            ],
        },
    ]
    path = write(tmp_path, "args.jsonl", json.dumps({"id": "s1", "messages": messages}) + "\n")

    with pytest.raises(DatasetError, match="nested deeper than 100 levels") as caught:
        load_dataset(path)

    assert caught.value.field.endswith("tool_calls[0].function.arguments")
    assert caught.value.line == 1


def test_an_oversized_file_is_refused_before_reading(tmp_path):
    path = write(tmp_path, "big.jsonl", '{"id": "s1", "user_input": "q"}\n')
    with path.open("r+b") as file:  # sparse: the size without the bytes
        file.truncate(DATASET_LIMITS.max_bytes + 1)

    with pytest.raises(DatasetError, match="more than the 536,870,912 a dataset may have"):
        load_dataset(path)


@pytest.mark.parametrize("kind", ["bomb", "deep"])
def test_the_cli_exits_2_naming_file_and_line(tmp_path, capsys, kind):
    text = bomb_dataset() if kind == "bomb" else "samples: " + deep(5_000) + "\n"
    path = write(tmp_path, f"{kind}.yaml", text)

    code = main(["evaluate", str(path), "--metric", "tool_call_accuracy"])

    err = capsys.readouterr().err
    assert code == 2
    assert f"{path.name}:{10 if kind == 'bomb' else 1}: refused:" in err
    assert "Traceback" not in err and "RecursionError" not in err
