"""Fixtures of the plugin's tests: pytester projects whose judges are the local test server.

``pytester`` itself is enabled in the top-level ``tests/conftest.py`` (pytest refuses
``pytest_plugins`` in a folder's conftest). Inner runs are in-process unless a test needs a
clean interpreter; their judges reach ``openai_server`` over real HTTP.
"""

from __future__ import annotations

import importlib
import textwrap
from collections.abc import Callable

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample, create_container, load_settings
from ragas_boot.testing import FakeOpenAIServer

#: The inner projects' judges.
JUDGES = ("judge-a", "judge-b")

#: The inner runs' ini, without the plugin's options.
BASE_INI = """
[pytest]
asyncio_mode = strict
asyncio_default_fixture_loop_scope = function
filterwarnings = error
"""
#: The inner projects' ini: the base one naming ``application.yaml``.
INI = BASE_INI + "ragas_config = application.yaml\n"


def application_yaml(base_url: str, judges: tuple[str, ...] = JUDGES) -> str:
    """A config with one provider at ``base_url`` and fast retries."""
    models = "\n".join(f"        - {{ id: {judge} }}" for judge in judges)
    return (
        textwrap.dedent(
            """\
        spring.ai.retry:
          max-attempts: 2
          backoff: {{initial-interval: 10ms, multiplier: 2, max-interval: 20ms}}
        spring.ai.ragas.providers:
          openai-compatible:
            - name: local
              base-url: {base_url}
              api-key: sk-plugin-test-key
              chat-models:
        """
        ).format(base_url=base_url)
        + models
        + "\n"
    )


@pytest.fixture(scope="session", autouse=True)
def _modules_of_inner_runs(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Import once, up front, what inner runs import: a judge's HTTP stack, hypothesis (its
    plugin imports it late) and the plugin's Allure module.

    An in-process pytester run drops every module first imported during the run, so each run
    would import langchain again (~2 s) and rebuild classes other modules still hold.
    """
    for name in ("hypothesis", "ragas_boot._pytest.allure"):
        importlib.import_module(name)
    path = tmp_path_factory.mktemp("warm-up") / "application.yaml"
    with FakeOpenAIServer() as server:
        path.write_text(application_yaml(server.base_url, ("judge",)), encoding="utf-8")
        server.respond(None, {"goal_achieved": True, "reason": "warm-up"})
        with create_container(load_settings(path)) as container:
            sample = Sample(
                user_input_messages=[HumanMessage("Hi"), AIMessage("Hello.")], reference="Greet"
            )
            container.agent_goal_accuracy().evaluate(sample)


@pytest.fixture
def plain(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester folder with an ini that sets no plugin option."""
    pytester.makefile(".ini", pytest=BASE_INI)
    return pytester


@pytest.fixture
def judges_config(openai_server: FakeOpenAIServer) -> Callable[..., str]:
    """``judges_config(("judge-c",))``: the YAML of judges served by the test server."""

    def text(judges: tuple[str, ...] = JUDGES) -> str:
        return application_yaml(openai_server.base_url, judges)

    return text


@pytest.fixture
def write_ini(plain: pytest.Pytester) -> Callable[[str], None]:
    """``write_ini("ragas_config = x.yaml")``: the inner ini with these lines added."""

    def write(lines: str) -> None:
        plain.makefile(".ini", pytest=BASE_INI + textwrap.dedent(lines))

    return write


@pytest.fixture
def project(pytester: pytest.Pytester, openai_server: FakeOpenAIServer) -> pytest.Pytester:
    """A pytester folder with ``application.yaml`` (judges on the test server) and an ini
    naming it; tests write their test modules into it."""
    pytester.makefile(".yaml", application=application_yaml(openai_server.base_url))
    pytester.makefile(".ini", pytest=INI)
    return pytester


@pytest.fixture
def goal_verdicts(openai_server: FakeOpenAIServer) -> Callable[..., None]:
    """Script each judge's AgentGoalAccuracy verdict: ``goal_verdicts(a=True, b=False)``."""

    def script(**achieved: bool) -> None:
        for judge in JUDGES:
            verdict = achieved.get(judge.removeprefix("judge-"), True)
            openai_server.respond(
                judge,
                {
                    "goal_achieved": verdict,
                    "reason": f"{judge} says {'done' if verdict else 'not done'}",
                },
            )

    return script


#: Put before inner test modules: a sample AgentGoalAccuracy can score (WITH_REFERENCE).
PRELUDE = """\
from ragas_boot import AIMessage, HumanMessage, Sample

SAMPLE = Sample(
    user_input_messages=[HumanMessage("Book a flight to Paris"), AIMessage("Booked: AF123.")],
    reference="The flight is booked",
)
"""


@pytest.fixture
def write_tests(project: pytest.Pytester) -> Callable[[str, str], None]:
    """``write_tests("test_x", source)``: an inner test module, ``SAMPLE`` defined first."""

    def write(name: str, source: str) -> None:
        project.makepyfile(**{name: PRELUDE + textwrap.dedent(source)})

    return write
