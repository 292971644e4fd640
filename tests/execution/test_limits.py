"""Per-provider admission: rate limit (WAIT, REJECT, timeout) and the concurrency cap.

Bounds are asserted through counts and orderings of admissions, never wall-clock maxima.
"""

import asyncio
import time
from datetime import timedelta

import pytest

from ragas_boot.chat import ProviderLimits
from ragas_boot.config.settings import RateLimitStrategy
from ragas_boot.errors import RateLimitExceededError
from ragas_boot.execution import ProviderGate


@pytest.mark.asyncio
async def test_reject_fails_at_once_when_the_bucket_is_empty():
    gate = ProviderGate(
        limits=ProviderLimits(provider="groq", rps=2, strategy=RateLimitStrategy.REJECT)
    )
    for _ in range(2):
        async with gate.slot("m"):
            pass
    with pytest.raises(
        RateLimitExceededError, match="Rate limit exceeded for provider: groq"
    ) as err:
        async with gate.slot("m"):
            pass
    assert err.value.provider == "groq"
    assert err.value.judge_id == "m"


@pytest.mark.asyncio
async def test_wait_blocks_until_a_token_and_reports_the_wait():
    gate = ProviderGate(limits=ProviderLimits(provider="p", rps=10))
    waits, admitted = [], []
    for _ in range(12):
        async with gate.slot("m") as waited:
            admitted.append(time.monotonic())
            waits.append(waited)
    # The first ten fit the first second; the eleventh waits until it is over.
    assert max(waits[:10]) < waits[10]
    assert waits[10] >= 0.9
    assert admitted[10] - admitted[0] >= 1.0 - 0.02


@pytest.mark.asyncio
@pytest.mark.parametrize("rps", [1, 3, 10, 2.5])
async def test_no_one_second_window_admits_more_than_rps(rps):
    gate = ProviderGate(limits=ProviderLimits(provider="p", rps=rps, max_concurrency=64))
    admitted: list[float] = []

    async def call():
        async with gate.slot("m"):
            admitted.append(time.monotonic())

    count = int(rps * 2) + 2
    await asyncio.gather(*(call() for _ in range(count)))
    admitted.sort()
    allowed = int(rps)  # at most floor(rps) in any second, the first one included
    assert len(admitted) == count
    for first, later in zip(admitted, admitted[allowed:], strict=False):
        # (0.02 s: the time between admission and the test reading the clock)
        assert later - first >= 1.0 - 0.02


@pytest.mark.asyncio
async def test_fractional_rps_below_one_spaces_single_admissions():
    slow = ProviderGate(limits=ProviderLimits(provider="q", rps=0.8))
    admitted: list[float] = []
    for _ in range(2):
        async with slow.slot("m"):
            admitted.append(time.monotonic())
    assert admitted[1] - admitted[0] >= 1.25 - 0.02  # one admission per 1 / 0.8 s


@pytest.mark.asyncio
async def test_wait_with_a_timeout_gives_up_and_says_so():
    gate = ProviderGate(
        limits=ProviderLimits(provider="slow", rps=1, wait_timeout=timedelta(milliseconds=50))
    )
    async with gate.slot("m"):
        pass
    with pytest.raises(RateLimitExceededError, match="wait timeout exceeded for provider: slow"):
        async with gate.slot("m"):
            pass


@pytest.mark.asyncio
async def test_fractional_rps_is_supported():
    gate = ProviderGate(
        limits=ProviderLimits(provider="p", rps=0.5, strategy=RateLimitStrategy.REJECT)
    )
    async with gate.slot("m"):
        pass
    with pytest.raises(RateLimitExceededError):
        async with gate.slot("m"):
            pass


@pytest.mark.asyncio
async def test_max_concurrency_caps_calls_in_flight():
    gate = ProviderGate(limits=ProviderLimits(provider="p", max_concurrency=2))
    in_flight = 0
    peak = 0

    async def call():
        nonlocal in_flight, peak
        async with gate.slot("m"):
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1

    await asyncio.gather(*(call() for _ in range(6)))
    assert peak == 2


@pytest.mark.asyncio
async def test_no_rate_limit_means_no_waiting():
    gate = ProviderGate(limits=ProviderLimits(provider="p", max_concurrency=100))
    inside = 0
    release = asyncio.Event()

    async def call():
        nonlocal inside
        async with gate.slot("m"):
            inside += 1
            await release.wait()

    tasks = [asyncio.create_task(call()) for _ in range(100)]
    for _ in range(5):  # a few loop turns: nothing may be held back
        await asyncio.sleep(0)
    assert inside == 100
    release.set()
    await asyncio.gather(*tasks)
