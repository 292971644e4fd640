"""Example 03 offline: the five judges are scripted on ragas-boot's local test server.

Run from the repository root::

    .venv/bin/python examples/03_compare_judge_models/offline.py

It starts the local OpenAI-compatible test server, scripts each judge from the annotators'
labels in ``dataset.yaml`` (each judge with its own quirks, so they disagree a little), points
``JUDGE_BASE_URL`` at the server and runs ``ragas-boot compare`` on all three metrics, writing
``report.html`` and ``report.json`` here. Every judge is still reached over real HTTP. Extra
arguments are passed on to ``ragas-boot compare`` (e.g. ``--models gpt-4o-mini,claude-3.5-haiku``).
"""

from __future__ import annotations

import os
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragas_boot.cli import main as ragas_boot
from ragas_boot.datasets import Dataset, load_dataset
from ragas_boot.samples import HumanMessage, Sample
from ragas_boot.testing import ChatRequest, FakeOpenAIServer

HERE = Path(__file__).parent

#: Seconds each judge takes to answer (model id as sent to the provider).
LATENCY = {
    "openai/gpt-4o-mini": 0.020,
    "openai/gpt-4.1-mini": 0.030,
    "anthropic/claude-3.5-haiku": 0.045,
    "google/gemini-2.0-flash-001": 0.010,
    "google/gemini-2.5-flash": 0.060,
}

#: How often (1 in N samples) a judge gets the goal verdict wrong.
NOISE = {
    "openai/gpt-4o-mini": 9,
    "openai/gpt-4.1-mini": 11,
    "anthropic/claude-3.5-haiku": 8,
    "google/gemini-2.5-flash": 10,
}
LENIENT = "google/gemini-2.0-flash-001"  # calls some failures successes, forgives off-topic talk
STRICT = "anthropic/claude-3.5-haiku"  # also lists the small talk as a topic


def _draw(model: str, sample: Sample, salt: str = "") -> int:
    return zlib.crc32(f"{model}:{sample.id}:{salt}".encode())


def _first_user_message(sample: Sample) -> str:
    for message in sample.user_input_messages or []:
        if isinstance(message, HumanMessage):
            return message.content
    return sample.user_input or ""


def _section(prompt: str, title: str) -> list[str]:
    # The list sits inside the prompt's <data name="..."> block, right under the title.
    match = re.search(re.escape(title) + r'\s*\n(?:<data name="\w+">\n)?((?:- .*\n?)+)', prompt)
    return [line[2:].strip() for line in match.group(1).splitlines()] if match else []


def _labels(sample: Sample) -> dict[str, Any]:
    labels = sample.metadata.get("labels", {})
    return labels if isinstance(labels, dict) else {}


def responder(dataset: Dataset) -> Callable[[ChatRequest], dict[str, Any]]:
    """The answers of every judge, from the dataset's labels and each judge's quirks."""
    by_opening = {_first_user_message(sample): sample for sample in dataset.samples}

    def find(prompt: str) -> Sample:
        for opening, sample in by_opening.items():
            if opening and opening in prompt:
                return sample
        raise LookupError("no sample of the dataset is in this prompt")

    def answer(request: ChatRequest) -> dict[str, Any]:
        model, prompt = request.model, request.prompt
        if request.asks_for("goal_achieved"):
            sample = find(prompt)
            achieved = bool(_labels(sample).get("goal_achieved"))
            if model == LENIENT and not achieved and _draw(model, sample) % 3 == 0:
                achieved = True
            elif model in NOISE and _draw(model, sample) % NOISE[model] == 0:
                achieved = not achieved
            reason = (
                "The conversation shows the expected outcome."
                if achieved
                else ("The expected outcome is not what happened in the conversation.")
            )
            return {"goal_achieved": achieved, "reason": reason}
        if request.asks_for("topics"):
            sample = find(prompt)
            labels = _labels(sample)
            topics = list(labels.get("on_topic", sample.reference_topics or []))
            topics += list(labels.get("off_topic", []))
            if model == STRICT and _draw(model, sample, "topics") % 4 == 0:
                topics.append("small talk")
            return {"topics": topics}
        if request.asks_for("classifications"):
            allowed = _section(prompt, "Allowed (reference) topics:")
            found = _section(prompt, "Topics found in the conversation:")
            verdicts = []
            for topic in found:
                matched = topic if topic in allowed else None
                if matched is None and model == LENIENT and allowed:
                    matched = allowed[0]  # files off-topic talk under the nearest allowed topic
                verdicts.append(
                    {
                        "topic": topic,
                        "on_topic": matched is not None,
                        "matched_reference_topic": matched,
                        "reason": f"Falls under {matched}." if matched else "Not an allowed topic.",
                    }
                )
            return {"classifications": verdicts}
        return {"ok": True}  # `ragas-boot config check --ping`

    return answer


def script_judges(server: FakeOpenAIServer, dataset: Dataset) -> None:
    """Make ``server`` answer as the five judges of ``application.yaml`` would."""
    for model, seconds in LATENCY.items():
        server.set_latency(model, seconds)
    server.respond(None, responder(dataset))


def main(argv: list[str]) -> int:
    """Start the server, script the judges, run ``ragas-boot compare``."""
    dataset_file = HERE / "dataset.yaml"
    with FakeOpenAIServer() as server:
        script_judges(server, load_dataset(dataset_file))
        os.environ["JUDGE_BASE_URL"] = server.base_url
        os.environ.setdefault("OPENROUTER_API_KEY", "sk-offline-example-not-a-real-key")
        return ragas_boot(
            [
                "compare",
                str(dataset_file),
                "--config",
                str(HERE / "application.yaml"),
                "--profile",
                "offline",
                "--metric",
                "agent_goal_accuracy",
                "--metric",
                "topic_adherence",
                "--metric",
                "tool_call_accuracy",
                "--out",
                str(HERE / "report.html"),
                "--out",
                str(HERE / "report.json"),
                *argv,
            ]
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
