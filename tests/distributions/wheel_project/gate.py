"""A user's quality gate, run by tests/distributions/test_installed_wheel.py from an installed
ragas-boot (copied next to nothing but itself as ``test_gate.py``)."""

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage, load_settings
from ragas_boot.testing import asks_for, assert_score

CONFIG = """
spring.ai.retry.backoff: { initial-interval: 10ms, max-interval: 20ms }
spring.ai.ragas.providers.openai-compatible:
  - name: fake
    base-url: ${JUDGE_URL}
    api-key: test
    chat-models: [{ id: judge-a }, { id: judge-b }]
"""

SAMPLE = Sample(
    user_input_messages=[
        HumanMessage("Book me a flight to Paris for Monday"),
        AIMessage("Searching.", [ToolCall("search_flights", {"destination": "Paris"})]),
        ToolMessage("Air France 10:00, $450"),
        AIMessage("Booked Air France at 10:00."),
    ],
    reference="The flight to Paris is booked",
    reference_tool_calls=[ToolCall("search_flights", {"destination": "Paris"})],
)


@pytest.fixture(scope="session")
def ragas_settings(ragas_openai_server, tmp_path_factory):
    path = tmp_path_factory.mktemp("config") / "application.yaml"
    path.write_text(CONFIG)
    return load_settings(path, environ={"JUDGE_URL": ragas_openai_server.base_url})


@pytest.fixture(autouse=True)
def judges(ragas_openai_server):
    ragas_openai_server.reset()
    ragas_openai_server.when(asks_for("goal_achieved"), {"goal_achieved": True, "reason": "booked"})
    return ragas_openai_server


def test_the_goal_is_reached(agent_goal_accuracy):
    assert_score(agent_goal_accuracy.evaluate(SAMPLE), at_least=1.0)


def test_the_tools_are_called(tool_call_accuracy):
    assert_score(tool_call_accuracy.evaluate(SAMPLE), at_least=1.0)
