"""A run's journal in the run history: each finished evaluation written as it finishes, a run
stopped part-way resumed without scoring again what finished, and the same scores as a run
that was never stopped; every refusal says which run and why."""

from __future__ import annotations

import json
import sqlite3

import pytest

from ragas_boot import Sample
from ragas_boot.errors import RunJournalError
from ragas_boot.reporting.json_report import report_document
from ragas_boot.runs import RunControl, evaluate_dataset
from ragas_boot.runs.history import RunHistory, new_run_id
from ragas_boot.runs.journal import (
    JournalStore,
    RunJournal,
    config_fingerprint,
    dataset_fingerprint,
    read_sample,
)
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def _sample(text: str, **extra: object) -> Sample:
    return Sample(
        id=text,
        user_input_messages=[
            HumanMessage(f"please look up {text}"),
            AIMessage("On it.", [ToolCall("lookup", {"q": text})]),
            AIMessage("Done."),
        ],
        reference=f"{text} is looked up",
        reference_topics=["lookups"],
        reference_tool_calls=[ToolCall("lookup", {"q": text})],
        **extra,
    )


SAMPLES = [_sample(word) for word in WORDS]


@pytest.fixture
def container(lookup_container):
    return lookup_container()


@pytest.fixture
def metrics(container):
    return [container.agent_goal_accuracy(), container.tool_call_accuracy()]


@pytest.fixture
def history(tmp_path):
    with RunHistory(url=f"sqlite:///{tmp_path / 'history.db'}", lock_timeout=2) as opened:
        yield opened


def _start(history, samples=SAMPLES, **options) -> RunJournal:
    return RunJournal.start(
        history,
        run_id=new_run_id(),
        kind="evaluate",
        config_fingerprint="sha256:config",
        dataset_fingerprint=dataset_fingerprint(samples),
        samples=len(samples),
        **options,
    )


def _resume(history, run_id, **changes) -> RunJournal:
    options = dict(
        kind="evaluate",
        config_fingerprint="sha256:config",
        dataset_fingerprint=dataset_fingerprint(SAMPLES),
        samples=len(SAMPLES),
    )
    options.update(changes)
    return RunJournal.resume(history, run_id, **options)


def _scores(run) -> list[tuple[str, str, str, float | None, dict[str, float]]]:
    return [
        (
            sample.sample_id,
            evaluation.metric,
            evaluation.status,
            evaluation.score,
            dict(evaluation.result.model_scores) if evaluation.result is not None else {},
        )
        for sample in run.samples
        for evaluation in sample.evaluations
    ]


def _stopped_after(evaluations: int) -> tuple[RunControl, object]:
    control = RunControl()

    def progress(state) -> None:
        if state.evaluations_done >= evaluations:
            control.stop("interrupted")

    return control, progress


def test_a_stopped_run_resumes_without_scoring_again_what_finished(history, metrics, openai_server):
    journal = _start(history)
    control, progress = _stopped_after(5)
    first = evaluate_dataset(
        SAMPLES, metrics, concurrency=1, control=control, progress=progress, journal=journal
    )
    journal.close(first)
    assert first.stopped == "interrupted"
    finished = {
        (sample.sample_id, evaluation.metric)
        for sample in first.samples
        for evaluation in sample.evaluations
        if evaluation.error is None or evaluation.error.kind != "interrupted"
    }
    assert 5 <= len(finished) < 2 * len(SAMPLES)
    assert journal.run.status == "stopped"
    answered = {
        call.prompt
        for sample in first.samples
        for evaluation in sample.evaluations
        for call in evaluation.judge_calls()
    }
    assert answered

    resumed = _resume(history, journal.run_id[:12])
    assert resumed.run_id == journal.run_id
    assert resumed.run.status == "running"
    before = len(openai_server.requests)
    run = evaluate_dataset(SAMPLES, metrics, concurrency=1, journal=resumed)
    resumed.close(run)

    assert run.stopped is None and resumed.run.status == "finished"
    again = [record.request.prompt for record in openai_server.requests[before:]]
    # Nothing that finished was asked again: each prompt of the resumed part is new.
    assert not set(again) & answered
    # Exactly the goal evaluations left were asked (3 judges each).
    goal_done = sum(1 for _, metric in finished if metric == "agent_goal_accuracy")
    assert len(again) == 3 * (len(SAMPLES) - goal_done)

    uninterrupted = evaluate_dataset(SAMPLES, metrics, concurrency=1)
    assert _scores(run) == _scores(uninterrupted)
    # The resumed run's report holds the earlier evaluations in full (their prompts too).
    document = report_document(run)
    first_goal = document["samples"][0]["evaluations"][0]
    assert first_goal["result"]["steps"][0]["calls"][0]["prompt"]


def test_a_resumed_spooled_run_equals_an_unspooled_one(history, metrics):
    journal = _start(history)
    control, progress = _stopped_after(6)
    first = evaluate_dataset(
        SAMPLES, metrics, concurrency=2, control=control, progress=progress, journal=journal
    )
    journal.close(first)

    resumed = _resume(history, journal.run_id)
    run = evaluate_dataset(SAMPLES, metrics, concurrency=2, journal=resumed, spool_after=0)
    resumed.close(run)

    assert run.spooled
    assert _scores(run) == _scores(evaluate_dataset(SAMPLES, metrics, spool_after=None))
    assert run.totals.evaluations == 2 * len(SAMPLES)


def test_a_finished_run_drops_its_entries_and_a_shard_keeps_them(history, metrics):
    plain = _start(history)
    plain.close(evaluate_dataset(SAMPLES[:2], metrics, journal=plain))
    shard = _start(history, run_group="nightly", shard=(1, 2))
    shard.close(evaluate_dataset(SAMPLES[:2], metrics, journal=shard))

    store = JournalStore(history)
    assert store.keys(plain.run_id, "evaluation") == set()
    assert len(store.keys(shard.run_id, "evaluation")) == 4
    assert [read_sample(entry).id for entry in store.entries(shard.run_id, "sample")] == [
        "alpha",
        "bravo",
    ]
    (recorded,) = store.group("nightly")
    assert (recorded.run_id, recorded.shard, recorded.status) == (shard.run_id, "1/2", "finished")
    assert recorded.summary is not None and recorded.summary["dataset"]["size"] == 2


def test_resuming_a_finished_run_is_refused(history, metrics):
    journal = _start(history)
    journal.close(evaluate_dataset(SAMPLES[:1], metrics, journal=journal))

    with pytest.raises(RunJournalError, match=f"run {journal.run_id} finished"):
        _resume(history, journal.run_id)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"config_fingerprint": "sha256:other"}, "its configuration differs"),
        ({"dataset_fingerprint": "sha256:other"}, "its dataset differs"),
        ({"kind": "compare"}, "its kind differs"),
        ({"samples": 3}, "its samples differs"),
    ],
)
def test_resuming_with_another_config_or_dataset_is_refused_naming_it(history, change, named):
    journal = _start(history)
    journal.close(None)  # as a killed run leaves it: running

    with pytest.raises(RunJournalError, match=f"cannot resume run {journal.run_id}: {named}"):
        _resume(history, journal.run_id, **change)


def test_an_unknown_or_ambiguous_run_is_refused(history):
    first, second = _start(history), _start(history)
    first.close(None)
    second.close(None)

    with pytest.raises(RunJournalError, match="no run 'nope' to resume"):
        _resume(history, "nope")
    with pytest.raises(RunJournalError, match="is ambiguous"):
        _resume(history, first.run_id[:4])
    assert _resume(history, "latest").run_id in (first.run_id, second.run_id)


def test_a_history_that_stops_taking_writes_costs_the_run_nothing_but_resuming(
    history, metrics, tmp_path
):
    journal = _start(history)
    with sqlite3.connect(tmp_path / "history.db") as connection:
        connection.execute("DROP TABLE ragas_boot_run_entries")

    run = evaluate_dataset(SAMPLES, metrics, journal=journal)
    journal.close(run)

    assert run.stopped is None and run.totals.scored == 2 * len(SAMPLES)
    assert journal.problem is not None and "ragas_boot_run_entries" in journal.problem
    assert journal.run.status == "finished"  # the run did; only its entries are missing


def test_samples_round_trip_the_journal_whatever_their_text(history, metrics):
    odd = [
        _sample("ünïcödé/путь 1", metadata={"nested": {"list": [1, {"deep": None}], "€": "x"}}),
        _sample("tab\there"),
    ]
    journal = _start(history, samples=odd, run_group="g", shard=(2, 2), positions={"tab\there": 7})
    journal.close(evaluate_dataset(odd, metrics, journal=journal))

    entries = list(JournalStore(history).entries(journal.run_id, "sample"))
    assert [(entry.position, read_sample(entry)) for entry in entries] == [
        (0, odd[0]),
        (7, odd[1]),
    ]


def test_notes_of_other_kinds_are_kept_for_a_resumed_run(history):
    journal = _start(history)
    journal.note("batch", "batch_abc", {"provider": "openai", "requests": 3})
    journal.close(None)

    resumed = _resume(history, journal.run_id)
    entries = list(JournalStore(history).entries(resumed.run_id, "batch"))
    assert [(entry.key, json.loads(entry.data)) for entry in entries] == [
        ("batch_abc", {"provider": "openai", "requests": 3})
    ]


def test_the_config_fingerprint_ignores_secrets_and_machine_limits(make_settings):
    base = make_settings(["judge-a"])
    same = base.model_copy(
        update={
            "history": base.history.model_copy(update={"url": "sqlite:////elsewhere.db"}),
            "cache": base.cache.model_copy(update={"enabled": False}),
        }
    )
    providers = base.providers.model_copy(update={"max_concurrency": 3})
    limited = base.model_copy(update={"providers": providers})

    assert config_fingerprint(base, metrics=["a"]) == config_fingerprint(same, metrics=["a"])
    assert config_fingerprint(base, metrics=["a"]) == config_fingerprint(limited, metrics=["a"])
    assert config_fingerprint(base, metrics=["a"]) != config_fingerprint(base, metrics=["b"])
    other_model = make_settings(["judge-b"])
    assert config_fingerprint(base) != config_fingerprint(other_model)


def test_the_dataset_fingerprint_follows_the_samples_and_their_order():
    assert dataset_fingerprint(SAMPLES) == dataset_fingerprint(list(SAMPLES))
    assert dataset_fingerprint(SAMPLES) != dataset_fingerprint(SAMPLES[::-1])
    assert dataset_fingerprint(SAMPLES) != dataset_fingerprint(SAMPLES[:-1])
    assert dataset_fingerprint([]) != dataset_fingerprint(SAMPLES[:1])
