"""Tool-evaluation suites as runs: datasets whose cases carry expectations, an agent that
produces each case's conversation, and the one run engine that scores them.

A suite (YAML or Python) lists cases: a user message, the tool calls expected (with required,
forbidden and validated parameters), keywords the answer must contain, and tool-call and
latency budgets. Each case compiles to a :class:`~ragas_boot.samples.Sample` in the samples'
expectation vocabulary (:mod:`.expectations`); any agent callable, or a chat model of
``application.yaml`` through the built-in :class:`~ragas_boot.chat.openai.agent.OpenAIToolAgent`,
is run on every case under the runs' one concurrency bound (:mod:`.runner`), and the samples
are scored by :func:`~ragas_boot.runs.engine.aevaluate_dataset` with ``tool_call_accuracy``
and ``case_expectations`` (:mod:`.scoring`): a :class:`~ragas_boot.runs.RunResult`, rendered by
the run renderers, its failures analysed by :mod:`ragas_boot.runs.analysis`.
:mod:`ragas_boot.suites` is the public face: users import from there, and the modules here
import one another directly, so this package exports nothing of its own.
"""

__all__: list[str] = []
