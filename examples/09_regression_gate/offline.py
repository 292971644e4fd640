"""Example 09 offline: a regression caught by the run history's CI gate.

Run from the repository root::

    .venv/bin/python examples/09_regression_gate/offline.py

It starts ragas-boot's local OpenAI-compatible test server and runs ``ragas-boot evaluate``
twice on ``dataset.yaml``: first with judges scripted to find every goal achieved (the
"release" run), then, as if the agent had changed, with judges that find the Oslo weather
goal missed. The second run is compared with the first (``--baseline latest``) and
``--fail-on-regression`` makes the comparison a gate: the script prints both runs, the
``runs list`` and ``runs diff`` output, and exits with the gate's code (1: regression).

The history is a SQLite file in ``$RAGAS_BOOT_HOME`` (default: a fresh temporary folder here,
so the example never writes into the repository).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from ragas_boot.cli import main as ragas_boot
from ragas_boot.testing import ChatRequest, FakeOpenAIServer

HERE = Path(__file__).parent


def judges(*, missed: str | None) -> Any:
    """Judges that find every goal achieved, except in the sample that mentions ``missed``."""

    def answer(request: ChatRequest) -> dict[str, Any]:
        achieved = missed is None or missed not in request.prompt
        return {"goal_achieved": achieved, "reason": "done" if achieved else "not done"}

    return answer


def evaluate(*extra: str) -> int:
    args = ["evaluate", str(HERE / "dataset.yaml"), "--config", str(HERE / "application.yaml")]
    args += ["--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy", *extra]
    return ragas_boot(args)


def main() -> int:
    os.environ.setdefault("RAGAS_BOOT_HOME", tempfile.mkdtemp(prefix="ragas-boot-example-"))
    os.environ.setdefault("OPENROUTER_API_KEY", "sk-offline-example")
    with FakeOpenAIServer() as server:
        os.environ["JUDGE_BASE_URL"] = server.base_url
        print("== release run", flush=True)
        server.respond(None, judges(missed=None))
        if evaluate() != 0:
            return 2
        print("== candidate run, against the release run", flush=True)
        server.reset()
        server.respond(None, judges(missed="Oslo"))
        code = evaluate("--baseline", "latest", "--fail-on-regression")
    print("== ragas-boot runs list", flush=True)
    ragas_boot(["runs", "list", "--config", str(HERE / "application.yaml")])
    print("== ragas-boot runs diff previous latest --fail-on-regression", flush=True)
    gate = ragas_boot(
        ["runs", "diff", "previous", "latest", "--fail-on-regression",
         "--config", str(HERE / "application.yaml")]
    )  # fmt: skip
    print(f"evaluate --baseline exit code: {code}; runs diff exit code: {gate}")
    return gate


if __name__ == "__main__":
    sys.exit(main())
