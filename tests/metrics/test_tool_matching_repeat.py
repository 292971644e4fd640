"""Matching the same call objects again gives the same matching, per comparison mode (kept
from a per-call cache that was tried and dropped: see benchmarks/README.md)."""

from __future__ import annotations

from ragas_boot.metrics.agent.tool_matching import match_tool_calls
from ragas_boot.samples import ToolCall


def test_repeated_matching_of_the_same_calls_gives_the_same_matching() -> None:
    actual = [ToolCall("search", {"q": "paris", "opts": {"fast": True}}), ToolCall("book", {})]
    reference = [ToolCall("book", {}), ToolCall("search", {"q": "paris", "opts": {"fast": 1}})]
    first = match_tool_calls(actual, reference)
    second = match_tool_calls(actual, reference)
    assert first.as_dict() == second.as_dict()
    assert first.true_positives == 1  # True ≠ 1 in EXACT, on repeat too


def test_the_cache_keeps_each_comparison_mode_apart() -> None:
    actual = [ToolCall("lookup", {"id": "42 "})]
    reference = [ToolCall("lookup", {"id": 42})]
    assert match_tool_calls(actual, reference, comparison="EXACT").f1 == 0.0
    assert match_tool_calls(actual, reference, comparison="NORMALIZE").f1 == 1.0
    assert match_tool_calls(actual, reference, comparison="EXACT").f1 == 0.0
