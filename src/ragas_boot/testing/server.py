"""A local OpenAI-compatible HTTP server with scripted answers and injected faults.

Tests of ragas-boot (and of users' own configs) reach their judges over real HTTP: this server
answers ``POST /v1/chat/completions``, ``POST /v1/embeddings`` and ``GET /v1/models`` on
``127.0.0.1`` (a free port) from an ``aiohttp.web`` app on its own asyncio loop in a daemon
thread, so it serves sync and async tests alike, keeps connections alive and holds hundreds of
requests in flight at once.

Example:
    .. code-block:: python

        import openai

        from ragas_boot.testing import FakeOpenAIServer, Reply, asks_for

        with FakeOpenAIServer() as server:
            # judge-a answers these in order, then falls back to its responder or the default
            server.script("judge-a", {"verdict": 1}, Reply.error(429, retry_after=2))
            # the first rule whose predicate is true answers (this one twice at most)
            server.when(asks_for("goal"), {"goal": "book a flight"}, times=2)
            # a function answers the requests of judge-b
            server.respond("judge-b", lambda r: {"verdict": int("refund" not in r.prompt)})
            server.inject_faults("judge-c", rate_429=0.2, rate_hang=0.05, seed=7)
            server.set_latency(None, 0.01)
            # Spring-style configs take server.base_url; OpenAI clients take server.url
            with openai.OpenAI(base_url=server.url, api_key="test", max_retries=0) as client:
                answer = client.chat.completions.create(
                    model="judge-a", messages=[{"role": "user", "content": "Judge this."}]
                )
            assert answer.choices[0].message.content == '{"verdict": 1}'
            assert server.requests_for("judge-a")[0].status == 200

Which answer a chat request gets, first match wins:

1. ``stream: true`` is refused (400): the server does not stream.
2. ``fail_always(model, reply)``: a model that is down.
3. ``inject_faults(...)``: a seeded draw may pick a fault (429, 500, garbage, hang, drop,
   trickle); a faulted request consumes no script and no rule.
4. ``when(predicate, reply, model=None, times=None)`` rules, in the order they were added.
5. ``script(model, *replies)``: the model's own queue, then the any-model (``None``) queue.
6. ``respond(model, responder)``: the model's responder, then the any-model one.
7. The default: a minimal instance of the request's JSON schema when one is known (see
   :attr:`ChatRequest.json_schema`), else a short text ("ok").

Anything that gives an answer may be a :class:`Reply`, a ``dict`` (as :meth:`Reply.json`), a
``str`` (as :meth:`Reply.text`) or a function of the :class:`ChatRequest` returning one of
those. Functions and predicates run on the server's thread; one that raises makes a 500 answer
whose record carries the error. ``set_latency`` delays every answer of a model (``None``: all
models) on top of a reply's own ``delay``; delays never block other requests.

Every chat request is recorded (``requests``, ``requests_for``, ``count``) with the status sent,
the fault that hit it and when it was answered; ``in_flight`` and ``peak_in_flight`` count the
requests handled at once. ``reset()`` forgets scripts, rules, faults, records and counters.

The batch API (``/v1/files``, ``/v1/batches``: upload, create, poll, cancel, download) runs
each line as the same request sent synchronously would be answered; batches change status over
time (:meth:`FakeOpenAIServer.set_batch_timing`), can be made to expire
(:meth:`~FakeOpenAIServer.expire_next_batch`), fail validation
(:meth:`~FakeOpenAIServer.fail_next_batch`), be cancelled
(:meth:`~FakeOpenAIServer.cancel_batch`) or let go at once
(:meth:`~FakeOpenAIServer.release_batches`), and are recorded apart
(:attr:`~FakeOpenAIServer.batches`): ``requests`` and ``count`` hold synchronous requests only.

Embedding requests (``POST /v1/embeddings``) get, first match wins: ``fail_always``, an
``inject_faults`` draw and ``set_latency`` of their model (the same tables as chat), then the
model's ``script_embeddings`` queue (a :class:`Reply` fault, or a list of vectors sent as they
are), then ``set_vectors`` (a text → vector mapping or function), then :func:`hashed_vector`: a
deterministic bag-of-words vector (``dimensions`` long, default
:data:`DEFAULT_EMBEDDING_DIMENSIONS`), so equal texts get equal vectors and texts sharing words
score a higher cosine than texts sharing none. They are recorded apart, in
``embedding_requests``.
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Self

from ragas_boot.testing._app import FakeOpenAIApp
from ragas_boot.testing._faults import FaultPlan
from ragas_boot.testing._http import HOST, BackgroundServer
from ragas_boot.testing.batches import BatchRecord, BatchTiming
from ragas_boot.testing.records import (
    ChatRequest,
    FaultName,
    RecordedEmbeddingRequest,
    RecordedRequest,
    RequestLog,
    asks_for,
)
from ragas_boot.testing.replies import Reply, ReplyKind, ReplyLike, ReplySource
from ragas_boot.testing.scripts import DEFAULT_MODEL, DEFAULT_TEXT, Rule, ScriptBook
from ragas_boot.testing.vectors import (
    DEFAULT_EMBEDDING_DIMENSIONS,
    EmbeddingReply,
    VectorSource,
    hashed_vector,
)

__all__ = [
    "DEFAULT_EMBEDDING_DIMENSIONS",
    "DEFAULT_MODEL",
    "DEFAULT_TEXT",
    "BatchRecord",
    "BatchTiming",
    "ChatRequest",
    "FakeOpenAIServer",
    "FaultName",
    "RecordedEmbeddingRequest",
    "RecordedRequest",
    "Reply",
    "ReplyKind",
    "ReplyLike",
    "ReplySource",
    "Rule",
    "VectorSource",
    "asks_for",
    "hashed_vector",
]

_NAME = "FakeOpenAIServer"


class FakeOpenAIServer:
    """A local OpenAI-compatible chat-completions server for tests (see the module docstring).

    Start it with :meth:`start` or a ``with`` block; it listens on ``127.0.0.1`` on a free
    port. All methods may be called from any thread while it runs.

    Args:
        default_text: the answer to a request with no script and no known JSON schema.
    """

    def __init__(self, *, default_text: str = DEFAULT_TEXT) -> None:
        self._lock = threading.RLock()
        self._book = ScriptBook(self._lock, default_text=default_text)
        self._log = RequestLog(self._lock)
        app = FakeOpenAIApp(self._book, self._log)
        self._batches = app.batches
        self._server = BackgroundServer(app.serve, name=_NAME)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> Self:
        """Start serving on ``127.0.0.1`` (a free port) from a daemon thread.

        Returns:
            The server itself.

        Raises:
            RuntimeError: the server is already running.
            OSError: the port could not be bound.
        """
        self._server.start()
        return self

    def stop(self) -> None:
        """Stop serving: close the listening socket and every connection, join the thread.

        Requests still held (hangs, delays) are closed unanswered. Calling it again, or on a
        server never started, does nothing. Recorded requests stay readable.

        Raises:
            RuntimeError: the server thread did not end in time.
        """
        self._server.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._server.running

    @property
    def port(self) -> int:
        """The TCP port it listens on.

        Raises:
            RuntimeError: the server is not running.
        """
        port = self._server.port
        if port is None:
            raise RuntimeError("FakeOpenAIServer is not running: call start() or use `with`")
        return port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``, without ``/v1`` (Spring AI's ``base-url``)."""
        return f"http://{HOST}:{self.port}"

    @property
    def url(self) -> str:
        """``base_url + "/v1"``, the ``base_url`` an OpenAI or ChatOpenAI client takes."""
        return f"{self.base_url}/v1"

    def __repr__(self) -> str:
        port = self._server.port
        where = f"http://{HOST}:{port}" if port is not None else "stopped"
        return f"<FakeOpenAIServer {where}>"

    # -- scripting ---------------------------------------------------------------------

    def script(self, model: str | None, *replies: ReplySource) -> None:
        """Queue replies answered in order to requests for ``model`` (``None``: any model).

        When the queue is empty, requests fall back to the responder or the default.

        Args:
            model: the model name, or ``None`` for requests of any model not scripted.
            *replies: the replies, in order.
        """
        with self._lock:
            self._book.remember(model)
            self._book.scripts.setdefault(model, deque()).extend(replies)

    def respond(self, model: str | None, responder: ReplySource | None) -> None:
        """Answer every unscripted request for ``model`` with ``responder``.

        Args:
            model: the model name, or ``None`` for any model.
            responder: a function of the :class:`ChatRequest` returning a reply, a dict or a
                string, or a fixed reply; ``None`` removes the responder.
        """
        with self._lock:
            self._book.remember(model)
            if responder is None:
                self._book.responders.pop(model, None)
            else:
                self._book.responders[model] = responder

    def when(
        self,
        predicate: Callable[[ChatRequest], bool],
        reply: ReplySource,
        *,
        model: str | None = None,
        times: int | None = None,
    ) -> Rule:
        """Answer the requests for which ``predicate`` is true with ``reply``.

        Rules come before scripts and responders; the first matching rule wins.

        Args:
            predicate: a test of the request, e.g. ``lambda r: "refund" in r.prompt``; to
                tell a metric's steps apart use :func:`asks_for` (``asks_for("topics")``),
                which works in every structured-output mode.
            reply: the answer, or a function of the request making it.
            model: only requests for this model (``None``: any model).
            times: answer this many requests, then drop the rule (``None``: no limit).

        Returns:
            The rule, which counts its hits and can be removed.

        Raises:
            ValueError: ``times`` is less than 1.
        """
        if times is not None and times < 1:
            raise ValueError(f"times must be at least 1, got {times}")
        rule = Rule(book=self._book, predicate=predicate, reply=reply, model=model, times=times)
        with self._lock:
            self._book.remember(model)
            self._book.rules.append(rule)
        return rule

    def set_latency(self, model: str | None, seconds: float) -> None:
        """Delay every answer for ``model`` (``None``: models without their own latency).

        Args:
            model: the model name, or ``None`` for all models.
            seconds: the delay; 0 removes it.

        Raises:
            ValueError: ``seconds`` is negative.
        """
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(f"latency must be a finite number >= 0, got {seconds!r}")
        with self._lock:
            self._book.remember(model)
            if seconds:
                self._book.latency[model] = seconds
            else:
                self._book.latency.pop(model, None)

    def inject_faults(
        self,
        model: str | None = None,
        *,
        rate_429: float = 0.0,
        retry_after: float = 1.0,
        rate_500: float = 0.0,
        rate_garbage: float = 0.0,
        rate_hang: float = 0.0,
        hang_seconds: float = 30.0,
        rate_drop: float = 0.0,
        rate_trickle: float = 0.0,
        trickle_seconds: float = 5.0,
        seed: int = 0,
    ) -> None:
        """Make a seeded share of ``model``'s requests fail (replacing earlier settings).

        Each request draws once from its own ``random.Random(seed)``, so a sequential client
        sees the same faults on every run. A faulted request consumes no script or rule; its
        record names the fault. Model-specific settings win over the ``None`` ones.

        Args:
            model: the model name, or ``None`` for models without their own settings.
            rate_429: share answered 429 with a ``Retry-After`` header.
            retry_after: that header's seconds.
            rate_500: share answered 500.
            rate_garbage: share answered 200 with a body that is not JSON.
            rate_hang: share held ``hang_seconds`` before the default answer.
            hang_seconds: how long a hang lasts.
            rate_drop: share whose connection is closed without an answer.
            rate_trickle: share whose default answer's body is sent in pieces over
                ``trickle_seconds`` (see :meth:`Reply.trickle`).
            trickle_seconds: how long a trickle takes.
            seed: the seed of the draws.

        Raises:
            ValueError: a rate is outside [0, 1] or the rates add up to more than 1.
        """
        rates: list[tuple[FaultName, float]] = [
            ("429", rate_429),
            ("500", rate_500),
            ("garbage", rate_garbage),
            ("hang", rate_hang),
            ("drop", rate_drop),
            ("trickle", rate_trickle),  # last: the draws of the other faults stay as they were
        ]
        plan = FaultPlan(
            rates=rates,
            retry_after=retry_after,
            hang_seconds=hang_seconds,
            trickle_seconds=trickle_seconds,
            seed=seed,
        )
        with self._lock:
            self._book.remember(model)
            if any(rate for _, rate in rates):
                self._book.faults[model] = plan
            else:
                self._book.faults.pop(model, None)

    def fail_always(self, model: str | None, reply: Reply | None = None) -> None:
        """Answer every request for ``model`` with ``reply`` (a model that is down).

        Args:
            model: the model name, or ``None`` for all models.
            reply: the failure; a 500 error when omitted.
        """
        with self._lock:
            self._book.remember(model)
            self._book.down[model] = reply if reply is not None else Reply.error(500)

    def set_vectors(self, model: str, vectors: VectorSource | None) -> None:
        """Answer ``model``'s embedding requests with these vectors (``None``: hashed ones).

        Args:
            model: the embedding model name.
            vectors: text → vector (texts not in it get :func:`hashed_vector`), or a function
                of the text; ``None`` goes back to the hashed vectors.
        """
        with self._lock:
            self._book.remember(model)
            if vectors is None:
                self._book.vectors.pop(model, None)
            else:
                self._book.vectors[model] = vectors

    def script_embeddings(self, model: str, *replies: EmbeddingReply) -> None:
        """Queue answers to ``model``'s next embedding requests, in order.

        Args:
            model: the embedding model name.
            *replies: a :class:`Reply` fault (``error``, ``garbage``, ``hang``, ``drop``,
                ``trickle``; any other kind sends the default vectors), or the vectors to send
                as they are (e.g. one too few, to test a client's checks).
        """
        with self._lock:
            self._book.remember(model)
            self._book.embedding_scripts.setdefault(model, deque()).extend(replies)

    @property
    def embedding_requests(self) -> list[RecordedEmbeddingRequest]:
        """The embedding requests received so far, in arrival order (a snapshot)."""
        return self._log.embedding_requests()

    def embedding_requests_for(self, model: str) -> list[RecordedEmbeddingRequest]:
        """The embedding requests received for ``model``, in arrival order."""
        return self._log.embedding_requests(model)

    def reset(self) -> None:
        """Forget scripts, responders, rules, latencies, faults, records, counters, files and
        batches."""
        with self._lock:
            self._book.reset()
            self._log.reset()
            self._batches.reset()

    # -- batch API -----------------------------------------------------------------------

    def set_batch_timing(
        self, *, validating: float = 0.0, in_progress: float = 0.0, finalizing: float = 0.0
    ) -> None:
        """How long the batches created from now on stay in each status (seconds): the
        provider's simulated work. Their lines are answered once ``in_progress`` is over.

        Raises:
            ValueError: a duration is negative.
        """
        timing = BatchTiming(validating, in_progress, finalizing)
        if min(validating, in_progress, finalizing) < 0:
            raise ValueError(f"batch durations must be >= 0, got {timing}")
        with self._lock:
            self._batches.timing = timing

    def expire_next_batch(self, answered: int = 0) -> None:
        """Make the next batch created expire once its ``in_progress`` time is over, with only
        its first ``answered`` lines answered (the others ``batch_expired``)."""
        with self._lock:
            self._batches.fates.append(("expire", answered, ""))

    def fail_next_batch(
        self, message: str = "invalid_request: refused by the test", *, line: int | None = None
    ) -> None:
        """Make the next batch created fail validation with ``message`` (``code: text``), on
        its line ``line`` (1-based) or on the file as a whole."""
        with self._lock:
            self._batches.fates.append(("fail", line, message))

    def cancel_batch(self, batch_id: str) -> None:
        """Cancel a batch from the provider's side: it is ``cancelling``, then ``cancelled``
        (its lines ``batch_cancelled``) after its ``finalizing`` time.

        Raises:
            KeyError: no batch has this id.
        """
        self._batches.cancel(batch_id)

    def release_batches(self) -> int:
        """End the simulated work of every batch still ``validating`` or ``in_progress`` (its
        lines are answered when it is next polled), e.g. after a test held them with a long
        :meth:`set_batch_timing`; the batches created later keep that timing.

        Returns:
            How many batches it released.
        """
        return self._batches.release()

    @property
    def batches(self) -> list[BatchRecord]:
        """The batches created so far, in creation order (a snapshot)."""
        return self._batches.records()

    # -- observability -----------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """The chat requests received so far, in arrival order (a snapshot)."""
        return self._log.requests()

    def requests_for(self, model: str) -> list[RecordedRequest]:
        """The chat requests received for ``model``, in arrival order."""
        return self._log.requests(model)

    def count(self, model: str | None = None) -> int:
        """How many chat requests were received for ``model`` (``None``: all)."""
        return self._log.count(model)

    @property
    def in_flight(self) -> int:
        """Chat requests being handled right now."""
        return self._log.in_flight

    @property
    def peak_in_flight(self) -> int:
        """The most chat requests handled at once, across models."""
        return self._log.peak()

    def peak_in_flight_for(self, model: str) -> int:
        """The most chat requests for ``model`` handled at once."""
        return self._log.peak(model)
