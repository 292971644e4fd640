"""The plugin is inert until asked: a run without ragas fixtures loads, builds and prints
nothing of ragas-boot (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json
import sys
import threading

from ragas_boot._pytest.state import STATE_KEY

HEAVY = ("langchain_openai", "langchain_core", "openai", "httpx", "aiohttp")


def pytest_sessionfinish(session):
    state = session.config.stash.get(STATE_KEY, None)
    with open("probe.json", "w") as file:
        json.dump(
            {
                "plugin": session.config.pluginmanager.get_plugin("ragas_boot") is not None,
                "heavy": [name for name in HEAVY if name in sys.modules],
                "threads": sorted(thread.name for thread in threading.enumerate()),
                "container": state is not None and state.container is not None,
                "settings_loaded": state is not None and state.settings_loaded,
                "records": 0 if state is None else len(state.recorder.records),
            },
            file,
        )
"""


def test_a_run_without_ragas_fixtures_loads_builds_and_prints_nothing(plain):
    plain.makefile(".yaml", application="spring: [not: valid")  # never read
    plain.makeconftest(PROBE)
    plain.makepyfile(
        """
        import asyncio

        import pytest

        def test_sync():
            assert 1 + 1 == 2

        @pytest.mark.asyncio
        async def test_async():
            await asyncio.sleep(0)

        @pytest.mark.parametrize("n", [1, 2])
        def test_parametrized(n, tmp_path):
            assert n
        """
    )

    result = plain.runpytest_subprocess()

    result.assert_outcomes(passed=4)
    output = result.stdout.str()
    assert "ragas-boot:" not in output
    assert "ragas-boot scores" not in output
    probe = json.loads((plain.path / "probe.json").read_text(encoding="utf-8"))
    assert probe == {
        "plugin": True,
        "heavy": [],
        "threads": probe["threads"],
        "container": False,
        "settings_loaded": False,
        "records": 0,
    }
    assert not [name for name in probe["threads"] if name.startswith("ragas")]


def test_importing_the_plugin_imports_no_llm_client():
    code = (
        "import sys, ragas_boot.pytest_plugin; "
        "print([m for m in ('langchain_openai', 'langchain_core', 'openai', 'httpx') "
        "if m in sys.modules])"
    )

    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )

    assert completed.stdout.strip() == "[]"
