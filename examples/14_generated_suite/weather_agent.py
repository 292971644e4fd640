"""Example 04's weather agent and tools, reused: the generated suite keeps example 04's
references (``agent: weather_agent:run``, ``function: weather_agent:get_weather``), which
resolve beside the generated file, here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_FILE = Path(__file__).resolve().parents[1] / "04_tool_suite" / "weather_agent.py"
_SPEC = importlib.util.spec_from_file_location("example_04_weather_agent", _FILE)
assert _SPEC is not None and _SPEC.loader is not None
_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MODULE)

run = _MODULE.run
get_weather = _MODULE.get_weather
get_forecast = _MODULE.get_forecast
