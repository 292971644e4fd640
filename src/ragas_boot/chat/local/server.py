"""The embedded local model: a GGUF model run by llama.cpp in process, served over HTTP only
where an endpoint is needed.

A :class:`LocalModelServer` holds one loaded model (:meth:`~LocalModelServer.load`) and its
one worker thread; its judges (:class:`~ragas_boot.chat.local.judge.LocalJudge`) call it in
process. Only where an endpoint is needed (the tool-suite agent runner, or anyone's OpenAI
client), it serves the model over OpenAI-compatible HTTP on a free port of ``127.0.0.1``
(:meth:`~LocalModelServer.start`): ``POST /v1/chat/completions`` (``json_schema``,
``json_object`` with or without a ``schema``, and forced tool calls all become
grammar-constrained decoding) and ``GET /v1/models``. Judges and HTTP share the model and its
worker; generations run one at a time. A :class:`LocalModelPool` owns the models of one
container and frees them when it closes.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Self

from ragas_boot.chat.local.http import HOST, LocalHttp
from ragas_boot.chat.local.plan import ChatPlan, Generation, completion_for, plan_chat
from ragas_boot.chat.local.runtime import require_local_runtime
from ragas_boot.chat.local.worker import ModelWorker
from ragas_boot.chat.specs import LocalModelSpec
from ragas_boot.chat.wire.openai import (
    WireError,
    error_body,
    models_body,
    parse_chat_request,
)

if TYPE_CHECKING:
    from ragas_boot.chat.local.engine import LlamaEngine

__all__ = ["GenerationRecord", "LocalModelPool", "LocalModelServer"]

log = logging.getLogger(__name__)

_NAME: Final = "ragas-boot-local"
#: How long stop() lets a running generation finish (it is capped by its max_tokens).
_DRAIN_S: Final = 30.0
_RECORDS: Final = 1000


@dataclass(frozen=True, slots=True)
class GenerationRecord:
    """One generation the server ran (for tests, benchmarks and the curious).

    Attributes:
        model: the model id asked for.
        started: ``time.monotonic()`` when the generation began (after waiting for the lock).
        finished: ``time.monotonic()`` when it ended.
        prompt_tokens: tokens of the formatted prompt.
        completion_tokens: tokens generated.
        messages: the messages the model read (benchmarks replay them on llama.cpp alone).
    """

    model: str
    started: float
    finished: float
    prompt_tokens: int
    completion_tokens: int
    messages: tuple[dict[str, str], ...] = ()


class LocalModelServer:
    """One GGUF model: called in process by its judges, served over OpenAI-compatible HTTP
    on ``127.0.0.1`` (a free port) where an endpoint is needed.

    :meth:`load` loads the model and its one worker thread (every generation, in process or
    over HTTP, runs there, one at a time). :meth:`start` also serves it: a small
    ``aiohttp.web`` app that reads requests with the wire module's parser, as the test server
    does. Both are idempotent and thread-safe. :meth:`stop` refuses waiting requests (503),
    lets a running generation finish, closes the connections, joins the threads and frees
    the model; the model can be loaded again.

    Args:
        spec: the model and its llama.cpp settings.
        model_ids: the ids requests may name in ``model`` (the judge ids on this model).

    Raises:
        MissingExtraError: llama-cpp-python is not installed.
    """

    def __init__(self, *, spec: LocalModelSpec, model_ids: Sequence[str]) -> None:
        require_local_runtime()
        self._spec = spec
        self._model_ids = list(dict.fromkeys(model_ids))
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._engine: LlamaEngine | None = None
        self._shell: LocalHttp | None = None
        self._worker: ModelWorker | None = None
        self._created = int(time.time())
        self._records: deque[GenerationRecord] = deque(maxlen=_RECORDS)
        self._stats_lock = threading.Lock()
        self._in_flight = 0
        self._closed = False
        self._generating = 0
        self.peak_in_flight = 0
        """Most chat requests being handled at once (waiting ones included)."""
        self.peak_generating = 0
        """Most generations handed to the model at once (1: the worker ran them one at a
        time)."""
        self.start_s: float | None = None
        """Seconds the last :meth:`start` took, model load included."""
        self.load_s: float | None = None
        """Seconds the last model load took."""

    def __repr__(self) -> str:
        state = f"running at {self.base_url}" if self.running else "stopped"
        return f"LocalModelServer(model={self._spec.model_path.name!r}, {state})"

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def spec(self) -> LocalModelSpec:
        """The model and its settings."""
        return self._spec

    @property
    def model_ids(self) -> list[str]:
        """The ids this server answers to."""
        return list(self._model_ids)

    def add_model_ids(self, model_ids: Sequence[str]) -> None:
        """Answer to more ids (more judges on the same model)."""
        with self._lock:
            for model_id in model_ids:
                if model_id not in self._model_ids:
                    self._model_ids.append(model_id)

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._shell is not None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (Spring AI form, no ``/v1``).

        Raises:
            RuntimeError: the server is not running.
        """
        shell = self._shell
        if shell is None or shell.port is None:
            raise RuntimeError("the local model server is not running; call start() first")
        return f"http://{HOST}:{shell.port}"

    @property
    def url(self) -> str:
        """``base_url + "/v1"``, what OpenAI clients take as their base URL."""
        return self.base_url + "/v1"

    @property
    def records(self) -> list[GenerationRecord]:
        """The latest generations (up to 1000), oldest first."""
        with self._stats_lock:
            return list(self._records)

    @property
    def loaded(self) -> bool:
        """Whether the model is loaded (judges call it in process; HTTP may be off)."""
        return self._engine is not None

    def load(self) -> None:
        """Load the model, unless loaded; no port is bound (idempotent, thread-safe).

        Raises:
            RuntimeError: the server was closed, or the model cannot be loaded.
        """
        with self._lock:
            self._load()

    def _load(self) -> LlamaEngine:
        if self._engine is not None:
            return self._engine
        if self._closed:
            raise RuntimeError("this local model server was closed (its container is closed)")
        from ragas_boot.chat.local.engine import LlamaEngine

        started = time.perf_counter()
        self._stopping.clear()
        engine = LlamaEngine(spec=self._spec, stopping=self._stopping)
        # One worker: the model answers one call at a time, and the event loop never waits.
        self._worker = ModelWorker(
            run=self._generate,
            tokens=engine.prompt_tokens,
            kept=engine.kept_tokens,
            name=f"{_NAME}-worker",
        )
        self._engine = engine
        self.load_s = engine.load_s
        self.start_s = time.perf_counter() - started
        log.info(
            "local model %s for %s: loaded in %.2fs (%d threads)",
            self._spec.model_path.name,
            ", ".join(self._model_ids),
            self.start_s,
            engine.threads,
        )
        return engine

    def start(self) -> str:
        """Load the model and serve it over HTTP, unless already serving; return
        :attr:`base_url`.

        Raises:
            RuntimeError: the server was closed, or the model cannot be loaded.
            OSError: no port could be bound.
        """
        with self._lock:
            if self._shell is not None:
                return self.base_url
            started = time.perf_counter()
            self._load()
            shell = LocalHttp(
                chat=self._http_chat,
                models=lambda: models_body(
                    self.model_ids, created=self._created, owned_by="ragas-boot-local"
                ),
                name=_NAME,
                drain_seconds=_DRAIN_S,
            )
            shell.start()
            self._shell = shell
            self.start_s = time.perf_counter() - started
            log.info(
                "local model server for %s (%s) at %s: ready in %.2fs",
                ", ".join(self._model_ids),
                self._spec.model_path.name,
                self.base_url,
                self.start_s,
            )
            return self.base_url

    def stop(self) -> None:
        """Stop serving and free the model (a running generation finishes first)."""
        with self._lock:
            self._shutdown()

    def close(self) -> None:
        """:meth:`stop` for good: a closed server refuses to start again."""
        with self._lock:
            self._closed = True
            self._shutdown()

    def _shutdown(self) -> None:
        shell, engine, worker = self._shell, self._engine, self._worker
        self._shell = self._engine = self._worker = None
        self._stopping.set()  # waiting requests get 503 while the running one finishes
        if shell is not None:
            shell.stop()  # lets running requests finish, joins the server thread
        if worker is not None:
            worker.shutdown()
        if engine is not None:
            engine.close()
        if shell is not None or engine is not None:
            log.info("local model for %s stopped", ", ".join(self._model_ids))

    async def agenerate(self, plan: ChatPlan) -> Generation:
        """Run ``plan`` in process, on the model's one worker thread (loading it if needed).

        A caller cancelled while its plan waits for the worker (a timeout) takes the plan
        out of the queue; one cancelled while its plan runs stops the generation within a
        few tokens, so the model is free for the next call.

        Raises:
            WireError: the model cannot do what the plan asks, or the server is stopping.
        """
        worker = self._worker
        if worker is None:
            await asyncio.to_thread(self.load)
            worker = self._worker
            if worker is None:
                raise WireError(503, "the local model server is stopping")
        job = worker.submit(plan)
        try:
            return await asyncio.wrap_future(job.future)
        except asyncio.CancelledError:
            job.gone.set()
            raise

    def _generate(
        self, plan: ChatPlan, tokens: list[int] | None, abandoned: Callable[[], bool]
    ) -> Generation:
        engine = self._engine
        if engine is None:
            raise WireError(503, "the local model server is stopping")
        # Counted outside the engine's lock: what the worker hands over, so that two at once
        # would show (the lock would only make them wait).
        with self._stats_lock:
            self._generating += 1
            self.peak_generating = max(self.peak_generating, self._generating)
        try:
            generation = engine.generate(plan, abandoned=abandoned, tokens=tokens)
        finally:
            with self._stats_lock:
                self._generating -= 1
        with self._stats_lock:
            self._records.append(
                GenerationRecord(
                    model=plan.model,
                    started=generation.started,
                    finished=generation.finished,
                    prompt_tokens=generation.prompt_tokens,
                    completion_tokens=generation.completion_tokens,
                    messages=tuple(plan.messages),
                )
            )
        return generation

    # ------------------------------------------------------------------ request handling

    async def _http_chat(self, raw: bytes, gone: Callable[[], bool]) -> tuple[int, Any]:
        """Answer one HTTP chat request on the model's worker (the HTTP loop only awaits)."""
        worker = self._worker
        with self._stats_lock:
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            if worker is None:
                raise WireError(503, "the local model server is stopping")
            request = parse_chat_request(raw)
            plan = plan_chat(request, models=self.model_ids)
            job = worker.submit(plan, client_gone=gone)
            try:
                generation = await asyncio.wrap_future(job.future)
            except asyncio.CancelledError:
                job.gone.set()
                raise
            return 200, completion_for(plan, generation)
        except WireError as error:
            return error.status, error_body(
                error.status, error.message, param=error.param, code=error.code
            )
        finally:
            with self._stats_lock:
                self._in_flight -= 1


class LocalModelPool:
    """The local model servers of one container: one per :class:`LocalModelSpec`.

    Servers are made (not started) by :meth:`server`; judges start them on first use;
    :meth:`close` stops them all and refuses new ones.
    """

    def __init__(self) -> None:
        self._servers: dict[LocalModelSpec, LocalModelServer] = {}
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"LocalModelPool(servers={list(self._servers.values())!r})"

    @property
    def servers(self) -> list[LocalModelServer]:
        """Every server made so far."""
        with self._lock:
            return list(self._servers.values())

    def server(self, spec: LocalModelSpec, model_id: str) -> LocalModelServer:
        """The server of ``spec`` (made on first request), answering to ``model_id`` too.

        Raises:
            MissingExtraError: llama-cpp-python is not installed.
            RuntimeError: the pool is closed.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("the local model pool is closed")
            server = self._servers.get(spec)
            if server is None:
                server = self._servers[spec] = LocalModelServer(spec=spec, model_ids=[model_id])
            else:
                server.add_model_ids([model_id])
            return server

    def close(self) -> None:
        """Stop every server for good; safe to call twice."""
        with self._lock:
            self._closed = True
            servers = list(self._servers.values())
        for server in servers:
            server.close()

    async def aclose(self) -> None:
        """Async twin of :meth:`close` (stops the servers in a worker thread)."""
        await asyncio.to_thread(self.close)
