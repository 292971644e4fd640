"""Per-provider admission: rate limit (WAIT, REJECT, timeout) and the concurrency cap.

Bounds are asserted through counts and orderings of admissions, never wall-clock maxima.
"""

import asyncio
import os
import subprocess
import sys
import time
from datetime import timedelta

import pytest

from ragas_boot.chat import ProviderLimits
from ragas_boot.chat.factory.providers import provider_limits
from ragas_boot.config import load_settings
from ragas_boot.config.settings import RateLimitStrategy
from ragas_boot.errors import BudgetExceededError, RateLimitExceededError
from ragas_boot.execution.limits import ProviderGate, SlidingWindowLimiter


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


@pytest.mark.asyncio
async def test_a_request_never_sent_gives_its_place_back():
    limiter = SlidingWindowLimiter(2)
    first = await limiter.acquire()
    await limiter.acquire()
    assert limiter.try_acquire() is None
    limiter.cancel(first)
    assert limiter.try_acquire() is not None


@pytest.mark.asyncio
async def test_a_place_frees_one_window_after_its_attempt_ended():
    limiter = SlidingWindowLimiter(1)
    ticket = await limiter.acquire()
    await asyncio.sleep(0.3)  # a slow answer: the place counts all along
    limiter.finish(ticket)
    ended = time.monotonic()
    await limiter.acquire()
    assert time.monotonic() >= ended + 1.0


@pytest.mark.asyncio
async def test_an_attempt_refused_by_the_spend_cap_does_not_use_up_the_rate_limit():
    gate = ProviderGate(
        limits=ProviderLimits(provider="p", rps=1, strategy=RateLimitStrategy.REJECT)
    )
    with pytest.raises(BudgetExceededError):
        async with gate.slot("m"):
            raise BudgetExceededError(judge_id="m", max_cost=1.0, spent=1.0)
    async with gate.slot("m"):  # the refused attempt sent nothing: its place is free
        pass
    with pytest.raises(RateLimitExceededError):
        async with gate.slot("m"):
            pass


WORKER = """
import sys
from pathlib import Path
from pydantic import BaseModel, SecretStr
from ragas_boot.chat import JudgeSpec, OpenAICompatibleJudge, ProviderLimits
from ragas_boot.execution import MultiModelExecutor

class Verdict(BaseModel):
    verdict: int

base_url, shared, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
limits = ProviderLimits(provider="p", rps=10, shared_file=shared)
judges = [
    OpenAICompatibleJudge(spec=JudgeSpec(id=f"{name}-{i}", model=f"{name}-{i}", provider="p",
        base_url=base_url, api_key=SecretStr("k"), limits=limits))
    for i in range(15)
]
executor = MultiModelExecutor(judges=judges, output_retries=0)
record = executor.portal.call(executor.run_step("Judge", executor.judges, "q", Verdict))
executor.close()
assert all(call.ok for call in record.calls), [call.error_message for call in record.calls]
"""


def test_a_shared_limit_holds_across_processes(openai_server, tmp_path):
    # Two worker processes (as pytest -n 2 or two CI jobs) share one provider's rps 10.
    openai_server.respond(None, {"verdict": 1})
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    shared = tmp_path / "limits" / "rate-limits.sqlite3"
    workers = [
        subprocess.Popen(
            [sys.executable, str(script), openai_server.base_url, str(shared), name],
            env=os.environ.copy(),
        )
        for name in ("w1", "w2")
    ]
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0]

    times = sorted(r.request.received_at for r in openai_server.requests)
    assert len(times) == 30
    assert {r.request.model[:2] for r in openai_server.requests} == {"w1", "w2"}
    most = max(sum(1 for t in times[i:] if t < first + 1.0) for i, first in enumerate(times))
    assert most <= 10


def test_rate_limit_shared_in_yaml_names_the_file_every_process_uses(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""\
spring.ai.ragas.providers:
  rate-limit.shared-file: {tmp_path / "limits.sqlite3"}
  openai-compatible:
    - name: shared
      base-url: http://127.0.0.1:9
      api-key: k
      rate-limit: {{ rps: 5, shared: true }}
      chat-models: [{{ id: a }}]
    - name: own
      base-url: http://127.0.0.1:9
      api-key: k
      rate-limit: {{ rps: 5 }}
      chat-models: [{{ id: b }}]
""",
        encoding="utf-8",
    )
    settings = load_settings(path, environ={})
    shared, own = (
        provider_limits(settings.providers, provider)
        for provider in settings.providers.openai_compatible
    )

    assert shared.shared_file == tmp_path / "limits.sqlite3"
    assert own.shared_file is None  # opt-in: a limit stays per process unless asked
