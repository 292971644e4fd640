"""What answers a request of the fake server, first match wins: a model that is down, an
injected fault, a ``when`` rule, the model's script, its responder, else the default (see
:mod:`ragas_boot.testing.server`). The tables are the server's, changed under its lock."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Final

from ragas_boot.testing._faults import FaultPlan
from ragas_boot.testing._schema import minimal_instance
from ragas_boot.testing.records import ChatRequest, FaultName
from ragas_boot.testing.replies import Reply, ReplySource
from ragas_boot.testing.vectors import EmbeddingReply, VectorSource

__all__ = ["DEFAULT_MODEL", "DEFAULT_TEXT", "Rule", "ScriptBook"]

DEFAULT_MODEL: Final = "fake-model"
"""The model listed by ``GET /v1/models`` when no model was scripted or asked for yet."""
DEFAULT_TEXT: Final = "ok"
"""The answer to a request that has no script and no known JSON schema."""

#: A chat request's answer: the reply, the fault that chose it, the error of a test's callback.
Decision = tuple[Reply, FaultName | None, str | None]


class Rule:
    """A conditional answer added with :meth:`FakeOpenAIServer.when`."""

    __slots__ = ("_book", "_hits", "_model", "_predicate", "_reply", "_times")

    def __init__(
        self,
        *,
        book: ScriptBook,
        predicate: Callable[[ChatRequest], bool],
        reply: ReplySource,
        model: str | None,
        times: int | None,
    ) -> None:
        self._book = book
        self._predicate = predicate
        self._reply = reply
        self._model = model
        self._times = times
        self._hits = 0

    @property
    def hits(self) -> int:
        """How many requests this rule answered."""
        with self._book.lock:
            return self._hits

    @property
    def remaining(self) -> int | None:
        """How many more requests it will answer (``None``: no limit)."""
        with self._book.lock:
            return None if self._times is None else self._times - self._hits

    def remove(self) -> None:
        """Stop using this rule."""
        with self._book.lock:
            if self in self._book.rules:
                self._book.rules.remove(self)

    def _take(self, request: ChatRequest) -> ReplySource | None:
        # Called under the book's lock; the predicate may raise, the caller records it.
        if self._model is not None and self._model != request.model:
            return None
        if not self._predicate(request):
            return None
        self._hits += 1
        if self._times is not None and self._hits >= self._times:
            self._book.rules.remove(self)
        return self._reply

    def __repr__(self) -> str:
        return f"<Rule model={self._model!r} hits={self._hits} times={self._times}>"


class ScriptBook:
    """The answers a server was given, by model (``None``: any model), and how it picks one.

    Args:
        lock: the server's lock; every table is read and changed under it.
        default_text: the answer to a request with no script and no known JSON schema.
    """

    def __init__(self, lock: threading.RLock, *, default_text: str = DEFAULT_TEXT) -> None:
        self.lock = lock
        self.default_text = default_text
        self.scripts: dict[str | None, deque[ReplySource]] = {}
        self.responders: dict[str | None, ReplySource] = {}
        self.rules: list[Rule] = []
        self.latency: dict[str | None, float] = {}
        self.faults: dict[str | None, FaultPlan] = {}
        self.down: dict[str | None, Reply] = {}
        self.vectors: dict[str, VectorSource] = {}
        self.embedding_scripts: dict[str, deque[EmbeddingReply]] = {}
        self._models: dict[str, None] = {}

    def remember(self, model: str | None) -> None:
        """List ``model`` in ``GET /v1/models`` (a model scripted or asked for)."""
        with self.lock:
            if model is not None and model not in self._models:
                self._models[model] = None

    def model_names(self) -> list[str]:
        """The models listed by ``GET /v1/models``, in the order they were first named."""
        with self.lock:
            return list(self._models) or [DEFAULT_MODEL]

    def latency_for(self, model: str) -> float:
        """Seconds every answer for ``model`` waits (its own latency, else the any-model one)."""
        with self.lock:
            return self.latency.get(model, self.latency.get(None, 0.0))

    def decide(self, request: ChatRequest) -> Decision:
        """The answer to a chat request; a test's predicate or responder that raises (or
        returns something that is not a reply) makes a 500 answer carrying its error."""
        model = request.model
        source: ReplySource | None = None
        with self.lock:
            down = self.down.get(model, self.down.get(None))
            if down is not None:
                return down, "fail_always", None
            plan = self.faults.get(model, self.faults.get(None))
            if plan is not None:
                fault = plan.draw()
                if fault is not None:
                    return plan.reply(fault), fault, None
            try:
                for rule in self.rules:
                    source = rule._take(request)
                    if source is not None:
                        break
            except Exception as error:
                return _callback_failure("a `when` predicate", error)
            if source is None:
                for key in (model, None):
                    queue = self.scripts.get(key)
                    if queue:
                        source = queue.popleft()
                        break
            if source is None:
                source = self.responders.get(model, self.responders.get(None))
        if source is None:
            return self.default_reply(request), None, None
        if callable(source):
            try:
                source = source(request)
            except Exception as error:
                return _callback_failure("a responder", error)
        if isinstance(source, Reply):
            return source, None, None
        if isinstance(source, dict):
            return Reply.json(source), None, None
        if isinstance(source, str):
            return Reply.text(source), None, None
        problem = TypeError(f"expected a Reply, dict or str, got {type(source).__name__}")
        return _callback_failure("a responder", problem)

    def default_reply(self, request: ChatRequest) -> Reply:
        """A minimal instance of the request's JSON schema when one is known, else the
        default text (also what a hang or trickle sends)."""
        if request.json_schema is not None:
            return Reply.json(minimal_instance(request.json_schema))
        return Reply.text(self.default_text)

    def embedding_reply(self, model: str) -> tuple[EmbeddingReply | None, FaultName | None]:
        """The scripted or fault answer to an embeddings request for ``model`` (None: the
        vectors of :meth:`vector_source`), and the fault that chose it."""
        with self.lock:
            down = self.down.get(model, self.down.get(None))
            if down is not None:
                return down, "fail_always"
            plan = self.faults.get(model, self.faults.get(None))
            if plan is not None and (drawn := plan.draw()) is not None:
                return plan.reply(drawn), drawn
            queue = self.embedding_scripts.get(model)
            return (queue.popleft() if queue else None), None

    def vector_source(self, model: str) -> VectorSource | None:
        """The vectors ``set_vectors`` gave ``model``, if any."""
        with self.lock:
            return self.vectors.get(model)

    def reset(self) -> None:
        """Forget every script, responder, rule, latency, fault and model name."""
        with self.lock:
            self.vectors.clear()
            self.embedding_scripts.clear()
            self.scripts.clear()
            self.responders.clear()
            self.rules.clear()
            self.latency.clear()
            self.faults.clear()
            self.down.clear()
            self._models.clear()


def _callback_failure(what: str, error: Exception) -> Decision:
    text = f"{type(error).__name__}: {error}"
    return Reply.error(500, f"FakeOpenAIServer: {what} raised {text}"), None, text
