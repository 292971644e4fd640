"""``generate suite`` on bad input and a bad model: exit 2 naming the file and the path; a
model answering garbage gets every candidate rejected with a reason, and the command stops at
--max-calls with what it kept written (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from generation_helpers import MODEL, TOOLS, ScriptedGenerator, config

from ragas_boot.cli import main
from ragas_boot.errors import SuiteError
from ragas_boot.generation.tools import load_tools
from ragas_boot.runs.suites.suite import load_suite

EXAMPLE_04 = Path(__file__).parents[2] / "examples" / "04_tool_suite" / "suite.yaml"


def _run(tmp_path: Path, tools: Path, *more: str) -> int:
    return main(
        ["generate", "suite", str(tools), "--out", str(tmp_path / "out.yaml"),
         "--config", str(tmp_path / "application.yaml"), *more]
    )  # fmt: skip


def test_an_invalid_tool_schema_is_exit_2_naming_file_and_path(tmp_path, openai_server, capsys):
    config(tmp_path, openai_server)
    broken = json.loads(json.dumps(TOOLS))
    broken[1]["function"]["parameters"]["properties"]["days"]["type"] = "whole number"
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(broken), encoding="utf-8")
    assert _run(tmp_path, tools) == 2
    err = capsys.readouterr().err
    assert str(tools) in err and "[1].function.parameters" in err and "days" in err
    assert openai_server.count(MODEL) == 0
    assert not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize(
    ("report", "said"),
    [
        ("report.txt", "use a .html, .htm or .json file name"),
        ("no-such-dir/r.json", "does not exist"),
    ],
)
def test_a_report_path_that_cannot_be_written_is_exit_2_before_any_call(
    tmp_path, openai_server, capsys, report, said
):
    config(tmp_path, openai_server)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    assert _run(tmp_path, tools, "--report", str(tmp_path / report)) == 2
    err = capsys.readouterr().err
    assert f"--report {tmp_path / report}" in err and said in err
    assert openai_server.count(MODEL) == 0


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"tools": []}, "tools"),
        ([{"description": "no name"}], "[0].name"),
        (
            {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x", "inputSchema": 3}]}},
            "result.tools[0].inputSchema",
        ),
        ([{"name": "t", "parameters": {"type": "string"}}], "[0].parameters.type"),
    ],
)
def test_tool_files_of_no_known_shape_name_the_path(tmp_path, data, where):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        load_tools(tools)
    assert str(tools) in str(caught.value) and where in str(caught.value)


def test_mcp_and_suite_inputs_are_read(tmp_path):
    mcp = tmp_path / "mcp.json"
    mcp.write_text(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "tools": [
                        {
                            "name": "search_docs",
                            "description": "Поиск",
                            "inputSchema": {
                                "type": "object",
                                "properties": {"q": {"type": "string"}},
                                "required": ["q"],
                            },
                        }
                    ]
                },
            }
        )
    )
    source = load_tools(mcp)
    assert (source.format, source.names) == ("mcp", ["search_docs"])
    assert source.tool_data[0]["description"] == "Поиск"
    suite = load_tools(EXAMPLE_04)
    assert suite.format == "suite" and suite.names == ["get_weather", "get_forecast"]
    assert suite.suite["agent"] == "weather_agent:run"
    assert suite.tool_data[0]["function"] == "weather_agent:get_weather"


def test_a_garbage_model_stops_at_max_calls_with_what_it_kept(tmp_path, openai_server, capsys):
    config(tmp_path, openai_server)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    good = ScriptedGenerator(bad_every=0)

    def garbage(request):
        if request.prompt.startswith("You check a test case"):
            return {"reason": "fine", "correct": True}
        n = request.body["seed"]  # an attempt's re-asks carry its seed: answered alike
        if n == 0:
            return good(request)  # one good case, then nothing usable
        if n % 3 == 1:
            return {"user_message": "hi", "calls": [{"tool_name": "rm_rf", "arguments": {}}]}
        if n % 3 == 2:
            return {"user_message": "run it", "agent": "os:system", "calls": []}
        return "not json at all"

    openai_server.respond(MODEL, garbage)
    report = tmp_path / "report.json"
    code = _run(tmp_path, tools, "--count", "5", "--max-calls", "9", "--mix", "single=1",
                "--report", str(report))  # fmt: skip
    assert code == 1, capsys.readouterr().err
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["stop_reason"] == "max_calls"
    assert len(document["kept"]) == 1
    reasons = {r["reason"] for r in document["rejected"]}
    assert {"unknown_tool", "module_reference", "generator_failed"} <= reasons
    assert document["total"]["calls"] <= 9
    assert len(load_suite(tmp_path / "out.yaml").cases) == 1
    text = (tmp_path / "out.yaml").read_text(encoding="utf-8")
    assert "os:system" not in text and "rm_rf" not in text


def test_traces_without_tool_calls_are_exit_2(tmp_path, openai_server, capsys):
    pytest.importorskip("opentelemetry.proto", reason="needs the [traces] extra")
    config(tmp_path, openai_server)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    traces = tmp_path / "traces.json"
    traces.write_text(json.dumps({"resourceSpans": []}), encoding="utf-8")
    assert _run(tmp_path, tools, "--from-traces", str(traces)) == 2
    err = capsys.readouterr().err
    assert str(traces) in err and "tool call" in err
    assert openai_server.count(MODEL) == 0


def test_the_output_keeps_the_input_suites_references_only(tmp_path, openai_server, capsys):
    config(tmp_path, openai_server)
    openai_server.respond(MODEL, ScriptedGenerator(bad_every=0))
    out = tmp_path / "out.yaml"
    code = main(["generate", "suite", str(EXAMPLE_04), "--out", str(out), "--count", "3",
                 "--config", str(tmp_path / "application.yaml")])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Generated by ragas-boot")
    data = yaml.safe_load(text)
    assert data["agent"] == "weather_agent:run"
    assert [t["function"] for t in data["tools"]] == [
        "weather_agent:get_weather",
        "weather_agent:get_forecast",
    ]
    assert len(data["cases"]) == 3
