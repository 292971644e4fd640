"""Judges for the example: the real ones when JUDGE_BASE_URL is set, else a local test server.

With no ``JUDGE_BASE_URL``, ragas-boot's local OpenAI-compatible server answers every judge
with a scripted verdict chosen by what the prompt says, so ``pytest examples/02_pytest_gate``
runs offline and with no key, while each judge call is still real HTTP. The server starts in
``pytest_configure``, before the plugin reads ``application.yaml`` for the report header.

The judges do not all agree, as real ones would not: gpt-4o-mini finds fewer topics in the
machine-learning chat, deepseek fewer in the off-topic one.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, asks_for

#: Extracted topic → (the allowed topic it falls under, or None when off-topic).
TOPICS: dict[str, str | None] = {
    "машинное обучение": "машинное обучение",
    "обучение с учителем": "обучение с учителем",
    "обучение без учителя": "обучение без учителя",
    "обучение с подкреплением": "машинное обучение",
    "программирование на Python": "программирование на Python",
    "футбольный матч": None,
    "финал чемпионата мира": None,
}


def extracted_topics(request: ChatRequest) -> dict[str, list[str]]:
    """ExtractTopics: what each judge finds depends on the conversation in the prompt."""
    if "машинном обучении" in request.prompt:
        if request.model == "openai/gpt-4o-mini":
            return {"topics": ["машинное обучение", "обучение с учителем"]}
        return {
            "topics": [
                "машинное обучение",
                "обучение с учителем",
                "обучение без учителя",
                "обучение с подкреплением",
            ]
        }
    if request.model == "deepseek/deepseek-v3.2":
        return {"topics": ["программирование на Python", "футбольный матч"]}
    return {"topics": ["программирование на Python", "футбольный матч", "финал чемпионата мира"]}


def classified_topics(request: ChatRequest) -> dict[str, Any]:
    """ClassifyTopics: one verdict per topic listed in the prompt."""
    listed = request.prompt.split("Topics found in the conversation:", 1)[1]
    topics = re.findall(r"^- (.+)$", listed.split("\n\n", 1)[0].strip(), flags=re.MULTILINE)
    verdicts = []
    for topic in topics:
        matched = TOPICS.get(topic)
        verdicts.append(
            {
                "topic": topic,
                "on_topic": matched is not None,
                "matched_reference_topic": matched,
                "reason": f"falls under '{matched}'" if matched else "not an allowed topic",
            }
        )
    return {"classifications": verdicts}


def inferred_goal(request: ChatRequest) -> dict[str, str]:
    """InferGoal: the user's goal, read from the conversation."""
    if "Токио" in request.prompt:
        return {"inferred_goal": "Узнать текущую погоду в Токио", "reason": "Первый вопрос."}
    return {"inferred_goal": "Забронировать авиабилет в Париж", "reason": "Первая просьба."}


def script_judges(server: FakeOpenAIServer) -> None:
    """Scripted answers of the four judges, by step and by conversation."""
    server.when(
        asks_for("goal_achieved"),
        lambda request: {
            "goal_achieved": True,
            "reason": "Рейс забронирован, номер подтверждения AF12345."
            if "Париж" in request.prompt
            else "Погода в Токио сообщена: 22°C, переменная облачность.",
        },
    )
    server.when(asks_for("inferred_goal"), inferred_goal)
    server.when(asks_for("classifications"), classified_topics)
    server.when(asks_for("topics"), extracted_topics)


def pytest_configure(config: pytest.Config) -> None:
    """Start the local judges unless JUDGE_BASE_URL points at real ones."""
    if os.environ.get("JUDGE_BASE_URL"):
        return
    server = FakeOpenAIServer().start()
    script_judges(server)
    environment = pytest.MonkeyPatch()
    environment.setenv("JUDGE_BASE_URL", server.base_url)
    environment.setenv("OPENROUTER_API_KEY", "offline-demo-key")
    config.add_cleanup(server.stop)
    config.add_cleanup(environment.undo)
