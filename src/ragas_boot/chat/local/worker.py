"""The one thread a local model generates on, and the order it takes waiting requests in.

A llama.cpp context answers one request at a time. Requests that arrive together (a dataset
run fans every sample out at once) wait here; when the model is free the worker takes the
waiting request whose prompt shares the longest prefix with what the model has just read,
so the calls of one metric step follow each other and each reads only its sample's part
(the model keeps the KV state of the shared prefix: see
:class:`~ragas_boot.chat.local.engine.LlamaEngine`). The order
changes no answer: a request is answered the same whatever ran before it.

Fairness is bounded: a request passed over :data:`MAX_PASSED` times is taken next, before
any better-sharing one.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Final

from ragas_boot.chat.local.plan import ChatPlan, Generation
from ragas_boot.chat.wire.openai import WireError

__all__ = ["MAX_PASSED", "ModelJob", "ModelWorker"]

log = logging.getLogger(__name__)

#: How many times a waiting request may be passed over for a better-sharing one.
MAX_PASSED: Final = 8

_STOPPING: Final = "the local model server is stopping"


@dataclass(eq=False)
class ModelJob:
    """One request waiting for (or running on) the model.

    Attributes:
        plan: what to generate.
        future: resolves to the :class:`Generation` (or the :class:`WireError`).
        gone: set when the caller has gone (a cancelled await, a closed connection): a
            waiting job is dropped, a running one stops within a few tokens (499).
        client_gone: the HTTP layer's own check, if any.
    """

    plan: ChatPlan
    future: Future[Generation] = field(default_factory=Future)
    gone: threading.Event = field(default_factory=threading.Event)
    client_gone: Callable[[], bool] | None = None
    seq: int = 0
    passed: int = 0
    tokens: list[int] | None = None
    tokenized: bool = False

    def abandoned(self) -> bool:
        """Whether the caller has gone."""
        return self.gone.is_set() or (self.client_gone is not None and self.client_gone())


class ModelWorker:
    """A thread that runs :class:`ModelJob` s one at a time, best-sharing first.

    Args:
        run: generates one job: ``run(plan, tokens, abandoned)``.
        tokens: the prompt tokens of a plan (``None``: unknown, the job shares nothing).
        kept: how many of those tokens the model already holds.
        name: the thread's name.
    """

    def __init__(
        self,
        *,
        run: Callable[[ChatPlan, list[int] | None, Callable[[], bool]], Generation],
        tokens: Callable[[ChatPlan], list[int] | None],
        kept: Callable[[list[int]], int],
        name: str,
    ) -> None:
        self._run = run
        self._tokens = tokens
        self._kept = kept
        self._waiting: list[ModelJob] = []
        self._changed = threading.Condition()
        self._stopping = False
        self._seq = itertools.count()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, plan: ChatPlan, *, client_gone: Callable[[], bool] | None = None) -> ModelJob:
        """Queue ``plan``; its job's future resolves when it has run.

        Raises:
            WireError: the worker is stopping (503).
        """
        job = ModelJob(plan=plan, client_gone=client_gone)
        with self._changed:
            if self._stopping:
                raise WireError(503, _STOPPING)
            job.seq = next(self._seq)
            self._waiting.append(job)
            self._changed.notify()
        return job

    @property
    def waiting(self) -> int:
        """Jobs waiting for the model."""
        with self._changed:
            return len(self._waiting)

    def shutdown(self) -> None:
        """Refuse new jobs, fail the waiting ones (503), let the running one finish, join."""
        with self._changed:
            self._stopping = True
            waiting, self._waiting = self._waiting, []
            self._changed.notify_all()
        for job in waiting:
            if job.future.set_running_or_notify_cancel():
                job.future.set_exception(WireError(503, _STOPPING))
        if threading.current_thread() is not self._thread:
            self._thread.join()

    def _loop(self) -> None:
        while True:
            with self._changed:
                while not self._waiting and not self._stopping:
                    self._changed.wait()
                if self._stopping:
                    return
                waiting = self._waiting
                fresh = [job for job in waiting if not job.tokenized] if len(waiting) > 1 else []
                if not fresh:
                    job = self._take()
            if fresh:
                # Outside the lock: submit() (on an event loop) never waits for a chat template.
                for waiting_job in fresh:
                    self._tokenize(waiting_job)
                continue  # jobs may have come (or the worker been stopped) meanwhile
            if not job.future.set_running_or_notify_cancel():
                continue  # cancelled while it waited
            try:
                if job.abandoned():
                    raise WireError(499, "the client closed the connection while queued")
                generation = self._run(job.plan, job.tokens, job.abandoned)
            except BaseException as error:
                job.future.set_exception(error)
            else:
                job.future.set_result(generation)

    def _take(self) -> ModelJob:
        """The next job (called with the condition held): the one the model shares most
        with, unless one has been passed over too often."""
        waiting = self._waiting
        overdue = [job for job in waiting if job.passed >= MAX_PASSED]
        if overdue:
            chosen = min(overdue, key=lambda job: job.seq)
        elif len(waiting) == 1:
            chosen = waiting[0]
        else:
            chosen = max(waiting, key=lambda job: (self._shared(job), -job.seq))
        waiting.remove(chosen)
        for job in waiting:
            if job.seq < chosen.seq:
                job.passed += 1
        return chosen

    def _tokenize(self, job: ModelJob) -> None:
        try:
            job.tokens = self._tokens(job.plan)
        except WireError:
            job.tokens = None  # the run says why, with the request's own error
        job.tokenized = True

    def _shared(self, job: ModelJob) -> int:
        return self._kept(job.tokens) if job.tokens else 0
