"""What the dataset-run tests share: three judges that answer every metric of a lookup
conversation (judge-c denies the goal of the "bravo" sample), over the local test server."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ragas_boot.testing import ChatRequest, Reply

LOOKUP_JUDGES = ["judge-a", "judge-b", "judge-c"]
QUIET = "spring.ai.ragas.metrics.logging.enabled: false\n"


def _lookup_answer(request: ChatRequest) -> dict[str, object]:
    properties = (request.json_schema or {}).get("properties", {})
    if "goal_achieved" in properties:
        # judge-c says no to "bravo": a disagreement on one sample
        achieved = not (request.model == "judge-c" and "bravo" in request.prompt)
        return {"goal_achieved": achieved, "reason": f"{request.model} read it"}
    if "topics" in properties:
        return {"topics": ["lookups"]}
    return {
        "classifications": [
            {
                "topic": "lookups",
                "on_topic": True,
                "matched_reference_topic": "lookups",
                "reason": "allowed",
            }
        ]
    }


@pytest.fixture
def lookup_container(make_container, openai_server) -> Callable[..., object]:
    """``lookup_container(down_on=None)``: a container of the three judges answering lookup
    samples; every judge answers 503 to a prompt holding ``down_on``."""

    def build(down_on: str | None = None) -> object:
        def answer(request: ChatRequest) -> dict[str, object] | Reply:
            if down_on is not None and down_on in request.prompt:
                return Reply.error(503, "model overloaded")
            return _lookup_answer(request)

        openai_server.respond(None, answer)
        return make_container(LOOKUP_JUDGES, extra=QUIET)

    return build
