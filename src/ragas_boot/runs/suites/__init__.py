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

__all__: list[str] = []
