"""pytest-xdist: each worker sends its score records and the configuration it used to the
controller, which prints the summary and writes ``--ragas-report`` for the whole run.

A worker puts its records in ``config.workeroutput`` when its session ends; xdist hands that
to the controller's ``pytest_testnodedown``, where they join the controller's recorder. The
records travel as their JSON data (``PytestEvaluation.model_dump(mode="json")``, validated back
on the controller): xdist's channel carries only builtins. Read back from JSON, a judge
call's parsed answer (``JudgeCall.value``) is JSON data, not its answer's model.
"""

from __future__ import annotations

from typing import Any

import pytest

from ragas_boot._pytest.state import RagasPluginState
from ragas_boot.runs.pytest_session import PytestEvaluation

__all__ = ["OUTPUT_KEY", "is_worker", "receive", "send", "used_config"]

#: Key of the plugin's data in a worker's ``workeroutput``.
OUTPUT_KEY = "ragas_boot"


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker."""
    return hasattr(config, "workerinput")


def used_config(state: RagasPluginState) -> tuple[list[str], list[str]]:
    """The config files and profiles this process read (none when it loaded no settings)."""
    files: list[str] = []
    profiles: list[str] = []
    if state.settings_loaded:
        try:
            source = state.settings().source
            files, profiles = list(source.files), list(source.active_profiles)
        except Exception:  # the header and the fixtures have reported it already
            pass
    for name in state.worker_files:
        if name not in files:
            files.append(name)
    for name in state.worker_profiles:
        if name not in profiles:
            profiles.append(name)
    return files, profiles


def send(config: pytest.Config, state: RagasPluginState) -> None:
    """On a worker: put the records and the config used in ``workeroutput``."""
    files, profiles = used_config(state)
    output: dict[str, Any] = config.workeroutput  # type: ignore[attr-defined]
    output[OUTPUT_KEY] = {
        "records": [record.model_dump(mode="json") for record in state.recorder.records],
        "files": files,
        "profiles": profiles,
    }


def receive(state: RagasPluginState, node: Any) -> None:
    """On the controller: take what a finished worker sent."""
    data = getattr(node, "workeroutput", {}).get(OUTPUT_KEY)
    if not data:
        return
    state.recorder.extend(PytestEvaluation.model_validate(item) for item in data["records"])
    state.worker_files.extend(name for name in data["files"] if name not in state.worker_files)
    state.worker_profiles.extend(
        name for name in data["profiles"] if name not in state.worker_profiles
    )
