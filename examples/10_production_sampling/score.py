"""Score the sampled production conversations without references; write CSV, JUnit, Markdown.

Run from the repository root (after make_traces.py, or on your own OTLP JSON export)::

    .venv/bin/python examples/10_production_sampling/score.py [TRACES] [--sample N] [--seed S]
        [--out DIR]

It reads the traces (one trace = one conversation), samples them, and scores every sampled
conversation with two AspectCritic criteria and AgentGoalAccuracy without a reference; the
conversations whose expected tool calls are known (expected_calls.yaml, by session id) are
also scored by ToolCallAccuracy. Offline (no JUDGE_BASE_URL), the judges are ragas-boot's
local test server with scripted verdicts; every judge call is still real HTTP. It writes
``results.csv`` (one row per conversation × metric, each judge's score in its own column),
``report.xml`` (JUnit, for the CI's test report) and ``summary.md`` (appended to
``$GITHUB_STEP_SUMMARY`` when that is set) into ``--out`` (default ``out/`` here).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.datasets import Dataset, load_otlp
from ragas_boot.reporting import append_step_summary, render_junit, render_markdown, write_table
from ragas_boot.runs import evaluate_dataset
from ragas_boot.testing import ChatRequest, FakeOpenAIServer, asks_for

HERE = Path(__file__).parent
BRUSH_OFF = "not our problem"


def aspect(request: ChatRequest) -> dict[str, Any]:
    """AspectCritic: a brush-off fails both criteria; the stock-check apology is a next step
    for one judge and not for the other."""
    if BRUSH_OFF in request.prompt:
        return {"reasoning": "The agent tells the customer it is not the shop's problem.",
                "verdict": False}  # fmt: skip
    if "next step" in request.prompt and "check the stock" in request.prompt:
        strict = request.model == "google/gemini-2.5-flash"
        return {
            "reasoning": "Only a promise to email later; nothing is resolved."
            if strict
            else "Offers to email the customer when the kettle is back.",
            "verdict": not strict,
        }
    return {"reasoning": "Polite, and the request is handled.", "verdict": True}


def goal(request: ChatRequest) -> dict[str, Any]:
    """AgentGoalAccuracy's verdict on the goal the judge inferred."""
    if BRUSH_OFF in request.prompt:
        return {"goal_achieved": False, "reason": "The customer asked for a refund; none was made."}
    if "check the stock" in request.prompt:
        return {"goal_achieved": False, "reason": "The stock could not be checked."}
    return {"goal_achieved": True, "reason": "The customer got what they asked for."}


def script_judges(server: FakeOpenAIServer) -> None:
    """The scripted verdicts, by the output each step asks for."""
    server.when(asks_for("verdict"), aspect)
    server.when(
        asks_for("inferred_goal"),
        {"inferred_goal": "Get the problem in the first message solved.", "reason": "Asked."},
    )
    server.when(asks_for("goal_achieved"), goal)


def with_expected_calls(dataset: Dataset) -> Dataset:
    """The conversations whose expected calls are known, with them as the reference."""
    expected = yaml.safe_load((HERE / "expected_calls.yaml").read_text(encoding="utf-8"))
    samples = [
        Sample.model_validate(sample.model_dump() | {"reference_tool_calls": expected[session]})
        for sample in dataset.samples
        if (session := sample.metadata.get("session_id")) in expected
    ]
    return Dataset(name=f"{dataset.name} (expected calls)", samples=samples)


def main(argv: list[str]) -> int:
    """Read, sample, score, write; exit 1 when a conversation fails a check."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("traces", nargs="?", default=str(HERE / "traces.jsonl"))
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(HERE / "out"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    imported = load_otlp(args.traces, sample=args.sample, seed=args.seed)
    print(imported.summary())
    with FakeOpenAIServer() as server:
        environ = dict(os.environ)
        if "JUDGE_BASE_URL" not in environ:
            script_judges(server)
            environ |= {"JUDGE_BASE_URL": server.base_url, "OPENROUTER_API_KEY": "sk-offline"}
        settings = load_settings(HERE / "application.yaml", environ=environ)
        with create_container(settings) as container:
            run = evaluate_dataset(
                imported.dataset,
                {
                    "aspect_critic:polite": container.metric("aspect_critic:polite"),
                    "aspect_critic:next-step": container.metric("aspect_critic:next-step"),
                    "agent_goal_accuracy": container.agent_goal_accuracy(),
                },
            )
            tools = evaluate_dataset(
                with_expected_calls(imported.dataset), [container.tool_call_accuracy()]
            )
    write_table(run, out / "results.csv")
    write_table(tools, out / "tool_calls.csv")
    (out / "report.xml").write_text(render_junit(run), encoding="utf-8")
    (out / "tool_calls.xml").write_text(render_junit(tools), encoding="utf-8")
    summary = render_markdown(run) + "\n" + render_markdown(tools)
    (out / "summary.md").write_text(summary, encoding="utf-8")
    append_step_summary(summary)  # when $GITHUB_STEP_SUMMARY is set (GitHub Actions)
    print(summary)
    failing = [row for result in (run, tools) for row in result.samples
               for evaluation in row.evaluations if evaluation.passed is False]  # fmt: skip
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
