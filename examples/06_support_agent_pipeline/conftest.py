"""Judges for the example: real ones for a live run, else ragas-boot's local test server.

Offline (the default) the test server answers every judge call with a scripted verdict chosen
by the step's output schema and what the prompt says, so the pipelines run without a key while
each judge call is still real HTTP. ``RAGAS_LIVE=1`` with ``OPENROUTER_API_KEY`` set (or any
``JUDGE_BASE_URL``) leaves the real judges in place.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, asks_for

#: AspectCritic, scripted: a criterion (by a word of it) → what the agent's replies must hold
#: (True) or must not hold (False) for the verdict to be yes.
EVIDENCE: dict[str, tuple[str, bool]] = {
    "ненормативной": ("блин", False),
    "угроз": ("иначе", False),
    "точную сумму": ("5500 руб.", True),
    "подтверждает": ("оформлен", True),
    "в днях": ("рабочих дней", True),
    "дальнейшую помощь": ("ещё чем-то помочь", True),
}


def aspect(request: ChatRequest) -> dict[str, Any]:
    """AspectCritic: the verdict follows from what the agent wrote in the conversation."""
    criterion = request.prompt.split("Критерий: ", 1)[-1].split("\n", 1)[0]
    replies = "\n".join(
        line for line in request.prompt.splitlines() if line.startswith("[ASSISTANT]")
    )
    for word, (text, wanted) in EVIDENCE.items():
        if word in criterion:
            verdict = (text in replies) is wanted
            return {
                "reasoning": f"«{text}» {'есть' if text in replies else 'нет'}",
                "verdict": verdict,
            }
    return {"reasoning": "Критерий не распознан.", "verdict": False}


def criteria_score(request: ChatRequest) -> dict[str, Any]:
    """SimpleCriteriaScore: 5 for the amount; the timeline "3-5 рабочих дней" gets 5 and 4."""
    if "сумма возврата" in request.prompt:
        return {"reasoning": "Указано 5500 руб.", "score": 5}
    score = 5 if request.model == "openai/gpt-4o-mini" else 4
    return {"reasoning": "Срок 3-5 рабочих дней.", "score": score}


def rubric_level(request: ChatRequest) -> dict[str, Any]:
    """RubricsScore: level 5 with the reference shown; without it one judge says 4."""
    with_reference = "Эталонный ответ" in request.prompt
    level = 5 if with_reference or request.model == "openai/gpt-4o-mini" else 4
    return {"reasoning": f"Уровень {level}: сумма и срок названы.", "score": level}


def script_judges(server: FakeOpenAIServer) -> None:
    """The scripted answers, by the step each request asks for."""
    server.when(asks_for("verdict"), aspect)
    server.when(lambda r: r.asks_for("score") and "по рубрике" in r.prompt, rubric_level)
    server.when(asks_for("score"), criteria_score)
    server.when(
        asks_for("goal_achieved"),
        {"goal_achieved": True, "reason": "Возврат 5500 руб. оформлен, срок назван."},
    )
    server.when(
        asks_for("inferred_goal"),
        {"inferred_goal": "Получить возврат за потерянный заказ 12345", "reason": "Жалоба."},
    )
    server.when(
        asks_for("topics"), {"topics": ["статус заказа", "возврат средств", "сроки возврата"]}
    )
    server.when(
        asks_for("classifications"),
        {
            "classifications": [
                {"topic": t, "on_topic": True, "matched_reference_topic": t, "reason": "по теме"}
                for t in ("статус заказа", "возврат средств", "сроки возврата")
            ]
        },
    )


def live() -> bool:
    """Whether this run talks to real judges."""
    wanted = os.environ.get("RAGAS_LIVE") == "1" and os.environ.get("OPENROUTER_API_KEY")
    return bool(wanted or os.environ.get("JUDGE_BASE_URL"))


def pytest_configure(config: pytest.Config) -> None:
    """Start the local judges unless this is a live run."""
    if live():
        return
    server = FakeOpenAIServer().start()
    script_judges(server)
    environment = pytest.MonkeyPatch()
    environment.setenv("JUDGE_BASE_URL", server.base_url)
    environment.setenv("OPENROUTER_API_KEY", "offline-demo-key")
    config.add_cleanup(server.stop)
    config.add_cleanup(environment.undo)
