"""A booking agent that asks for confirmation before booking, and a user scripted on the test
server (the simulation model's stand-in): shared by the scenario tests."""

from __future__ import annotations

import json
import re
from typing import Any

from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage
from ragas_boot.testing import ChatRequest

USER_MODEL = "user-model"

SUITE: dict[str, Any] = {
    "name": "Booking",
    "tools": [
        {
            "name": "book_table",
            "parameters": {
                "type": "object",
                "properties": {"date": {"type": "string"}, "party": {"type": "integer"}},
            },
        }
    ],
    "cases": [
        {
            "id": "friday_table",
            "scenario": {
                "goal": "Book a table for two on Friday 2 May 2025",
                "persona": "A regular, brief and polite",
                "knows": {"name": "Ada", "party": 2},
                "max-turns": 4,
                "success": "A table for two is booked on 2025-05-02",
            },
            "expected-tool-calls": [
                {"tool-name": "book_table", "required-params": {"date": "2025-05-02", "party": 2}}
            ],
            "expected-output-contains": ["booked"],
        }
    ],
}


def booking_agent(date: str = "2025-05-02"):
    """An agent that proposes the booking, waits for a yes, then books ``date``."""

    def agent(messages):
        last = messages[-1].content.lower()
        proposed = any(
            isinstance(m, AIMessage) and "shall i book it" in m.content.lower() for m in messages
        )
        if proposed and re.search(r"\byes\b", last):
            call = ToolCall("book_table", {"date": date, "party": 2}, id="call_1")
            return [
                AIMessage("", [call]),
                ToolMessage(json.dumps({"booked": True, "date": date}), tool_call_id="call_1"),
                AIMessage(f"Done: your table for two is booked for {date}."),
            ]
        return "I can book a table for two on Friday 2 May. Shall I book it?"

    return agent


def conversation_of(request: ChatRequest) -> str:
    """The conversation block of a simulated user's prompt ('' for the first message)."""
    found = re.search(r'<data name="conversation">\n(.*?)\n</data>', request.prompt, re.S)
    return found.group(1) if found else ""


def scripted_user(request: ChatRequest) -> dict[str, Any]:
    """The simulated user as a script: opens, confirms a proposal, is done once booked."""
    conversation = conversation_of(request)
    if not conversation:
        return {"message": "A table for two on Friday, please."}
    last = conversation.splitlines()[-1]
    if "booked" in last.lower():
        return {"message": "", "done": True, "outcome": "goal_met", "why": "it is booked"}
    if "shall i book it" in last.lower():
        return {"message": "Yes, please.", "done": False, "outcome": None, "why": ""}
    return {"message": "Friday, for two.", "done": False, "outcome": None, "why": ""}


def transcript(sample) -> str:
    """The conversation as JSON text (for byte-for-byte comparison)."""
    return json.dumps(
        [message.model_dump(mode="json") for message in sample.user_input_messages or []],
        sort_keys=True,
    )


__all__ = [
    "SUITE",
    "USER_MODEL",
    "HumanMessage",
    "booking_agent",
    "conversation_of",
    "scripted_user",
    "transcript",
]
