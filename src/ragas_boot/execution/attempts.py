"""One model call under the house rules: rate-limit token, concurrency slot, timeout, retry.

Judges (through the executor) and the tool-suite agent both call models this way, so both
follow ``spring.ai.retry``, share a provider's limits and report waiting apart from latency.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ragas_boot.chat.specs import JudgeSpec, ProviderLimits
from ragas_boot.config.settings import RetrySettings
from ragas_boot.errors import JudgeError, JudgeHTTPError, JudgeTimeoutError
from ragas_boot.execution.limits import ProviderGate
from ragas_boot.execution.retry import RetryPolicy

__all__ = ["CallTally", "ModelTurns", "call_with_retries"]

T = TypeVar("T")

log = logging.getLogger(__name__)


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
    abandoned: Callable[[], None] | None = None,
) -> T:
    """Run ``call`` until it succeeds or the retry policy gives up.

    Each attempt holds the provider's concurrency slot and rate-limit place and runs under
    ``timeout_s``; a timeout becomes :class:`JudgeTimeoutError`, which the policy retries.
    A ``Retry-After`` longer than the policy waits ends the call at once, the requested wait
    in the message; an open circuit (the provider failing in a row) ends it before sending.
    With hedging on for the provider, an attempt still unanswered after the gate's
    :meth:`~ProviderGate.hedge_delay` gets a copy (its own slot and place): the first answer
    wins, the other copy is cancelled (``abandoned`` is told, to bill it) and both count as
    attempts. ``call`` must raise judge errors (translate the client's own errors first).

    Raises:
        JudgeError: the last attempt's error, once the policy stops retrying.
        RateLimitExceededError: REJECT found no token, or WAIT ran past its timeout.
    """

    async def one(sent: list[bool] | None = None) -> T:
        return await _attempt(call, judge_id, gate, policy, timeout_s, tally, sent)

    async for attempt in policy.retrying():
        with attempt:
            if not gate.limits.hedge:
                return await one()
            return await _hedged(one, gate, abandoned)
    raise AssertionError("unreachable: tenacity re-raises the last error")  # pragma: no cover


async def _attempt(
    call: Callable[[], Awaitable[T]],
    judge_id: str,
    gate: ProviderGate,
    policy: RetryPolicy,
    timeout_s: float | None,
    tally: CallTally,
    sent: list[bool] | None = None,
) -> T:
    async with gate.slot(judge_id) as waited:
        tally.wait_s += waited
        tally.attempts += 1
        if sent is not None:  # past admission: the request goes out now
            sent.append(True)
        began = time.perf_counter()
        try:
            async with asyncio.timeout(timeout_s):
                answer = await call()
            gate.record_latency(time.perf_counter() - began)
            return answer
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
            raise JudgeTimeoutError(f"no answer within {timeout_s:g}s", judge_id=judge_id) from None
        finally:
            tally.latency_s += time.perf_counter() - began


#: How often an attempt looks again for the provider's p95 while it is not known yet.
_P95_LOOK_S = 0.1
#: Copies of one attempt at most: one more after each further delay, so that a copy that
#: hangs as well (1 in 100 at a 1% hang rate) does not bring the timeout back.
HEDGE_MAX_COPIES = 2


async def _hedged(
    one: Callable[[list[bool]], Awaitable[T]],
    gate: ProviderGate,
    abandoned: Callable[[], None] | None,
) -> T:
    """``one()``, and another ``one()`` each time the gate's hedge delay passes with no
    answer (:data:`HEDGE_MAX_COPIES` at most): the first success wins; when every copy
    sent has failed, the first error is raised."""
    started = time.monotonic()
    sent: list[list[bool]] = [[]]
    tasks = [asyncio.ensure_future(one(sent[0]))]
    error: BaseException | None = None
    try:
        while True:
            # A p95 that becomes known while this attempt waits applies to it as well: the
            # first calls of a run must not wait out a hang because they started too early.
            delay = gate.hedge_delay()
            timeout: float | None = None
            if len(tasks) <= HEDGE_MAX_COPIES:
                due = None if delay is None else started + delay * len(tasks)
                timeout = _P95_LOOK_S if due is None else max(0.0, due - time.monotonic())
            pending = [task for task in tasks if not task.done()]
            done, _ = await asyncio.wait(
                pending, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            for task in tasks:  # in sending order: the original's error is reported first
                if task in done and not task.cancelled():
                    failure = task.exception()
                    if failure is None:
                        return task.result()
                    error = error or failure
            if all(task.done() for task in tasks):
                assert error is not None
                raise error
            if not done and delay is not None and timeout is not None:
                log.debug("attempt unanswered after %.3gs: sending a hedged copy", delay)
                sent.append([])
                tasks.append(asyncio.ensure_future(one(sent[-1])))
    finally:
        for task, went in zip(tasks, sent, strict=True):
            if not task.done():
                task.cancel()
                if went and abandoned is not None:  # one still queued cost nothing
                    abandoned()
        await asyncio.gather(*tasks, return_exceptions=True)


class ModelTurns:
    """The tool agent's turns under the judges' rules: the provider's limits (one gate per
    event loop) and the retry policy.

    A :class:`~ragas_boot.chat.openai.agent.TurnPolicy` for
    ``OpenAIToolAgent(spec=..., turns=ModelTurns.of(spec, retry))``: the agent sits in
    ``chat/``, below this layer, so whoever builds it passes one.

    Args:
        limits: the provider's rate limit, concurrency cap and timeout.
        policy: the retry policy.
    """

    def __init__(self, *, limits: ProviderLimits, policy: RetryPolicy) -> None:
        self._limits = limits
        self._policy = policy
        self._gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ProviderGate] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def of(cls, spec: JudgeSpec, retry: RetrySettings | RetryPolicy | None = None) -> ModelTurns:
        """The turns of the model of ``spec``: its provider's limits and ``retry`` (the
        ``spring.ai.retry`` settings, or a policy made from them; the defaults when omitted).

        Raises:
            TypeError: ``retry`` is neither.
        """
        if retry is None:
            retry = RetrySettings()
        if isinstance(retry, RetrySettings):
            retry = RetryPolicy(settings=retry)
        if not isinstance(retry, RetryPolicy):
            raise TypeError(
                f"retry must be RetrySettings or a RetryPolicy, got {type(retry).__name__}"
            )
        return cls(limits=spec.limits, policy=retry)

    async def attempt(
        self, turn: Callable[[], Awaitable[Any]], *, model_id: str, timeout_s: float | None
    ) -> tuple[Any, float]:
        """Run one turn with :func:`call_with_retries`; return it and the seconds waited."""
        loop = asyncio.get_running_loop()
        gate = self._gates.get(loop)
        if gate is None:
            gate = self._gates[loop] = ProviderGate(limits=self._limits)
        tally = CallTally()
        answer = await call_with_retries(
            turn,
            judge_id=model_id,
            gate=gate,
            policy=self._policy,
            timeout_s=timeout_s,
            tally=tally,
        )
        return answer, tally.wait_s
