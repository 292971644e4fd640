"""A Python agent that passes every case of weather_suite.yaml (for pytest_cases tests)."""

from __future__ import annotations

from ragas_boot.samples import Message, ToolCall

ANSWERS = {
    "Hanoi right now": (
        "The weather in Hanoi is 31°C and cloudy.",
        [ToolCall("get_weather", {"city": "Hanoi", "units": "celsius"})],
    ),
    "5-day forecast": (
        "Sunny, then rain.",
        [ToolCall("get_forecast", {"city": "Ho Chi Minh City", "days": 5})],
    ),
    "weather and climate": ("Weather is daily; climate is the long-run average.", []),
    "Da Nang": ("Light rain in Da Nang.", [ToolCall("get_weather", {"city": "Da Nang"})]),
    "Tokyo": ("18°C in Tokyo.", [ToolCall("get_weather", {"city": "Tokyo"})]),
}


def run(messages: list[Message]) -> tuple[str, list[ToolCall]]:
    """Answer from the table above."""
    text = messages[-1].content
    for key, answer in ANSWERS.items():
        if key in text:
            return answer
    return "I don't know.", []
