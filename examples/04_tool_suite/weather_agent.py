"""A small deterministic weather agent for example 04: keyword rules instead of a model.

``run`` is the agent the suite names (``agent: weather_agent:run``): it reads the
conversation, decides which tools to call, runs them on canned data and answers. It returns
the turns it added in OpenAI chat format (assistant tool calls, tool results, the answer),
as many agents log them; ragas-boot reads that trace with its importers.

It has one deliberate mistake, so that the report shows a failure: any message with the word
"weather" makes it look the weather up, even "What's the difference between weather and
climate?", where no tool is needed (and no city is named, so it falls back to Hanoi).

Two habits exercise the suite's richer expectations: an umbrella question gets a 1-day
forecast (the suite accepts current weather too), and a city written as an abbreviation
("HCMC") is first passed as written; ``get_weather`` rejects it, the failure goes into the
trace as a tool message with ``"status": "error"``, and the agent retries with the full name.

``get_weather`` and ``get_forecast`` are also the tool functions the suite declares, so the
built-in model runner (``--profile local`` or ``--agent-model``) executes the same tools.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ragas_boot.samples import HumanMessage, Message

HOME_CITY = "Hanoi"
CITIES = {
    "hanoi": "Hanoi",
    "ho chi minh city": "Ho Chi Minh City",
    "saigon": "Ho Chi Minh City",
    "da nang": "Da Nang",
    "tokyo": "Tokyo",
    "paris": "Paris",
}
CURRENT = {
    "Hanoi": (31, "humid and cloudy"),
    "Ho Chi Minh City": (33, "sunny"),
    "Da Nang": (29, "light rain"),
    "Tokyo": (18, "clear"),
    "Paris": (12, "overcast"),
}
SKIES = ("sunny", "cloudy", "showers", "thunderstorms", "sunny", "cloudy", "light rain")
ABBREVIATIONS = {"HCMC": "Ho Chi Minh City"}


def get_weather(city: str, units: str = "celsius") -> dict[str, Any]:
    """Current weather of a city (canned data); an unknown city is an error."""
    if city not in CURRENT:
        raise ValueError(f"unknown city {city!r}; give its full name")
    celsius, sky = CURRENT[city]
    temperature = round(celsius * 9 / 5 + 32) if units == "fahrenheit" else celsius
    return {"city": city, "temperature": temperature, "units": units, "sky": sky}


def get_forecast(city: str, days: int) -> dict[str, Any]:
    """Forecast of a city for the next ``days`` days (canned data)."""
    base, _ = CURRENT.get(city, (25, "fair"))
    return {
        "city": city,
        "days": [
            {"day": day + 1, "high": base + day % 3, "sky": SKIES[(day + len(city)) % len(SKIES)]}
            for day in range(days)
        ],
    }


TOOLS = {"get_weather": get_weather, "get_forecast": get_forecast}


def _cities(text: str) -> list[str]:
    """Cities named in ``text``, in the order they appear."""
    lowered = text.lower()
    found = [(lowered.find(name), city) for name, city in CITIES.items() if name in lowered]
    # Abbreviations are kept as written: the tool will reject them (see run).
    found += [(m.start(), m.group()) for m in re.finditer(r"\b[A-Z]{3,}\b", text)]
    found = [(at, city) for at, city in found if city in CURRENT or city in ABBREVIATIONS]
    return list(dict.fromkeys(city for _, city in sorted(found)))


def _plan(text: str, earlier: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls the rules choose for the last message."""
    lowered = text.lower()
    cities = _cities(text) or next((_cities(m) for m in reversed(earlier) if _cities(m)), [])
    if "umbrella" in lowered:
        return [("get_forecast", {"city": city, "days": 1}) for city in cities[:1]]
    if any(word in lowered for word in ("forecast", "rain", "next", "week")):
        match = re.search(r"(\d+)[- ]day", lowered)
        days = int(match.group(1)) if match else 7 if "week" in lowered else 3
        return [("get_forecast", {"city": city, "days": days}) for city in cities[:1]]
    if any(word in lowered for word in ("weather", "temperature", "hot", "cold")):
        # The deliberate mistake: "weather" alone triggers a lookup, home city by default.
        units = "fahrenheit" if "fahrenheit" in lowered else "celsius"
        return [("get_weather", {"city": city, "units": units}) for city in cities or [HOME_CITY]]
    return []


def _answer(text: str, results: list[dict[str, Any]]) -> str:
    lowered = text.lower()
    if "climate" in lowered:
        return (
            "Weather is the state of the atmosphere over hours and days; climate is the "
            "average of the weather over decades."
        )
    lines = []
    for result in results:
        if "days" in result:
            days = ", ".join(f"day {d['day']}: {d['high']}°C {d['sky']}" for d in result["days"])
            lines.append(f"{len(result['days'])}-day forecast for {result['city']}: {days}.")
        else:
            unit = "F" if result["units"] == "fahrenheit" else "C"
            lines.append(
                f"The weather in {result['city']} right now: "
                f"{result['temperature']}°{unit}, {result['sky']}."
            )
    return " ".join(lines) or "I can help with current weather and forecasts."


def run(messages: list[Message]) -> list[dict[str, Any]]:
    """Answer the conversation's last user message.

    Returns:
        The turns the agent added, in OpenAI chat format.
    """
    said = [message.content for message in messages if isinstance(message, HumanMessage)]
    text, earlier = said[-1], said[:-1]
    trace: list[dict[str, Any]] = []
    results = []
    plan = _plan(text, earlier)
    made = 0
    while plan:  # one assistant turn per round; a round retries what failed in the last one
        ids = [f"call_{made + index}" for index in range(len(plan))]
        made += len(plan)
        calls = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for call_id, (name, arguments) in zip(ids, plan, strict=True)
        ]
        trace.append({"role": "assistant", "content": None, "tool_calls": calls})
        retries = []
        for call_id, (name, arguments) in zip(ids, plan, strict=True):
            try:
                result = TOOLS[name](**arguments)
            except ValueError as error:
                # The chat format has no error field; agent logs add one, and so does this.
                failure = json.dumps({"error": str(error)})
                trace.append(
                    {"role": "tool", "tool_call_id": call_id, "content": failure, "status": "error"}
                )
                full_name = ABBREVIATIONS.get(arguments.get("city", ""))
                if full_name:
                    retries.append((name, {**arguments, "city": full_name}))
                continue
            results.append(result)
            trace.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)})
        plan = retries
    trace.append({"role": "assistant", "content": _answer(text, results)})
    return trace
