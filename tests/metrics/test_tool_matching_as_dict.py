"""``ToolCallMatching.as_dict`` dumps calls exactly as pydantic's JSON mode would (it copies
them by hand, being on ToolCallAccuracy's hot path)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ragas_boot.metrics import ToolCallMode, match_tool_calls
from ragas_boot.samples import ToolCall

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=10,
)
calls = st.lists(
    st.builds(
        ToolCall,
        st.sampled_from(["search", "book"]),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), json_values, max_size=3),
        id=st.none() | st.text(min_size=1, max_size=3),
    ),
    max_size=4,
)


@settings(max_examples=150, deadline=None)
@given(actual=calls, reference=calls, mode=st.sampled_from(ToolCallMode))
def test_calls_in_as_dict_are_their_json_dump(
    actual: list[ToolCall], reference: list[ToolCall], mode: ToolCallMode
) -> None:
    data = match_tool_calls(actual, reference, mode=mode).as_dict()
    dumped: list[tuple[dict[str, Any], ToolCall]] = []
    for item in data["correct"] + data["incorrect"]:
        dumped += [
            (item["actual"], actual[item["actual_index"]]),
            (item["reference"], reference[item["reference_index"]]),
        ]
    dumped += [(item["call"], reference[item["position"]]) for item in data["missed"]]
    dumped += [(item["call"], actual[item["position"]]) for item in data["extra"]]
    assert len(dumped) == 2 * (len(data["correct"]) + len(data["incorrect"])) + len(
        data["missed"]
    ) + len(data["extra"])
    for copy, call in dumped:
        assert copy == call.model_dump(mode="json")
        if call.arguments:
            assert copy["arguments"] is not call.arguments  # a copy, not the call's own dict
