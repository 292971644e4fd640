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
from pathlib import Path
from typing import TYPE_CHECKING

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.chat.openai.agent import OpenAIToolAgent
from ragas_boot.chat.specs import JudgeSpec
from ragas_boot.config.loader import CONFIG_ENV_VAR, DEFAULT_FILES
from ragas_boot.errors import JudgeNotFoundError, SuiteError
from ragas_boot.execution.attempts import ModelTurns
from ragas_boot.runs.suites.runner import Agent
from ragas_boot.runs.suites.suite import AgentTestSuite, resolve_reference

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = ["choose_agent", "model_agent", "python_agent", "suite_config_path"]


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


def model_agent(
    suite: AgentTestSuite, model: str, container: RagasContainer, *, required: bool
) -> OpenAIToolAgent | None:
    """The configured chat model ``model`` as the agent, with the built-in runner.

    Its HTTP calls follow the configuration's retry policy and the provider's limits, and its
    turns are kept in the response cache as judge calls are (a replayed run asks the model
    nothing); run it on the container's I/O loop (``container.portal()``), where the judges
    run.

    Returns:
        The agent; None when the configuration does not declare ``model`` and it is not
        ``required`` (the suite's Python agent runs instead).

    Raises:
        JudgeNotFoundError: ``model`` is not declared and ``required`` (or the suite has no
            Python agent to fall back on).
        SuiteError: a tool function reference cannot be imported.
    """
    executor = container.executor()
    try:
        judge = executor.select([model])[0]
    except JudgeNotFoundError:
        if required or suite.agent is None:
            raise
        return None
    spec = _agent_spec(judge)
    turns = ModelTurns.of(spec, executor.retry_policy)
    return OpenAIToolAgent.for_suite(suite, spec=spec, turns=turns, cache=executor.cache)


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


def choose_agent(
    suite: AgentTestSuite,
    *,
    agent: str | None = None,
    agent_model: str | None = None,
    container: RagasContainer | None = None,
) -> Agent:
    """The agent a run uses, in the order of the module docs: ``agent`` (module:function),
    ``agent_model`` (required to be declared), the suite's ``agent_model`` when the
    container's configuration declares it, the suite's ``agent``.

    Raises:
        SuiteError: both ``agent`` and ``agent_model`` are given, a reference cannot be
            imported, or the suite names no agent at all.
        JudgeNotFoundError: ``agent_model`` is not declared.
    """
    if agent and agent_model:
        raise SuiteError("give --agent or --agent-model, not both")
    if agent:
        return python_agent(agent, suite)
    model = agent_model or suite.agent_model
    if model and container is not None:
        chosen = model_agent(suite, model, container, required=bool(agent_model))
        if chosen is not None:
            return chosen
    return suite.resolve_agent()
