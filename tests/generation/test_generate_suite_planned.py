"""Planned cases (``--plan values``, the default): the tools and values come from the inputs,
the model writes the message only, and a message that does not state every fixed value is
refused (``message_missing_value``), as is one that echoes the prompt."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from generation_helpers import MODEL, ScriptedGenerator, config

from ragas_boot.cli import main
from ragas_boot.generation.planned import (
    ValuePlanner,
    copied_prompt,
    missing_values,
    value_pools,
)
from ragas_boot.generation.tools import load_tools
from support.examples import ROOT

EXAMPLE_04 = ROOT / "examples" / "04_tool_suite" / "suite.yaml"


def _run(tmp_path: Path, *more: str) -> tuple[int, dict, Path]:
    out, report = tmp_path / "generated.yaml", tmp_path / "report.json"
    code = main(["generate", "suite", str(EXAMPLE_04), "--out", str(out), "--count", "10",
                 "--mix", "single=0.8,multi=0.2", "--report", str(report),
                 "--config", str(tmp_path / "application.yaml"), *more])  # fmt: skip
    return code, json.loads(report.read_text(encoding="utf-8")), out


def _check_kept(out: Path, pools: dict) -> list[dict]:
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    schemas = {tool["name"]: tool["parameters"] for tool in data["tools"]}
    for case in data["cases"]:
        for call in case["expected-tool-calls"]:
            jsonschema.validate(call["required-params"], schemas[call["tool-name"]])
            for name, value in call["required-params"].items():
                assert value in pools[(call["tool-name"], name)]  # drawn from the inputs
                assert str(value).casefold() in case["user-message"].casefold()
    return data["cases"]


def test_planned_cases_with_a_fifth_bad_messages_none_kept_and_replayed(
    tmp_path, openai_server, capsys
):
    config(tmp_path, openai_server)
    scripted = ScriptedGenerator(bad_every=5)
    openai_server.respond(MODEL, scripted)
    code, report, out = _run(tmp_path)
    assert code == 0, capsys.readouterr().err
    pools = value_pools(load_tools(EXAMPLE_04))
    cases = _check_kept(out, pools)
    assert len(cases) == 10
    assert not any("Weather number" in case["user-message"] for case in cases)
    reasons = [r["reason"] for r in report["rejected"] if r["reason"] != "near_duplicate"]
    assert scripted.bad_sent and reasons == ["message_missing_value"] * len(scripted.bad_sent)
    assert report["calls_per_kept_case"] <= 2.5
    assert report["calls"]["judge_vote"]["calls"] == 10  # one vote per kept case
    requests, first = openai_server.count(MODEL), out.read_bytes()

    assert _run(tmp_path)[0] == 0
    assert openai_server.count(MODEL) == requests
    assert out.read_bytes() == first


def test_no_vote_asks_no_judge_and_says_so_in_the_header(tmp_path, openai_server, capsys):
    config(tmp_path, openai_server)
    openai_server.respond(MODEL, ScriptedGenerator(bad_every=0))
    code, report, out = _run(tmp_path, "--no-vote")
    assert code == 0, capsys.readouterr().err
    assert "judge_vote" not in report["calls"] or not report["calls"]["judge_vote"]["calls"]
    assert report["total"]["calls"] == 10 + len(report["rejected"])  # one call a candidate
    assert "(no vote)." in out.read_text(encoding="utf-8").splitlines()[3]


def test_plan_model_asks_the_model_for_the_calls(tmp_path, openai_server, capsys):
    config(tmp_path, openai_server)
    openai_server.respond(MODEL, ScriptedGenerator(bad_every=0))
    code, _report, out = _run(tmp_path, "--plan", "model", "--count", "3", "--no-vote")
    assert code == 0, capsys.readouterr().err
    prompts = [r.request.prompt for r in openai_server.requests_for(MODEL)]
    assert prompts and all(p.startswith("You write one test case") for p in prompts)
    assert "plan=model" in out.read_text(encoding="utf-8")


def test_value_pools_come_from_enums_defaults_examples_and_the_suites_cases():
    pools = value_pools(load_tools(EXAMPLE_04))
    assert pools[("get_weather", "units")] == ["celsius", "fahrenheit"]
    assert {"Hanoi", "Tokyo", "Da Nang", "Ho Chi Minh City", "Paris"} <= set(
        pools[("get_weather", "city")] + pools[("get_forecast", "city")]
    )
    assert set(pools[("get_forecast", "days")]) <= set(range(1, 8))  # nulls and bad ones out


def test_a_planner_fixes_required_values_and_the_hint_and_cycles(tmp_path):
    source = load_tools(EXAMPLE_04)
    planner = ValuePlanner(source, value_pools(source), seed=3)
    first = planner.plan(["get_forecast"])
    second = planner.plan(["get_forecast"])
    assert set(first[0]) == {"city", "days"} and first != second
    assert planner.plan(["get_weather"], {"units": "fahrenheit"})[0]["units"] == "fahrenheit"
    assert ValuePlanner(source, {}, seed=0).can_plan(["get_weather"]) is False


@pytest.mark.parametrize(
    ("message", "calls", "missing"),
    [
        ("Forecast for Hanoi, 5 days?", [{"city": "Hanoi", "days": 5}], []),
        ("forecast for HANOI over 15 days", [{"city": "Hanoi", "days": 5}], ["days = 5"]),
        ("Погода в Hanoi на 5 дней", [{"city": "Hanoi", "days": 5}], []),
        ("Weather in Oslo", [{"city": "Hanoi"}, {"city": "Oslo"}], ["city = 'Hanoi'"]),
        ("", [{"units": "celsius"}], ["units = 'celsius'"]),
    ],
)
def test_missing_values_names_each_value_not_stated(message, calls, missing):
    assert missing_values(message, calls) == missing


def test_a_message_echoing_the_prompt_is_caught():
    source = load_tools(EXAMPLE_04)
    instructions = "Rewrite a user's message to this assistant so that it asks about it"
    assert copied_prompt("Rewrite a user's message to this assistant", instructions, source, [])
    assert copied_prompt("Get current weather for a city: Hanoi", "", source, ["get_weather"])
    assert copied_prompt("Weather in [city]?", "", source, [])
    assert copied_prompt("What's the weather in Hanoi?", instructions, source, []) is None


def test_nothing_kept_writes_no_file_and_says_so(tmp_path, openai_server, capsys):
    config(tmp_path, openai_server)
    scripted = ScriptedGenerator(bad_every=1)  # every message leaves its values out
    openai_server.respond(MODEL, scripted)
    code, report, out = _run(tmp_path, "--no-vote", "--max-calls", "4")
    captured = capsys.readouterr()
    assert code == 1
    assert not out.exists()
    assert f"nothing was kept: {out} was not written" in " ".join(
        (captured.out + captured.err).split()
    )
    assert [r["reason"] for r in report["rejected"]] == ["message_missing_value"] * 4
