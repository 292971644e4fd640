"""``ragas-boot suite run`` plays scenario cases: the configuration's simulation model plays
the user (the test server here), --max-turns and --repeat override, the gate counts plays."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml
from scenario_helpers import SUITE, USER_MODEL, scripted_user

from ragas_boot.cli import main
from ragas_boot.testing import Reply

AGENT = """
import json
import re

from ragas_boot.samples import AIMessage, ToolCall, ToolMessage


def run(messages):
    said = [m.content.lower() for m in messages if isinstance(m, AIMessage)]
    confirmed = re.search(r"\\byes\\b", messages[-1].content.lower())
    if confirmed and any("shall i book it" in text for text in said):
        call = ToolCall("book_table", {"date": "2025-05-02", "party": 2}, id="call_1")
        return [
            AIMessage("", [call]),
            ToolMessage(json.dumps({"booked": True}), tool_call_id="call_1"),
            AIMessage("Your table is booked."),
        ]
    return "A table for two on Friday 2 May? Shall I book it?"
"""


def _project(tmp_path: Path, server) -> tuple[Path, Path]:
    suite = tmp_path / "booking.yaml"
    suite.write_text(yaml.safe_dump({**SUITE, "agent": "booking_agent:run"}), encoding="utf-8")
    (tmp_path / "booking_agent.py").write_text(AGENT, encoding="utf-8")
    config = tmp_path / "application.yaml"
    config.write_text(
        textwrap.dedent(
            f"""
            spring.ai.retry: {{max-attempts: 2, backoff: {{initial-interval: 5ms}}}}
            spring.ai.ragas:
              providers:
                openai-compatible:
                  - name: sim
                    base-url: {server.base_url}
                    api-key: test
                    chat-models: [{{id: {USER_MODEL}}}]
              simulation: {{model: {USER_MODEL}, seed: 3}}
            """
        ),
        encoding="utf-8",
    )
    return suite, config


def test_suite_run_plays_scenarios_with_the_configured_user(tmp_path, openai_server, capsys):
    suite, config = _project(tmp_path, openai_server)
    openai_server.respond(USER_MODEL, scripted_user)
    report = tmp_path / "report.json"
    code = main(
        [
            "suite",
            "run",
            str(suite),
            "--config",
            str(config),
            "--repeat",
            "2",
            "--out",
            str(report),
            "--no-history",
            "--no-progress",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Scenarios: 2/2 plays passed" in captured.out
    assert "pass^2 100.0%" in captured.out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [s["sample_id"] for s in document["samples"]] == ["friday_table#1", "friday_table#2"]
    assert document["simulation"]["simulator_requests"] == 6
    assert {r.request.body["seed"] for r in openai_server.requests_for(USER_MODEL)} == {3, 4}


def test_max_turns_overrides_and_not_concluded_fails_the_gate(tmp_path, openai_server, capsys):
    suite, config = _project(tmp_path, openai_server)
    openai_server.respond(
        USER_MODEL,
        lambda request: (
            {"message": "Tell me more.", "done": False, "outcome": None, "why": ""}
            if "<data" in request.prompt
            else {"message": "Hello"}
        ),
    )
    code = main(
        [
            "suite",
            "run",
            str(suite),
            "--config",
            str(config),
            "--max-turns",
            "1",
            "--no-history",
            "--no-progress",
        ]
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "1 not concluded" in captured.out
    assert "Not concluded: the user was not done after 1 turn(s)" in captured.out
    assert "Conversations not concluded: 1 sample (friday_table)" in captured.out
    assert openai_server.count(USER_MODEL) == 2  # the first message, then one closing turn


def test_a_scenario_suite_without_a_configuration_says_what_to_do(
    tmp_path, openai_server, monkeypatch, capsys
):
    suite, _ = _project(tmp_path, openai_server)
    (tmp_path / "application.yaml").unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["suite", "run", str(suite), "--no-history", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "spring.ai.ragas.simulation" in err


def test_one_spend_cap_covers_the_simulators_calls(tmp_path, openai_server, capsys):
    suite, config = _project(tmp_path, openai_server)
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            f"chat-models: [{{id: {USER_MODEL}}}]",
            f"chat-models: [{{id: {USER_MODEL}, price: {{input-per-million: 0, "
            "output-per-million: 1000}}]",
        )
        + "spring.ai.ragas.run.max-cost: 0.65\n",
        encoding="utf-8",
    )
    usage = {"prompt_tokens": 0, "completion_tokens": 300, "total_tokens": 300}  # $0.30 each

    def billed(request):
        return Reply.json(scripted_user(request), usage=usage)

    openai_server.respond(USER_MODEL, billed)
    report = tmp_path / "report.json"
    # a call is sent while spent + reserved is under the cap: play 1's three calls ($0.90),
    # then play 2's first is refused
    code = main(
        ["suite", "run", str(suite), "--config", str(config), "--repeat", "2", "--concurrency", "1",
         "--out", str(report), "--no-history", "--no-progress"]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 3, captured.err
    document = json.loads(report.read_text(encoding="utf-8"))
    assert (document["stopped"], document["max_cost"]) == ("budget", 0.65)
    assert openai_server.count(USER_MODEL) == 3
    plays = [s["sample"]["agent_run"]["simulation"] for s in document["samples"]]
    assert [play["end"] for play in plays] == ["goal_met", "simulator_failed"]
    assert "simulator_failed (budget)" in plays[1]["reason"]
    assert document["simulation"]["cost"] == pytest.approx(0.9)
    assert "STOPPED the spend cap of 0.65 was reached" in captured.err
