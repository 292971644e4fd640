"""The response cache at the executor: hits send nothing, every answer-changing input misses,
only valid answers are stored, secrets stay out, several processes write at once."""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import textwrap
import time
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import BaseModel, Field, SecretStr

from ragas_boot.chat import JudgeSpec, OpenAICompatibleJudge
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import CacheError
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.execution.cache import (
    ResponseCache,
    default_cache_dir,
    is_cacheable,
    on_this_machine,
    request_key,
)
from ragas_boot.testing import Reply

SECRET = "sk-cache-secret-8841"


class Verdict(BaseModel):
    verdict: int


class Rating(BaseModel):
    """Another output model with the same field under another name."""

    rating: int


class BoundedVerdict(BaseModel):
    verdict: int = Field(ge=0, le=1)


def judge(server, model="judge-a", **changes):
    spec = JudgeSpec(
        id=model,
        model=model,
        provider="p",
        base_url=server.base_url,
        api_key=SecretStr(SECRET),
    )
    return OpenAICompatibleJudge(spec=dataclasses.replace(spec, **changes))


@pytest.fixture
def cache(tmp_path):
    # The test server is on 127.0.0.1: judges on this machine are cached only when asked.
    made = ResponseCache(directory=tmp_path / "cache", loopback=True)
    yield made
    made.close()


@pytest.fixture
def run(cache):
    """``run(judges, prompt, model)``: one step on a fresh executor sharing ``cache``."""
    executors = []

    def step(judges, prompt="Is it done?", output_model=Verdict, *, with_cache=cache):
        executor = MultiModelExecutor(judges=judges, cache=with_cache)
        executors.append(executor)
        return executor.portal.call(executor.run_step("Judge", judges, prompt, output_model))

    yield step
    for executor in executors:
        executor.close()


def test_a_second_run_sends_no_request_and_gives_the_same_answers(openai_server, run):
    openai_server.script("judge-a", {"verdict": 1})
    openai_server.script("judge-b", {"verdict": 0})
    judges = [judge(openai_server, "judge-a"), judge(openai_server, "judge-b")]
    first = run(judges)
    assert openai_server.count() == 2
    assert [call.cache for call in first.calls] == ["miss", "miss"]
    second = run([judge(openai_server, "judge-a"), judge(openai_server, "judge-b")])
    assert openai_server.count() == 2  # nothing sent
    assert [call.value for call in second.calls] == [call.value for call in first.calls]
    assert [call.cache for call in second.calls] == ["hit", "hit"]
    assert all(call.cached and call.ok and call.attempts == 0 for call in second.calls)
    # Nothing was spent; what the first call cost is what the hit saved.
    assert [call.usage.total_tokens for call in second.calls] == [0, 0]
    assert [call.saved_usage for call in second.calls] == [call.usage for call in first.calls]
    assert first.calls[0].usage.total_tokens > 0


@pytest.mark.parametrize(
    ("change", "prompt", "output_model"),
    [
        ({}, "Is it really done?", Verdict),  # another prompt
        ({"model": "judge-b"}, "Is it done?", Verdict),  # another model, same judge id
        ({}, "Is it done?", Rating),  # another output schema
        ({}, "Is it done?", BoundedVerdict),  # same field, other constraints
        ({"temperature": 0.0, "max_tokens": 50}, "Is it done?", Verdict),
        ({"top_p": 0.5}, "Is it done?", Verdict),
        ({"structured_output": StructuredOutputMode.JSON_SCHEMA}, "Is it done?", Verdict),
        ({"base_url": "localhost"}, "Is it done?", Verdict),
    ],
    ids=["prompt", "model", "schema", "constraints", "max-tokens", "top-p", "mode", "base-url"],
)
def test_whatever_changes_the_request_misses(openai_server, run, change, prompt, output_model):
    openai_server.respond(None, lambda request: {"verdict": 1, "rating": 1})
    run([judge(openai_server)])
    assert openai_server.count() == 1
    if "base_url" in change:  # the same server under another name is another endpoint
        change = {"base_url": openai_server.base_url.replace("127.0.0.1", "localhost")}
    step = run([judge(openai_server, **change)], prompt, output_model)
    assert openai_server.count() == 2
    assert step.calls[0].cache == "miss" and step.calls[0].ok


def test_another_temperature_misses_when_sampled_answers_are_cached(openai_server, tmp_path, run):
    cache = ResponseCache(directory=tmp_path / "any", any_temperature=True, loopback=True)
    openai_server.respond(None, {"verdict": 1})
    run([judge(openai_server, temperature=0.7)], with_cache=cache)
    again = run([judge(openai_server, temperature=0.7)], with_cache=cache)
    assert again.calls[0].cache == "hit"
    other = run([judge(openai_server, temperature=0.2)], with_cache=cache)
    assert other.calls[0].cache == "miss"
    assert openai_server.count() == 2
    cache.close()


def test_a_sampling_judge_is_not_cached_by_default(openai_server, run):
    openai_server.respond(None, {"verdict": 1})
    for _ in range(2):
        step = run([judge(openai_server, temperature=0.7)])
        assert step.calls[0].cache == "off"
    assert openai_server.count() == 2


def test_judges_on_this_machine_are_asked_every_time_unless_loopback_is_set(
    openai_server, tmp_path, run
):
    default = ResponseCache(directory=tmp_path / "default")
    openai_server.respond(None, {"verdict": 1})
    for _ in range(2):
        assert run([judge(openai_server)], with_cache=default).calls[0].cache == "off"
    assert openai_server.count() == 2
    assert not (tmp_path / "default").exists()  # never even opened
    default.close()


@pytest.mark.parametrize(
    ("base_url", "local"),
    [
        ("http://127.0.0.1:8080", True),
        ("http://localhost:11434", True),
        ("http://[::1]:8000", True),
        ("http://127.0.0.2", True),
        ("https://openrouter.ai/api", False),
        ("http://10.0.0.5:8000", False),
        ("https://user:pw@api.example.com", False),
    ],
)
def test_what_counts_as_on_this_machine(base_url, local):
    spec = JudgeSpec(id="j", model="m", provider="p", base_url=base_url, api_key=SecretStr("k"))
    assert on_this_machine(spec) is local
    assert is_cacheable(spec) is not local
    assert is_cacheable(spec, loopback=True)
    assert not is_cacheable(dataclasses.replace(spec, temperature=0.3), loopback=True)
    in_code = dataclasses.replace(spec, base_url="")  # a chat model instance given in code
    assert not is_cacheable(in_code, loopback=True)


def test_failures_and_invalid_answers_are_never_stored(openai_server, run):
    openai_server.script("judge-a", Reply.error(500), Reply.error(500), Reply.error(500))
    openai_server.script("judge-a", *(Reply.garbage() for _ in range(10)))
    failed = run([judge(openai_server)])
    assert not failed.calls[0].ok and failed.calls[0].cache == "miss"
    invalid = run([judge(openai_server)])
    assert not invalid.calls[0].ok and invalid.calls[0].error_kind == "invalid_output"
    sent = openai_server.count()
    openai_server.reset()
    openai_server.respond(None, {"verdict": 1})
    answered = run([judge(openai_server)])
    assert answered.calls[0].ok and answered.calls[0].cache == "miss"
    assert openai_server.count() == 1  # asked again: nothing had been stored
    assert sent >= 2


def test_an_output_retry_stores_only_the_valid_answer(openai_server, run):
    openai_server.script("judge-a", Reply.text("I think it is done."), {"verdict": 1})
    first = run([judge(openai_server)])
    assert first.calls[0].ok and len(first.calls[0].raw_attempts) == 2
    second = run([judge(openai_server)])
    assert second.calls[0].cached and second.calls[0].raw_text == '{"verdict": 1}'
    assert second.calls[0].value == Verdict(verdict=1)


def test_the_api_key_is_neither_in_the_key_nor_on_disk(openai_server, run, cache, tmp_path):
    openai_server.respond(None, {"verdict": 1})
    run([judge(openai_server)])
    other_key = judge(openai_server, api_key=SecretStr("sk-another-key-0001"))
    assert run([other_key]).calls[0].cached  # the key does not change the answer
    cache.close()
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes()
    key = request_key(judge(openai_server).spec, "Is it done?", Verdict)
    assert len(key) == 64 and SECRET not in key


def test_credentials_in_the_base_url_are_not_in_the_key_either(openai_server, run):
    openai_server.respond(None, {"verdict": 1})
    with_user = openai_server.base_url.replace("http://", "http://alice:url-pass-0001@")
    assert run([judge(openai_server, base_url=with_user)]).calls[0].cache == "miss"
    rotated = openai_server.base_url.replace("http://", "http://alice:url-pass-0002@")
    assert run([judge(openai_server, base_url=rotated)]).calls[0].cache == "hit"
    assert openai_server.count() == 1


def test_would_answer_tells_without_sending(openai_server, run, cache):
    openai_server.respond(None, {"verdict": 1})
    asked = judge(openai_server)
    executor = MultiModelExecutor(judges=[asked], cache=cache)
    assert not executor.would_answer_from_cache(asked, "Is it done?", Verdict)
    run([asked])
    assert executor.would_answer_from_cache(asked, "Is it done?", Verdict)
    assert not executor.would_answer_from_cache(asked, "Something else?", Verdict)
    sampling = judge(openai_server, temperature=1.0)
    assert not executor.would_answer_from_cache(sampling, "Is it done?", Verdict)
    assert openai_server.count() == 1
    executor.close()
    no_cache = MultiModelExecutor(judges=[asked])
    assert not no_cache.would_answer_from_cache(asked, "Is it done?", Verdict)
    no_cache.close()


def test_an_entry_expires_after_its_ttl(openai_server, tmp_path, run):
    cache = ResponseCache(
        directory=tmp_path / "ttl", ttl=timedelta(milliseconds=300), loopback=True
    )
    openai_server.respond(None, {"verdict": 1})
    run([judge(openai_server)], with_cache=cache)
    time.sleep(0.6)
    assert run([judge(openai_server)], with_cache=cache).calls[0].cache == "miss"
    assert openai_server.count() == 2
    cache.close()


def test_an_unusable_cache_folder_is_logged_and_judges_are_asked(
    openai_server, tmp_path, run, caplog
):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache should be", encoding="utf-8")
    cache = ResponseCache(directory=blocker, loopback=True)
    openai_server.respond(None, {"verdict": 1})
    with caplog.at_level(logging.WARNING, logger="ragas_boot.execution.cache"):
        steps = [run([judge(openai_server)], with_cache=cache) for _ in range(2)]
    assert all(step.calls[0].ok for step in steps)
    assert openai_server.count() == 2
    assert f"response cache at {blocker} is unusable" in caplog.text


def test_a_corrupt_cache_file_says_so_and_clearing_removes_it(openai_server, tmp_path, run):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "cache.db").write_bytes(os.urandom(8192))  # random bytes where SQLite should be
    (folder / "notes.txt").write_text("the user's own file", encoding="utf-8")
    cache = ResponseCache(directory=folder, loopback=True)
    openai_server.respond(None, {"verdict": 1})

    step = run([judge(openai_server)], with_cache=cache)
    assert step.calls[0].ok and step.calls[0].cache == "miss"  # the call is not lost
    problem = cache.problem
    assert problem is not None
    assert f"response cache at {folder} is unusable" in problem
    assert "ragas-boot cache clear" in problem
    with pytest.raises(CacheError, match="ragas-boot cache clear"):
        cache.stats()

    removed = cache.discard()
    assert [path.name for path in removed] == ["cache.db"]
    assert (folder / "notes.txt").is_file()  # only the cache's own files go
    assert cache.problem is None
    assert run([judge(openai_server)], with_cache=cache).calls[0].cache == "miss"
    assert run([judge(openai_server)], with_cache=cache).calls[0].cache == "hit"
    assert cache.stats().entries == 1
    assert openai_server.count() == 2
    cache.close()


def test_a_healthy_cache_has_no_problem(cache):
    assert cache.check() is None
    assert cache.stats().entries == 0


def test_the_default_folder_follows_ragas_boot_home(ragas_boot_home, monkeypatch, tmp_path):
    assert default_cache_dir() == ragas_boot_home / "cache"
    monkeypatch.delenv("RAGAS_BOOT_HOME")
    monkeypatch.chdir(tmp_path)
    assert default_cache_dir() == tmp_path / ".ragas-boot" / "cache"


def test_the_cache_home_is_read_as_the_history_reads_it(ragas_boot_home, monkeypatch, tmp_path):
    from ragas_boot.runs.history import history_home

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RAGAS_BOOT_HOME", "~/shared-home ")
    assert default_cache_dir() == tmp_path / "shared-home" / "cache"
    assert default_cache_dir().parent == history_home()


WRITER = textwrap.dedent(
    """
    import pathlib, sys, time
    from pydantic import BaseModel, SecretStr
    from ragas_boot.chat import JudgeSpec, OpenAICompatibleJudge
    from ragas_boot.chat.judge import JudgeAnswer, TokenUsage
    from ragas_boot.execution.cache import ResponseCache

    class Verdict(BaseModel):
        verdict: int

    directory, worker, go = sys.argv[1], int(sys.argv[2]), pathlib.Path(sys.argv[3])
    spec = JudgeSpec(id="m", model="m", provider="p", base_url="http://127.0.0.1:9",
                     api_key=SecretStr("k"))
    judge = OpenAICompatibleJudge(spec=spec)
    cache = ResponseCache(directory=directory)
    cache.lookup("warm-up")  # open the database before the start signal
    while not go.exists():
        time.sleep(0.005)
    for i in range(40):
        answer = JudgeAnswer(value=Verdict(verdict=i), raw_text='{"verdict": %d}' % i,
                             usage=TokenUsage(total_tokens=worker), latency_s=0.0)
        cache.store(judge, f"worker {worker} question {i}", Verdict, answer)
        stored = cache.answer(judge, f"worker {worker} question {i}", Verdict)
        assert stored is not None and stored[0].value.verdict == i, (worker, i)
    cache.close()
    print("wrote", worker)
    """
)


def test_several_processes_write_at_once(tmp_path):
    directory, go = tmp_path / "shared", tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(WRITER, encoding="utf-8")
    env = dict(os.environ)
    writers = [
        subprocess.Popen(
            [sys.executable, str(script), str(directory), str(worker), str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(1, 5)
    ]
    go.touch()  # every writer starts writing now
    outputs = [writer.communicate(timeout=300) for writer in writers]
    for writer, (_, err) in zip(writers, outputs, strict=True):
        assert writer.returncode == 0, err
        assert "unusable" not in err
    cache = ResponseCache(directory=directory)
    stats = cache.stats()
    cache.close()
    assert stats.entries == 4 * 40
    assert stats.tokens == 40 * (1 + 2 + 3 + 4)
    assert stats.models == {"m": 160}


def test_a_run_with_the_cache_off_never_imports_diskcache(tmp_path):
    probe = textwrap.dedent(
        """
        import sys
        from pydantic import BaseModel, SecretStr
        from ragas_boot.chat import JudgeSpec, OpenAICompatibleJudge
        from ragas_boot.config.settings import CacheSettings
        from ragas_boot.execution import MultiModelExecutor
        from ragas_boot.execution.cache import ResponseCache
        from ragas_boot.testing import FakeOpenAIServer

        class Verdict(BaseModel):
            verdict: int

        assert ResponseCache.from_settings(CacheSettings(enabled=False)) is None
        with FakeOpenAIServer() as server:
            server.respond(None, {"verdict": 1})
            spec = JudgeSpec(id="a", model="a", provider="p", base_url=server.base_url,
                             api_key=SecretStr("k"))
            executor = MultiModelExecutor(judges=[OpenAICompatibleJudge(spec=spec)])
            step = executor.portal.call(executor.run_step("S", executor.judges, "q", Verdict))
            executor.close()
        assert step.calls[0].ok and step.calls[0].cache == "off"
        print("diskcache" in sys.modules)
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "False"
    assert not Path(tmp_path / ".ragas-boot").exists()


def test_a_step_answered_from_the_cache_makes_no_client_and_imports_no_transport(tmp_path):
    probe = textwrap.dedent(
        """
        import sys
        from pydantic import BaseModel, SecretStr
        from ragas_boot.chat import JudgeSpec, OpenAICompatibleJudge
        from ragas_boot.chat.judge import JudgeAnswer, TokenUsage
        from ragas_boot.execution import MultiModelExecutor
        from ragas_boot.execution.cache import ResponseCache

        class Verdict(BaseModel):
            verdict: int

        spec = JudgeSpec(id="a", model="a", provider="p", base_url="https://judge.example",
                         api_key=SecretStr("k"))
        judge = OpenAICompatibleJudge(spec=spec)
        cache = ResponseCache(directory=sys.argv[1])
        cache.store(judge, "q", Verdict, JudgeAnswer(value=Verdict(verdict=1),
                    raw_text='{"verdict": 1}', usage=TokenUsage(total_tokens=7), latency_s=0.1))
        executor = MultiModelExecutor(judges=[judge], cache=cache)
        step = executor.portal.call(executor.run_step("S", executor.judges, "q", Verdict))
        executor.close()
        assert step.calls[0].cached and step.calls[0].saved_usage.total_tokens == 7
        print(sorted(m for m in ("langchain_openai", "openai", "aiohttp") if m in sys.modules))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


def test_without_diskcache_a_warning_names_the_extra_and_judges_are_asked(tmp_path):
    probe = textwrap.dedent(
        """
        import importlib.abc, logging, sys

        class NoDiskcache(importlib.abc.MetaPathFinder):  # the [cache] extra not installed
            def find_spec(self, name, path=None, target=None):
                if name == "diskcache" or name.startswith("diskcache."):
                    raise ImportError(f"No module named {name!r}")
                return None

        sys.meta_path.insert(0, NoDiskcache())
        logging.basicConfig(level=logging.WARNING, stream=sys.stdout)
        from pydantic import BaseModel, SecretStr
        from ragas_boot.chat import JudgeSpec, OpenAICompatibleJudge
        from ragas_boot.execution import MultiModelExecutor, ResponseCache
        from ragas_boot.testing import FakeOpenAIServer

        class Verdict(BaseModel):
            verdict: int

        with FakeOpenAIServer() as server:
            server.respond(None, {"verdict": 1})
            spec = JudgeSpec(id="a", model="a", provider="p", base_url=server.base_url,
                             api_key=SecretStr("k"))
            cache = ResponseCache(directory=sys.argv[1], loopback=True)
            executor = MultiModelExecutor(judges=[OpenAICompatibleJudge(spec=spec)], cache=cache)
            for _ in range(2):
                step = executor.portal.call(executor.run_step("S", executor.judges, "q", Verdict))
                assert step.calls[0].ok
            executor.close()
            print("requests", server.count())
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "requests 2" in completed.stdout
    assert completed.stdout.count("pip install 'ragas-boot[cache]'") == 1  # said once


def test_repeats_after_the_first_ask_the_judge_again(openai_server, run):
    from ragas_boot.execution.repeats import repeat_scope

    openai_server.script("judge-a", {"verdict": 1}, {"verdict": 0}, {"verdict": 1})
    judges = [judge(openai_server, "judge-a")]
    with repeat_scope(0):
        first = run(judges)
    with repeat_scope(0):
        cached = run(judges)
    assert openai_server.count() == 1  # the first repeat is answered from the cache
    assert [first.calls[0].cache, cached.calls[0].cache] == ["miss", "hit"]
    repeated = []
    for index in (1, 2):
        with repeat_scope(index):
            repeated.append(run(judges))
    # Repeats exist to sample a flaky judge again: each one is sent, none is a cache hit.
    assert openai_server.count() == 3
    assert [step.calls[0].cache for step in repeated] == ["off", "off"]
    assert [step.calls[0].value.verdict for step in repeated] == [0, 1]
