"""Example 07 offline: the four judges answer from ragas-boot's local test server.

Run from the repository root::

    .venv/bin/python examples/07_rag/offline.py [--latency 0.2] [ragas-boot evaluate options]

It starts the local OpenAI-compatible test server, makes every judge answer with
:class:`~ragas_boot.testing.SentenceJudge` (a deterministic sentence-matching stand-in
for a language model; the Gemini judge is a little more lenient, so the judges disagree
sometimes), points ``JUDGE_BASE_URL`` at the server and runs ``ragas-boot evaluate`` on the
dataset with all ten retrieval/response metrics, writing ``report.html`` and ``report.json``
here. Every judge is still reached over real HTTP. ``--latency`` makes each judge answer after
that many seconds, to see that the wall time follows the dependent steps, not the calls.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from ragas_boot.cli import main as ragas_boot
from ragas_boot.testing import FakeOpenAIServer, SentenceJudge

HERE = Path(__file__).parent

METRICS = (
    "faithfulness",
    "context_precision",
    "context_recall",
    "context_entity_recall",
    "noise_sensitivity",
    "factual_correctness",
    "hallucination",
    "answer_accuracy",
    "context_relevance",
    "response_groundedness",
)
MODELS = (
    "openai/gpt-4o-mini",
    "openai/gpt-4.1-mini",
    "anthropic/claude-3.5-haiku",
    "google/gemini-2.0-flash-001",
)
LENIENT = "google/gemini-2.0-flash-001"


def _words(text: str) -> set[str]:
    return {word for word in re.findall(r"\w+", text.casefold()) if len(word) > 3}


def lenient(statement: str, context: str) -> bool:
    """Supported when most of the statement's longer words are in the context."""
    words = _words(statement)
    return bool(words) and len(words & _words(context)) / len(words) >= 0.75


def main(argv: list[str]) -> int:
    """Start the server, script the judges, run ``ragas-boot evaluate``."""
    latency = 0.0
    if argv[:1] == ["--latency"]:
        latency, argv = float(argv[1]), argv[2:]
    arguments = ["evaluate", str(HERE / "dataset.yaml"), "--config", str(HERE / "application.yaml")]
    arguments += ["--profile", "offline", "--concurrency", "64", "--no-progress"]
    for metric in METRICS:
        arguments += ["--metric", metric]
    if "--out" not in argv:
        arguments += ["--out", str(HERE / "report.html"), "--out", str(HERE / "report.json")]
    with FakeOpenAIServer() as server:
        for model in MODELS:
            judge = SentenceJudge(supports=lenient) if model == LENIENT else SentenceJudge()
            server.respond(model, judge)
            server.set_latency(model, latency)
        os.environ["JUDGE_BASE_URL"] = server.base_url
        os.environ.setdefault("OPENROUTER_API_KEY", "sk-offline-example-not-a-real-key")
        started = time.perf_counter()
        code = ragas_boot([*arguments, *argv])
        wall = time.perf_counter() - started
        print(f"judge calls: {server.count()}; wall time {wall:.2f} s at {latency:g} s latency")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
