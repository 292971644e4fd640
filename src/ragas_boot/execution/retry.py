"""``spring.ai.retry`` as a tenacity policy for one judge HTTP call."""

from __future__ import annotations

from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from ragas_boot.config.settings import RetrySettings
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeTimeoutError,
)

__all__ = ["RetryPolicy"]


class RetryPolicy:
    """Decides which failures are retried and how long to wait before the next attempt.

    Retried: timeouts, dropped or refused connections, 429, 5xx, the codes in
    ``on-http-codes``, and any other 4xx when ``on-client-errors`` is set; never a code in
    ``exclude-on-http-codes``. Invalid output is not retried here (the executor re-asks it
    ``output-retries`` times, counted apart). The wait is the server's ``Retry-After`` when it
    sends one (and ``honor-retry-after`` is on), else exponential backoff
    ``initial-interval × multiplier^(n-1)`` capped at ``max-interval``. A ``Retry-After``
    longer than ``max-interval`` is not waited for: the call fails at once (the server is
    down for longer than this run should wait), see :meth:`refused_wait`.

    Args:
        settings: the ``spring.ai.retry`` section.
    """

    def __init__(self, *, settings: RetrySettings) -> None:
        self._settings = settings
        self._backoff = wait_exponential(
            multiplier=settings.backoff.initial_interval.total_seconds(),
            exp_base=settings.backoff.multiplier,
            max=settings.backoff.max_interval.total_seconds(),
        )

    @property
    def settings(self) -> RetrySettings:
        """The settings this policy follows."""
        return self._settings

    @property
    def max_wait_s(self) -> float:
        """The longest single wait: ``backoff.max-interval``."""
        return self._settings.backoff.max_interval.total_seconds()

    def refused_wait(self, error: BaseException) -> float | None:
        """The ``Retry-After`` of ``error`` when it asks for more than :attr:`max_wait_s`."""
        if (
            self._settings.honor_retry_after
            and isinstance(error, JudgeHTTPError)
            and error.retry_after is not None
            and error.retry_after > self.max_wait_s
        ):
            return error.retry_after
        return None

    def should_retry(self, error: BaseException) -> bool:
        """Whether ``error`` is worth another attempt."""
        if isinstance(error, JudgeTimeoutError | JudgeConnectionError):
            return True
        if not isinstance(error, JudgeHTTPError) or self.refused_wait(error) is not None:
            return False
        code = error.status_code
        settings = self._settings
        if code in settings.exclude_on_http_codes:
            return False
        if code == 429 or code >= 500 or code in settings.on_http_codes:
            return True
        return 400 <= code < 500 and settings.on_client_errors

    def wait_seconds(self, state: RetryCallState) -> float:
        """Seconds to sleep before the next attempt."""
        error = state.outcome.exception() if state.outcome else None
        if (
            self._settings.honor_retry_after
            and isinstance(error, JudgeHTTPError)
            and error.retry_after is not None
        ):
            return min(error.retry_after, self.max_wait_s)
        return float(self._backoff(state))

    def retrying(self, **overrides: Any) -> AsyncRetrying:
        """A fresh tenacity controller for one call (``reraise``: the last error escapes)."""
        options: dict[str, Any] = {
            "stop": stop_after_attempt(self._settings.max_attempts),
            "wait": self.wait_seconds,
            "retry": retry_if_exception(self.should_retry),
            "reraise": True,
        }
        options.update(overrides)
        return AsyncRetrying(**options)
