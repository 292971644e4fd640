"""A response cache folder someone else could write (restored in CI from another branch,
shared between jobs) is read as data, never as code: entries and keys replaced in the SQLite
file (and in diskcache's value files) by pickles that would run code are corrupt entries: a
miss, a warning, the judge asked again; and ``clear`` deletes no file outside the folder.

The attack is real: the cache's own files are rewritten with sqlite3 as an attacker would,
and each payload, if unpickled, creates a marker file.
"""

from __future__ import annotations

import logging
import pickle
import sqlite3
from pathlib import Path

import pytest
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import JudgeSpec, OpenAICompatibleJudge
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.execution.cache import ResponseCache
from support.cache_attack import MODE_BINARY, MODE_PICKLE, MODE_RAW, MODE_TEXT, payload, tamper

pytest.importorskip("diskcache")


class Verdict(BaseModel):
    verdict: int


def judge(server, model: str = "judge-a") -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge(
        spec=JudgeSpec(
            id=model,
            model=model,
            provider="p",
            base_url=server.base_url,
            api_key=SecretStr("sk-tamper-1234"),
        )
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def step(folder):
    """``step()``: one judge step on a fresh executor and a fresh cache over ``folder`` (as
    the next run would open it); returns the step and that cache."""
    opened: list[tuple[MultiModelExecutor, ResponseCache]] = []

    def run(server):
        cache = ResponseCache(directory=folder, loopback=True)
        judges = [judge(server)]
        executor = MultiModelExecutor(judges=judges, cache=cache)
        opened.append((executor, cache))
        record = executor.portal.call(executor.run_step("Judge", judges, "Is it done?", Verdict))
        return record, cache

    yield run
    for executor, cache in opened:
        executor.close()
        cache.close()


def test_a_pickled_value_in_the_database_is_a_miss_never_run(
    openai_server, step, folder, tmp_path, caplog
):
    openai_server.respond(None, {"verdict": 1})
    first, _ = step(openai_server)
    assert first.calls[0].cache == "miss"
    marker = tmp_path / "pwned"
    assert tamper(folder, "UPDATE Cache SET mode = ?, value = ?", MODE_PICKLE, payload(marker))

    with caplog.at_level(logging.WARNING, logger="ragas_boot.execution.cache"):
        again, cache = step(openai_server)
    assert not marker.exists()  # nothing ran
    assert again.calls[0].ok and again.calls[0].cache == "miss"
    assert openai_server.count() == 2  # the judge was asked again
    assert cache.corrupt_entries == 1
    assert cache.problem is None  # the cache still works: the entry is replaced
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert f"response cache at {folder}" in warnings[0]
    assert "not ragas-boot's JSON" in warnings[0] and "ragas-boot cache clear" in warnings[0]

    third, _ = step(openai_server)  # the fresh answer replaced the bad entry
    assert third.calls[0].cache == "hit"
    assert openai_server.count() == 2


def test_a_pickled_value_in_a_value_file_is_a_miss_never_run(openai_server, step, folder, tmp_path):
    openai_server.respond(None, {"verdict": 1})
    step(openai_server)
    marker = tmp_path / "pwned"
    value_file = folder / "ab" / "cd" / ("0" * 28 + ".val")
    value_file.parent.mkdir(parents=True)
    value_file.write_bytes(payload(marker))
    tamper(
        folder,
        "UPDATE Cache SET mode = ?, filename = ?, value = NULL",
        MODE_PICKLE,
        str(value_file.relative_to(folder)),
    )
    again, cache = step(openai_server)
    assert not marker.exists()
    assert again.calls[0].ok and again.calls[0].cache == "miss"
    assert cache.corrupt_entries == 1


def test_an_entry_in_the_old_pickled_format_is_a_miss_with_a_warning(
    openai_server, step, folder, caplog
):
    # What ragas-boot wrote before entries were JSON: the same dict, pickled by diskcache.
    openai_server.respond(None, {"verdict": 1})
    step(openai_server)
    with sqlite3.connect(folder / "cache.db") as connection:
        ((value,),) = connection.execute("SELECT value FROM Cache").fetchall()
    connection.close()
    import json

    old = pickle.dumps(json.loads(value))
    tamper(folder, "UPDATE Cache SET mode = ?, value = ?", MODE_PICKLE, old)
    with caplog.at_level(logging.WARNING, logger="ragas_boot.execution.cache"):
        again, cache = step(openai_server)
    assert again.calls[0].cache == "miss" and openai_server.count() == 2
    assert cache.corrupt_entries == 1
    assert any("not ragas-boot's JSON" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("mode", "value"),
    [
        (MODE_RAW, b"\x80\x04not json"),  # bytes where text belongs
        (MODE_RAW, "{not json"),
        (MODE_RAW, '["a", "list"]'),  # JSON, not an entry
        (MODE_RAW, 42),
        (MODE_BINARY, None),
    ],
    ids=["bytes", "broken-json", "json-list", "number", "binary-file"],
)
def test_whatever_else_is_stored_is_a_corrupt_entry(openai_server, step, folder, mode, value):
    openai_server.respond(None, {"verdict": 1})
    step(openai_server)
    tamper(folder, "UPDATE Cache SET mode = ?, value = ?", mode, value)
    again, cache = step(openai_server)
    assert again.calls[0].ok and again.calls[0].cache == "miss"
    assert cache.corrupt_entries == 1


def test_a_pickled_key_is_never_loaded_and_counts_as_corrupt(openai_server, step, folder, tmp_path):
    openai_server.respond(None, {"verdict": 1})
    _, cache = step(openai_server)
    marker = tmp_path / "pwned"
    # diskcache unpickles a key whose row says raw = 0 when it lists keys (stats, entries).
    tamper(folder, "UPDATE Cache SET key = ?, raw = 0", payload(marker))
    cache.close()
    reader = ResponseCache(directory=folder)
    stats = reader.stats()
    reader.close()
    assert not marker.exists()
    assert (stats.entries, stats.corrupt) == (0, 1)


def test_clear_deletes_no_file_a_row_points_outside_the_folder(
    openai_server, step, folder, tmp_path
):
    openai_server.respond(None, {"verdict": 1})
    step(openai_server)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's file", encoding="utf-8")
    tamper(folder, "UPDATE Cache SET mode = ?, filename = ?", MODE_TEXT, "../victim.txt")
    reader = ResponseCache(directory=folder)
    assert reader.stats().corrupt == 1  # not read either
    assert reader.clear() == 1
    reader.close()
    assert victim.read_text(encoding="utf-8") == "the user's file"


def test_entries_are_stored_as_json_text(openai_server, step, folder):
    import json

    openai_server.respond(None, {"verdict": 1})
    step(openai_server)
    with sqlite3.connect(folder / "cache.db") as connection:
        rows = connection.execute("SELECT raw, mode, value FROM Cache").fetchall()
    connection.close()
    ((raw, mode, value),) = rows
    assert (raw, mode) == (1, MODE_RAW)
    assert json.loads(json.loads(value)["raw_text"]) == {"verdict": 1}
