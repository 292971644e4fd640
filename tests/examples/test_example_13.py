"""Example 13: the booking agent tested over whole conversations. With a scripted user the
agent passes every play; with the embedded local model as the user (SmolLM2-135M: whether it
confirms is luck) the mechanics hold: the plays, their seeds, how they end, the transcript's
shape, and a replay from the cache that asks the model nothing."""

from __future__ import annotations

import json
import shutil

import pytest

from ragas_boot.cli import main
from ragas_boot.samples import ToolMessage
from ragas_boot.suites import load_suite, run_suite, simulation_summary
from support.examples import ROOT

EXAMPLE = ROOT / "examples" / "13_simulated_users"
FIRST = "Hi, I'd like to book a table for two on Friday evening."
ENDS = {"goal_met", "gave_up", "agent_ended", "not_concluded", "simulator_failed"}


def test_the_agent_passes_every_play_with_a_user_that_confirms():
    def user(conversation, scenario):
        return "Yes, please book it." if conversation[-1].content.endswith("?") else None

    run = run_suite(load_suite(EXAMPLE / "suite.yaml"), user=user)
    summary = simulation_summary(run)
    assert (summary.plays, summary.passed, summary.pass_hat_k) == (2, 2, 1.0)
    messages = run.samples[0].sample.user_input_messages
    assert [type(m).__name__ for m in messages] == [
        "HumanMessage", "AIMessage", "HumanMessage", "AIMessage", "ToolMessage", "AIMessage",
    ]  # fmt: skip


def test_a_user_that_never_confirms_leaves_the_conversation_not_concluded():
    run = run_suite(load_suite(EXAMPLE / "suite.yaml"), user=lambda c, s: "Hmm, let me think.")
    summary = simulation_summary(run)
    assert summary.not_concluded == 2 and summary.passed == 0
    assert not any(isinstance(m, ToolMessage) for m in run.samples[0].sample.user_input_messages)


def _suite_run(folder, report, capsys) -> dict:
    code = main(
        ["suite", "run", str(folder / "suite.yaml"), "--out", str(report), "--no-history",
         "--no-progress"]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err  # the gate may pass or not: the user is tiny
    assert "Scenarios:" in captured.out
    return json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.local_llm
def test_the_embedded_model_plays_the_user_offline_and_a_rerun_replays_it(
    tmp_path, monkeypatch, capsys
):
    pytest.importorskip("llama_cpp", reason="needs the [local] extra")
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    monkeypatch.chdir(folder)
    monkeypatch.delenv("RAGAS_CONFIG", raising=False)
    first = _suite_run(folder, tmp_path / "first.json", capsys)

    simulation = first["simulation"]
    assert simulation["plays"] == 2 and simulation["k"] == 2
    assert simulation["simulator_requests"] >= simulation["simulator_calls"] >= 1
    plays = [sample["sample"] for sample in first["samples"]]
    assert [s["sample_id"] for s in first["samples"]] == ["friday_table#1", "friday_table#2"]
    for play, seed in zip(plays, (0, 1), strict=True):
        record = play["agent_run"]["simulation"]
        assert record["end"] in ENDS
        assert record["seed"] == seed and record["model"] == "smollm2-135m"
        assert 1 <= record["user_turns"] <= 4  # max-turns 3, and the closing turn
        messages = play["user_input_messages"]
        assert messages[0] == {"type": "human", "content": FIRST}
        assert messages[1]["type"] == "ai"  # the agent answers every user message
        humans = [m for m in messages if m["type"] == "human"]
        assert len(humans) <= 3
        if record["end"] == "simulator_failed":
            assert play["agent_run"]["error"] is None  # never the agent's

    # The rerun replays the user's answers from the cache: the same transcripts, no call.
    # A failed answer is not cached (as a judge's): a play the simulator failed asks again,
    # and the seeded model fails it the same way.
    again = _suite_run(folder, tmp_path / "again.json", capsys)
    for before, after in zip(first["samples"], again["samples"], strict=True):
        then = before["sample"]["agent_run"]["simulation"]
        now = after["sample"]["agent_run"]["simulation"]
        assert (now["end"], now["reason"]) == (then["end"], then["reason"])
        if then["end"] != "simulator_failed":
            assert now["simulator_requests"] == 0
            assert now["cache_hits"] == then["simulator_calls"]
    assert [json.dumps(s["sample"]["user_input_messages"]) for s in again["samples"]] == [
        json.dumps(s["sample"]["user_input_messages"]) for s in first["samples"]
    ]
