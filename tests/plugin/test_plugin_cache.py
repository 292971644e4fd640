"""The response cache under the pytest plugin: a rerun of the session asks no judge, and the
session summary says how many calls the cache answered."""

from __future__ import annotations

CACHED = """
from ragas_boot.testing import assert_score


def test_goal(agent_goal_accuracy):
    assert_score(agent_goal_accuracy.evaluate(SAMPLE), at_least=0.9)
"""


def test_a_rerun_of_the_session_is_answered_from_the_cache(
    project, write_tests, goal_verdicts, openai_server, tmp_path
):
    config = project.path / "application.yaml"
    folder = tmp_path / "session-cache"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f"\nspring.ai.ragas.cache: {{loopback: true, dir: '{folder}'}}\n",
        encoding="utf-8",
    )
    goal_verdicts(a=True, b=True)
    write_tests("test_cached", CACHED)

    first = project.runpytest()
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines(["ragas-boot cache: 0 hits, 2 misses, 0 tokens saved"])
    assert openai_server.count() == 2

    second = project.runpytest()
    second.assert_outcomes(passed=1)
    second.stdout.fnmatch_lines(["ragas-boot cache: 2 hits, 0 misses, * tokens saved"])
    assert openai_server.count() == 2  # the rerun asked no judge
    assert "0 tokens saved" not in second.stdout.str()


def test_no_cache_line_when_the_cache_answered_nothing(project, write_tests, goal_verdicts):
    goal_verdicts(a=True, b=True)  # the test server is on 127.0.0.1: not cached by default
    write_tests("test_plain", CACHED)
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    assert "ragas-boot cache:" not in result.stdout.str()
