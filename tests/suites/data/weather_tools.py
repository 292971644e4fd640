"""Tool functions of the test suite (resolved beside weather_suite.yaml)."""

from __future__ import annotations

from typing import Any

CALLS: list[dict[str, Any]] = []


def get_weather(city: str, units: str = "celsius") -> dict[str, Any]:
    """Canned current weather; records each call."""
    CALLS.append({"city": city, "units": units})
    return {"city": city, "temperature": 31, "units": units, "sky": "cloudy"}
