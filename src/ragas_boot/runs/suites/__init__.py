"""Tool-evaluation suites as runs: a dataset whose cases carry expectations, an agent that
produces each case's conversation, and a gate on the pass rate.

A suite (YAML or Python) lists cases: a user message, the tool calls expected (with required,
forbidden and validated parameters), keywords the answer must contain, and tool-call and
latency budgets. Any agent callable, or a chat model of ``application.yaml`` through the
built-in :class:`~ragas_boot.chat.tool_agent.OpenAIToolAgent`, is run on every case under the
runs' one concurrency bound (:func:`~ragas_boot.runs._concurrency.bounded_map`); each run is
scored (tool precision and recall with multiset matching, parameter accuracy, keywords,
budgets) and failures are grouped with recommendations. Renderers live in
:mod:`ragas_boot.reporting.suite_report`. :mod:`ragas_boot.suites` is the public face: users
import from there, and the modules here import one another directly, so this package exports
nothing of its own.
"""

# What cli.py imports from here, kept until the cli/ package (issue 25) imports them from
# ragas_boot.suites and the modules here (then this block goes); not public (see __all__).
from ragas_boot.runs.suites.agents import python_agent as python_agent
from ragas_boot.runs.suites.agents import run_model_agent as run_model_agent
from ragas_boot.runs.suites.agents import suite_config_path as suite_config_path
from ragas_boot.runs.suites.results import SuiteResult as SuiteResult
from ragas_boot.runs.suites.runner import run_suite as run_suite
from ragas_boot.runs.suites.suite import AgentTestSuite as AgentTestSuite
from ragas_boot.runs.suites.suite import load_suite as load_suite

__all__: list[str] = []
