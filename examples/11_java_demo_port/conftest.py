"""GigaChat for the port: the real API for a live run, else the local fake GigaChat API.

Offline (the default) the project's fake GigaChat API (``tests/support/fakes``, test support
of this checkout, not part of the installed package) plays
GigaChat: the OAuth token exchange, chat completions for the judge ``GigaChat-2-Max`` and
embeddings for ``EmbeddingsGigaR``, all over real HTTP through langchain-gigachat, as a live run
would. The judge's answers are scripted by the step each request asks for; the yes/no checks
look for their evidence in the text they are shown, so a reply without it fails. The YAML is
not touched: ``SPRING_AI_GIGACHAT_BASE_URL`` and ``SPRING_AI_GIGACHAT_AUTH_BEARER_URL`` (Spring's
relaxed names) point the connection at the fake. ``RAGAS_LIVE=1`` with ``GIGACHAT_API_KEY`` set
talks to GigaChat itself.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

# The fake GigaChat API is the project's test support (tests/support/fakes), not public API:
# the offline port runs from a checkout, as examples/08's offline run does.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from support.fakes import FakeGigaChatServer, gigachat_key
from support.fakes._api import ChatCall

JUDGE = "GigaChat-2-Max"

#: AspectCritic: a word of the criterion → what the judged reply must hold (True) or must not
#: hold (False) for the verdict to be yes.
EVIDENCE: dict[str, tuple[str, bool]] = {
    "мата": ("дурак", False),
    "угроз": ("иначе", False),
    "точную сумму": ("5500 руб.", True),
    "подтверждения": ("оформлен", True),
    "срок поступления": ("дней", True),
    "дополнительной помощи": ("Что-то ещё?", True),
}

_DATA = re.compile(r'<data name="interaction">\n(.*?)\n</data>', re.DOTALL)


def judged_text(call: ChatCall) -> str:
    """The interaction the prompt shows (not the criterion, whose examples would match)."""
    found = _DATA.search(call.texts[0])
    return found.group(1) if found else ""


def aspect(call: ChatCall) -> dict[str, Any]:
    """AspectCritic: the verdict follows from the judged text."""
    prompt, text = call.texts[0], judged_text(call)
    criterion = prompt.split("Criterion: ", 1)[-1].split("\n", 1)[0]
    for word, (evidence, wanted) in EVIDENCE.items():
        if word in criterion:
            present = evidence in text
            return {"reasoning": f"«{evidence}»: {'есть' if present else 'нет'}.",
                    "verdict": present is wanted}  # fmt: skip
    return {"reasoning": "Критерий не распознан.", "verdict": False}


def statement_verdicts(call: ChatCall) -> dict[str, Any]:
    """ContextRecall's verdicts, one per listed statement: each backed by the contexts (1)."""
    block = re.search(r'<data name="statements">\n(.*?)\n</data>', call.texts[0], re.DOTALL)
    lines = (block.group(1) if block else "").splitlines()
    listed = [re.sub(r"^\d+\.\s*", "", line) for line in lines]
    return {"verdicts": [{"statement": statement, "reason": "Есть в контексте.", "verdict": 1}
                         for statement in listed]}  # fmt: skip


def judge(call: ChatCall) -> dict[str, Any]:
    """The scripted GigaChat judge: one answer per step, chosen by the schema asked for."""
    text = judged_text(call)
    if call.asks_for("goal_achieved"):
        return {"goal_achieved": True, "reason": "Возврат 5500 руб. оформлен, срок назван."}
    if call.asks_for("inferred_goal"):
        return {"inferred_goal": "Получить возврат за недоставленный заказ 12345",
                "reason": "Клиент жалуется на недоставку."}  # fmt: skip
    if call.asks_for("verdicts"):
        return statement_verdicts(call)
    if call.asks_for("verdict"):
        return aspect(call)
    if call.asks_for("statements"):
        return {"statements": ["Статус заказа 12345 — утерян.",
                               "Полный возврат составляет 5500 руб."]}  # fmt: skip
    if call.asks_for("questions"):
        return {"questions": [{"question": "Заказ 12345 не доставлен, жду уже 2 недели!",
                               "noncommittal": False}]}  # fmt: skip
    if call.asks_for("topics"):
        return {"topics": ["статус заказа", "возврат средств", "сроки поступления"]}
    if call.asks_for("classifications"):
        return {"classifications": [{"topic": t, "on_topic": True, "matched_reference_topic": t,
                                     "reason": "По теме."}
                                    for t in ("статус заказа", "возврат средств",
                                              "сроки поступления")]}  # fmt: skip
    if call.asks_for("score"):
        if "score5_description" in call.texts[0] or "Уровень" in call.texts[0]:
            level = 5 if "дней" in text else 4
            return {"reasoning": f"Уровень {level}.", "score": level}
        # SimpleCriteria: "рабочих дней" is the top of both scales, a bare "дней" range a 4.
        return {"reasoning": "Сумма и срок названы.", "score": 5 if "рабочих" in text else 4}
    return {}


def live() -> bool:
    """Whether this run talks to GigaChat itself."""
    return os.environ.get("RAGAS_LIVE") == "1" and bool(os.environ.get("GIGACHAT_API_KEY"))


def pytest_configure(config: pytest.Config) -> None:
    """Start the fake GigaChat API unless this is a live run."""
    if live():
        return
    key = gigachat_key("offline-demo", "offline-demo-secret")
    server = FakeGigaChatServer(credentials=key).start()
    server.respond(JUDGE, judge)
    environment = pytest.MonkeyPatch()
    environment.setenv("GIGACHAT_API_KEY", key)
    environment.setenv("SPRING_AI_GIGACHAT_BASE_URL", server.base_url)
    environment.setenv("SPRING_AI_GIGACHAT_AUTH_BEARER_URL", server.auth_url)
    config.add_cleanup(server.stop)
    config.add_cleanup(environment.undo)
