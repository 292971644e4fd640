"""One translator of pydantic's ValidationError, the same words in every document we read.

Config files, samples, datasets, suites and metric sections all say "unknown key" with the
closest allowed key, "required but missing", and the value given after "got".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragas_boot import ConfigError, DatasetError, Sample, SampleValidationError, load_settings
from ragas_boot._validation import FieldProblem, did_you_mean, field_problems, model_keys
from ragas_boot.datasets import load_dataset
from ragas_boot.errors import SuiteError
from ragas_boot.suites import validate_suite


class Leaf(BaseModel):
    model_config = ConfigDict(extra="forbid")

    range_min: int = Field(default=0, ge=0)
    label: str = "x"


class Root(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    leaves: list[Leaf] = []
    by_name: dict[str, Leaf] = {}


def problems(data: Any, **options: Any) -> list[FieldProblem]:
    with pytest.raises(ValidationError) as caught:
        Root.model_validate(data)
    defaults: dict[str, Any] = {"allowed_keys": lambda loc: model_keys(Root, loc[:-1])}
    return field_problems(caught.value, **{**defaults, **options})


def test_a_missing_field_is_required_but_missing():
    (problem,) = problems({})

    assert (problem.path, problem.text, problem.kind) == ("name", "required but missing", "missing")


def test_an_unknown_key_gets_the_closest_key_of_its_own_object():
    (problem,) = problems({"name": "n", "leaves": [{"range_mni": 1}]})

    assert problem.path == "leaves[0].range_mni"
    assert problem.text == "unknown key; did you mean 'range_min'?"


def test_an_unknown_key_under_a_dict_entry_is_matched_against_the_entry_model():
    (problem,) = problems({"name": "n", "by_name": {"a b": {"lable": "y"}}})

    assert problem.path == "by_name.a b.lable"
    assert problem.hint == "did you mean 'label'?"


def test_an_unknown_key_with_no_close_match_lists_the_allowed_keys():
    (problem,) = problems({"name": "n", "zzzzzz": 1})

    assert problem.hint == "allowed keys: by_name, leaves, name"


def test_an_unknown_key_where_no_model_is_known_gets_no_hint():
    (problem,) = problems({"name": "n", "zzzzzz": 1}, allowed_keys=lambda loc: None)

    assert problem.text == "unknown key"


def test_a_spelling_rule_is_applied_before_matching():
    (problem,) = problems(
        {"name": "n", "leavs": []},
        allowed_keys=lambda loc: ["leaves", "name"],
        spell=lambda key: key.upper().lower(),
    )

    assert problem.hint == "did you mean 'leaves'?"


def test_a_bad_value_is_echoed_with_its_type_unless_the_caller_hides_it():
    shown, hidden = (
        problems({"name": 5, "leaves": [{"range_min": -1}]}),
        problems({"name": 5}, show=lambda value, loc: None),
    )

    assert [problem.text for problem in shown] == [
        "Input should be a valid string, got int 5",
        "Input should be greater than or equal to 0, got int -1",
    ]
    assert [problem.path for problem in shown] == ["name", "leaves[0].range_min"]
    assert hidden[0].text == "Input should be a valid string"


def test_a_dict_key_at_fault_is_marked_as_the_key():
    class Keys(BaseModel):
        counts: dict[int, int]

    with pytest.raises(ValidationError) as caught:
        Keys.model_validate({"counts": {"x": 1}})

    (problem,) = field_problems(caught.value, allowed_keys=lambda loc: None)
    assert problem.path == "counts.x (key)"


def test_did_you_mean_is_empty_handed_without_choices():
    assert did_you_mean("x", []) is None
    assert did_you_mean("nmae", ["name", "id"]) == "did you mean 'name'?"


# -- every reader speaks the same way --------------------------------------------------------


def test_config_sample_dataset_suite_and_metric_section_share_the_wording(tmp_path: Path):
    config = tmp_path / "application.yaml"
    config.write_text("spring.ai.ragas:\n  provders: {}\n")
    dataset = tmp_path / "data.yaml"
    dataset.write_text("samples:\n  - user_inpt: hi\n")
    suite = {"name": "s", "agent": "a:b", "tools": [{"name": "t"}], "concurency": 2}

    with pytest.raises(ConfigError) as config_error:
        load_settings(config, environ={})
    with pytest.raises(SampleValidationError) as sample_error:
        Sample.model_validate({"user_inpt": "hi"})
    with pytest.raises(DatasetError) as dataset_error:
        load_dataset(dataset)
    with pytest.raises(SuiteError) as suite_error:
        validate_suite(suite)

    assert "spring.ai.ragas.provders: unknown key" in str(config_error.value)
    assert config_error.value.hint == "did you mean 'providers'?"
    assert "'user_inpt': unknown key; did you mean 'user_input'?" in str(sample_error.value)
    assert "unknown key; did you mean 'user_input'?" in str(dataset_error.value)
    assert "'concurency': unknown key; did you mean 'concurrency'?" in str(suite_error.value)
