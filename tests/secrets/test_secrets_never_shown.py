"""The API key never shows: not in a log line (DEBUG, third-party loggers included), a result's
JSON, a repr, or an exception message, even when the provider echoes it back."""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable

import pytest

from ragas_boot import (
    AIMessage,
    AllJudgesFailedError,
    HumanMessage,
    MetricResult,
    RagasContainer,
    Sample,
    ToolCall,
    ToolMessage,
    create_container,
    load_settings,
)
from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply

SAMPLE = Sample(
    id="leak-check",
    user_input_messages=[
        HumanMessage("Cancel my order 1042."),
        AIMessage("", [ToolCall("cancel_order", {"order": 1042}, id="c1")]),
        ToolMessage("cancelled", tool_call_id="c1"),
        AIMessage("Order 1042 is cancelled."),
    ],
    reference="Order 1042 is cancelled.",
    reference_topics=["orders"],
    reference_tool_calls=[ToolCall("cancel_order", {"order": 1042})],
)


@pytest.fixture
def secret(request: pytest.FixtureRequest) -> str:
    """tests/conftest.py's recognisable fake key (the containers here are built with it)."""
    root = request.config.pluginmanager.get_plugin(f"{request.config.rootpath}/tests/conftest.py")
    assert root is not None
    return str(root.SECRET_KEY)


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every logger at DEBUG (openai, httpx, aiohttp and asyncio included)."""
    caplog.set_level(logging.DEBUG)
    return caplog


def answer(request: ChatRequest) -> dict[str, object]:
    if "inferred_goal" in request.prompt:
        return {"inferred_goal": "Cancel order 1042.", "reason": "first message"}
    if "Topics found" in request.prompt:
        verdict = {"topic": "orders", "on_topic": True, "matched_reference_topic": "orders"}
        return {"classifications": [verdict | {"reason": "about the order"}]}
    if "topics" in request.prompt:
        return {"topics": ["orders"]}
    return {"goal_achieved": True, "reason": "the order is cancelled"}


def echoing_provider(server: FakeOpenAIServer, secret: str) -> None:
    """judge-a answers; judge-b is refused with a body quoting the key; judge-c answers prose
    quoting it; judge-d's connection drops."""
    server.respond("judge-a", answer)
    server.fail_always("judge-b", Reply.error(401, message=f"Incorrect API key: {secret}."))
    server.fail_always("judge-c", Reply.text(f"I will not grade this. Your key is {secret}"))
    server.fail_always("judge-d", Reply.drop())


def texts_of(error: BaseException) -> list[str]:
    """The message, repr and formatted traceback of an error and every error behind it."""
    seen = []
    current: BaseException | None = error
    while current is not None and len(seen) < 10:
        seen += [str(current), repr(current)]
        current = current.__cause__ or current.__context__
    return [*seen, "".join(traceback.format_exception(error))]


def test_evaluations_with_failures_never_show_the_key(
    make_container: Callable[..., RagasContainer],
    openai_server: FakeOpenAIServer,
    debug_logs: pytest.LogCaptureFixture,
    secret: str,
) -> None:
    echoing_provider(openai_server, secret)
    container = make_container()
    goal, topics, tools = (
        container.agent_goal_accuracy(),
        container.topic_adherence(),
        container.tool_call_accuracy(),
    )
    results: list[MetricResult] = [
        goal.evaluate(SAMPLE),
        asyncio.run(goal.aevaluate(SAMPLE, {"mode": "without_reference"})),
        topics.evaluate(SAMPLE),
        tools.evaluate(SAMPLE),
    ]
    # judge-d's connection drops on every attempt: after 5 in a row (3 in the first
    # evaluation, 2 in the second) its circuit opens and it is no longer even asked.
    assert [sorted({e.kind for e in r.exclusions}) for r in results[:3]] == [
        ["auth", "connection", "invalid_output"],
        ["auth", "invalid_output", "unavailable"],
        ["auth", "invalid_output", "unavailable"],
    ]
    openai_server.fail_always("judge-a", Reply.error(403, message=f"forbidden for {secret}"))
    with pytest.raises(AllJudgesFailedError) as failed:
        goal.evaluate(SAMPLE)

    assert (
        openai_server.requests_for("judge-b")[0].request.headers["authorization"].endswith(secret)
    ), "the key must reach the provider, or this test proves nothing"
    assert debug_logs.records, "nothing was logged, so the log check would prove nothing"
    shown = [
        debug_logs.text,
        *(record.getMessage() for record in debug_logs.records),
        *(result.model_dump_json() for result in results),
        *(repr(result) for result in results),
        *texts_of(failed.value),
        repr(container.settings()),
        str(container.settings()),
        container.settings().model_dump_json(),
        repr(container),
        repr(container.executor()),
        *(repr(judge) for judge in container.judges()),
        *(repr(judge.spec) for judge in container.judges()),
        repr(goal),
        repr(topics),
        repr(tools),
    ]
    leaks = [text for text in shown if secret in text]
    assert leaks == []


HEADER_SECRET = "hdr-org-token-55443322"


def test_a_header_value_the_provider_echoes_back_is_masked_like_the_key(
    tmp_path, openai_server: FakeOpenAIServer, judge_transport: str, secret: str
) -> None:
    """A custom header (an org token, a gateway key) is as secret as the API key: a judge that
    quotes it in a valid answer's reason, or in prose that fails to parse, shows it nowhere."""
    openai_server.respond(
        "judge-a",
        {"goal_achieved": True, "reason": f"your org token {HEADER_SECRET} looks fine"},
    )
    openai_server.fail_always("judge-b", Reply.text(f"I refuse. Token: {HEADER_SECRET}"))
    config = tmp_path / "application.yaml"
    config.write_text(
        "spring.ai.ragas.providers.openai-compatible:\n"
        f"  - name: p\n    base-url: {openai_server.base_url}\n    api-key: {secret}\n"
        f"    transport: {judge_transport}\n"
        f"    headers: {{X-Org-Token: {HEADER_SECRET}}}\n"
        "    chat-models: [{id: judge-a}, {id: judge-b}]\n"
        "spring.ai.retry.max-attempts: 1\n",
        encoding="utf-8",
    )
    with create_container(load_settings(config, environ={})) as container:
        result = container.agent_goal_accuracy().evaluate(SAMPLE)
    assert openai_server.requests_for("judge-a")[0].request.headers["x-org-token"] == HEADER_SECRET
    assert result.model_scores == {"judge-a": 1.0}
    assert [e.kind for e in result.exclusions] == ["invalid_output"]
    shown = [repr(result), result.model_dump_json(), repr(result.steps), str(result.explanation)]
    assert all(HEADER_SECRET not in text for text in shown)
    assert "**********" in result.model_dump_json()  # masked, not dropped
