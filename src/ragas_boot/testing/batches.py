"""The fake server's batch API: ``/v1/files`` and ``/v1/batches``, as OpenAI's answers them.

A client uploads a JSONL file of requests (``POST /v1/files``, ``purpose=batch``), creates a
batch of it (``POST /v1/batches``) and polls it (``GET /v1/batches/{id}``) until it ends, then
downloads its output and error files (``GET /v1/files/{id}/content``); it may cancel it
(``POST /v1/batches/{id}/cancel``). Each line is answered by the server's scripts, rules,
responders and faults exactly as the same request sent synchronously
(:meth:`FakeOpenAIApp.completion <ragas_boot.testing._app.FakeOpenAIApp.completion>`): an
error reply goes to the error file with its status and body.

A batch's status changes over time, read when it is polled: ``validating`` for
:attr:`BatchTiming.validating`, ``in_progress`` for :attr:`BatchTiming.in_progress` seconds,
then its lines are answered and it is ``finalizing`` for :attr:`BatchTiming.finalizing`
seconds before ``completed``. A file with an unreadable line, two models or a line for
another endpoint fails validation (``failed``, each bad line named); a batch the test told to
expire ends ``expired`` with only its first lines answered (the others ``batch_expired`` in
the error file); a cancelled one ends ``cancelled`` (its lines ``batch_cancelled``).

Everything is recorded (:class:`BatchRecord`): each batch's lines as
:class:`~ragas_boot.testing.records.RecordedRequest`\\ s and how often it was polled. Batch
lines are not chat requests: ``server.requests`` and ``server.count()`` count only the
requests sent synchronously.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import orjson

from ragas_boot.chat.wire.openai import WireError, error_body, parse_chat_request
from ragas_boot.testing._http import Received, json_response, raw_response
from ragas_boot.testing.records import ChatRequest, FaultName, RecordedRequest, request_schema
from ragas_boot.testing.replies import Reply

if TYPE_CHECKING:
    from aiohttp import web

__all__ = ["BatchDesk", "BatchRecord", "BatchTiming"]

#: The one endpoint batch lines may ask (the server answers chat completions only).
BATCH_ENDPOINT: Final = "/v1/chat/completions"

#: The statuses a batch's simulated work holds it in.
_HELD: Final = frozenset({"validating", "in_progress"})

#: Answers one line: its status, body (or bytes that are not JSON) and usage.
Completion = Callable[
    [ChatRequest, Reply], tuple[int, "dict[str, Any] | bytes", "Mapping[str, int] | None"]
]
#: Decides the reply to one line, and the fault and callback error behind it.
Decide = Callable[[ChatRequest], tuple[Reply, "FaultName | None", "str | None"]]


@dataclass(frozen=True, slots=True)
class BatchTiming:
    """How long a batch stays in each status (seconds; what the provider's work takes).

    Attributes:
        validating: ``validating`` after it is created.
        in_progress: ``in_progress`` after that; then its lines are answered.
        finalizing: ``finalizing`` after that; then ``completed``.
    """

    validating: float = 0.0
    in_progress: float = 0.0
    finalizing: float = 0.0


@dataclass(frozen=True, slots=True)
class BatchRecord:
    """A batch the server was asked to run, as it stands.

    Attributes:
        id: the batch's id.
        status: its status when last polled.
        model: the model its lines ask for (``None`` when it has no readable line).
        lines: each line's request and answer, in file order (answered once it ran).
        polls: how many times it was polled (``GET /v1/batches/{id}``).
        created_at: ``time.monotonic()`` when it was created.
        input_file_id: its file of requests.
        output_file_id: its file of answers, once it ended with some.
        error_file_id: its file of failed lines, once it ended with some.
        metadata: the metadata it was created with.
        errors: its validation errors (``failed``), as ``(line, message)``.
    """

    id: str
    status: str
    model: str | None
    lines: tuple[RecordedRequest, ...]
    polls: int
    created_at: float
    input_file_id: str
    output_file_id: str | None
    error_file_id: str | None
    metadata: Mapping[str, str]
    errors: tuple[tuple[int | None, str], ...] = ()

    @property
    def answered(self) -> int:
        """Lines answered with a 2xx status."""
        return sum(1 for line in self.lines if line.status is not None and line.status < 300)


@dataclass(eq=False, slots=True)
class _File:
    id: str
    filename: str
    purpose: str
    data: bytes
    created_at: int


@dataclass(eq=False, slots=True)
class _Batch:
    """A batch while it runs (changed under the server's lock)."""

    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict[str, str]
    created_at: float
    wall_created_at: int
    requests: list[tuple[str, ChatRequest | None]]
    errors: list[tuple[int | None, str]]
    timing: BatchTiming
    expire_after: int | None = None
    status: str = "validating"
    polls: int = 0
    cancel_requested: float | None = None
    answered: list[RecordedRequest | None] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None
    stamps: dict[str, int] = field(default_factory=dict)


class BatchDesk:
    """The files and batches of one fake server (see the module docstring).

    Args:
        lock: the server's lock.
        decide: the server's choice of reply for a request.
        completion: the server's answer to a request with a reply.
    """

    def __init__(self, lock: threading.RLock, decide: Decide, completion: Completion) -> None:
        self._lock = lock
        self._decide = decide
        self._completion = completion
        self._files: dict[str, _File] = {}
        self._batches: dict[str, _Batch] = {}
        self._ids = itertools.count(1)
        self._line_index = itertools.count()
        self.timing = BatchTiming()
        self.fates: deque[tuple[str, int | str | None, str]] = deque()

    # ------------------------------------------------------------------ records

    def records(self) -> list[BatchRecord]:
        """Every batch, in creation order."""
        with self._lock:
            return [self._record(batch) for batch in self._batches.values()]

    def reset(self) -> None:
        """Forget every file, batch and planned fate."""
        with self._lock:
            self._files.clear()
            self._batches.clear()
            self.fates.clear()
            self.timing = BatchTiming()

    def cancel(self, batch_id: str) -> None:
        """Cancel a batch from the provider's side (as a user of its console would).

        Raises:
            KeyError: no such batch.
        """
        with self._lock:
            batch = self._batches[batch_id]
            if batch.cancel_requested is None:
                batch.cancel_requested = time.monotonic()

    def release(self) -> int:
        """End the ``validating`` and ``in_progress`` time of every batch still held in them:
        its lines are answered when it is next polled. How many batches it let go."""
        released = 0
        with self._lock:
            for batch in self._batches.values():
                held = batch.timing.validating > 0 or batch.timing.in_progress > 0
                if held and batch.status in _HELD and batch.cancel_requested is None:
                    batch.timing = BatchTiming(finalizing=batch.timing.finalizing)
                    released += 1
        return released

    def _record(self, batch: _Batch) -> BatchRecord:
        readable = [request for _, request in batch.requests if request is not None]
        lines = tuple(
            answered
            if answered is not None
            else RecordedRequest(
                request=request, status=None, fault=None, answered_at=None, error=None
            )
            for (_, request), answered in itertools.zip_longest(batch.requests, batch.answered)
            if request is not None
        )
        return BatchRecord(
            id=batch.id,
            status=batch.status,
            model=readable[0].model if readable else None,
            lines=lines,
            polls=batch.polls,
            created_at=batch.created_at,
            input_file_id=batch.input_file_id,
            output_file_id=batch.output_file_id,
            error_file_id=batch.error_file_id,
            metadata=dict(batch.metadata),
            errors=tuple(batch.errors),
        )

    # ------------------------------------------------------------------ routes

    async def serve(self, request: web.Request, arrival: Received) -> web.StreamResponse:
        """Answer one request under ``/v1/files`` or ``/v1/batches``."""
        parts = arrival.path.strip("/").split("/")[1:]  # without "v1"
        try:
            match (request.method, *parts):
                case ("POST", "files"):
                    return await self._upload(request)
                case ("GET", "files", file_id):
                    return json_response(200, self._file_object(self._file(file_id)))
                case ("GET", "files", file_id, "content"):
                    return raw_response(200, self._file(file_id).data)
                case ("POST", "batches"):
                    return self._create(await request.read(), arrival)
                case ("GET", "batches", batch_id):
                    return self._retrieve(batch_id)
                case ("POST", "batches", batch_id, "cancel"):
                    self._batch(batch_id)
                    self.cancel(batch_id)
                    return self._retrieve(batch_id, poll=False)
        except WireError as error:
            body = error_body(error.status, error.message, param=error.param, code=error.code)
            return json_response(error.status, body)
        message = f"Invalid URL ({request.method} {arrival.path})"
        return json_response(404, error_body(404, message, code="unknown_url"))

    def _file(self, file_id: str) -> _File:
        with self._lock:
            found = self._files.get(file_id)
        if found is None:
            raise WireError(404, f"No such File object: {file_id}", param="id")
        return found

    def _batch(self, batch_id: str) -> _Batch:
        with self._lock:
            found = self._batches.get(batch_id)
        if found is None:
            raise WireError(404, f"No batch found with id '{batch_id}'.", param="batch_id")
        return found

    async def _upload(self, request: web.Request) -> web.StreamResponse:
        from aiohttp import web

        form = await request.post()
        upload = form.get("file")
        purpose = form.get("purpose")
        if not isinstance(upload, web.FileField):
            raise WireError(400, "'file' is a required property", param="file")
        if purpose != "batch":
            raise WireError(400, "this server takes files of purpose 'batch'", param="purpose")
        stored = self._store(upload.filename or "upload.jsonl", "batch", upload.file.read())
        return json_response(200, self._file_object(stored))

    def _store(self, filename: str, purpose: str, data: bytes) -> _File:
        with self._lock:
            stored = _File(
                id=f"file-fake{next(self._ids):06d}",
                filename=filename,
                purpose=purpose,
                data=data,
                created_at=int(time.time()),
            )
            self._files[stored.id] = stored
        return stored

    @staticmethod
    def _file_object(stored: _File) -> dict[str, Any]:
        return {
            "id": stored.id,
            "object": "file",
            "bytes": len(stored.data),
            "created_at": stored.created_at,
            "filename": stored.filename,
            "purpose": stored.purpose,
            "status": "processed",
        }

    def _create(self, raw: bytes, arrival: Received) -> web.StreamResponse:
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise WireError(400, "the body is not valid JSON") from None
        if not isinstance(body, dict):
            raise WireError(400, "the body is not a JSON object")
        source = self._file(str(body.get("input_file_id") or ""))
        endpoint = body.get("endpoint")
        if endpoint != BATCH_ENDPOINT:
            raise WireError(400, f"endpoint must be {BATCH_ENDPOINT}", param="endpoint")
        if body.get("completion_window") != "24h":
            raise WireError(400, "completion_window must be 24h", param="completion_window")
        metadata = body.get("metadata") or {}
        requests, errors = self._read_lines(source.data, arrival)
        with self._lock:
            batch = _Batch(
                id=f"batch_fake{next(self._ids):06d}",
                input_file_id=source.id,
                endpoint=endpoint,
                completion_window="24h",
                metadata={str(k): str(v) for k, v in metadata.items()},
                created_at=time.monotonic(),
                wall_created_at=int(time.time()),
                requests=requests,
                errors=errors,
                timing=self.timing,
            )
            if self.fates:
                fate, value, message = self.fates.popleft()
                if fate == "expire":
                    batch.expire_after = int(value or 0)
                else:
                    line = value if isinstance(value, int) else None
                    batch.errors.append((line, message))
            self._batches[batch.id] = batch
            body = self._batch_object(batch)  # validating, as every new batch is
        return json_response(200, body)

    def _read_lines(
        self, data: bytes, arrival: Received
    ) -> tuple[list[tuple[str, ChatRequest | None]], list[tuple[int | None, str]]]:
        """Each line's ``custom_id`` and request (``None``: unreadable), and the errors a
        validating provider would report."""
        requests: list[tuple[str, ChatRequest | None]] = []
        errors: list[tuple[int | None, str]] = []
        seen: set[str] = set()
        models: set[str] = set()
        for number, text in enumerate(data.splitlines(), start=1):
            if not text.strip():
                continue
            custom_id = ""
            try:
                line = orjson.loads(text)
                custom_id = str(line["custom_id"])
                if line.get("method") != "POST" or line.get("url") != BATCH_ENDPOINT:
                    raise WireError(400, f"method must be POST and url {BATCH_ENDPOINT}")
                if custom_id in seen:
                    raise WireError(400, f"custom_id {custom_id!r} is used twice")
                chat = parse_chat_request(line["body"])
            except (orjson.JSONDecodeError, KeyError, TypeError, WireError) as error:
                message = error.message if isinstance(error, WireError) else repr(error)
                errors.append((number, f"invalid_request: {message}"))
                requests.append((custom_id, None))
                continue
            seen.add(custom_id)
            models.add(chat.model)
            request = ChatRequest(
                chat=chat,
                json_schema=request_schema(chat),
                headers=arrival.headers,
                received_at=arrival.received_at,
                wall_time=arrival.wall_time,
                index=next(self._line_index),
                path=BATCH_ENDPOINT,
            )
            requests.append((custom_id, request))
        if len(models) > 1:
            errors.append((None, f"model_mismatch: the file asks {len(models)} models"))
        if not requests:
            errors.append((None, "empty_file: the file has no request"))
        return requests, errors

    # ------------------------------------------------------------------ time

    def _retrieve(self, batch_id: str, *, poll: bool = True) -> web.StreamResponse:
        batch = self._batch(batch_id)
        with self._lock:
            if poll:
                batch.polls += 1
            self._advance(batch, time.monotonic())
            body = self._batch_object(batch)
        return json_response(200, body)

    def _advance(self, batch: _Batch, now: float) -> None:
        """Move ``batch`` to the status its age gives it (answering its lines on the way)."""
        if batch.status in ("completed", "failed", "expired", "cancelled"):
            return
        timing = batch.timing
        if batch.cancel_requested is not None:
            if batch.status != "cancelling":
                self._enter(batch, "cancelling")
            elif now - batch.cancel_requested >= timing.finalizing:
                self._finish(batch, answer=0, ending="cancelled", code="batch_cancelled")
            return
        age = now - batch.created_at
        if age < timing.validating:
            return
        if batch.errors:
            self._enter(batch, "failed")
            return
        if age < timing.validating + timing.in_progress:
            if batch.status != "in_progress":
                self._enter(batch, "in_progress")
            return
        if batch.expire_after is not None:
            self._finish(batch, answer=batch.expire_after, ending="expired", code="batch_expired")
            return
        if batch.status != "finalizing":
            self._finish(batch, answer=len(batch.requests), ending="finalizing", code="")
        if age >= timing.validating + timing.in_progress + timing.finalizing:
            self._enter(batch, "completed")

    def _enter(self, batch: _Batch, status: str) -> None:
        batch.status = status
        batch.stamps[f"{status}_at"] = int(time.time())

    def _finish(self, batch: _Batch, *, answer: int, ending: str, code: str) -> None:
        """Answer the first ``answer`` lines, fail the others with ``code``, write the
        output and error files, and enter ``ending``."""
        outputs: list[bytes] = []
        failures: list[bytes] = []
        batch.answered = []
        for position, (custom_id, request) in enumerate(batch.requests):
            assert request is not None  # a batch with unreadable lines failed validation
            if position >= answer:
                failures.append(_line(custom_id, None, {"code": code, "message": ending}))
                batch.answered.append(None)
                continue
            reply, fault, problem = self._decide(request)
            status, body, usage = self._completion(request, reply)
            response = {
                "status_code": status,
                "request_id": f"req_fake{request.index:08d}",
                "body": body.decode("utf-8", "replace") if isinstance(body, bytes) else body,
            }
            (outputs if status < 300 else failures).append(_line(custom_id, response, None))
            batch.answered.append(
                RecordedRequest(
                    request=request,
                    status=status,
                    fault=fault,
                    answered_at=time.monotonic(),
                    error=problem,
                    usage=usage,
                )
            )
        if outputs:
            batch.output_file_id = self._store("output.jsonl", "batch_output", b"".join(outputs)).id
        if failures:
            batch.error_file_id = self._store("errors.jsonl", "batch_output", b"".join(failures)).id
        self._enter(batch, ending)

    def _batch_object(self, batch: _Batch) -> dict[str, Any]:
        total = len(batch.requests)
        done = [line for line in batch.answered if line is not None]
        completed = sum(1 for line in done if line.status is not None and line.status < 300)
        errors = None
        if batch.status == "failed":
            errors = {
                "object": "list",
                "data": [
                    {"code": message.partition(":")[0], "message": message, "line": line}
                    for line, message in batch.errors
                ],
            }
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": batch.endpoint,
            "errors": errors,
            "input_file_id": batch.input_file_id,
            "completion_window": batch.completion_window,
            "status": batch.status,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "created_at": batch.wall_created_at,
            "expires_at": batch.wall_created_at + 24 * 3600,
            **batch.stamps,
            "request_counts": {
                "total": total,
                "completed": completed,
                "failed": len(batch.answered) - completed if batch.answered else 0,
            },
            "metadata": batch.metadata,
        }


def _line(custom_id: str, response: dict[str, Any] | None, error: dict[str, Any] | None) -> bytes:
    document = {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": response,
        "error": error,
    }
    return orjson.dumps(document) + b"\n"
