"""A corrupt response cache is never silent (issue 28): ``cache stats`` says so and exits 1,
``cache clear`` removes its files, and a run whose cache was unusable says so under its
summary line. The corruption is real: random bytes where SQLite's file should be."""

from __future__ import annotations

import os

import pytest

from support.cache_attack import MODE_PICKLE, payload, tamper

METRICS = ("--metric", "agent_goal_accuracy")


@pytest.fixture
def config_file(config_file):
    """The CLI tests' configuration, caching the test server's answers."""
    with config_file.open("a", encoding="utf-8") as file:
        file.write("\nspring.ai.ragas.cache.loopback: true\n")
    return config_file


@pytest.fixture
def corrupt_cache(tmp_path):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "cache.db").write_bytes(os.urandom(8192))
    (folder / "notes.txt").write_text("the user's own file", encoding="utf-8")
    return folder


def test_cache_stats_on_a_corrupt_cache_says_so_and_exits_1(run_cli, corrupt_cache):
    pytest.importorskip("diskcache")
    result = run_cli("cache", "stats", "--cache-dir", corrupt_cache)
    assert result.code == 1
    assert f"response cache at {corrupt_cache} is unusable" in result.err
    assert "ragas-boot cache clear" in result.err
    assert "Entries:" not in result.out  # never "0 entries" for a cache that cannot be read


def test_cache_clear_removes_the_corrupt_files_and_says_so(run_cli, corrupt_cache):
    pytest.importorskip("diskcache")
    result = run_cli("cache", "clear", "--cache-dir", corrupt_cache)
    assert result.code == 0, result.err
    assert f"The response cache at {corrupt_cache} was unusable; removed its files: cache.db" in (
        result.out
    )
    assert not (corrupt_cache / "cache.db").exists()
    assert (corrupt_cache / "notes.txt").is_file()  # only the cache's own files go
    after = run_cli("cache", "stats", "--cache-dir", corrupt_cache)
    assert after.code == 0, after.err
    assert "Entries: 0" in after.out


def test_cache_clear_expired_on_a_corrupt_cache_removes_the_files_too(run_cli, corrupt_cache):
    pytest.importorskip("diskcache")
    result = run_cli("cache", "clear", "--expired", "--cache-dir", corrupt_cache)
    assert result.code == 0, result.err
    assert "was unusable; removed its files: cache.db" in result.out
    assert not (corrupt_cache / "cache.db").exists()


def test_a_run_on_a_corrupt_cache_warns_once_under_its_summary(
    run_cli, judges, config_file, dataset_file, corrupt_cache
):
    pytest.importorskip("diskcache")
    args = ("evaluate", dataset_file, *METRICS, "--config", config_file, "--no-history")
    result = run_cli(*args, "--cache-dir", corrupt_cache)
    assert result.code == 0, result.err  # the judges were asked directly: the run is whole
    assert judges.count() == 3 * 3
    warnings = [line for line in result.out.splitlines() if "cache unusable" in line]
    assert len(warnings) == 1
    assert warnings[0].startswith("warning: cache unusable: response cache at")
    assert "run `ragas-boot cache clear`" in warnings[0]
    lines = result.out.splitlines()
    assert "cache: 0 hits" in lines[lines.index(warnings[0]) - 1]  # right under the summary

    assert run_cli("cache", "clear", "--cache-dir", corrupt_cache).code == 0
    healthy = run_cli(*args, "--cache-dir", corrupt_cache)
    assert healthy.code == 0, healthy.err
    assert "cache unusable" not in healthy.out


def test_a_run_on_a_healthy_cache_has_no_warning(run_cli, judges, config_file, dataset_file):
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file, "--no-history")
    assert result.code == 0, result.err
    assert "cache: 0 hits, 9 misses" in result.out
    assert "warning" not in result.out


def test_a_dry_run_on_a_corrupt_cache_says_why_nothing_was_cached(
    run_cli, judges, config_file, dataset_file, corrupt_cache
):
    pytest.importorskip("diskcache")
    result = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--dry-run",
        "--cache-dir", corrupt_cache,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert judges.count() == 0
    assert result.out.count("warning: cache unusable: response cache at") == 1


def test_entries_replaced_by_pickles_run_nothing_and_the_judges_are_asked_again(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    pytest.importorskip("diskcache")
    folder, marker = tmp_path / "shared-cache", tmp_path / "pwned"
    args = ("evaluate", dataset_file, *METRICS, "--config", config_file, "--no-history")
    first = run_cli(*args, "--cache-dir", folder)
    assert first.code == 0, first.err
    # As someone who can write the folder (another branch's CI job) would: every entry a
    # pickle that runs code when loaded.
    assert tamper(folder, "UPDATE Cache SET mode = ?, value = ?", MODE_PICKLE, payload(marker))

    result = run_cli(*args, "--cache-dir", folder)
    assert result.code == 0, result.err
    assert not marker.exists()
    assert judges.count() == 2 * 3 * 3  # every call asked again
    assert "cache: 0 hits, 9 misses" in result.out
    warnings = [line for line in result.out.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        f"warning: cache entries ignored: response cache at {folder} holds 9 entries that are "
        "not ragas-boot's JSON (written by an older ragas-boot, or altered): read as misses, "
        "never loaded; run `ragas-boot cache clear` to remove them"
    ]
    assert "cache: 9 hits" in run_cli(*args, "--cache-dir", folder).out  # replaced: fresh JSON


def test_cache_stats_reports_pickled_entries_and_keys_as_corrupt_without_loading_them(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    pytest.importorskip("diskcache")
    folder, marker = tmp_path / "shared-cache", tmp_path / "pwned"
    args = ("evaluate", dataset_file, *METRICS, "--config", config_file, "--no-history")
    assert run_cli(*args, "--cache-dir", folder).code == 0
    bomb = payload(marker)
    tamper(folder, "UPDATE Cache SET mode = ?, value = ? WHERE rowid % 2 = 0", MODE_PICKLE, bomb)
    tamper(folder, "UPDATE Cache SET key = ?, raw = 0 WHERE rowid = 1", bomb)

    result = run_cli("cache", "stats", "--cache-dir", folder)
    assert result.code == 0, result.err
    assert not marker.exists()
    assert "Entries: 4 " in result.out
    assert "Corrupt entries: 5 (not ragas-boot's JSON: never loaded" in result.out
    cleared = run_cli("cache", "clear", "--cache-dir", folder)
    assert cleared.code == 0 and "Removed 9 entries" in cleared.out
    assert not marker.exists()
