"""An OpenAI-compatible judge on ``transport: batch``, over real HTTP to the test server's batch
API: calls made together go in one batch file of the direct transport's request bodies, and
every way a batch can fail is the judge error a synchronous call would give."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import pytest
import pytest_asyncio
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.chat.openai.direct import DirectChat
from ragas_boot.chat.specs import BatchSpec
from ragas_boot.config.settings import StructuredOutputMode, Transport
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)
from ragas_boot.testing import FakeOpenAIServer, Reply

SECRET = "sk-batch-secret-5521"
FAST = BatchSpec(
    poll_interval=timedelta(milliseconds=10),
    max_poll_interval=timedelta(milliseconds=40),
    quiet_period=timedelta(milliseconds=50),
)


class Verdict(BaseModel):
    verdict: int
    reason: str


def _answer(request: Any) -> dict[str, object]:
    return {"verdict": len(request.prompt.split()), "reason": "counted"}


MakeJudge = Callable[..., OpenAICompatibleJudge]


@pytest_asyncio.fixture
async def make_judge(openai_server: FakeOpenAIServer) -> AsyncIterator[MakeJudge]:
    made: list[OpenAICompatibleJudge] = []
    openai_server.respond(None, _answer)

    def build(path: str = "/v1/chat/completions", **batch: Any) -> OpenAICompatibleJudge:
        judge = OpenAICompatibleJudge(
            spec=OpenAICompatibleSpec(
                id="judge-a",
                model="judge-a",
                provider="fake",
                base_url=openai_server.base_url,
                api_key=SecretStr(SECRET),
                completions_path=path,
                structured_output=StructuredOutputMode.JSON_SCHEMA,
                limits=ProviderLimits(provider="fake", call_timeout=timedelta(seconds=10)),
                transport=Transport.BATCH,
                batch=dataclasses.replace(FAST, **batch),
            )
        )
        made.append(judge)
        return judge

    yield build
    for judge in made:
        await judge.aclose()


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(3000):  # the server's own progress, not a time limit on ours
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the test server never got there")


async def _ask(judge: OpenAICompatibleJudge, *prompts: str) -> list[Any]:
    return await asyncio.gather(
        *(judge.ainvoke_structured(prompt, Verdict) for prompt in prompts),
        return_exceptions=True,
    )


@pytest.mark.asyncio
async def test_calls_made_together_go_in_one_batch_of_the_direct_transports_bodies(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    judge = make_judge()
    prompts = ["one", "one two", "one two three", "naïve café ünïcode", "one"]

    answers = await _ask(judge, *prompts)

    assert [answer.value.verdict for answer in answers] == [1, 2, 3, 3, 1]
    assert all(answer.batched for answer in answers)
    assert answers[0].usage.input_tokens > 0
    assert openai_server.count() == 0  # nothing was sent synchronously
    (batch,) = openai_server.batches
    assert batch.metadata == {"ragas_boot_judge": "judge-a"}
    direct = DirectChat(spec=judge.spec, api_base=f"{openai_server.url}")
    sent = [line.request.body for line in batch.lines]
    assert sent == [json.loads(direct.request_body(prompt, Verdict)) for prompt in prompts]
    # The same prompt twice is two requests (a judge asked twice may answer twice).
    assert len({line.request.index for line in batch.lines}) == 5


@pytest.mark.asyncio
async def test_a_round_bigger_than_a_file_holds_is_split_by_requests_and_bytes(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    await _ask(make_judge(max_requests=2), *(f"p{index}" for index in range(5)))
    assert [len(batch.lines) for batch in openai_server.batches] == [2, 2, 1]

    openai_server.reset()
    openai_server.respond(None, _answer)
    await _ask(make_judge(max_file_bytes=2048), *("word " * 100 for _ in range(4)))
    sizes = [len(batch.lines) for batch in openai_server.batches]
    assert sum(sizes) == 4 and len(sizes) > 1


@pytest.mark.asyncio
async def test_a_failed_line_is_the_error_of_its_status_and_the_others_are_answered(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.when(lambda request: "bad" in request.prompt, Reply.error(503, "overloaded"))

    good, bad = await _ask(make_judge(), "fine", "bad one")

    assert good.value.verdict == 1
    assert isinstance(bad, JudgeHTTPError)
    assert bad.status_code == 503
    assert "overloaded" in str(bad)
    assert bad.batched


@pytest.mark.asyncio
async def test_an_answer_that_is_not_valid_is_the_output_error_with_its_text(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.when(lambda request: "odd" in request.prompt, {"verdict": "many"})

    (failure,) = await _ask(make_judge(), "odd")

    assert isinstance(failure, JudgeOutputError)
    assert failure.raw_text == '{"verdict": "many"}'
    assert failure.batched
    assert failure.usage is not None  # generated, so billed


@pytest.mark.asyncio
async def test_lines_an_expired_batch_did_not_answer_time_out(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.expire_next_batch(answered=1)

    first, second = await _ask(make_judge(), "first", "second")

    assert first.value.verdict == 1
    assert isinstance(second, JudgeTimeoutError)
    assert "expired" in str(second)


@pytest.mark.asyncio
async def test_a_batch_cancelled_at_the_provider_fails_its_calls_as_a_dropped_connection(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.set_batch_timing(in_progress=60)
    calls = asyncio.ensure_future(_ask(make_judge(), "one", "two"))
    await _until(lambda: bool(openai_server.batches))
    openai_server.cancel_batch(openai_server.batches[0].id)

    failures = await calls

    assert all(isinstance(failure, JudgeConnectionError) for failure in failures)
    assert "cancelled" in str(failures[0])


@pytest.mark.asyncio
async def test_a_batch_that_fails_validation_is_a_400_naming_the_line_at_fault(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.fail_next_batch("invalid_value: max_completion_tokens too large", line=2)

    first, second = await _ask(make_judge(), "first", "second")

    assert isinstance(second, JudgeHTTPError) and second.status_code == 400
    assert "max_completion_tokens too large" in str(second)
    assert isinstance(first, JudgeHTTPError) and first.status_code == 400
    assert "failed validation" in str(first)


@pytest.mark.asyncio
async def test_a_batch_past_its_timeout_is_cancelled_and_its_calls_time_out(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.set_batch_timing(in_progress=60)

    (failure,) = await _ask(make_judge(timeout=timedelta(milliseconds=300)), "slow")

    assert isinstance(failure, JudgeTimeoutError)
    assert "batch.timeout" in str(failure)
    assert openai_server.batches[0].status in ("cancelling", "cancelled")


@pytest.mark.asyncio
async def test_polls_back_off_from_the_poll_interval_to_its_maximum(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.set_batch_timing(in_progress=1.0)
    judge = make_judge(
        poll_interval=timedelta(milliseconds=20), max_poll_interval=timedelta(milliseconds=320)
    )

    await _ask(judge, "one")

    # Every 20 ms for a second would be 50 polls; doubling waits make a handful.
    assert 3 <= openai_server.batches[0].polls <= 12


@pytest.mark.asyncio
async def test_a_round_below_min_size_is_sent_synchronously(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    answers = await _ask(make_judge(min_size=3), "one", "two")

    assert [answer.value.verdict for answer in answers] == [1, 1]
    assert not any(answer.batched for answer in answers)
    assert openai_server.count() == 2
    assert openai_server.batches == []


@pytest.mark.asyncio
async def test_with_retry_synchronously_a_call_that_failed_in_a_batch_is_sent_directly(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.script("judge-a", Reply.error(500, "flaky"))
    judge = make_judge(retry_synchronously=True)

    (failure,) = await _ask(judge, "again")
    (answer,) = await _ask(judge, "again")

    assert isinstance(failure, JudgeHTTPError) and failure.batched
    assert not answer.batched
    assert answer.value.verdict == 1
    assert (len(openai_server.batches), openai_server.count()) == (1, 1)


@pytest.mark.asyncio
async def test_a_provider_without_a_batch_api_says_so(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    (failure,) = await _ask(make_judge(path="/elsewhere/v1/chat/completions"), "one")

    assert isinstance(failure, JudgeHTTPError) and failure.status_code == 404
    assert "batch API" in str(failure) and "transport: direct" in str(failure)
    assert SECRET not in str(failure)


@pytest.mark.asyncio
async def test_a_caller_that_stops_waiting_leaves_its_batch_running_at_the_provider(
    openai_server: FakeOpenAIServer, make_judge: MakeJudge
) -> None:
    openai_server.set_batch_timing(in_progress=60)
    judge = make_judge()
    call = asyncio.ensure_future(judge.ainvoke_structured("one", Verdict))
    await _until(lambda: bool(openai_server.batches) and openai_server.batches[0].polls >= 2)

    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    polls = openai_server.batches[0].polls
    await asyncio.sleep(0.3)

    (batch,) = openai_server.batches
    assert batch.status == "in_progress"  # not cancelled: a resumed run polls it
    assert batch.polls <= polls + 1  # and nobody polls it any more
