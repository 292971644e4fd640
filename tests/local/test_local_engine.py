"""The engine under the local judge, on the real bundled SmolLM2-135M: its own greedy loop
makes llama-cpp-python's tokens, a caller that goes stops a generation, and the worker takes
the calls of one template together. Answers are compared with each other, never with what
a 135M model "should" say."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterator
from typing import Literal

import numpy as np
import pytest
from pydantic import BaseModel

from ragas_boot.chat.local.engine import ABANDON_CHECK_EVERY, LlamaEngine
from ragas_boot.chat.local.plan import ChatPlan
from ragas_boot.chat.local.runtime import bundled_model_path
from ragas_boot.chat.local.server import LocalModelServer
from ragas_boot.chat.specs import LocalModelSpec
from ragas_boot.chat.wire.openai import WireError

pytestmark = pytest.mark.local_llm


class Topics(BaseModel):
    """Topics found."""

    topics: list[str]


class Verdict(BaseModel):
    """A verdict."""

    goal_achieved: bool
    reason: str


CONVERSATION = (
    "User: Book me a flight to Paris for Monday, and what is the weather in Tokyo?\n"
    "Assistant: Booked AF1081 for Monday 10:00. Tokyo: 18°C, cloudy — «ça va».\n"
)


def _plan(instructions: str, schema: type[BaseModel], **extra: object) -> ChatPlan:
    fields: dict[str, object] = {
        "model": "m",
        "messages": [{"role": "user", "content": f"{instructions}\n\n{CONVERSATION}"}],
        "temperature": 0.0,
        "max_tokens": 96,
        "schema": schema.model_json_schema(),
    }
    fields.update(extra)
    return ChatPlan(**fields)  # type: ignore[arg-type]


TOPICS = _plan("List the topics of this conversation as JSON.", Topics)
VERDICT = _plan("Was the user's goal achieved? Answer as JSON.", Verdict)


def _engine(decoder: str) -> LlamaEngine:
    return LlamaEngine(
        spec=LocalModelSpec(model_path=bundled_model_path(), n_ctx=2048, decoder=decoder),
        stopping=threading.Event(),
    )


@pytest.fixture(scope="module")
def engine() -> Iterator[LlamaEngine]:
    """The default: llguidance."""
    engine = _engine("llguidance")
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def grammar_engine() -> Iterator[LlamaEngine]:
    """``decoder: grammar``: llama.cpp's GBNF grammar, every token generated."""
    engine = _engine("grammar")
    yield engine
    engine.close()


@pytest.mark.parametrize("plan", [TOPICS, VERDICT], ids=["topics", "verdict"])
def test_the_grammar_decoder_makes_the_tokens_llama_cpp_python_makes(grammar_engine, plan):
    engine = grammar_engine
    ours = engine.generate(plan)
    # create_chat_completion with GreedyGrammar as its logits processor (the fallback path)...
    text, finish, prompt_tokens, completion_tokens = engine._chat_completion(plan, greedy=True)
    # ...and with llama.cpp's own grammar sampler, every token tested at every step.
    reference = engine._chat_completion(plan, greedy=False)

    assert (ours.text, ours.finish_reason) == (text, finish)
    assert (ours.prompt_tokens, ours.completion_tokens) == (prompt_tokens, completion_tokens)
    assert (text, finish, prompt_tokens, completion_tokens) == reference
    assert ours.completion_tokens > 0


def test_a_stop_sequence_ends_the_answer_where_llama_cpp_python_ends_it(grammar_engine):
    engine = grammar_engine
    plan = _plan("Was the user's goal achieved? Answer as JSON.", Verdict, stop=("reason",))
    ours = engine.generate(plan)
    text, finish, _, _ = engine._chat_completion(plan, greedy=True)
    assert "reason" not in ours.text
    assert (ours.text, ours.finish_reason) == (text, finish) == (ours.text, "stop")


def test_a_caller_that_goes_stops_the_generation_within_a_few_tokens(engine):
    checks = 0

    def gone() -> bool:
        nonlocal checks
        checks += 1
        return checks > 2  # present when its turn comes and at token 0, gone at token 8

    with pytest.raises(WireError) as caught:
        engine.generate(VERDICT, abandoned=gone)
    assert caught.value.status == 499
    assert checks == 3
    # The model is free and its answers are unchanged by the interrupted generation.
    again = engine.generate(VERDICT)
    fresh = engine.generate(TOPICS), engine.generate(VERDICT)
    assert again.text == fresh[1].text
    assert again.completion_tokens > 2 * ABANDON_CHECK_EVERY


def test_the_prompt_shared_with_the_last_call_is_not_read_again(engine):
    engine.generate(VERDICT)
    tokens = engine.prompt_tokens(VERDICT)
    assert tokens is not None
    kept = engine.kept_tokens(tokens)
    # Everything but the tail chunk is kept, on a chunk boundary.
    assert 0 < kept < len(tokens)
    assert kept % 32 == 0 and len(tokens) - kept <= 32
    other = engine.prompt_tokens(TOPICS)
    assert other is not None
    assert engine.kept_tokens(other) < kept  # shares only the chat template's head


def _first_logits(engine: LlamaEngine, plan: ChatPlan) -> np.ndarray:
    """The logits of the answer's first token, once ``plan``'s prompt has been read."""
    tokens = engine.prompt_tokens(plan)
    assert tokens is not None
    engine._read_prompt(tokens)
    return engine._last_logits().copy()


def test_a_prompt_reads_to_the_same_logits_whatever_the_model_read_before(engine):
    # Compared bit for bit: a text can hide a difference (the best token rarely moves).
    follow_up = dataclasses.replace(
        TOPICS,
        messages=[{"role": "user", "content": TOPICS.messages[0]["content"] + "User: Thanks!"}],
    )
    engine._llm.reset()
    fresh = _first_logits(engine, TOPICS)
    engine._llm.reset()
    fresh_follow_up = _first_logits(engine, follow_up)

    engine.generate(VERDICT)
    engine.generate(_plan("Describe the booking as JSON.", Booking))
    # Only the chat template's head is shared, less than a chunk: nothing is kept (keeping
    # it would read the rest in other batches, and the logits would differ).
    assert np.array_equal(_first_logits(engine, TOPICS), fresh)
    tokens = engine.prompt_tokens(follow_up)
    assert tokens is not None
    assert engine.kept_tokens(tokens) >= 2 * 32  # all of TOPICS' whole chunks are kept
    assert np.array_equal(_first_logits(engine, follow_up), fresh_follow_up)


def _wait_until_generating(server: LocalModelServer) -> None:
    while not server.peak_generating:
        threading.Event().wait(0.01)


@pytest.mark.asyncio
async def test_a_cancelled_local_call_is_not_recorded_and_the_next_one_answers():
    spec = LocalModelSpec(model_path=bundled_model_path(), n_ctx=2048)
    with LocalModelServer(spec=spec, model_ids=["m"]) as server:
        long = _plan("Was the user's goal achieved? Answer as JSON.", Verdict, max_tokens=400)
        task = asyncio.ensure_future(server.agenerate(long))
        await asyncio.to_thread(_wait_until_generating, server)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        answer = await server.agenerate(VERDICT)
        assert answer.completion_tokens > 0
        assert [record.prompt_tokens for record in server.records] == [answer.prompt_tokens]


class Booking(BaseModel):
    """A structured answer with fixed parts."""

    kind: Literal["flight booking verdict, as agreed with the travel desk"]
    destination: str
    confirmed: bool
    legs: list[Literal["outbound", "return"]]


def test_llguidance_reads_the_text_the_schema_forces_in_batches_and_answers_compact_json(engine):
    before = engine.forced_tokens
    answer = engine.generate(_plan("Describe the booking as JSON.", Booking))
    parsed = Booking.model_validate_json(answer.text)
    assert parsed.kind == "flight booking verdict, as agreed with the travel desk"
    forced = engine.forced_tokens - before
    # The constant alone is a dozen tokens; keys, quotes and brackets come forced too.
    assert forced >= 12
    assert forced < answer.completion_tokens
    assert answer.text.startswith('{"kind": "flight booking verdict')


def test_an_answer_about_to_run_out_of_tokens_still_closes_its_json(engine):
    short = _plan("Was the goal achieved? Explain in detail, as JSON.", Verdict, max_tokens=30)
    answer = engine.generate(short)
    assert answer.finish_reason == "stop"
    assert answer.completion_tokens <= 30
    # Valid, its reason cut short (unsteered, this answer runs into the cap mid-string).
    Verdict.model_validate_json(answer.text)


def test_llguidance_answers_do_not_depend_on_what_ran_before(engine):
    first = engine.generate(TOPICS)
    engine.generate(VERDICT)
    engine.generate(_plan("Describe the booking as JSON.", Booking))
    assert engine.generate(TOPICS).text == first.text


LOOPING_PROMPT = (
    "List every distinct topic that was discussed, each as a short phrase of 2 to 5 words. "
    "Do not repeat a topic.\n\nConversation:\n"
    "[USER]: Book me a flight to Paris for Monday.\n[ASSISTANT]: Searching.\n"
    "[TOOL]: Air France AF1081, Monday 10:00, $450\n[ASSISTANT]: Booking it.\n"
    '[TOOL]: {"status": "confirmed", "pnr": "X7K2QP"}\n'
    "[ASSISTANT]: Booked: Air France AF1081 to Paris, Monday 10:00. Reference X7K2QP.\n"
)


def test_an_answer_that_repeats_itself_is_closed_once_the_loop_shows(engine):
    plan = ChatPlan(
        model="m",
        messages=[{"role": "user", "content": LOOPING_PROMPT}],
        temperature=0.0,
        max_tokens=256,
        schema=Topics.model_json_schema(),
    )
    unguarded = LlamaEngine(
        spec=LocalModelSpec(model_path=bundled_model_path(), n_ctx=2048, stop_loops=False),
        stopping=threading.Event(),
    )
    try:
        looped = unguarded.generate(plan)
    finally:
        unguarded.close()
    stopped_before = engine.loops_stopped
    guarded = engine.generate(plan)

    long = Topics.model_validate_json(looped.text).topics
    short = Topics.model_validate_json(guarded.text).topics
    assert len(long) > len(set(long)) + 4  # the model repeats itself (to max-array-items)
    assert engine.loops_stopped == stopped_before + 1
    # How long the unguarded loop runs depends on the build's arithmetic (an AVX2 build loops
    # over shorter items than -march=native did: 70 tokens against several hundred); the guard
    # must cut it, and keep fewer repeated items.
    assert guarded.completion_tokens < looped.completion_tokens
    assert len(short) < len(long)
    # What came before the loop is kept: the same distinct topics, in the same order.
    assert list(dict.fromkeys(short)) == list(dict.fromkeys(long))
