"""A spooled run (more samples than spool-after): slim judge calls in memory, the full ones on
disk, the same JSON report, every scored sample kept, and no spool left behind."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import signal
from pathlib import Path

import pytest

from ragas_boot import Sample
from ragas_boot.errors import SpoolClosedError
from ragas_boot.reporting import render_json
from ragas_boot.reporting.json_report import json_chunks, report_document
from ragas_boot.runs import RunResult, aevaluate_dataset, evaluate_dataset
from ragas_boot.runs.records import CallFacts, SpooledEvaluation
from ragas_boot.runs.spool import EvaluationSpool
from ragas_boot.runs.summaries import summarize
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall

JUDGES = ["judge-a", "judge-b", "judge-c"]  # as the lookup_container fixture has them
WORDS = ["alpha", "bravo", "charlie", "delta", "echo"]


def _sample(text: str) -> Sample:
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
    )


SAMPLES = [_sample(word) for word in WORDS]


@pytest.fixture
def container(lookup_container):
    # every judge fails on one sample: delta
    return lookup_container(down_on="delta")


@pytest.fixture
def spool_dir(tmp_path):
    """A folder of its own for the spool (the settings file sits in tmp_path)."""
    folder = tmp_path / "spool"
    folder.mkdir()
    return folder


@pytest.fixture
def metrics(container):
    return [container.agent_goal_accuracy(), container.topic_adherence()]


def _calls(run_or_sample):
    samples = run_or_sample.samples if isinstance(run_or_sample, RunResult) else [run_or_sample]
    return [
        call
        for sample in samples
        for evaluation in sample.evaluations
        for call in evaluation.judge_calls()
    ]


def _spool_files(folder: Path) -> list[str]:
    """This process's open files in ``folder`` (an unnamed temporary file shows as
    ``folder/#123 (deleted)``)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder) + os.sep):
            found.append(target)
    return found


def _unspooled(run: RunResult) -> RunResult:
    """The run with every evaluation read back in full, as an unspooled result."""
    full = run.model_copy(
        update={"samples": [run.full_sample(index) for index in range(len(run.samples))]}
    )
    full._spool = None
    return full


def test_a_run_over_spool_after_keeps_slim_calls_and_reads_them_back(metrics, spool_dir):
    run = evaluate_dataset(SAMPLES, metrics, spool_after=4, spool_dir=spool_dir, concurrency=3)
    assert run.spooled
    evaluations = [e for sample in run.samples for e in sample.evaluations]
    assert all(isinstance(e, SpooledEvaluation) and e.steps == [] for e in evaluations)
    slim = _calls(run)
    # goal: 1 step, topics: 2 steps, 3 judges each; "delta" failed at each metric's first
    assert len(slim) == 4 * 3 * 3 + 2 * 3
    assert all(isinstance(call, CallFacts) for call in slim)
    assert not any(hasattr(call, "prompt") or hasattr(call, "raw_text") for call in slim)
    # what summaries and reports need of a call is kept
    assert {call.judge_id for call in slim} == set(JUDGES)
    assert sum(not call.ok for call in slim) == 6  # "delta": every judge failed, each metric
    assert all(call.latency_s > 0 for call in slim if call.ok)
    for index, sample in enumerate(run.samples):
        full = _calls(run.full_sample(index))
        assert [(c.judge_id, c.step, c.ok) for c in full] == [
            (c.judge_id, c.step, c.ok) for c in _calls(sample)
        ]
        assert all(call.prompt for call in full)
        assert any(f"please look up {sample.sample_id}" in call.prompt for call in full)
        assert all(call.raw_text for call in full if call.ok)
    run.close_spool()


def test_runs_up_to_spool_after_keep_everything(metrics):
    run = evaluate_dataset(SAMPLES, metrics, spool_after=5)
    assert not run.spooled
    assert all(call.prompt for call in _calls(run))
    never = evaluate_dataset(SAMPLES[:2], metrics, spool_after=None)
    assert not never.spooled
    assert run.full_sample(0) is run.samples[0]


def test_the_json_report_of_a_spooled_run_is_the_unspooled_text(metrics, spool_dir):
    run = evaluate_dataset(SAMPLES, metrics, spool_after=0, spool_dir=spool_dir)
    full = _unspooled(run)
    assert not full.spooled and all(call.prompt for call in _calls(full))
    for indent in (2, 4, None):
        expected = json.dumps(report_document(full), indent=indent, ensure_ascii=False) + "\n"
        assert "".join(json_chunks(run, indent=indent)) == expected
        assert report_document(run) == report_document(full)
    assert "please look up charlie" in render_json(run)
    run.close_spool()


def test_spooling_changes_neither_the_report_nor_the_summaries(metrics):
    """The same evaluations, once kept whole and once put through a spool."""
    whole = evaluate_dataset(SAMPLES, metrics, spool_after=None)
    spool = EvaluationSpool()
    slim_samples = [
        sample.model_copy(
            update={
                "evaluations": [
                    spool.put((index, position), evaluation)
                    for position, evaluation in enumerate(sample.evaluations)
                ]
            }
        )
        for index, sample in enumerate(whole.samples)
    ]
    spooled = whole.model_copy(update={"samples": slim_samples})
    spooled._spool = spool
    assert all(e.steps == [] for sample in spooled.samples for e in sample.evaluations)
    assert "".join(json_chunks(spooled)) == "".join(json_chunks(whole))
    slim = summarize(whole.judges, whole.metrics, slim_samples)
    assert slim.metrics == whole.metric_summaries
    assert slim.judges == whole.judge_summaries
    assert slim.agreement == whole.agreement
    assert slim.totals == whole.totals
    assert spooled.gate(0.5) == whole.gate(0.5)
    spool.close()


def test_a_partly_failing_spooled_run_keeps_every_scored_sample(metrics, spool_dir):
    run = evaluate_dataset(SAMPLES, metrics, spool_after=0, spool_dir=spool_dir)
    assert [s.sample_id for s in run.samples] == WORDS
    statuses = {s.sample_id: tuple(e.status for e in s.evaluations) for s in run.samples}
    assert statuses.pop("delta") == ("failed", "failed")
    assert set(statuses.values()) == {("scored", "scored")}
    assert run.metric_summary("agent_goal_accuracy").scored == 4
    failed = run.full_sample(WORDS.index("delta")).evaluation("agent_goal_accuracy")
    assert failed.error is not None and failed.error.kind == "all_judges_failed"
    assert [call.ok for step in failed.error.steps for call in step.calls] == [False] * 3
    assert all("delta" in call.prompt for step in failed.error.steps for call in step.calls)
    report = json.loads(render_json(run))
    assert [s["sample_id"] for s in report["samples"]] == WORDS
    assert [len(s["evaluations"]) for s in report["samples"]] == [2] * 5
    assert "model overloaded" in json.dumps(report["samples"][WORDS.index("delta")])
    run.close_spool()


def test_the_spool_is_an_open_unnamed_file_until_closed(metrics, spool_dir):
    during: list[list[str]] = []
    run = evaluate_dataset(
        SAMPLES,
        metrics,
        spool_after=0,
        spool_dir=spool_dir,
        progress=lambda _: during.append(_spool_files(spool_dir)),
    )
    assert all(len(files) == 2 for files in during)  # the full and the slim records
    assert list(spool_dir.iterdir()) == []  # never a name in the folder
    assert len(_spool_files(spool_dir)) == 2  # the reports still need both
    run.close_spool()
    assert len(_spool_files(spool_dir)) == 1  # the slim records: the samples stay readable
    run.close_spool()  # idempotent
    assert run.spooled  # the calls kept are still the slim ones
    assert [s.sample_id for s in run.samples] == WORDS
    assert run.metric_summary("agent_goal_accuracy").scored == 4
    with pytest.raises(SpoolClosedError, match="close_spool"):
        run.full_sample(0)
    with pytest.raises(SpoolClosedError):
        render_json(run)
    del run
    gc.collect()
    assert _spool_files(spool_dir) == []  # gone with the result


@pytest.mark.asyncio
async def test_a_run_that_ends_in_an_error_leaves_no_spool(metrics, spool_dir):
    seen: list[int] = []

    def progress(state):
        seen.append(len(_spool_files(spool_dir)))
        if state.evaluations_done == 2:
            task.cancel()

    task = asyncio.ensure_future(
        aevaluate_dataset(
            SAMPLES,
            metrics,
            spool_after=0,
            spool_dir=spool_dir,
            progress=progress,
            concurrency=1,
        )
    )
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen and seen[-1] == 2  # the spool (full and slim) was open while the run ran
    assert _spool_files(spool_dir) == []


def test_a_negative_spool_after_is_refused(metrics):
    with pytest.raises(ValueError, match="spool_after must be >= 0"):
        evaluate_dataset(SAMPLES, metrics, spool_after=-1)


@pytest.fixture
def file_size_limit():
    """Caps the size of files this process writes (RLIMIT_FSIZE, restored after the test):
    a write past it fails with EFBIG, as on a full disk (SIGXFSZ ignored meanwhile)."""
    previous_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    previous = resource.getrlimit(resource.RLIMIT_FSIZE)

    def limit(size: int) -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, previous[1]))

    yield limit
    resource.setrlimit(resource.RLIMIT_FSIZE, previous)
    signal.signal(signal.SIGXFSZ, previous_handler)


def test_a_spool_that_cannot_be_written_keeps_the_rest_in_memory(
    metrics, spool_dir, file_size_limit, caplog
):
    file_size_limit(40_000)  # room for a few evaluations, not for ten
    run = evaluate_dataset(SAMPLES, metrics, spool_after=0, spool_dir=spool_dir, concurrency=1)
    file_size_limit(resource.RLIM_INFINITY)
    evaluations = [e for sample in run.samples for e in sample.evaluations]
    spooled = [e for e in evaluations if isinstance(e, SpooledEvaluation)]
    whole = [e for e in evaluations if not isinstance(e, SpooledEvaluation)]
    assert spooled and whole and len(evaluations) == 10
    assert all(call.prompt for e in whole for call in e.judge_calls())
    warnings = [r for r in caplog.records if "cannot write the run's spool" in r.getMessage()]
    assert len(warnings) == 1
    full = _unspooled(run)
    assert "".join(json_chunks(run)) == render_json(full)
    run.close_spool()


def test_readers_on_many_threads_each_get_their_own_evaluation(metrics, spool_dir):
    # The file position is shared (portable seek + read/write, no pread): each read must
    # still return exactly the evaluation it asked for while others read at once.
    from concurrent.futures import ThreadPoolExecutor

    run = evaluate_dataset(SAMPLES, metrics, spool_after=1, spool_dir=spool_dir, concurrency=3)
    keys = [(i, m) for i, sample in enumerate(run.samples) for m in range(len(sample.evaluations))]
    spool = run._spool  # the spool itself is under test
    assert spool is not None
    expected = {key: spool.document(key) for key in keys}  # one at a time
    assert len({json.dumps(doc, sort_keys=True) for doc in expected.values()}) == len(keys)
    with ThreadPoolExecutor(max_workers=8) as pool:
        documents = list(pool.map(spool.document, keys * 20))
    assert documents == [expected[key] for key in keys * 20]
    run.close_spool()
