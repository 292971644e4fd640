"""The local model's worker thread: one generation at a time, the best-sharing waiting
request next (bounded), callers that go, shutdown. No model: ``run`` is a stand-in that
records what ran and holds the "KV state" (the tokens of the last prompt)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from ragas_boot.chat.local.plan import ChatPlan, Generation
from ragas_boot.chat.local.worker import MAX_PASSED, ModelWorker
from ragas_boot.chat.wire.openai import WireError


class Model:
    """A stand-in model: a plan's prompt tokens are its message's characters' code points."""

    def __init__(self) -> None:
        self.held: list[int] = []
        self.ran: list[str] = []
        self.hold = threading.Event()  # set: generations may finish
        self.hold.set()
        self.running = threading.Event()
        self.stopped_early: list[str] = []

    @staticmethod
    def tokens(plan: ChatPlan) -> list[int] | None:
        text = plan.messages[0]["content"]
        if text == "untokenizable":
            raise WireError(400, "no template for it", param="messages")
        return [ord(c) for c in text]

    def kept(self, tokens: list[int]) -> int:
        shared = 0
        for held, token in zip(self.held, tokens, strict=False):
            if held != token:
                break
            shared += 1
        return shared

    def run(
        self, plan: ChatPlan, tokens: list[int] | None, abandoned: Callable[[], bool]
    ) -> Generation:
        text = plan.messages[0]["content"]
        if text == "boom":
            raise WireError(400, "the schema has no grammar", param="response_format")
        self.running.set()
        while not self.hold.wait(0.01):
            if abandoned():
                self.stopped_early.append(text)
                raise WireError(499, "the client closed the connection during generation")
        self.ran.append(text)
        self.held = tokens if tokens is not None else [ord(c) for c in text]
        return Generation(
            text=f"answer to {text}",
            finish_reason="stop",
            prompt_tokens=len(text),
            completion_tokens=3,
            started=0.0,
            finished=0.0,
        )


def plan(text: str) -> ChatPlan:
    return ChatPlan(model="m", messages=[{"role": "user", "content": text}], temperature=0)


@pytest.fixture
def model() -> Model:
    return Model()


@pytest.fixture
def worker(model: Model) -> Iterator[ModelWorker]:
    worker = ModelWorker(
        run=model.run, tokens=model.tokens, kept=model.kept, name="ragas-boot-local-test-worker"
    )
    yield worker
    model.hold.set()
    worker.shutdown()


def _blocked_first(model: Model, worker: ModelWorker, first: str) -> None:
    """Start ``first`` and hold it running, so that later submissions wait."""
    model.hold.clear()
    worker.submit(plan(first))
    assert model.running.wait(5)


def test_the_waiting_request_sharing_most_with_the_last_prompt_runs_next(model, worker):
    _blocked_first(model, worker, "metric A: sample 1")
    jobs = [
        worker.submit(plan(text))
        for text in ("metric B: sample 1", "metric A: sample 2", "metric B: sample 2")
    ]
    assert worker.waiting == 3
    model.hold.set()
    answers = [job.future.result(5) for job in jobs]

    assert [a.text for a in answers] == [
        "answer to metric B: sample 1",
        "answer to metric A: sample 2",
        "answer to metric B: sample 2",
    ]
    # A then A (shares "metric A: sample "), then the Bs (the first B submitted first).
    assert model.ran == [
        "metric A: sample 1",
        "metric A: sample 2",
        "metric B: sample 1",
        "metric B: sample 2",
    ]


def test_a_request_passed_over_too_often_runs_next(model, worker):
    _blocked_first(model, worker, "aaaa 0")
    lonely = worker.submit(plan("zzzz"))
    crowd = [worker.submit(plan(f"aaaa {n}")) for n in range(1, MAX_PASSED + 3)]
    model.hold.set()
    lonely.future.result(5)
    for job in crowd:
        job.future.result(5)

    # Every "aaaa" shares more with the last prompt; "zzzz" still runs after MAX_PASSED.
    assert model.ran.index("zzzz") == MAX_PASSED + 1
    assert sorted(model.ran[1:]) == sorted(
        ["zzzz"] + [f"aaaa {n}" for n in range(1, MAX_PASSED + 3)]
    )


def test_a_cancelled_waiting_request_never_runs(model, worker):
    _blocked_first(model, worker, "first")
    job = worker.submit(plan("cancelled"))
    after = worker.submit(plan("after"))
    assert job.future.cancel()
    model.hold.set()
    after.future.result(5)
    assert model.ran == ["first", "after"]


def test_a_caller_gone_while_queued_gets_499_without_running(model, worker):
    _blocked_first(model, worker, "first")
    job = worker.submit(plan("queued"), client_gone=lambda: True)
    model.hold.set()
    with pytest.raises(WireError) as caught:
        job.future.result(5)
    assert caught.value.status == 499
    assert "queued" not in model.ran


def test_a_caller_gone_while_running_stops_the_generation_and_frees_the_model(model, worker):
    model.hold.clear()
    job = worker.submit(plan("long"))
    assert model.running.wait(5)
    following = worker.submit(plan("next"))
    job.gone.set()  # what a cancelled await does
    with pytest.raises(WireError) as caught:
        job.future.result(5)
    assert caught.value.status == 499
    assert model.stopped_early == ["long"]
    model.hold.set()
    assert following.future.result(5).text == "answer to next"


def test_errors_of_a_run_reach_its_caller_and_the_worker_goes_on(model, worker):
    failing = worker.submit(plan("boom"))
    with pytest.raises(WireError, match="no grammar"):
        failing.future.result(5)
    assert worker.submit(plan("fine")).future.result(5).text == "answer to fine"


def test_a_plan_that_cannot_be_tokenized_is_still_run_so_that_it_reports_its_error(model, worker):
    _blocked_first(model, worker, "first")
    odd = worker.submit(plan("untokenizable"))
    other = worker.submit(plan("other"))
    model.hold.set()
    assert odd.future.result(5).text == "answer to untokenizable"
    assert other.future.result(5).text == "answer to other"


def test_a_caller_can_submit_while_the_worker_reads_the_waiting_prompts(model):
    reading = threading.Event()
    release = threading.Event()
    released: list[bool] = []

    def tokens(plan: ChatPlan) -> list[int] | None:
        if plan.messages[0]["content"] == "long template":
            reading.set()
            released.append(release.wait(5))  # False: no caller could submit meanwhile
        return Model.tokens(plan)

    worker = ModelWorker(
        run=model.run, tokens=tokens, kept=model.kept, name="ragas-boot-local-test-worker"
    )
    try:
        _blocked_first(model, worker, "first")
        jobs = [worker.submit(plan("long template")), worker.submit(plan("other"))]
        model.hold.set()  # "first" ends; the worker reads the two waiting prompts
        assert reading.wait(5)
        jobs.append(worker.submit(plan("late")))  # while the worker is still reading
        release.set()
        assert [job.future.result(5).text for job in jobs] == [
            "answer to long template",
            "answer to other",
            "answer to late",
        ]
        assert released == [True]
    finally:
        model.hold.set()
        release.set()
        worker.shutdown()


def test_shutdown_refuses_waiting_and_new_requests_with_503(model, worker):
    _blocked_first(model, worker, "running")
    waiting = worker.submit(plan("waiting"))
    stopper = threading.Thread(target=worker.shutdown)
    stopper.start()
    with pytest.raises(WireError) as caught:
        waiting.future.result(5)
    assert caught.value.status == 503
    with pytest.raises(WireError, match="stopping"):
        worker.submit(plan("late"))
    model.hold.set()  # the running generation finishes, then the thread ends
    stopper.join(5)
    assert not stopper.is_alive()
    assert model.ran == ["running"]
