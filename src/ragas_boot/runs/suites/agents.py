"""Which agent a suite runs: a Python callable, or a chat model of the configuration.

The ``ragas-boot suite run`` command chooses in this order:

1. ``--agent module:function``: that Python callable (:func:`python_agent`);
2. ``--agent-model ID``: that chat model of the configuration, with the built-in runner;
3. the suite's ``agent_model``, when a configuration is found and declares it (so a profile
   such as ``--profile local`` can make a model the agent);
4. the suite's ``agent`` (a Python callable).

The configuration is ``--config``, else ``$RAGAS_CONFIG``, else ``application.yaml`` beside
the suite file, else in the working directory (:func:`suite_config_path`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ragas_boot.chat.judge import JudgeModel, JudgeSpec
from ragas_boot.chat.tool_agent import OpenAIToolAgent
from ragas_boot.config.loader import CONFIG_ENV_VAR, DEFAULT_FILES
from ragas_boot.config.settings import RagasSettings
from ragas_boot.container import create_container
from ragas_boot.errors import JudgeNotFoundError, SuiteError
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.runs.suites.results import SuiteResult
from ragas_boot.runs.suites.runner import Agent, run_suite
from ragas_boot.runs.suites.suite import AgentTestSuite, resolve_reference

__all__ = ["python_agent", "run_model_agent", "suite_config_path"]


def python_agent(reference: str, suite: AgentTestSuite) -> Agent:
    """The callable ``module:function``, looked up in the working directory, then beside the
    suite file, then on ``sys.path``.

    Raises:
        SuiteError: it cannot be imported, or is not callable.
    """
    folders = [Path.cwd(), *([suite.base_dir] if suite.base_dir else [])]
    try:
        agent = resolve_reference(reference, base_dirs=folders)
    except (ImportError, AttributeError, ValueError) as error:
        raise SuiteError(f"--agent {reference}: {error}") from None
    if not callable(agent):
        raise SuiteError(f"--agent {reference}: a {type(agent).__name__} is not callable")
    chosen: Agent = agent
    return chosen


def suite_config_path(explicit: str | None, suite: AgentTestSuite) -> Path | None:
    """The configuration a suite run reads: ``explicit``, ``$RAGAS_CONFIG``, beside the suite
    file, in the working directory; None when there is none."""
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(CONFIG_ENV_VAR, "").strip()
    if from_env:
        return Path(from_env)
    folders = [suite.base_dir] if suite.base_dir else []
    for folder in [*folders, Path.cwd()]:
        for name in DEFAULT_FILES:
            if (folder / name).is_file():
                return folder / name
    return None


def run_model_agent(
    suite: AgentTestSuite,
    model: str,
    settings: RagasSettings,
    *,
    required: bool,
    concurrency: int | None = None,
    cases: Sequence[str] | None = None,
) -> SuiteResult | None:
    """Run the configured chat model ``model`` as the agent, with the built-in runner.

    Its HTTP calls follow the configuration's retry policy and the provider's limits, on the
    judges' I/O loop.

    Returns:
        The result; None when the configuration does not declare ``model`` and it is not
        ``required`` (the suite's Python agent runs instead).

    Raises:
        JudgeNotFoundError: ``model`` is not declared and ``required`` (or the suite has no
            Python agent to fall back on).
    """
    with create_container(settings) as container:
        executor = container.executor()
        try:
            judge = executor.select([model])[0]
        except JudgeNotFoundError:
            if required or suite.agent is None:
                raise
            return None
        portal: LoopPortal = container.portal()
        agent = OpenAIToolAgent.for_suite(
            suite, spec=_agent_spec(judge), retry=executor.retry_policy
        )
        return run_suite(suite, agent, concurrency=concurrency, cases=cases, portal=portal)


def _agent_spec(judge: JudgeModel) -> JudgeSpec:
    """The judge's spec, with the URL of its server.

    A judge of the embedded ``local`` provider calls its model in process; the agent needs
    an endpoint, so the model's HTTP server is started (on 127.0.0.1, a free port) and the
    spec points at it.
    """
    from ragas_boot.chat import LocalJudge

    if isinstance(judge, LocalJudge):
        return judge.served_spec()
    return judge.spec
