"""Shared fixtures: the local OpenAI-compatible server and settings/containers pointing at it."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragas_boot import RagasContainer, RagasSettings, create_container, load_settings
from ragas_boot.testing import FakeOpenAIServer
from ragas_boot.testing.fixtures import openai_server

__all__ = ["openai_server"]

# pytester drives the plugin's tests (tests/plugin); pytest accepts pytest_plugins only in the
# top-level conftest, so it is enabled here rather than in that folder.
pytest_plugins = ["pytester"]

#: A recognisable fake key: tests assert it never shows in logs, reprs, errors or reports.
SECRET_KEY = "sk-test-DO-NOT-LEAK-4f2a9c"

DATA = Path(__file__).parent / "data"

FAST_RETRY = """
spring.ai.retry:
  max-attempts: 3
  backoff: {initial-interval: 10ms, multiplier: 2, max-interval: 40ms}
"""


def judges_yaml(
    base_url: str, providers: dict[str, list[str]], extra: str = "", transport: str = "direct"
) -> str:
    """YAML declaring one openai-compatible provider per entry, all at ``base_url``."""
    lines = [FAST_RETRY, "spring.ai.ragas.providers:", "  openai-compatible:"]
    for name, models in providers.items():
        lines += [
            f"    - name: {name}",
            f"      base-url: {base_url}",
            "      api-key: ${JUDGE_KEY}",
            f"      transport: {transport}",
            "      chat-models:",
        ]
        lines += [f"        - {{ id: {model} }}" for model in models]
    return "\n".join(lines) + "\n" + textwrap.dedent(extra)


#: Real services that must not skip where this lists them (``.ci/run`` sets
#: ``RAGAS_BOOT_REQUIRE=postgres,chromium`` after installing both), so a missing install
#: fails CI instead of passing as a skip.
REQUIRED_SERVICES = frozenset(
    name.strip() for name in os.environ.get("RAGAS_BOOT_REQUIRE", "").split(",") if name.strip()
)


@pytest.fixture(scope="session")
def unavailable() -> Callable[[str, str], None]:
    """Skip with the reason, or fail where ``RAGAS_BOOT_REQUIRE`` names the service."""

    def stop(service: str, reason: str) -> None:
        if service in REQUIRED_SERVICES:
            pytest.fail(f"{service} is required here (RAGAS_BOOT_REQUIRE) but {reason}")
        pytest.skip(reason)

    return stop


@pytest.fixture(scope="session", autouse=True)
def _session_ragas_boot_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``RAGAS_BOOT_HOME`` for session-scoped fixtures (built before any test's own home)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAS_BOOT_HOME", str(tmp_path_factory.mktemp("ragas-boot-session-home")))
        yield


@pytest.fixture(autouse=True)
def ragas_boot_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A fresh ``RAGAS_BOOT_HOME`` per test: the response cache (on by default) and the default
    run history (``history.db``) go there, never into the repository, and no test sees another's
    answers or runs (``pytest -n 2`` safe)."""
    home = tmp_path_factory.mktemp("ragas-boot-home")
    monkeypatch.setenv("RAGAS_BOOT_HOME", str(home))
    return home


@pytest.fixture
def judge_transport() -> str:
    """The transport of OpenAI-compatible judges the test builds (the default here; the
    behaviour suites of chat/, execution/, faults/ and secrets/ run on both)."""
    return "direct"


@pytest.fixture
def make_settings(
    tmp_path: Path, openai_server: FakeOpenAIServer, judge_transport: str
) -> Callable[..., RagasSettings]:
    """Settings for judges served by the test server: ``make_settings(["a", "b"])``."""

    def make(
        models: list[str] | dict[str, list[str]] = ("judge-a", "judge-b", "judge-c", "judge-d"),
        extra: str = "",
    ) -> RagasSettings:
        providers = models if isinstance(models, dict) else {"local": list(models)}
        path = tmp_path / "application.yaml"
        path.write_text(
            judges_yaml(openai_server.base_url, providers, extra, judge_transport),
            encoding="utf-8",
        )
        return load_settings(path, environ={"JUDGE_KEY": SECRET_KEY})

    return make


@pytest.fixture
def make_container(
    make_settings: Callable[..., RagasSettings],
) -> Iterator[Callable[..., RagasContainer]]:
    """Containers on the test server, closed after the test."""
    made: list[RagasContainer] = []

    def make(*args: object, **kwargs: object) -> RagasContainer:
        container = create_container(make_settings(*args, **kwargs))
        made.append(container)
        return container

    yield make
    for container in made:
        container.close()
