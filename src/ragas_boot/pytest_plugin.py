"""pytest plugin of ragas-boot (entry point ``pytest11``); inert until a ragas fixture is used.

Installing ragas-boot loads this plugin into every pytest run of the environment. Until a test
asks for a ragas fixture it loads no YAML (unless ``--ragas-config``/``ragas_config`` is set,
for the header), builds no container, imports no LLM client and prints nothing.

Options (command line, or ini file; command-line paths are relative to where pytest was
started, ini paths to the ini file)::

    --ragas-config PATH     ragas_config = PATH      application.yaml of the fixtures
    --ragas-profile NAME    ragas_profile = NAMES    Spring profiles (repeat; one per ini line)
    --ragas-report PATH     ragas_report = PATH      JSON report of the scored tests

Without a config option, ``load_settings``' defaults apply (``RAGAS_CONFIG``, then
``./application.yaml``); without a profile, ``SPRING_PROFILES_ACTIVE``, then the file's own.

Fixtures:

- ``ragas_settings`` (session): the loaded :class:`~ragas_boot.RagasSettings`.
- ``ragas_container`` (session): the :class:`~ragas_boot.RagasContainer`, closed at the end of
  the session. Its I/O runs on its own loop, so sync tests and async tests on any event loop
  (pytest-asyncio, any ``loop_scope``) share it safely.
- one fixture per registered metric, named by its bean name (``tool_call_accuracy``,
  ``agent_goal_accuracy``, ``topic_adherence``, ..., and the metrics of installed packages):
  the metric beans.
- ``ragas_metric``: ``ragas_metric("topic-adherence")`` gives a bean by bean name, Java class
  name (``TopicAdherenceMetric``) or kebab-case name; any other provider of the container
  (a plugin's metric) by its name; ``ragas_metric("aspect_critic:no-profanity")`` a named
  criterion declared in the YAML.
- one fixture per named criterion of the configured YAML (``spring.ai.ragas.metrics.
  aspect-critic.criteria.no-profanity`` → ``aspect_critic__no_profanity``), when the config is
  named with ``--ragas-config``/``ragas_config``.
- ``ragas_inject`` (module): wires the container to the test's module (see below).
- ``ragas_openai_server`` (session): a started :class:`~ragas_boot.testing.FakeOpenAIServer`,
  an OpenAI-compatible server with scripted answers to point a config's ``base-url`` at.

Spring-style injection, as ``@Autowired`` in the Java tests::

    from dependency_injector.wiring import Provide, inject

    class TestGoal:
        @inject
        def test_booked(self, metric: AgentGoalAccuracyMetric = Provide["agent_goal_accuracy"]):
            assert_score(metric.evaluate(sample), at_least=0.9)

A test (function or method, sync or async) decorated with ``@inject`` whose ``Provide[...]``
or ``Provider[...]`` defaults name a ragas-boot metric bean gets ``ragas_inject`` at collection:
its module is wired to the session container before its first test and unwired after its
last. Other ids of the container (``judges``, ``settings``, ``executor``, beans of plugins)
resolve too once the module is wired; to inject only those, request the fixture with
``@pytest.mark.usefixtures("ragas_inject")``. Markers go in defaults, not in ``Annotated``
(pytest would take the parameter for a fixture). A marker naming no bean fails the test.

Scores: every evaluation by a bean handed out by the plugin is recorded with the running
test; ``assert_score(result, at_least=..., at_most=...)`` (also importable from
:mod:`ragas_boot.testing`) checks a score and adds the check. At the end of the session a
table shows one row per scored test x metric (score, check, each judge's score) and
``--ragas-report`` writes it as JSON. With allure-pytest reporting (``--alluredir``), each
evaluation attaches an HTML page (score, judges' scores and reasons, exclusions, a timeline,
prompts and answers) to the Allure step it ran in.

Live providers: ``@pytest.mark.ragas_live(env="OPENROUTER_API_KEY")`` skips the test unless
``RAGAS_LIVE=1`` and every named variable are set, and says which is missing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from contextlib import ExitStack
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from ragas_boot._pytest.injection import add_inject_fixture, unwire_module, wire_module
from ragas_boot._pytest.live import LIVE_MARKER, LIVE_MARKER_HELP, live_skip_reason
from ragas_boot._pytest.options import add_options
from ragas_boot._pytest.recording import recording
from ragas_boot._pytest.report import write_report
from ragas_boot._pytest.state import RagasPluginState, plugin_state
from ragas_boot._pytest.terminal import cache_line, header_lines, report_line
from ragas_boot._pytest.workers import is_worker, receive, send, used_config
from ragas_boot.testing.assertions import assert_score

if TYPE_CHECKING:
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.container import RagasContainer
    from ragas_boot.metrics.base import Metric
    from ragas_boot.testing import FakeOpenAIServer

__all__ = [
    "assert_score",
    "ragas_container",
    "ragas_inject",
    "ragas_metric",
    "ragas_openai_server",
    "ragas_settings",
]

#: Name under which the fixtures of the registered metrics are registered as a plugin.
METRIC_FIXTURES_PLUGIN = "ragas_boot.metric_fixtures"


def _metric_bean_names() -> list[str]:
    from ragas_boot.metrics.registry import METRICS

    return list(METRICS)


def _metric_fixture(bean: str, metric: type[Metric[Any]]) -> Any:
    def fixture(request: pytest.FixtureRequest, ragas_container: RagasContainer) -> Any:
        return _bean(request, ragas_container, bean)

    fixture.__name__ = bean
    fixture.__qualname__ = bean
    fixture.__doc__ = f"The ``{metric.name}`` bean: {metric.description}."
    return pytest.fixture(name=bean)(fixture)


def _criterion_fixture(bean: str, metric: type[Metric[Any]], criterion: str) -> Any:
    def fixture(request: pytest.FixtureRequest, ragas_container: RagasContainer) -> Any:
        return _state(request).adopt(ragas_container.metric(metric, criterion))

    fixture.__name__ = bean
    fixture.__qualname__ = bean
    fixture.__doc__ = f"The ``{metric.name}`` bean of the named criterion '{criterion}'."
    return pytest.fixture(name=bean)(fixture)


def _metric_fixtures(config: pytest.Config) -> ModuleType:
    """One fixture per registered metric (built-in, entry point, ``register_metric``), and
    one per named criterion of the configured YAML (``aspect_critic__no_profanity``).

    Criteria are read only when a config is named (``--ragas-config``/``ragas_config``, which
    the header loads anyway), so an unconfigured run stays inert.
    """
    from ragas_boot.errors import RagasBootError
    from ragas_boot.metrics.registry import METRICS, criterion_beans

    holder = ModuleType(METRIC_FIXTURES_PLUGIN, "Fixtures of the registered metric beans.")
    try:
        metrics = dict(METRICS.items())
    except RagasBootError as error:
        raise pytest.UsageError(f"ragas-boot: {error}") from None
    for bean, metric in metrics.items():
        setattr(holder, bean, _metric_fixture(bean, metric))
    state = plugin_state(config)
    if state.options.configured:
        try:
            named = criterion_beans(state.settings())
        except Exception:  # the header and the ragas_settings fixture report it
            named = {}
        for bean, (metric, criterion) in named.items():
            setattr(holder, bean, _criterion_fixture(bean, metric, criterion))
    return holder


# --------------------------------------------------------------------------- hooks


def pytest_addoption(parser: pytest.Parser) -> None:
    """Declare the plugin's options."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Declare the marker and make this run's score recorder the active one."""
    config.addinivalue_line("markers", LIVE_MARKER_HELP)
    if not config.pluginmanager.has_plugin(METRIC_FIXTURES_PLUGIN):
        config.pluginmanager.register(_metric_fixtures(config), METRIC_FIXTURES_PLUGIN)
    state = plugin_state(config)
    stack = ExitStack()
    stack.enter_context(recording(state.recorder))
    config.add_cleanup(stack.close)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Config file, profiles and judges, when a ragas config or profile is set."""
    return header_lines(plugin_state(config))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Mark ``ragas_live`` tests to skip unless asked for, and give tests injected with
    ``Provide["<metric bean>"]`` the ``ragas_inject`` fixture."""
    for item in items:
        marker = item.get_closest_marker(LIVE_MARKER)
        if marker is None:
            continue
        try:
            reason = live_skip_reason(marker, os.environ)
        except TypeError:
            continue  # reported when the test is set up
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
    add_inject_fixture(items, _metric_bean_names)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, None, None]:
    """Tie evaluations made while ``item`` runs (setup, call, teardown) to it."""
    state = plugin_state(item.config)
    state.enter_test(item.nodeid)
    try:
        yield
    finally:
        state.leave_test()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a ``ragas_live`` test whose marker is malformed (``envs=`` for ``env=``)."""
    marker = item.get_closest_marker(LIVE_MARKER)
    if marker is None:
        return
    problem = None
    try:
        live_skip_reason(marker, {})
    except TypeError as error:
        problem = str(error)
    if problem is not None:
        pytest.fail(problem, pytrace=False)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> None:
    """Attach Allure pages still waiting, while the test's Allure result is open."""
    attacher = plugin_state(item.config).allure
    if attacher is not None:
        attacher.flush()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write ``--ragas-report`` (also when nothing was scored: the file says so) with the
    config files and profiles used; a pytest-xdist worker sends its records instead."""
    state = plugin_state(session.config)
    if is_worker(session.config):
        send(session.config, state)
        return
    path = state.options.report_path
    if path is None:
        return
    files, profiles = used_config(state)
    write_report(
        path,
        state.recorder.records,
        config_files=files,
        profiles=profiles,
        secrets=state.secrets(),
    )


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """pytest-xdist, on the controller: a worker finished; keep its records."""
    receive(plugin_state(node.config), node)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The score table: one row per scored test x metric; nothing when nothing was scored."""
    state = plugin_state(config)
    records = state.recorder.records
    if records:
        from ragas_boot.reporting.pytest_table import summary_lines  # rich and co. only now
        from ragas_boot.runs.pytest_session import PytestReport

        terminalreporter.write_sep("=", "ragas-boot scores")
        for line in summary_lines(PytestReport.of(records).rows):
            terminalreporter.write_line(line)
    cache = cache_line(state.recorder.records)
    if cache is not None:
        terminalreporter.write_line(cache)
    if state.options.report_path is not None:
        terminalreporter.write_line(report_line(state.options.report_path))


# --------------------------------------------------------------------------- fixtures


def _state(request: pytest.FixtureRequest) -> RagasPluginState:
    return plugin_state(request.config)


def _bean_name(container: Any, name: str) -> str:
    """The container's provider name for ``name``: a bean name, a Java class name or a
    kebab-case name.

    Raises:
        LookupError: no bean answers to ``name`` (the message lists the beans).
    """
    from ragas_boot.metrics.registry import METRICS, metric_class

    providers = container.providers
    if ":" in name:
        return name  # a named criterion; RagasContainer.metric checks it is declared
    wanted = name.strip().replace("-", "_")
    if wanted in providers:
        return wanted
    try:
        cls = metric_class(name)
    except KeyError:
        cls = None
    for bean, metric_cls in METRICS.items():
        if metric_cls is cls and bean in providers:
            return bean
    raise LookupError(
        f"ragas_metric: no bean named '{name}'; the container has: {', '.join(sorted(providers))}"
    )


@pytest.fixture(scope="session")
def ragas_settings(request: pytest.FixtureRequest) -> RagasSettings:
    """The settings from ``--ragas-config``/``ragas_config`` and the profiles (loaded once)."""
    from ragas_boot.errors import ConfigError

    try:
        return _state(request).settings()
    except ConfigError as error:
        problem = str(error)
    pytest.fail(  # outside the except block: the message alone says it all
        f"ragas-boot could not load its settings: {problem}\n"
        "Name the file with --ragas-config PATH or `ragas_config = PATH` in the ini file.",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def ragas_container(
    request: pytest.FixtureRequest, ragas_settings: RagasSettings
) -> Iterator[RagasContainer]:
    """The application container of the session; its beans report to the score table."""
    from ragas_boot._pytest.allure import start_allure
    from ragas_boot.container import create_container
    from ragas_boot.errors import RagasBootError
    from ragas_boot.metrics.registry import criterion_beans

    state = _state(request)
    container = create_container(ragas_settings)
    try:
        state.allure = start_allure(state, ragas_settings)
        state.container = container
        for name in _metric_bean_names():
            # Built now so beans reached any way (Provide, container.x()) report their scores;
            # one that cannot be built (metrics switched off) fails the tests that ask for it.
            try:
                state.adopt(getattr(container, name)())
            except RagasBootError:
                continue
        for name in criterion_beans(ragas_settings):
            state.adopt(getattr(container, name)())  # named criteria report their scores too
        yield container
    finally:
        state.container = None
        container.close()


def _bean(request: pytest.FixtureRequest, container: Any, name: str) -> Any:
    if ":" in name:  # a named criterion: "aspect_critic:no-profanity"
        return _state(request).adopt(container.metric(name))
    return _state(request).adopt(getattr(container, name)())


@pytest.fixture
def ragas_metric(
    request: pytest.FixtureRequest, ragas_container: RagasContainer
) -> Callable[[str], Any]:
    """``ragas_metric(name)``: a bean by bean name, Java class name or kebab-case name."""

    def get(name: str) -> Any:
        return _bean(request, ragas_container, _bean_name(ragas_container, name))

    return get


@pytest.fixture(scope="module")
def ragas_inject(
    request: pytest.FixtureRequest, ragas_container: RagasContainer
) -> Iterator[RagasContainer]:
    """Wire the container to the test's module for ``@inject`` + ``Provide[...]`` tests."""
    module = request.module
    wire_module(ragas_container, module)
    try:
        yield ragas_container
    finally:
        unwire_module(module)


@pytest.fixture(scope="session")
def ragas_openai_server() -> Iterator[FakeOpenAIServer]:
    """A local OpenAI-compatible server with scripted answers, for the whole session.

    Point a config's ``base-url`` at ``ragas_openai_server.base_url``; script answers with
    ``script``/``when``/``respond`` and forget them with ``reset()`` between tests.
    """
    from ragas_boot.testing import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        yield server
