"""Suites from YAML: what loads, and errors that name the file, the case and the field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from suite_helpers import WEATHER_SUITE

from ragas_boot.errors import SuiteError
from ragas_boot.samples import AIMessage, HumanMessage
from ragas_boot.suites import (
    AgentTestCase,
    AgentTestSuite,
    ArgumentRule,
    JsonType,
    ToolCallExpectation,
    load_suite,
    suite_json_schema,
)

VALID_CASE = """
  - id: ok
    user_message: hello
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _error(tmp_path: Path, text: str) -> SuiteError:
    with pytest.raises(SuiteError) as caught:
        load_suite(_write(tmp_path, text))
    return caught.value


def test_the_weather_suite_loads() -> None:
    suite = load_suite(WEATHER_SUITE)

    assert suite.name == "Weather Agent Tests"
    assert [case.id for case in suite.cases][:3] == [
        "T001_current_weather",
        "T002_5day_forecast",
        "T003_no_tool_needed",
    ]
    rule = suite.cases[0].expected_tool_calls[0].param_validators["units"]
    assert rule == ArgumentRule(one_of=["celsius", "fahrenheit"])
    assert suite.cases[1].expected_tool_calls[0].param_validators["days"] == ArgumentRule(
        type=JsonType.INTEGER, range={"min": 1, "max": 7}
    )
    assert suite.tools[0].parameters["required"] == ["city"]  # from input_schema
    assert suite.base_dir == WEATHER_SUITE.parent
    assert suite.cases[4].max_tool_calls == 2
    assert suite.cases[0].max_tool_calls == 5
    assert suite.cases[0].max_latency_ms == 10_000


def test_kebab_case_keys_and_chat_format_messages(tmp_path: Path) -> None:
    suite = load_suite(
        _write(
            tmp_path,
            """
            name: kebab
            min-pass-rate: 0.5
            scoring: {pass-threshold: 0.7, value-comparison: normalize}
            cases:
              - id: 7
                messages:
                  - {role: system, content: be brief}
                  - {role: user, content: "I'm in Hue."}
                  - {role: assistant, content: Noted.}
                  - {role: user, content: "Weather here?"}
                expected-tool-calls:
                  - tool-name: get_weather
                    required-params: {city: Hue}
            """,
        )
    )

    case = suite.cases[0]
    assert case.id == "7"
    assert case.conversation() == [
        HumanMessage("I'm in Hue."),
        AIMessage("Noted."),
        HumanMessage("Weather here?"),
    ]
    assert suite.min_pass_rate == 0.5
    assert suite.scoring.pass_threshold == 0.7


def test_an_invalid_validator_names_the_case_and_the_field(tmp_path: Path) -> None:
    error = _error(
        tmp_path,
        """
        name: s
        cases:
          - id: ok
            user_message: hello
          - id: T002_forecast
            user_message: forecast please
            expected_tool_calls:
              - tool_name: get_forecast
                param_validators:
                  days: {range: {min: 7, max: 1}}
        """,
    )

    assert error.case_id == "'T002_forecast' (cases[1])"
    assert error.field == "expected_tool_calls[0].param_validators.days.range"
    assert "range min 7 is above max 1" in str(error)
    assert str(error).startswith(f"{tmp_path / 'suite.yaml'}: case 'T002_forecast' (cases[1])")


def test_an_unknown_key_gets_a_hint(tmp_path: Path) -> None:
    error = _error(
        tmp_path,
        """
        name: s
        cases:
          - id: T1
            user_message: hi
            expected_tool_calls:
              - tool_name: get_weather
                requried_params: {city: Hanoi}
        """,
    )

    assert error.field == "expected_tool_calls[0].requried_params"
    assert "did you mean 'required_params'?" in str(error)


@pytest.mark.parametrize(
    ("case_yaml", "field", "message"),
    [
        ("user_message: hi\n    messages: [{role: user, content: hi}]", "", "exactly one of"),
        ("max_tool_calls: -1\n    user_message: hi", "max_tool_calls", "greater than or equal"),
        (
            "user_message: hi\n    should_not_call_tools: true\n"
            "    expected_tool_calls: [{tool_name: x}]",
            "",
            "contradicts",
        ),
        (
            "messages: [{role: user, content: hi}, {role: assistant, content: yo}]",
            "",
            "must end with a user message",
        ),
        (
            "user_message: hi\n    expected_tool_calls: [{tool_name: x, "
            "param_validators: {a: {regex: '('}}}]",
            "expected_tool_calls[0].param_validators.a.regex",
            "not a valid regular expression",
        ),
        (
            "user_message: hi\n    expected_tool_calls: [{tool_name: x, "
            "param_validators: {a: {}}}]",
            "expected_tool_calls[0].param_validators.a",
            "a rule needs a check",
        ),
        (
            "user_message: hi\n    expected_tool_calls: [{tool_name: x, "
            "param_validators: {a: {type: decimal}}}]",
            "expected_tool_calls[0].param_validators.a.type",
            "Input should be",
        ),
        (
            "user_message: hi\n    expected_tool_calls: [{tool_name: x, "
            "required_params: {a: 1}, forbidden_params: [a]}]",
            "expected_tool_calls[0]",
            "both required and forbidden",
        ),
        ("user_message: hi\n    max_latency_ms: 0", "max_latency_ms", "greater than 0"),
    ],
)
def test_case_errors_name_the_case_and_field(
    tmp_path: Path, case_yaml: str, field: str, message: str
) -> None:
    error = _error(tmp_path, f"name: s\ncases:\n  - id: bad_case\n    {case_yaml}\n")

    assert error.case_id == "'bad_case' (cases[0])"
    assert (error.field or "") == field
    assert message in str(error)


def test_a_case_without_id_is_named_by_position(tmp_path: Path) -> None:
    error = _error(tmp_path, "name: s\ncases:\n  - user_message: hi\n")

    assert error.case_id == "cases[0]"
    assert error.field == "id"
    assert "required but missing" in str(error)


def test_an_undeclared_tool_names_the_case_and_suggests(tmp_path: Path) -> None:
    error = _error(
        tmp_path,
        """
        name: s
        tools: [{name: get_weather}]
        cases:
          - id: T9
            user_message: hi
            expected_tool_calls: [{tool_name: get_wether}]
        """,
    )

    assert error.case_id == "'T9' (cases[0])"
    assert error.field == "expected_tool_calls[0].tool_name"
    assert "did you mean 'get_weather'?" in str(error)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: s\ncases: []\n", "at least 1 item"),
        (
            "name: s\ncases:\n  - {id: a, user_message: x}\n  - {id: a, user_message: y}\n",
            "case id 'a' is used by cases[0] and cases[1]",
        ),
        (
            "name: s\nagent: not a reference\ncases:\n  - {id: a, user_message: x}\n",
            "expected module:function",
        ),
        ("- just a list\n", "a suite file holds a mapping"),
        ("name: [unclosed\n", "not valid YAML at line"),
        (
            "name: s\ntools: [{name: a}, {name: a}]\ncases:\n  - {id: a, user_message: x}\n",
            "tool 'a' is declared twice",
        ),
    ],
)
def test_suite_errors(tmp_path: Path, text: str, message: str) -> None:
    error = _error(tmp_path, text)

    assert message in str(error)
    assert error.file == str(tmp_path / "suite.yaml")


def test_several_problems_are_listed_together(tmp_path: Path) -> None:
    error = _error(
        tmp_path,
        "name: s\ncases:\n  - {id: a, max_tool_calls: x}\n  - {id: b, user_message: 3}\n",
    )

    text = str(error)
    assert "case 'b' (cases[1]), field 'user_message'" in text
    assert "(also:" in text


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="suite file not found"):
        load_suite(tmp_path / "nope.yaml")


def test_unresolvable_agent_reference(tmp_path: Path) -> None:
    (tmp_path / "broken_agent.py").write_text("raise RuntimeError('import-time failure')\n")
    suite = load_suite(_write(tmp_path, f"name: s\nagent: broken_agent:run\ncases:{VALID_CASE}"))

    with pytest.raises(SuiteError, match="import-time failure") as caught:
        suite.resolve_agent()
    assert caught.value.field == "agent"

    missing = suite.model_copy(update={"agent": "no_such_module_xyz:run"})
    with pytest.raises(SuiteError, match="cannot import module no_such_module_xyz"):
        missing.resolve_agent()

    no_agent = suite.model_copy(update={"agent": None})
    with pytest.raises(SuiteError, match="names no agent"):
        no_agent.resolve_agent()


def test_references_beside_the_suite_and_attributes(tmp_path: Path) -> None:
    (tmp_path / "my_agent.py").write_text(
        "class Bot:\n    @staticmethod\n    def answer(messages):\n        return 'hi'\nVALUE = 3\n"
    )
    suite = load_suite(_write(tmp_path, f"name: s\nagent: my_agent:Bot.answer\ncases:{VALID_CASE}"))

    assert suite.resolve_agent()([]) == "hi"
    not_callable = suite.model_copy(update={"agent": "my_agent:VALUE"})
    with pytest.raises(SuiteError, match="not a callable"):
        not_callable.resolve_agent()
    no_attribute = suite.model_copy(update={"agent": "my_agent:nothing"})
    with pytest.raises(SuiteError, match="has no attribute 'nothing'"):
        no_attribute.resolve_agent()


def test_suites_built_in_python() -> None:
    suite = AgentTestSuite(
        name="python",
        agent=lambda messages: "ok",
        cases=[
            AgentTestCase(
                id="T1",
                user_message="Weather in Hanoi?",
                expected_tool_calls=[
                    ToolCallExpectation(
                        tool_name="get_weather",
                        required_params={"city": "Hanoi"},
                        param_validators={"units": lambda v: v in ("celsius", "fahrenheit")},
                    )
                ],
            )
        ],
    )

    assert suite.resolve_agent()([]) == "ok"
    rule = suite.cases[0].expected_tool_calls[0].param_validators["units"]
    assert callable(rule.check)
    assert rule.describe().startswith("check test_suite_loading.")


def test_the_json_schema_describes_suite_files() -> None:
    schema = suite_json_schema()

    assert {"name", "cases", "tools", "agent", "scoring"} <= set(schema["properties"])
    assert "base_dir" not in schema["properties"]
    case = schema["$defs"]["AgentTestCase"]
    assert case["properties"]["max_tool_calls"]["default"] == 5
    validator = schema["$defs"]["ArgumentRule"]
    assert {"one_of", "range", "type", "regex", "forbidden", "optional"} <= set(
        validator["properties"]
    )
    assert "check" not in validator["properties"]  # Python only
