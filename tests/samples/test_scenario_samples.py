"""Scenario cases as samples: the scenario and a play's record load from dataset files (YAML,
a CSV JSON cell), are validated with clear errors, and are scored like a suite's plays."""

from __future__ import annotations

import csv
import json
import textwrap

import pytest

from ragas_boot.datasets import load_dataset
from ragas_boot.errors import DatasetError, SampleValidationError
from ragas_boot.metrics import CaseExpectationsMetric, ToolCallAccuracyMetric
from ragas_boot.runs import evaluate_dataset
from ragas_boot.samples import ConversationEnd, Sample, Scenario

PLAYED = {
    "id": "friday#1",
    "user_input_messages": [
        {"type": "human", "content": "Un tavolo per due, venerdì?"},
        {"type": "ai", "content": "Shall I book it?"},
    ],
    "scenario": {
        "goal": "Prenotare un tavolo per due venerdì 🍝",
        "knows": {"name": "Ada", "party": 2, "notes": {"allergies": ["nuts"]}},
        "first-message": "Un tavolo per due, venerdì?",
        "maxTurns": 1,
        "success": "A table is booked",
    },
    "expectations": {"max_tool_calls": 3},
    "agent_run": {
        "agent": "booking:run",
        "simulation": {"end": "not_concluded", "user_turns": 2, "reason": "not done after 1"},
    },
}


def test_a_played_scenario_reads_with_every_spelling_and_nested_facts():
    sample = Sample.model_validate(PLAYED)
    assert sample.scenario == Scenario(
        goal="Prenotare un tavolo per due venerdì 🍝",
        knows={"name": "Ada", "party": 2, "notes": {"allergies": ["nuts"]}},
        first_message="Un tavolo per due, venerdì?",
        max_turns=1,
        success="A table is booked",
    )
    assert sample.agent_run.simulation.end is ConversationEnd.NOT_CONCLUDED
    assert not sample.agent_run.simulator_failed
    again = Sample.model_validate(sample.model_dump(mode="json"))
    assert again == sample


@pytest.mark.parametrize(
    ("scenario", "field", "problem"),
    [
        ({}, "scenario.goal", "required but missing"),
        ({"goal": "  "}, "scenario.goal", "is blank"),
        ({"goal": "g", "knows": ["order 42"]}, "scenario.knows", "expected a JSON object"),
        ({"goal": "g", "max-turns": 0}, "scenario.max-turns", "greater than or equal to 1"),
        ({"goal": "g", "first-message": ""}, "scenario.first-message", "at least 1 character"),
        (
            {"goal": "g", "mood": "grumpy"},
            "scenario.mood",
            "unknown key; allowed keys: first-message",
        ),
    ],
)
def test_a_bad_scenario_names_the_field(scenario, field, problem):
    with pytest.raises(SampleValidationError, match=problem) as caught:
        Sample.model_validate({"scenario": scenario})
    assert caught.value.field == field


def test_an_unknown_end_is_refused():
    with pytest.raises(SampleValidationError) as caught:
        Sample.model_validate({"agent_run": {"simulation": {"end": "finished"}}})
    assert caught.value.field == "agent_run.simulation.end"


def test_plays_from_a_yaml_file_are_scored_like_a_suites(tmp_path):
    failed = {
        **PLAYED,
        "id": "friday#2",
        "agent_run": {"simulation": {"end": "simulator_failed", "reason": "timeout"}},
    }
    path = tmp_path / "plays.yaml"
    path.write_text(json.dumps({"samples": [PLAYED, failed]}, ensure_ascii=False), encoding="utf-8")
    run = evaluate_dataset(load_dataset(path), [CaseExpectationsMetric(), ToolCallAccuracyMetric()])
    concluded, simulator = run.samples
    checks = concluded.evaluation("case_expectations").result.metadata["failed_checks"]
    assert [check["check"] for check in checks] == ["conversation"]
    assert concluded.counted and not concluded.passed
    assert not simulator.counted
    assert {e.status for e in simulator.evaluations} == {"undefined"}
    assert (
        run.simulator_failures,
        len(run.samples) - run.simulator_failures,
        run.passed_samples,
    ) == (1, 1, 0)


def test_a_csv_cell_holds_the_scenario_as_json(tmp_path):
    path = tmp_path / "cases.csv"
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["id", "scenario"])
        writer.writerow(["c1", json.dumps({"goal": "Cancel order 42", "knows": {"order": 42}})])
        writer.writerow(["c2", '{"goal": "x", "max_turns": "many"}'])
    with pytest.raises(DatasetError, match=r"scenario\.max_turns"):
        load_dataset(path)
    path.write_text(
        textwrap.dedent(
            """\
            id,scenario
            c1,"{""goal"": ""Cancel order 42"", ""knows"": {""order"": 42}}"
            """
        ),
        encoding="utf-8",
    )
    (sample,) = load_dataset(path).samples
    assert sample.scenario.knows == {"order": 42}
