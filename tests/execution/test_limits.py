"""Per-provider admission: rate limit (WAIT, REJECT, timeout) and the concurrency cap."""

import asyncio
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
    waits = []
    for _ in range(12):
        async with gate.slot("m") as waited:
            waits.append(waited)
    # The first ten fit the bucket; the rest wait about 0.1 s each for the refill.
    assert max(waits[:10]) < 0.05
    assert sum(waits[10:]) >= 0.1


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
    gate = ProviderGate(limits=ProviderLimits(provider="p"))
    for _ in range(100):
        async with gate.slot("m") as waited:
            assert waited < 0.01
