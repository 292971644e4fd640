"""Example 14: a suite generated offline for example 04's weather agent by the embedded local
model. What SmolLM2-135M writes is luck; what must hold whatever it writes: every rejection
has its reason, every kept case's arguments are valid against its tool's schema, the file
loads as a suite, and the rerun sends nothing and writes the same bytes."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from ragas_boot.cli import main
from ragas_boot.generation import argument_problems
from ragas_boot.generation.candidates import REASONS
from ragas_boot.runs.suites.suite import load_suite
from support.examples import ROOT

EXAMPLES = ROOT / "examples"


def _generate(folder, report, capsys) -> dict:
    code = main(
        ["generate", "suite", "../04_tool_suite/suite.yaml", "--out", "generated.yaml",
         "--count", "2", "--max-calls", "8", "--report", str(report)]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err  # 1: fewer kept than asked (the model is tiny)
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
def test_generated_offline_checked_and_replayed_from_the_cache(tmp_path, monkeypatch, capsys):
    pytest.importorskip("llama_cpp", reason="needs the [local] extra")
    for name in ("04_tool_suite", "14_generated_suite"):
        shutil.copytree(EXAMPLES / name, tmp_path / name)
    folder = tmp_path / "14_generated_suite"
    monkeypatch.chdir(folder)
    monkeypatch.delenv("RAGAS_CONFIG", raising=False)
    first = _generate(folder, tmp_path / "first.json", capsys)

    assert first["total"]["calls"] <= 8 and first["total"]["requests"] >= 1
    assert all(r["reason"] in REASONS and r["message"] for r in first["rejected"])
    assert set(first["coverage"]["tool"]) == {"get_weather", "get_forecast"}
    written = (folder / "generated.yaml").read_bytes()
    data = yaml.safe_load(written)
    schemas = {tool["name"]: tool["parameters"] for tool in data["tools"]}
    for case in data.get("cases") or []:
        for call in case.get("expected-tool-calls", []):
            arguments = {k: v for k, v in call["required-params"].items() if v is not None}
            assert not [p for p in argument_problems(schemas[call["tool-name"]], arguments)
                        if not p.missing]  # fmt: skip
    if data.get("cases"):
        assert len(load_suite(folder / "generated.yaml").cases) == len(first["kept"])

    again = _generate(folder, tmp_path / "again.json", capsys)
    if not first["total"]["failed"]:  # a failed call is not cached: it is asked again
        assert again["total"]["requests"] == 0
    assert again["total"]["cached"] == first["total"]["calls"] - first["total"]["failed"]
    assert (folder / "generated.yaml").read_bytes() == written
