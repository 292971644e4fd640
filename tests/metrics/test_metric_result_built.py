"""A judge-less metric's result builds its metadata and explanation when they are first read
(``MetricResult.built``): every way of reading a result (attribute, dump, JSON, a parent's
dump, equality, repr, pickle, copy) sees them, and they are built once."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from pydantic import BaseModel

from ragas_boot import Sample, ToolCall
from ragas_boot.metrics import MetricResult, RougeScoreMetric, ToolCallAccuracyMetric


def _values(**changes: Any) -> dict[str, Any]:
    """Every field but metadata and explanation, typed as a metric's evaluation gives them."""
    result = MetricResult(metric="M", score=0.5, sample_id="s-1")
    values = {name: getattr(result, name) for name in MetricResult.model_fields}
    del values["metadata"], values["explanation"]
    return {**values, **changes}


class _Counted:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> tuple[dict[str, Any], str]:
        self.calls += 1
        return {"matched": [1, 2], "note": "ü"}, "built on demand"


def _sample() -> Sample:
    return Sample(
        tool_calls=[ToolCall("weather", {"city": "Oslo"}), ToolCall("book", {"seat": "1A"})],
        reference_tool_calls=[ToolCall("weather", {"city": "Oslo"}), ToolCall("book", {})],
    )


def test_details_are_built_once_and_only_when_read() -> None:
    details = _Counted()
    result = MetricResult.built(details, _values())

    assert result.score == 0.5 and result.metric == "M"
    assert details.calls == 0

    assert result.metadata == {"matched": [1, 2], "note": "ü"}
    assert result.explanation == "built on demand"
    assert details.calls == 1


@pytest.mark.parametrize(
    "read",
    [
        lambda r: r.model_dump()["metadata"],
        lambda r: r.model_dump(mode="json")["metadata"],
        lambda r: MetricResult.model_validate_json(r.model_dump_json()).metadata,
        lambda r: pickle.loads(pickle.dumps(r)).metadata,
        lambda r: dict(r)["metadata"],
        lambda r: r.model_copy().metadata,
    ],
    ids=["dump", "json-dump", "json", "pickle", "iter", "copy"],
)
def test_every_way_of_reading_sees_the_details(read: Any) -> None:
    result = MetricResult.built(_Counted(), _values())

    assert read(result) == {"matched": [1, 2], "note": "ü"}


def test_a_parent_model_dumps_a_pending_result_whole() -> None:
    class Holder(BaseModel):
        result: MetricResult

    holder = Holder(result=MetricResult.built(_Counted(), _values()))

    dumped = holder.model_dump(mode="json")["result"]
    assert dumped["metadata"] == {"matched": [1, 2], "note": "ü"}
    assert dumped["explanation"] == "built on demand"


def test_a_pending_result_equals_the_validated_one_and_shows_its_details() -> None:
    pending = MetricResult.built(_Counted(), _values())
    validated = MetricResult(
        **_values(), metadata={"matched": [1, 2], "note": "ü"}, explanation="built on demand"
    )

    assert pending == validated
    assert validated == MetricResult.built(_Counted(), _values())
    assert "built on demand" in repr(MetricResult.built(_Counted(), _values()))
    assert pending != MetricResult.built(_Counted(), _values(score=0.25))


def test_a_copy_with_an_update_keeps_what_it_was_given() -> None:
    pending = MetricResult.built(_Counted(), _values())

    copy = pending.model_copy(update={"explanation": "replaced"})

    assert copy.explanation == "replaced"
    assert copy.metadata == {"matched": [1, 2], "note": "ü"}
    assert pending.explanation == "built on demand"


def test_built_names_a_missing_or_unknown_field() -> None:
    values = _values()
    del values["sample_id"]

    with pytest.raises(TypeError, match=r"missing \['sample_id'\], unknown \[\]"):
        MetricResult.built(_Counted(), values)
    with pytest.raises(TypeError, match=r"missing \[\], unknown \['surprise'\]"):
        MetricResult.built(_Counted(), {**_values(), "surprise": 1})
    with pytest.raises(TypeError, match=r"unknown \['metadata'\]"):
        MetricResult.built(_Counted(), {**_values(), "metadata": {}})


def test_the_json_schema_still_describes_the_lazy_fields() -> None:
    schema = MetricResult.model_json_schema(mode="serialization")

    assert schema["properties"]["metadata"]["type"] == "object"
    assert schema["properties"]["explanation"]["type"] == "string"
    assert "metric" in schema["required"]


@pytest.mark.parametrize("metric", [ToolCallAccuracyMetric(), RougeScoreMetric()])
def test_judge_less_results_round_trip_through_json(metric: Any) -> None:
    sample = _sample().model_copy(
        update={"response": "It is sunny in Oslo.", "reference": "Oslo is sunny."}
    )

    result = metric.evaluate(sample)
    again = MetricResult.model_validate_json(metric.evaluate(sample).model_dump_json())

    # Durations differ between two evaluations; everything else is the same.
    assert again.model_copy(update={"duration_s": 0.0, "steps": []}) == result.model_copy(
        update={"duration_s": 0.0, "steps": []}
    )
    assert result.metadata and result.explanation


def test_tool_call_accuracy_details_describe_the_matching() -> None:
    result = ToolCallAccuracyMetric().evaluate(_sample())

    assert result.score == pytest.approx(0.5)
    assert result.metadata["true_positives"] == 1
    assert result.metadata["incorrect"][0]["different_keys"] == []
    assert result.metadata["incorrect"][0]["extra_keys"] == ["seat"]
    assert result.explanation.startswith("Accuracy 50.0% | Correct 1/2 | Incorrect 1")
