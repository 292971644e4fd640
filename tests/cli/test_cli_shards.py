"""``--shard I/N --run-group G`` then ``runs merge G`` (in process, on the default SQLite
history): the shards split the dataset, each says its share of the limits, and the merge
gives the run, reports and exit code of one run of the whole dataset; every group that
cannot merge exits 2 naming why."""

from __future__ import annotations

import json
import re

import pytest

METRICS = ("--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy")
TOTAL = 12


@pytest.fixture
def big_dataset(tmp_path):
    """Twelve samples; the goal of every third is not achieved (judge-c says it is)."""
    lines = []
    for index in range(TOTAL):
        place = "Paris" if index % 3 == 0 else f"Oslo {index}"
        lines.append(
            json.dumps(
                {
                    "id": f"case-{index:02d}",
                    "user_input_messages": [
                        {"type": "human", "content": f"Book the trip to {place}."},
                        {
                            "type": "ai",
                            "content": "",
                            "tool_calls": [{"name": "book", "arguments": {"to": place}}],
                        },
                        {"type": "ai", "content": "Booked."},
                    ],
                    "reference": f"The trip to {place} is booked",
                    "reference_tool_calls": [{"name": "book", "arguments": {"to": place}}],
                }
            )
        )
    path = tmp_path / "trips.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _shard(run_cli, dataset, config, index, count=3, group="nightly", *extra):
    return run_cli(
        "evaluate", dataset, *METRICS, "--config", config,
        "--shard", f"{index}/{count}", "--run-group", group, *extra,
    )  # fmt: skip


def _rows(report):
    document = json.loads(report.read_text(encoding="utf-8"))
    return [
        (sample["sample_id"], evaluation["metric"], evaluation["status"], evaluation["score"])
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    ]


def _summaries(report):
    document = json.loads(report.read_text(encoding="utf-8"))
    judges = [
        {key: value for key, value in summary.items() if not key.startswith("latency")}
        for summary in document["judge_summaries"]
    ]
    return document["metric_summaries"], judges, document["agreement"], document["totals"]


def test_three_shards_merge_into_the_run_of_one_process(
    run_cli, judges, config_file, big_dataset, tmp_path
):
    whole_report = tmp_path / "whole.json"
    whole = run_cli(
        "evaluate", big_dataset, *METRICS, "--config", config_file,
        "--out", whole_report, "--fail-under", "0.9", "--no-history",
    )  # fmt: skip
    asked_whole = judges.count()

    shards = [_shard(run_cli, big_dataset, config_file, index) for index in (1, 2, 3)]
    sizes = []
    for index, shard in enumerate(shards, start=1):
        assert shard.code == 0, shard.err
        found = re.search(
            rf"Shard {index}/3 of run group 'nightly': (\d+) of {TOTAL} samples", shard.err
        )
        assert found, shard.err
        sizes.append(int(found.group(1)))
    assert sum(sizes) == TOTAL  # disjoint and covering (each sample is in one shard)
    assert judges.count() == 2 * asked_whole  # no sample scored twice across the shards

    merged_report, markdown = tmp_path / "merged.json", tmp_path / "merged.md"
    merged = run_cli(
        "runs", "merge", "nightly", "--config", config_file,
        "--out", merged_report, "--out", markdown, "--fail-under", "0.9",
    )  # fmt: skip

    assert (merged.code, whole.code) == (1, 1), merged.err  # the same gate verdict
    assert "Run group 'nightly': 3 shards merged" in merged.err
    assert f"{TOTAL} samples × 2 metrics" in merged.out
    assert _rows(merged_report) == _rows(whole_report)  # dataset order, same scores
    assert _summaries(merged_report) == _summaries(whole_report)
    assert "agent_goal_accuracy" in markdown.read_text(encoding="utf-8")
    recorded = re.search(r"Run recorded: (\S+)", merged.err).group(1)
    listing = run_cli("runs", "list", "--config", config_file)
    assert recorded in listing.out
    # Without the gate's flags the merged run passes, as one run would.
    again = run_cli("runs", "merge", "nightly", "--config", config_file, "--no-history")
    assert again.code == 0, again.err


def test_a_shard_says_its_share_of_each_providers_limits(run_cli, judges, config_file, big_dataset):
    with config_file.open("a", encoding="utf-8") as file:
        file.write(
            "spring.ai.ragas.providers.max-concurrency: 10\n"
            "spring.ai.ragas.providers.rate-limit.default-rps: 8\n"
        )

    shard = _shard(run_cli, big_dataset, config_file, 2, 4)

    assert shard.code == 0, shard.err
    flat = " ".join(shard.err.split())
    assert "Limits of this shard (1/4 of each provider's; limits-per-machine: true" in flat
    assert "local: rate-limit 2 rps (of 8), max-concurrency 2 (of 10)" in flat


def test_a_missing_shard_makes_the_merge_exit_2_naming_it(
    run_cli, judges, config_file, big_dataset, tmp_path
):
    for index in (1, 3):
        assert _shard(run_cli, big_dataset, config_file, index).code == 0
    report = tmp_path / "merged.json"

    merged = run_cli("runs", "merge", "nightly", "--config", config_file, "--out", report)

    assert merged.code == 2
    flat = " ".join(merged.err.split())
    assert "cannot merge run group 'nightly': shard 2/3 is missing" in flat
    assert not report.exists()


def test_a_shard_recorded_twice_or_unfinished_is_named(run_cli, judges, config_file, big_dataset):
    for index in (1, 2, 3, 1):
        assert _shard(run_cli, big_dataset, config_file, index).code == 0
    judges.set_latency(None, 0.5)
    stopped = _shard(run_cli, big_dataset, config_file, 2, 3, "nightly", "--deadline", "0.1s")
    judges.set_latency(None, 0)
    assert stopped.code == 1

    merged = run_cli("runs", "merge", "nightly", "--config", config_file)

    assert merged.code == 2
    flat = " ".join(merged.err.split())
    assert re.search(r"shard 1/3 is recorded twice: runs \S+ and \S+", flat), flat
    # shard 2 finished once: its stopped rerun is not a second copy
    assert "shard 2/3" not in flat


def test_an_unfinished_shard_is_named_with_how_to_continue_it(
    run_cli, judges, config_file, big_dataset
):
    for index in (1, 3):
        assert _shard(run_cli, big_dataset, config_file, index).code == 0
    judges.set_latency(None, 0.5)
    stopped = _shard(run_cli, big_dataset, config_file, 2, 3, "nightly", "--deadline", "0.1s")
    judges.set_latency(None, 0)
    run_id = re.search(r"Run recorded: (\S+)", stopped.err).group(1)

    merged = run_cli("runs", "merge", "nightly", "--config", config_file)

    assert merged.code == 2
    flat = " ".join(merged.err.split())
    assert f"shard 2/3 did not finish: run {run_id} is stopped (continue it with --resume " in flat

    resumed = run_cli(
        "evaluate", big_dataset, *METRICS, "--config", config_file, "--resume", run_id
    )
    assert resumed.code == 0, resumed.err
    assert "Shard 2/3 of run group 'nightly'" in resumed.err
    assert run_cli("runs", "merge", "nightly", "--config", config_file).code == 0


@pytest.mark.parametrize(
    ("extra", "differs"),
    [(("--models", "judge-a,judge-b"), "configurations"), (("--sample", "11"), "datasets")],
    ids=["config", "dataset"],
)
def test_shards_of_another_config_or_dataset_do_not_merge(
    run_cli, judges, config_file, big_dataset, extra, differs
):
    assert _shard(run_cli, big_dataset, config_file, 1).code == 0
    assert _shard(run_cli, big_dataset, config_file, 2).code == 0
    assert _shard(run_cli, big_dataset, config_file, 3, 3, "nightly", *extra).code == 0

    merged = run_cli("runs", "merge", "nightly", "--config", config_file)

    assert merged.code == 2
    flat = " ".join(merged.err.split())
    assert f"the shards ran different {differs}: sha256:" in flat
    assert "shard 3/3 (run " in flat


def test_an_unknown_group_exits_2(run_cli, judges, config_file):
    merged = run_cli("runs", "merge", "nobody", "--config", config_file)

    assert merged.code == 2
    assert "no shard of run group 'nobody'" in " ".join(merged.err.split())


def test_more_shards_than_samples_leaves_some_empty_and_still_merges(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    sizes = []
    for index in range(1, 6):
        shard = _shard(run_cli, dataset_file, config_file, index, 5, "tiny")
        assert shard.code == 0, shard.err
        sizes.append(int(re.search(r"'tiny': (\d+) of 3 samples", shard.err).group(1)))
    assert sum(sizes) == 3 and 0 in sizes
    report = tmp_path / "merged.json"

    merged = run_cli("runs", "merge", "tiny", "--config", config_file, "--out", report)

    assert merged.code == 0, merged.err
    assert [row[0] for row in _rows(report)[::2]] == ["weather", "refund", "flight-not-booked"]
