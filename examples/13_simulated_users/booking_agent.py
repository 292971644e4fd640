"""A restaurant booking agent that proposes the booking and waits for a "yes" before booking.

Rules instead of a model, so the example is deterministic on the agent's side: the user's
side is the simulated one. It is called with the whole conversation so far at every turn
(a list of messages) and returns its turn: the tool call, the tool's result and its answer
(a trace), or just its words.
"""

from __future__ import annotations

import json
import re

from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage

PROPOSAL = "I can book a table for two on Friday 2 May 2025 at 19:00. Shall I book it?"
_YES = re.compile(r"\b(yes|yeah|sure|ok|okay|please|confirm|go ahead|book it)\b", re.IGNORECASE)


def book_table(date: str, time: str, party: int) -> dict[str, object]:
    """The booking system (a stand-in): books the table, returns the booking."""
    return {"booking_id": "B-1042", "date": date, "time": time, "party": party}


def run(messages):
    """The agent's turn after ``messages``."""
    proposed = any(isinstance(m, AIMessage) and m.content == PROPOSAL for m in messages)
    booked = any(isinstance(m, ToolMessage) for m in messages)
    last = messages[-1]
    if booked:
        return "Your table is booked. Anything else?"
    if proposed and isinstance(last, HumanMessage) and _YES.search(last.content):
        arguments = {"date": "2025-05-02", "time": "19:00", "party": 2}
        call = ToolCall("book_table", arguments, id="call_book")
        result = book_table(**arguments)
        return [
            AIMessage("", [call]),
            ToolMessage(json.dumps(result), tool_call_id="call_book", name="book_table"),
            AIMessage(
                f"Done: table for two booked on 2 May 2025 at 19:00 ({result['booking_id']})."
            ),
        ]
    return PROPOSAL
