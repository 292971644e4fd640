"""Dataset files: both sample formats, YAML documents and JSONL, ids, errors with line and field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ragas_boot import SampleValidationError
from ragas_boot.datasets import Dataset, load_dataset, parse_dataset
from ragas_boot.errors import DatasetError
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "03_compare_judge_models"


def _yaml(text: str) -> Dataset:
    return parse_dataset(textwrap.dedent(text), format="yaml", source="data.yaml")


def test_the_example_dataset_has_twenty_samples_in_both_formats():
    dataset = load_dataset(EXAMPLE / "dataset.yaml")
    assert dataset.name == "nova-support-agent"
    assert len(dataset) == 20
    assert len(set(dataset.ids)) == 20
    assert dataset.path == str(EXAMPLE / "dataset.yaml")
    paris = dataset.samples[dataset.ids.index("flight-booking-paris")]  # OpenAI chat format
    assert isinstance(paris.user_input_messages[0], HumanMessage)  # the system message is skipped
    assert paris.actual_tool_calls()[1] == ToolCall(
        "book_flight", {"flight": "AF1081", "date": "2025-03-14", "adults": 1}, id="call_book"
    )
    tool_output = paris.user_input_messages[2]
    assert isinstance(tool_output, ToolMessage) and tool_output.name == "search_flights"
    tokyo = dataset.samples[0]  # ragas-boot's own format
    assert isinstance(tokyo.user_input_messages[1], AIMessage)
    assert tokyo.reference_tool_calls == [
        ToolCall("get_weather", {"city": "Tokyo", "units": "metric"})
    ]
    assert all(sample.reference_tool_calls is not None for sample in dataset.samples)
    assert all(sample.reference_topics for sample in dataset.samples)


def test_samples_without_an_id_are_numbered_from_their_position():
    dataset = _yaml(
        """
        - user_input: first
        - {user_input: second, id: 7}
        - user_input: third
        """
    )
    assert dataset.ids == ["sample-001", "7", "sample-003"]
    assert dataset.name is None


def test_yaml_documents_may_be_a_list_a_mapping_with_samples_or_one_sample():
    dataset = _yaml(
        """
        name: mixed
        description: three layouts
        samples:
          - {user_input: a}
        ---
        - {user_input: b}
        - {userInput: c, referenceTopics: [x]}
        ---
        messages:
          - {role: user, content: d}
        reference: done
        """
    )
    assert [s.user_input for s in dataset.samples[:3]] == ["a", "b", "c"]
    assert dataset.samples[2].reference_topics == ["x"]  # camelCase accepted
    assert dataset.samples[3].user_input_messages == [HumanMessage("d")]
    assert dataset.ids == ["sample-001", "sample-002", "sample-003", "sample-004"]
    assert (dataset.name, dataset.description) == ("mixed", "three layouts")


def test_jsonl_holds_one_sample_per_line_and_skips_blank_lines(tmp_path: Path):
    path = tmp_path / "data.jsonl"
    path.write_text(
        '{"id": "a", "messages": [{"role": "user", "content": "hi"}], "reference": "r"}\n'
        "\n"
        '{"userInputMessages": [{"type": "human", "content": "yo"}], "referenceToolCalls": []}\n',
        encoding="utf-8",
    )
    dataset = load_dataset(path)
    assert dataset.ids == ["a", "sample-002"]
    assert dataset.samples[1].reference_tool_calls == []


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        pytest.param(
            """\
            samples:
              - user_input: fine
              - user_input_messages:
                  - {type: human, content: hi}
                reference_tool_calls:
                  - name: get_weather
                    argumnts: {city: Oslo}
            """,
            7,
            "reference_tool_calls[0].argumnts",
            ["data.yaml:7 (samples[1])", "did you mean 'arguments'"],
            id="misspelt-key-in-a-nested-call",
        ),
        pytest.param(
            """\
            - messages:
                - {role: user, content: hi}
                - role: assistant
                  tool_calls:
                    - {id: c1, type: function, function: {name: f, arguments: "{oops"}}
            """,
            5,
            "messages[1].tool_calls[0].function.arguments",
            ["not valid JSON"],
            id="openai-arguments-not-json",
        ),
        pytest.param(
            """\
            - {user_input: a, id: x}
            - {user_input: b, id: x}
            """,
            2,
            "id",
            ["id 'x' is used twice", "first at line 1"],
            id="duplicate-id",
        ),
        pytest.param(
            """\
            - {user_input: a}
            - just a string
            """,
            2,
            "<sample>",
            ["expected a sample"],
            id="item-is-not-a-mapping",
        ),
        pytest.param(
            """\
            samples:
              - user_input: a
                user_input_messages: [{type: robot, content: beep}]
            """,
            3,
            "user_input_messages[0]",
            ["'human', 'ai' or 'tool'"],
            id="unknown-message-type",
        ),
    ],
)
def test_sample_errors_name_the_file_line_and_field(text, line, field, words):
    with pytest.raises(DatasetError) as caught:
        _yaml(text)
    error = caught.value
    assert (error.file, error.line, error.field) == ("data.yaml", line, field)
    assert f"field '{field}'" in str(error)
    for word in words:
        assert word in str(error)
    assert isinstance(error, SampleValidationError)
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("samples:\n  - {user_input: a\n", 3, ["not valid YAML"]),
        ("name: x\nsamplez: []\nsamples: []\n", 2, ["unknown key 'samplez'"]),
        ("samples: {user_input: a}\n", 1, ["'samples' must be a list"]),
        ("42\n", 1, ["expected a list of samples"]),
    ],
)
def test_file_level_yaml_errors_name_the_line(text, line, words):
    with pytest.raises(DatasetError) as caught:
        parse_dataset(text, source="data.yaml")
    assert caught.value.line == line
    assert str(caught.value).startswith(f"data.yaml:{line}")
    for word in words:
        assert word in str(caught.value)


def test_jsonl_errors_name_the_line(tmp_path: Path):
    path = tmp_path / "data.jsonl"
    path.write_text('{"user_input": "ok"}\n{"user_input": \n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"data\.jsonl:2: not valid JSON"):
        load_dataset(path)
    path.write_text('{"user_input": "ok"}\n\n{"reference": 3}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"data\.jsonl:3: field 'reference'"):
        load_dataset(path)


def test_a_missing_file_or_an_unknown_suffix_is_a_dataset_error(tmp_path: Path):
    with pytest.raises(DatasetError, match="dataset file not found"):
        load_dataset(tmp_path / "nope.yaml")
    (tmp_path / "data.txt").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"unknown dataset format '\.txt'"):
        load_dataset(tmp_path / "data.txt")


def test_a_json_file_is_read_like_yaml(tmp_path: Path):
    path = tmp_path / "data.json"
    path.write_text('{"name": "j", "samples": [{"user_input": "x"}]}', encoding="utf-8")
    assert load_dataset(path).ids == ["sample-001"]
