"""One model call under the house rules: rate-limit token, concurrency slot, timeout, retry.

Judges (through the executor) and the tool-suite agent both call models this way, so both
follow ``spring.ai.retry``, share a provider's limits and report waiting apart from latency.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ragas_boot.errors import JudgeError, JudgeHTTPError, JudgeTimeoutError
from ragas_boot.execution.limits import ProviderGate
from ragas_boot.execution.retry import RetryPolicy

__all__ = ["CallTally", "call_with_retries"]

T = TypeVar("T")


@dataclass
class CallTally:
    """What one logical call cost, over all its attempts.

    Attributes:
        attempts: HTTP attempts made (retries included).
        latency_s: seconds spent inside attempts (not waiting, not backing off).
        wait_s: seconds waiting for a rate-limit token or a concurrency slot.
    """

    attempts: int = 0
    latency_s: float = 0.0
    wait_s: float = 0.0


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    judge_id: str,
    gate: ProviderGate,
    policy: RetryPolicy,
    timeout_s: float | None,
    tally: CallTally,
) -> T:
    """Run ``call`` until it succeeds or the retry policy gives up.

    Each attempt holds the provider's rate-limit token and concurrency slot and runs under
    ``timeout_s``; a timeout becomes :class:`JudgeTimeoutError`, which the policy retries.
    A ``Retry-After`` longer than the policy waits ends the call at once, the requested wait
    in the message; an open circuit (the provider failing in a row) ends it before sending.
    ``call`` must raise judge errors (translate the client's own errors first).

    Raises:
        JudgeError: the last attempt's error, once the policy stops retrying.
        RateLimitExceededError: REJECT found no token, or WAIT ran past its timeout.
    """
    async for attempt in policy.retrying():
        with attempt:
            async with gate.slot(judge_id) as waited:
                tally.wait_s += waited
                tally.attempts += 1
                began = time.perf_counter()
                try:
                    async with asyncio.timeout(timeout_s):
                        return await call()
                except JudgeHTTPError as error:
                    wait = policy.refused_wait(error)
                    if wait is None:
                        raise
                    raise JudgeHTTPError(
                        f"{error}; the server asked to retry after {wait:g}s, more than "
                        f"backoff.max-interval {policy.max_wait_s:g}s: not waiting",
                        judge_id=error.judge_id,
                        status_code=error.status_code,
                        retry_after=wait,
                    ) from error
                except JudgeError:
                    raise
                except TimeoutError:
                    raise JudgeTimeoutError(
                        f"no answer within {timeout_s:g}s", judge_id=judge_id
                    ) from None
                finally:
                    tally.latency_s += time.perf_counter() - began
    raise AssertionError("unreachable: tenacity re-raises the last error")  # pragma: no cover
