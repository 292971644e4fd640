"""``@pytest.mark.ragas_live``: live-provider tests run only when asked, and say what is missing."""

from __future__ import annotations

import pytest

LIVE_TESTS = """
import pytest

@pytest.mark.ragas_live(env="RAGAS_TEST_KEY_ONE")
def test_one_key():
    pass

@pytest.mark.ragas_live("RAGAS_TEST_KEY_ONE", env=["RAGAS_TEST_KEY_TWO"])
def test_two_keys():
    pass

@pytest.mark.ragas_live
def test_no_key():
    pass

@pytest.mark.ragas_live(envs="RAGAS_TEST_KEY_ONE")
def test_typo():
    pass
"""


@pytest.fixture
def live(plain, monkeypatch):
    """The live tests above, run with ``--strict-markers``, in a clean environment."""
    for name in ("RAGAS_LIVE", "RAGAS_TEST_KEY_ONE", "RAGAS_TEST_KEY_TWO"):
        monkeypatch.delenv(name, raising=False)
    plain.makepyfile(test_live=LIVE_TESTS)
    return lambda: plain.runpytest("--strict-markers", "-rsE")


def test_without_ragas_live_every_live_test_skips_naming_what_to_set(live):
    result = live()

    result.assert_outcomes(skipped=3, errors=1)
    result.stdout.fnmatch_lines_random(
        [
            "SKIPPED * test_live.py:*: live provider test: "
            "set RAGAS_LIVE=1 and RAGAS_TEST_KEY_ONE to run it",
            "SKIPPED * test_live.py:*: live provider test: "
            "set RAGAS_LIVE=1 and RAGAS_TEST_KEY_ONE and RAGAS_TEST_KEY_TWO to run it",
            "SKIPPED * test_live.py:*: live provider test: set RAGAS_LIVE=1 to run it",
            "ragas_live: unknown argument(s) envs; use env='VAR' or env=[[]'VAR', ...[]]",
        ]
    )


def test_with_ragas_live_a_missing_key_is_named(live, monkeypatch):
    monkeypatch.setenv("RAGAS_LIVE", "1")
    monkeypatch.setenv("RAGAS_TEST_KEY_ONE", "sk-one")

    result = live()

    result.assert_outcomes(passed=2, skipped=1, errors=1)
    result.stdout.fnmatch_lines(
        ["SKIPPED * test_live.py:*: live provider test: RAGAS_TEST_KEY_TWO is not set"]
    )


@pytest.mark.parametrize("flag", ["0", "false", "", "no"])
def test_ragas_live_must_say_yes(live, monkeypatch, flag):
    monkeypatch.setenv("RAGAS_LIVE", flag)
    monkeypatch.setenv("RAGAS_TEST_KEY_ONE", "sk-one")
    monkeypatch.setenv("RAGAS_TEST_KEY_TWO", "sk-two")

    live().assert_outcomes(skipped=3, errors=1)


def test_with_everything_set_live_tests_run(live, monkeypatch):
    monkeypatch.setenv("RAGAS_LIVE", "true")
    monkeypatch.setenv("RAGAS_TEST_KEY_ONE", "sk-one")
    monkeypatch.setenv("RAGAS_TEST_KEY_TWO", "sk-two")

    live().assert_outcomes(passed=3, errors=1)
