"""Which failures the retry policy retries, and how long it waits."""

from datetime import timedelta

import pytest
from tenacity import RetryCallState

from ragas_boot.config.settings import BackoffSettings, RetrySettings
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)
from ragas_boot.execution import RetryPolicy


def http(code, retry_after=None):
    return JudgeHTTPError("x", judge_id="j", status_code=code, retry_after=retry_after)


@pytest.mark.parametrize("code", [429, 500, 502, 503, 504])
def test_rate_limits_and_server_errors_are_retried_by_default(code):
    assert RetryPolicy(settings=RetrySettings()).should_retry(http(code))


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried_by_default(code):
    assert not RetryPolicy(settings=RetrySettings()).should_retry(http(code))


def test_on_client_errors_retries_other_4xx():
    policy = RetryPolicy(settings=RetrySettings(on_client_errors=True))
    assert policy.should_retry(http(400))
    assert policy.should_retry(http(401))


def test_listed_codes_are_retried_and_excluded_codes_never():
    policy = RetryPolicy(settings=RetrySettings(on_http_codes=[409], exclude_on_http_codes=[503]))
    assert policy.should_retry(http(409))
    assert not policy.should_retry(http(503))


def test_timeouts_and_dropped_connections_are_retried_but_bad_output_is_not():
    policy = RetryPolicy(settings=RetrySettings())
    assert policy.should_retry(JudgeTimeoutError("t", judge_id="j"))
    assert policy.should_retry(JudgeConnectionError("c", judge_id="j"))
    assert not policy.should_retry(JudgeOutputError("o", judge_id="j", raw_text="{"))
    assert not policy.should_retry(RuntimeError("bug"))


def _state(attempt, error):
    state = RetryCallState(retry_object=None, fn=None, args=(), kwargs={})
    state.attempt_number = attempt
    state.set_exception((type(error), error, None))
    return state


def test_backoff_grows_by_the_multiplier_up_to_the_cap():
    settings = RetrySettings(
        backoff=BackoffSettings(
            initial_interval=timedelta(seconds=2),
            multiplier=2,
            max_interval=timedelta(seconds=5),
        )
    )
    policy = RetryPolicy(settings=settings)
    waits = [policy.wait_seconds(_state(n, http(500))) for n in (1, 2, 3)]
    assert waits == [2.0, 4.0, 5.0]


def test_retry_after_header_wins_over_backoff():
    policy = RetryPolicy(settings=RetrySettings())
    assert policy.wait_seconds(_state(1, http(429, retry_after=0.25))) == 0.25


def test_retry_after_can_be_ignored():
    settings = RetrySettings(
        honor_retry_after=False,
        backoff=BackoffSettings(initial_interval=timedelta(milliseconds=100)),
    )
    policy = RetryPolicy(settings=settings)
    assert policy.wait_seconds(_state(1, http(429, retry_after=30))) == pytest.approx(0.1)
