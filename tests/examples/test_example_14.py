"""Example 14: a suite generated offline for example 04's weather agent by the embedded local
model: the calls are planned in code from example 04's values and the model writes each
message. Ten cases kept, each one's arguments valid against its tool's schema and stated in
its message, both tools covered, the file run by ``suite run``, and the rerun sends nothing
and writes the same bytes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import jsonschema
import pytest
import yaml

from ragas_boot.cli import main
from ragas_boot.generation.candidates import REASONS
from ragas_boot.runs.suites.suite import load_suite
from support.examples import ROOT

EXAMPLES = ROOT / "examples"


ARGS = ["generate", "suite", "../04_tool_suite/suite.yaml", "--out", "generated.yaml",
        "--count", "10", "--max-calls", "120", "--no-vote",
        "--mix", "single=0.8,multi=0.2"]  # fmt: skip


def _generate(report, capsys) -> dict:
    code = main([*ARGS, "--report", str(report)])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    return json.loads(report.read_text(encoding="utf-8"))


def test_the_weather_agent_shim_reuses_example_04():
    suite = load_suite(EXAMPLES / "04_tool_suite" / "suite.yaml")
    data = suite.model_dump(exclude={"base_dir", "source"})
    data["cases"] = [c for c in data["cases"] if c["id"] == "T002_5day_forecast"]
    from ragas_boot.runs.suites.suite import validate_suite

    shim = validate_suite({**data, "base_dir": EXAMPLES / "14_generated_suite"})
    assert shim.resolve_agent().__module__ != suite.resolve_agent().__module__
    assert set(shim.tool_functions()) == {"get_weather", "get_forecast"}


@pytest.mark.local_llm
def test_ten_planned_cases_offline_valid_covering_run_and_replayed(tmp_path, monkeypatch, capsys):
    pytest.importorskip("llama_cpp", reason="needs the [local] extra")
    for name in ("04_tool_suite", "14_generated_suite"):
        shutil.copytree(EXAMPLES / name, tmp_path / name)
    folder = tmp_path / "14_generated_suite"
    monkeypatch.chdir(folder)
    monkeypatch.delenv("RAGAS_CONFIG", raising=False)
    first = _generate(tmp_path / "first.json", capsys)

    assert len(first["kept"]) == 10
    assert all(r["reason"] in REASONS and r["message"] for r in first["rejected"])
    assert set(first["coverage"]["tool"]) == {"get_weather", "get_forecast"}
    assert all(first["coverage"]["tool"].values())  # every tool reached by a kept case
    written = (folder / "generated.yaml").read_bytes()
    data = yaml.safe_load(written)
    schemas = {tool["name"]: tool["parameters"] for tool in data["tools"]}
    assert len(data["cases"]) == 10
    for case in data["cases"]:
        calls = case["expected-tool-calls"]
        assert calls
        for call in calls:
            arguments = call["required-params"]
            jsonschema.validate(arguments, schemas[call["tool-name"]])
            for value in arguments.values():  # the message states every fixed value
                assert str(value).casefold() in case["user-message"].casefold()
    assert len(load_suite(folder / "generated.yaml").cases) == 10

    ran = subprocess.run(
        [sys.executable, "-m", "ragas_boot.cli", "suite", "run", "generated.yaml"],
        capture_output=True, text=True, cwd=folder, check=False,
    )  # fmt: skip
    assert ran.returncode in (0, 1), ran.stdout + ran.stderr  # the gate, not bad input (2)

    again = _generate(tmp_path / "again.json", capsys)
    assert again["total"]["requests"] == 0
    assert (folder / "generated.yaml").read_bytes() == written
