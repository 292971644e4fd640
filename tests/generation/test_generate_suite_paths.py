"""``generate suite`` paths beside generation: ``--from-traces`` with a real OTLP file,
``--validate-with-agent`` with example 04's agent, and the HTML report's content."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from generation_helpers import MODEL, ScriptedGenerator, config

from ragas_boot.cli import main
from ragas_boot.generation.tools import tools_from_data
from support.examples import ROOT

TRACES = ROOT / "examples" / "10_production_sampling" / "traces.jsonl"


def _trace_tools() -> list[dict]:
    """The tools the traced agent declared (in its first request's ``input.value``)."""
    for line in TRACES.read_text(encoding="utf-8").splitlines():
        for resource in json.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for attribute in span["attributes"]:
                        if attribute["key"] == "input.value":
                            try:
                                value = json.loads(attribute["value"]["stringValue"])
                            except ValueError:
                                continue
                            if isinstance(value, dict) and "tools" in value:
                                return value["tools"]
    raise AssertionError("no tools in the traces")


def _traced(tmp_path: Path, tools: list[dict], *more: str) -> tuple[int, dict, Path]:
    file = tmp_path / "tools.json"
    file.write_text(json.dumps(tools), encoding="utf-8")
    out, report = tmp_path / "out.yaml", tmp_path / "report.json"
    code = main(["generate", "suite", str(file), "--out", str(out), "--from-traces", str(TRACES),
                 "--no-vote", "--report", str(report), "--config",
                 str(tmp_path / "application.yaml"), *more])  # fmt: skip
    return code, json.loads(report.read_text(encoding="utf-8")), out


def test_traced_calls_become_expected_calls_marked_for_review(tmp_path, openai_server, capsys):
    pytest.importorskip("opentelemetry.proto", reason="needs the [traces] extra")
    config(tmp_path, openai_server)
    openai_server.respond(MODEL, ScriptedGenerator(bad_every=0))
    code, report, out = _traced(tmp_path, _trace_tools(), "--count", "5")
    assert code == 0, capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    cases = {case["id"]: case for case in yaml.safe_load(text)["cases"]}
    traced = {k: v for k, v in cases.items() if k.startswith("R")}
    assert report["review"] == list(traced) and len(traced) == 3
    assert "# Taken from traces, to review: " + ", ".join(traced) in text
    refund = next(c for c in traced.values() if c["user-message"].startswith("My order 12345"))
    assert refund["expected-tool-calls"] == [
        {"tool-name": "get_order", "required-params": {"order_id": "12345"}},
        {"tool-name": "refund_order", "required-params": {"order_id": "12345"}},
    ]
    # The traces' values feed the plan: the two generated cases use them.
    generated = [c for k, c in cases.items() if not k.startswith("R")]
    assert len(generated) == 2
    seen = {"12345", "777", "blue kettle"}
    for case in generated:
        for call in case["expected-tool-calls"]:
            assert set(call["required-params"].values()) <= seen


def test_traced_calls_breaking_the_schema_are_left_out(tmp_path, openai_server, capsys):
    pytest.importorskip("opentelemetry.proto", reason="needs the [traces] extra")
    config(tmp_path, openai_server)
    openai_server.respond(MODEL, ScriptedGenerator(bad_every=0))
    tools = _trace_tools()
    tools[0]["function"]["parameters"]["properties"]["order_id"] = {"type": "integer"}
    assert tools_from_data(tools).tool("get_order") is not None
    code, report, out = _traced(tmp_path, tools, "--count", "1", "--plan", "model")
    assert code == 0, capsys.readouterr().err
    kept = yaml.safe_load(out.read_text(encoding="utf-8"))["cases"]
    # order_id "12345" is no integer: both order conversations are out, the stock one stays.
    assert [c["user-message"] for c in kept if c["id"].startswith("R")] == [
        "Is the blue kettle back in stock?"
    ]
    assert report["review"] == [kept[0]["id"]]


def test_validate_with_agent_reports_failures_without_dropping(tmp_path, openai_server, capsys):
    config(tmp_path, openai_server)
    openai_server.respond(MODEL, ScriptedGenerator(bad_every=0))
    folder = tmp_path / "04"
    shutil.copytree(ROOT / "examples" / "04_tool_suite", folder)
    out = folder / "generated.yaml"
    code = main(["generate", "suite", str(folder / "suite.yaml"), "--out", str(out),
                 "--count", "4", "--mix", "single=1", "--no-vote", "--validate-with-agent",
                 "--report", str(tmp_path / "r.json"), "--report", str(tmp_path / "r.html"),
                 "--config", str(tmp_path / "application.yaml")])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert len(report["kept"]) == 4 and report["agent_checked"] == 4
    failed = {check["case_id"]: check["failures"] for check in report["agent_checks"]}
    assert failed and set(failed) <= set(report["kept"])  # reported, not dropped
    assert len(yaml.safe_load(out.read_text(encoding="utf-8"))["cases"]) == 4
    assert all(failures and failures[0] for failures in failed.values())
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Kept cases the agent failed" in page
    assert all(case_id in page for case_id in failed)


def test_the_html_report_shows_calls_coverage_and_escaped_rejections(
    tmp_path, openai_server, capsys
):
    config(tmp_path, openai_server)
    scripted = ScriptedGenerator(bad_every=3)
    openai_server.respond(MODEL, scripted)
    page_file = tmp_path / "r.html"
    suite = ROOT / "examples" / "04_tool_suite" / "suite.yaml"
    code = main(["generate", "suite", str(suite), "--out", str(tmp_path / "out.yaml"),
                 "--count", "3", "--mix", "single=1", "--report", str(page_file),
                 "--config", str(tmp_path / "application.yaml")])  # fmt: skip
    capsys.readouterr()
    assert code == 0
    page = page_file.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "Kept 3/3 cases" in page
    assert "<td>generation</td>" in page and "<td>judge_vote</td>" in page
    assert "<td>get_weather.units</td>" in page and "<td>fahrenheit</td>" in page
    assert page.count("<td>message_missing_value</td>") == len(scripted.bad_sent) > 0
    assert "Weather number" in page  # the refused candidate, shown
    assert "Kept cases the agent failed" not in page


def test_scenario_slots_write_scenario_cases_that_load_as_a_suite(tmp_path, openai_server, capsys):
    from ragas_boot.runs.suites.suite import load_suite

    config(tmp_path, openai_server)
    openai_server.respond(MODEL, ScriptedGenerator(bad_every=0))
    folder = tmp_path / "04"
    shutil.copytree(ROOT / "examples" / "04_tool_suite", folder)
    out = folder / "generated.yaml"
    code = main(["generate", "suite", str(folder / "suite.yaml"), "--out", str(out),
                 "--count", "4", "--mix", "single=1,scenario=1", "--no-vote",
                 "--config", str(tmp_path / "application.yaml")])  # fmt: skip
    assert code == 0, capsys.readouterr().out
    cases = yaml.safe_load(out.read_text(encoding="utf-8"))["cases"]
    scenarios = [case for case in cases if "scenario" in case]
    assert len(scenarios) == 2 and all("user-message" not in case for case in scenarios)
    for case in scenarios:
        scenario = case["scenario"]
        assert scenario["goal"].startswith("Learn the ")
        assert scenario["first-message"] == "Hi, I need some weather help."
        assert scenario["knows"]["city"] in scenario["goal"]
        assert (
            case["expected-tool-calls"][0]["required-params"]["city"] == scenario["knows"]["city"]
        )
    loaded = load_suite(out)
    assert sum(case.scenario is not None for case in loaded.cases) == 2
