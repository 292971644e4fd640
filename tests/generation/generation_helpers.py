"""A scripted generating model on the test server: it writes weather-agent cases, with a
planted share of bad ones, and votes every case right."""

from __future__ import annotations

import itertools
import re
import textwrap
from pathlib import Path
from typing import Any

from ragas_boot.testing import ChatRequest

MODEL = "gen-model"

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_forecast",
            "description": "Get weather forecast for next N days",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7},
                },
                "required": ["city", "days"],
            },
        },
    },
]

CITIES = [
    "Hanoi",
    "Tokyo",
    "Paris",
    "Lima",
    "Oslo",
    "Cairo",
    "Quito",
    "Delhi",
    "Perth",
    "Rome",
    "Accra",
    "Baku",
    "Kyiv",
    "Riga",
    "Sofia",
    "Tunis",
]

TEMPLATES = [
    "Please give me the {wants} for {city}, 3 days.",
    "{city}: {wants}? Three days is enough",
    "hey, need {wants} in {city} (3 days)",
    "Could you check {city} for me - {wants}, for three days ahead?",
    "I fly to {city} tomorrow; what does the {wants} say over 3 days?",
]

#: What a bad candidate looks like, and the rejection reason it must get.
BAD = [
    ({"tool_name": "get_wether", "arguments": {"city": "Hanoi"}}, "unknown_tool"),
    (
        {"tool_name": "get_weather", "arguments": {"city": "Oslo", "units": "kelvin"}},
        "invalid_arguments",
    ),
    ({"tool_name": "get_forecast", "arguments": {"city": "Rome"}}, "missing_required"),
]


def config(folder: Path, server: Any, *, extra: str = "") -> Path:
    """An application.yaml with the test server's one model as judge and generator."""
    file = folder / "application.yaml"
    file.write_text(
        textwrap.dedent(
            f"""
            spring.ai.retry: {{max-attempts: 1}}
            spring.ai.ragas:
              providers:
                openai-compatible:
                  - name: fake
                    base-url: {server.base_url}
                    api-key: test
                    chat-models: [{{id: {MODEL}}}]
              cache: {{loopback: true, dir: '{folder / "cache"}'}}
            """
        )
        + extra,
        encoding="utf-8",
    )
    return file


class ScriptedGenerator:
    """Answers generation requests with a case for the tool the prompt asks for (every
    ``bad_every``-th answer a bad one, in turn from :data:`BAD`), and votes yes."""

    def __init__(self, bad_every: int = 5) -> None:
        self.bad_every = bad_every
        self.generated = 0
        self.bad_sent: list[str] = []
        self._cities = itertools.cycle(CITIES)
        self._bad = itertools.cycle(BAD)

    def __call__(self, request: ChatRequest) -> dict[str, Any]:
        prompt = request.prompt
        if prompt.startswith("You check a test case"):
            return {"reason": "the calls match the message", "correct": True}
        planned = re.search(r"^(?:New values|Values \(each word[^)]*\)): (.*)$", prompt, re.M)
        if planned is not None:  # a planned case: the calls are fixed, write the message
            self.generated += 1
            values = planned.group(1)
            if self.bad_every and self.generated % self.bad_every == 0:
                self.bad_sent.append("message_missing_value")
                return {"user_message": f"Weather number {self.generated}, please?"}
            template = TEMPLATES[self.generated % len(TEMPLATES)]
            message = template.format(wants="forecast", city=values)
            return {"user_message": f"{message} #{self.generated}"}
        task = re.search(r"Write this case:\n(.*?)\n", prompt).group(1)
        self.generated += 1
        if self.bad_every and self.generated % self.bad_every == 0 and "needs no tool" not in task:
            call, reason = next(self._bad)
            self.bad_sent.append(reason)
            return {"user_message": f"Weather number {self.generated}?", "calls": [call]}
        city = next(self._cities)
        if "needs no tool" in task:
            return {
                "user_message": f"What is the climate like in {city} in general?",
                "calls": [],
                "answer_keywords": [city],
            }
        calls = []
        if "multi-turn case" in task:
            tool = re.search(r"get_weather|get_forecast", task).group(0)
            arguments = {"city": city} | ({"days": 3} if tool == "get_forecast" else {})
            return {
                "user_message": "Hi, I need some weather help.",
                "scenario": {
                    "goal": f"Learn the {tool.removeprefix('get_')} for {city}",
                    "knows": {"city": city},
                    "success": f"The agent gave the {tool.removeprefix('get_')} for {city}",
                },
                "calls": [{"tool_name": tool, "arguments": arguments}],
            }
        for tool in re.findall(r"get_weather|get_forecast", task):
            if tool == "get_weather":
                calls.append({"tool_name": tool, "arguments": {"city": city}})
            else:
                calls.append({"tool_name": tool, "arguments": {"city": city, "days": 3}})
        wants = " and ".join(c["tool_name"].replace("get_", "") for c in calls)
        template = TEMPLATES[self.generated % len(TEMPLATES)]
        return {
            "description": f"{wants} for {city}",
            "user_message": template.format(wants=wants, city=city),
            "calls": calls,
            "answer_keywords": [city],
        }
