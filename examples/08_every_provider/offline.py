"""Example 08 offline: one panel of an OpenAI-compatible, a GigaChat and a LangChain judge.

Run from the repository root (needs ``pip install 'ragas-boot[gigachat]' langchain-anthropic``)::

    .venv/bin/python examples/08_every_provider/offline.py

It starts three local fakes on 127.0.0.1 — ragas-boot's OpenAI-compatible test server, a fake
GigaChat API (OAuth token exchange + chat completions) and a fake Anthropic Messages API (these
two are the repository's test support, ``tests/support/fakes``, not part of the installed
library: hence "from the repository root") —, scripts the same verdicts on all three,
points the ``*_BASE_URL`` variables of ``application.yaml`` at them and runs
``ragas-boot evaluate`` on the quick start's dataset with all three metrics. Each judge is
reached over real HTTP by its own client library (the ``openai`` client, ``gigachat`` under
``langchain-gigachat``, ``anthropic`` under ``langchain-anthropic``). Extra arguments go to
``ragas-boot evaluate`` (e.g. ``--out report.json``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragas_boot.cli import main as ragas_boot
from ragas_boot.testing import FakeOpenAIServer

HERE = Path(__file__).parent
# The GigaChat and Anthropic fakes test ragas-boot's adapters; they live with the tests.
sys.path.insert(0, str(HERE.parents[1] / "tests"))
from support.fakes import FakeAnthropicServer, FakeGigaChatServer, gigachat_key  # noqa: E402

DATASET = HERE.parent / "quickstart" / "dataset.yaml"
#: What the fakes accept (offline only; real keys come from the environment).
GIGACHAT_KEY = gigachat_key("offline-client", "offline-secret")
ANTHROPIC_KEY = "sk-ant-offline-example-not-a-real-key"


def _section(prompt: str, title: str) -> list[str]:
    # The list sits inside the prompt's <data name="..."> block, right under the title.
    match = re.search(re.escape(title) + r'\s*\n(?:<data name="\w+">\n)?((?:- .*\n?)+)', prompt)
    return [line[2:].strip() for line in match.group(1).splitlines()] if match else []


def verdicts(prompt: str, asks_for: Callable[[str], bool]) -> dict[str, Any]:
    """The answers of every judge: the stock-tips chat misses its goal and drifts off topic."""
    off_track = "stock" in prompt.lower()
    if asks_for("goal_achieved"):
        reason = "The agent gave stock tips." if off_track else "The outcome is as expected."
        return {"goal_achieved": not off_track, "reason": reason}
    if asks_for("topics"):
        allowed = ["weather"] if off_track else []
        return {"topics": [*allowed, "stock tips"] if off_track else ["the user's request"]}
    if asks_for("classifications"):
        allowed = _section(prompt, "Allowed (reference) topics:")
        found = _section(prompt, "Topics found in the conversation:")
        return {
            "classifications": [
                {
                    "topic": topic,
                    "on_topic": topic != "stock tips" and bool(allowed),
                    "matched_reference_topic": allowed[0]
                    if topic != "stock tips" and allowed
                    else None,
                    "reason": "Off topic." if topic == "stock tips" else "Allowed.",
                }
                for topic in found
            ]
        }
    return {"ok": True}  # `ragas-boot config check --ping`


def main(argv: list[str]) -> int:
    """Start the three fakes, script them, run ``ragas-boot evaluate``."""
    with (
        FakeOpenAIServer() as openai,
        FakeGigaChatServer(credentials=GIGACHAT_KEY) as gigachat,
        FakeAnthropicServer(api_key=ANTHROPIC_KEY) as anthropic,
    ):
        openai.respond(None, lambda request: verdicts(request.prompt, request.asks_for))
        for fake in (gigachat, anthropic):
            fake.respond(None, lambda call: verdicts(call.texts[0], call.asks_for))
        os.environ.update(
            OPENAI_COMPATIBLE_BASE_URL=openai.base_url,
            OPENROUTER_API_KEY="sk-or-offline-example-not-a-real-key",
            GIGACHAT_BASE_URL=gigachat.base_url,
            GIGACHAT_AUTH_URL=gigachat.auth_url,
            GIGACHAT_API_KEY=GIGACHAT_KEY,
            ANTHROPIC_BASE_URL=anthropic.base_url,
            ANTHROPIC_API_KEY=ANTHROPIC_KEY,
        )
        code = ragas_boot(
            [
                "evaluate",
                str(DATASET),
                "--config",
                str(HERE / "application.yaml"),
                "--metric",
                "agent_goal_accuracy",
                "--metric",
                "topic_adherence",
                "--metric",
                "tool_call_accuracy",
                "--no-progress",
                *argv,
            ]
        )
        print(
            f"requests: openai-compatible {openai.count()}, gigachat {gigachat.count()} "
            f"(+{gigachat.token_requests} token exchanges), anthropic {anthropic.count()}"
        )
        return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
