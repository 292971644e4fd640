"""The per-call cache of the tool matching: same answers on repeat, per comparison mode, and
no entry outliving its call."""

from __future__ import annotations

import gc

from ragas_boot.metrics.agent import tool_matching
from ragas_boot.metrics.agent.tool_matching import match_tool_calls
from ragas_boot.samples import ToolCall


def test_repeated_matching_of_the_same_calls_gives_the_same_matching() -> None:
    actual = [ToolCall("search", {"q": "paris", "opts": {"fast": True}}), ToolCall("book", {})]
    reference = [ToolCall("book", {}), ToolCall("search", {"q": "paris", "opts": {"fast": 1}})]
    first = match_tool_calls(actual, reference)
    second = match_tool_calls(actual, reference)
    assert first.as_dict() == second.as_dict()
    assert first.true_positives == 1  # True ≠ 1 in EXACT, from the cache as when built


def test_the_cache_keeps_each_comparison_mode_apart() -> None:
    actual = [ToolCall("lookup", {"id": "42 "})]
    reference = [ToolCall("lookup", {"id": 42})]
    assert match_tool_calls(actual, reference, comparison="EXACT").f1 == 0.0
    assert match_tool_calls(actual, reference, comparison="NORMALIZE").f1 == 1.0
    assert match_tool_calls(actual, reference, comparison="EXACT").f1 == 0.0


def test_a_dead_call_leaves_no_cache_entry() -> None:
    calls = [ToolCall("t", {"n": index}) for index in range(50)]
    match_tool_calls(calls, list(reversed(calls)))
    ids = {id(call) for call in calls}
    assert any(key[0] in ids for key in tool_matching._CACHE)
    del calls
    gc.collect()
    assert not any(key[0] in ids for key in tool_matching._CACHE)
