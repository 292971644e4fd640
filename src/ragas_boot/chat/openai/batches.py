"""The ``batch`` transport of OpenAI-compatible judges: calls collected into a provider's batch
API (``/v1/files``, ``/v1/batches``), polled, and answered by ``custom_id``.

The cost is time: a batch is answered within the provider's window (``24h``), at about half
the price. So calls are sent a round at a time (every call ready at one moment of a run, one
batch file per judge, split at ``max-requests`` and ``max-file-bytes``):
:mod:`ragas_boot.chat.batching` says when a round is complete (every evaluation in flight waits
on some batch; outside a run, the judge's ``quiet-period`` without a new call). A round smaller
than ``min-size`` is sent synchronously instead.

Each request line is the very body the ``direct`` transport would post
(:meth:`~ragas_boot.chat.openai.direct.DirectChat.request_body`), and each answer line is read
as it reads one, so a batch answers exactly what a synchronous call would. A line's
``custom_id`` is a digest of its body and how many times the run asked it before: the same
call of a resumed run has the same id, and the run's :class:`~ragas_boot.chat.batching.BatchLedger`
(its journal) says which batch an earlier attempt sent it in: that batch is polled, not sent
again. The files and batches go through openai's client (``AsyncOpenAI`` on openai's aiohttp
transport, :func:`~ragas_boot.chat.openai.clients.openai_http_client`); polls back off with
tenacity from ``poll-interval`` up to ``max-poll-interval`` until ``timeout``.

Failures become the judge errors a synchronous call gets, so the executor's retry policy
treats them alike (a retried call goes into the next round, or, with ``retry-synchronously``,
is sent at once): a failed line is its status's :class:`~ragas_boot.errors.JudgeHTTPError`; a
line an ``expired`` batch never answered, or a batch past ``timeout`` (then cancelled), a
:class:`~ragas_boot.errors.JudgeTimeoutError`; a ``cancelled`` batch's, or a missing line, a
:class:`~ragas_boot.errors.JudgeConnectionError`; a batch that ``failed`` validation, a 400
(each line's own error when the provider names its line); an answer that is not valid, the
:class:`~ragas_boot.errors.JudgeOutputError` that re-asks it. An evaluation cancelled (a
deadline, SIGINT, SIGTERM) stops waiting; its batch is left as it is, recorded for
``--resume``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import orjson
from pydantic import BaseModel

from ragas_boot.chat.batching import BatchRun, SubmittedBatch, current_member, current_run
from ragas_boot.chat.failures import await_translated, call_failure, scrub
from ragas_boot.chat.loops import PerLoop
from ragas_boot.chat.openai.clients import openai_http_client
from ragas_boot.chat.openai.direct import DirectChat, DirectReply
from ragas_boot.chat.openai.endpoints import openai_client_target
from ragas_boot.chat.specs import OpenAICompatibleSpec
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types import Batch

__all__ = ["BatchChat", "BatchOutcome"]

log = logging.getLogger(__name__)

#: A batch still being worked on by the provider.
_RUNNING: Final = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
#: Passes of the event loop a complete round waits for calls still on their way (a step that
#: asks two batch judges reaches the second one a few passes after the first).
_SETTLE_PASSES: Final = 8
#: The longest a file upload or download may take (a batch file holds up to 200 MB).
_FILE_TIMEOUT_S: Final = 600.0

#: What a call gets: the raw answer and usage, and whether a batch answered it.
BatchOutcome: TypeAlias = tuple[DirectReply, bool]


@dataclass(eq=False, slots=True)
class _Call:
    """One call waiting for its batch."""

    custom_id: str
    digest: str
    body: bytes
    text: str
    output_model: type[BaseModel]
    future: asyncio.Future[BatchOutcome]
    run: BatchRun | None
    member: object | None


@dataclass(eq=False, slots=True)
class _Batch:
    """One batch at the provider: the calls waiting on it by ``custom_id``, and the answers
    nobody waits for yet (a resumed run asks for them as it gets there)."""

    batch_id: str
    custom_ids: tuple[str, ...] | None
    waiting: dict[str, _Call] = field(default_factory=dict)
    answers: dict[str, JudgeError | DirectReply] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    done: bool = False
    ending: str = ""


class BatchChat:
    """Calls of one judge through its provider's batch API, one collector per event loop.

    Args:
        spec: the judge's settings (``spec.batch``: how batches are sent).
        api_base: the base URL (``.../v1``) the files and batches paths are appended to.
        direct: the judge's ``direct`` transport: it builds each request body, reads each
            answer, and sends the calls that go synchronously.
    """

    def __init__(self, *, spec: OpenAICompatibleSpec, api_base: str, direct: DirectChat) -> None:
        self._spec = spec
        self._api_base = api_base
        self._direct = direct
        self._collectors = PerLoop(lambda: _Collector(spec, api_base, direct))

    def prepare(self) -> None:
        """Make the running loop's collector now."""
        self._collectors.get()

    async def complete(self, text: str, output_model: type[BaseModel]) -> BatchOutcome:
        """Send ``text`` in the next batch; the raw answer and usage, and whether a batch
        answered it (a call sent synchronously is not).

        Raises:
            JudgeError: the call failed (see the module docstring); ``batched`` is set on an
                error a batch gave back.
        """
        return await self._collectors.get().complete(text, output_model)

    async def aclose(self) -> None:
        """Stop waiting on every batch (they go on at the provider) and close the clients."""
        await self._collectors.aclose(_Collector.aclose)


class _Collector:
    """The calls of one judge on one event loop: collected, sent, polled, answered."""

    def __init__(self, spec: OpenAICompatibleSpec, api_base: str, direct: DirectChat) -> None:
        self._spec = spec
        self._api_base = api_base
        self._direct = direct
        self._loop = asyncio.get_running_loop()
        self._queue: dict[int, _Call] = {}  # by id(call): insertion order, O(1) removal
        self._queued_runs: dict[int, BatchRun] = {}
        self._check_due = False
        self._asked: Counter[str] = Counter()
        self._failed: set[str] = set()
        self._batches: dict[str, _Batch] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._settling: asyncio.Task[None] | None = None
        self._enqueued = 0
        self._listening: set[int] = set()
        self._client: AsyncOpenAI | None = None
        self._synchronous = asyncio.Semaphore(spec.limits.max_concurrency)
        self._closed = False

    # ------------------------------------------------------------------ one call

    async def complete(self, text: str, output_model: type[BaseModel]) -> BatchOutcome:
        body = self._direct.request_body(text, output_model)
        digest = hashlib.sha256(body).hexdigest()[:32]
        if self._spec.batch.retry_synchronously and digest in self._failed:
            return await self._synchronously(text, output_model), False
        occurrence = self._asked[digest]
        self._asked[digest] += 1
        run = current_run()
        member = current_member() if run is not None else None
        call = _Call(
            custom_id=f"{digest}-{occurrence}",
            digest=digest,
            body=body,
            text=text,
            output_model=output_model,
            future=self._loop.create_future(),
            run=run,
            member=member,
        )
        ledger = run.ledger if run is not None else None
        earlier = ledger.submitted_in(self._spec.id, call.custom_id) if ledger else None
        if earlier is not None:
            self._attach(earlier, call)
        else:
            self._enqueue(call)
        if run is not None and member is not None:
            run.waits(member)
        try:
            return await call.future
        finally:
            if run is not None and member is not None:
                run.woken(member)
            if call.future.cancelled() or not call.future.done():  # waited on no more
                self._forget(call)

    def _enqueue(self, call: _Call) -> None:
        self._queue[id(call)] = call
        self._enqueued += 1
        run = call.run
        if run is not None and id(run) not in self._listening:
            self._listening.add(id(run))
            run.listen(id(self), self._from_any_thread)
        if run is not None and call.member is not None:
            self._queued_runs[id(run)] = run
        if call.member is None:
            # Outside a run: the round is complete once no call came for the quiet period.
            if self._timer is not None:
                self._timer.cancel()
            quiet = self._spec.batch.quiet_period.total_seconds()
            self._timer = self._loop.call_later(quiet, self._flush)
        self._check()

    def _from_any_thread(self) -> None:
        # Every call of a round tells every collector: one check per loop pass is enough.
        if self._check_due:
            return
        self._check_due = True
        with contextlib.suppress(RuntimeError):  # the loop closed: nothing to send any more
            self._loop.call_soon_threadsafe(self._check)

    def _round_complete(self) -> bool:
        runs = self._queued_runs.values()
        return bool(runs) and all(run.all_waiting() for run in runs)

    def _check(self) -> None:
        """Start settling a round once every evaluation of the runs queued waits on a batch."""
        self._check_due = False
        if self._closed or self._settling is not None or not self._queue:
            return
        if self._round_complete():
            self._settling = self._spawn(self._settle())

    async def _settle(self) -> None:
        try:
            while True:
                seen = self._enqueued
                for _ in range(_SETTLE_PASSES):
                    await asyncio.sleep(0)
                if self._enqueued == seen:
                    break
        finally:
            self._settling = None
        if self._round_complete():
            self._flush()
        else:
            self._check()

    def _forget(self, call: _Call) -> None:
        if self._queue.pop(id(call), None) is not None:
            return
        for batch in self._batches.values():
            if batch.waiting.get(call.custom_id) is call:
                del batch.waiting[call.custom_id]
                if not batch.waiting and batch.task is not None and batch.ending == "polling":
                    batch.task.cancel()  # the batch goes on at the provider, recorded
                break

    # ------------------------------------------------------------------ a round

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        calls = [call for call in self._queue.values() if not call.future.done()]
        self._queue = {}
        self._queued_runs = {}
        if not calls:
            return
        if len(calls) < self._spec.batch.min_size:
            log.info(
                "judge %s: %d calls, fewer than batch.min-size %d: sent synchronously",
                self._spec.id,
                len(calls),
                self._spec.batch.min_size,
            )
            for call in calls:
                self._spawn(self._answer_synchronously(call))
            return
        for part in self._files(calls):
            self._spawn(self._submit(part))

    def _files(self, calls: list[_Call]) -> Iterator[list[tuple[_Call, bytes]]]:
        """The round's calls as batch files within ``max-requests`` and ``max-file-bytes``."""
        batch = self._spec.batch
        url = orjson.dumps(self._spec.completions_path)
        part: list[tuple[_Call, bytes]] = []
        size = 0
        for call in calls:
            line = (
                b'{"custom_id":'
                + orjson.dumps(call.custom_id)
                + b',"method":"POST","url":'
                + url
                + b',"body":'
                + call.body
                + b"}\n"
            )
            if part and (
                len(part) >= batch.max_requests or size + len(line) > batch.max_file_bytes
            ):
                yield part
                part, size = [], 0
            part.append((call, line))
            size += len(line)
        if part:
            yield part

    async def _answer_synchronously(self, call: _Call) -> None:
        try:
            reply = await self._synchronously(call.text, call.output_model)
        except Exception as error:
            _settle_call(call, error)
        else:
            _settle_call(call, (reply, False))

    async def _synchronously(self, text: str, output_model: type[BaseModel]) -> DirectReply:
        async with self._synchronous:
            return await self._direct.complete(text, output_model)

    # ------------------------------------------------------------------ a batch

    async def _submit(self, part: list[tuple[_Call, bytes]]) -> None:
        """Upload one file, create its batch, record it, then poll it to its end."""
        spec = self._spec
        calls = [call for call, _ in part]
        try:
            client = self._openai()
            uploaded = await self._translated(
                client.files.create(
                    file=("ragas-boot-batch.jsonl", b"".join(line for _, line in part)),
                    purpose="batch",
                    timeout=_FILE_TIMEOUT_S,
                )
            )
            created = await self._translated(
                client.batches.create(
                    input_file_id=uploaded.id,
                    endpoint=spec.completions_path,  # type: ignore[arg-type]
                    completion_window=spec.batch.completion_window,  # type: ignore[arg-type]
                    metadata={"ragas_boot_judge": spec.id},
                )
            )
        except Exception as error:
            failure = _batch_failure(error, spec, "submitting a batch")
            for call in calls:
                _settle_call(call, failure)
            return
        batch = _Batch(
            batch_id=created.id,
            custom_ids=tuple(call.custom_id for call in calls),
            waiting={call.custom_id: call for call in calls if not call.future.done()},
        )
        batch.ending = "recording"
        self._batches[batch.batch_id] = batch
        log.info(
            "judge %s: batch %s of %d calls submitted to %s",
            spec.id,
            batch.batch_id,
            len(calls),
            spec.provider,
        )
        ledger = next((call.run.ledger for call in calls if call.run and call.run.ledger), None)
        if ledger is not None:
            record = SubmittedBatch(
                batch_id=batch.batch_id,
                judge_id=spec.id,
                provider=spec.provider,
                model=spec.model,
                input_file_id=uploaded.id,
                custom_ids=batch.custom_ids or (),
            )
            try:
                await asyncio.shield(ledger.record(record))
            except Exception:  # the journal keeps its own problem; the run goes on
                log.exception("batch %s could not be recorded for --resume", batch.batch_id)
        await self._follow(batch, deadline=time.time() + spec.batch.timeout.total_seconds())

    def _attach(self, batch_id: str, call: _Call) -> None:
        """A call an earlier attempt of the run sent in ``batch_id``: wait on that batch."""
        batch = self._batches.get(batch_id)
        if batch is None:
            batch = self._batches[batch_id] = _Batch(batch_id=batch_id, custom_ids=None)
            log.info("judge %s: polling batch %s submitted before", self._spec.id, batch_id)
        if batch.done:
            answer = batch.answers.pop(call.custom_id, None)
            if answer is None:
                _settle_call(call, _missing(self._spec, batch))
            else:
                _settle_call(call, answer if isinstance(answer, JudgeError) else (answer, True))
            return
        batch.waiting[call.custom_id] = call
        if batch.task is None or batch.task.done():
            batch.task = self._spawn(self._follow(batch, deadline=None))

    async def _follow(self, batch: _Batch, *, deadline: float | None) -> None:
        """Poll ``batch`` to its end and answer its calls (a resumed batch's deadline runs
        from when it was created)."""
        batch.task = batch.task or asyncio.current_task()
        batch.ending = "polling"
        if not batch.waiting:
            return
        try:
            final = await self._poll(batch, deadline)
            batch.ending = "reading"
            await self._read_results(batch, final)
        except asyncio.CancelledError:
            if batch.waiting:  # the judge closed: nobody will be answered
                raise
            return
        except Exception as error:
            failure = _batch_failure(error, self._spec, f"following batch {batch.batch_id}")
            for call in list(batch.waiting.values()):
                _settle_call(call, failure)
            batch.waiting.clear()
        finally:
            batch.task = None
        batch.done = True
        for call in list(batch.waiting.values()):
            _settle_call(call, _missing(self._spec, batch))
        batch.waiting.clear()
        if not batch.answers:
            self._batches.pop(batch.batch_id, None)

    async def _poll(self, batch: _Batch, deadline: float | None) -> Batch:
        """The batch once it ended (completed, expired, cancelled, failed), polled with
        exponential backoff; still running past the deadline, it is cancelled and its calls
        time out. A poll that fails for a while (a 5xx, a dropped connection) is polled
        again; any other failure ends the wait."""
        from tenacity import (
            AsyncRetrying,
            RetryError,
            retry_if_exception,
            retry_if_result,
            wait_exponential,
        )

        settings = self._spec.batch
        timeout = settings.timeout.total_seconds()
        limit = [deadline if deadline is not None else time.time() + timeout]
        first = settings.poll_interval.total_seconds()
        retrying = AsyncRetrying(
            wait=wait_exponential(
                multiplier=first, min=first, max=settings.max_poll_interval.total_seconds()
            ),
            retry=retry_if_result(lambda found: found.status in _RUNNING)
            | retry_if_exception(_transient),
            stop=lambda _: time.time() >= limit[0],
            reraise=True,
        )
        client = self._openai()
        last: Batch | None = None
        try:
            async for attempt in retrying:
                with attempt:
                    last = await self._translated(client.batches.retrieve(batch.batch_id))
                    if deadline is None:  # submitted by an earlier attempt of the run
                        limit[0] = last.created_at + timeout
                outcome = attempt.retry_state.outcome
                if outcome is not None and not outcome.failed:
                    attempt.retry_state.set_result(last)
        except RetryError:
            await self._cancel(batch)
            status = last.status if last is not None else "unknown"
            raise JudgeTimeoutError(
                f"batch {batch.batch_id} did not end within batch.timeout {timeout:g}s "
                f"(status {status}); it was cancelled",
                judge_id=self._spec.id,
            ) from None
        assert last is not None
        log.info(
            "judge %s: batch %s %s (%s)", self._spec.id, batch.batch_id, last.status, _counts(last)
        )
        return last

    async def _cancel(self, batch: _Batch) -> None:
        with contextlib.suppress(Exception):  # it ends on its own past the window anyway
            await self._translated(self._openai().batches.cancel(batch.batch_id))

    async def _read_results(self, batch: _Batch, final: Batch) -> None:
        batch.ending = final.status
        line_errors: dict[int, str] = {}
        if final.status == "failed":
            for item in (final.errors.data if final.errors and final.errors.data else []) or []:
                where = f" ({item.param})" if item.param else ""
                text = f"{item.code or 'invalid'}: {item.message or ''}{where}".strip()
                if item.line is not None:
                    line_errors[item.line] = text
                batch.ending = f"failed validation: {text}"
        if line_errors and batch.custom_ids is not None:
            for line, text in line_errors.items():
                if 1 <= line <= len(batch.custom_ids):
                    self._answer(batch, batch.custom_ids[line - 1], self._rejected(text))
        for file_id in (final.output_file_id, final.error_file_id):
            if file_id:
                await self._read_file(batch, file_id)

    async def _read_file(self, batch: _Batch, file_id: str) -> None:
        client = self._openai()

        async def read() -> None:
            async with client.files.with_streaming_response.content(
                file_id, timeout=_FILE_TIMEOUT_S
            ) as response:
                async for line in response.iter_lines():
                    if line.strip():
                        custom_id, outcome = self._line(line)
                        if custom_id is not None:
                            self._answer(batch, custom_id, outcome)

        await self._translated(read())

    def _line(self, line: str) -> tuple[str | None, JudgeError | DirectReply]:
        """One output or error line: its ``custom_id`` and what it answered."""
        spec = self._spec
        try:
            document = orjson.loads(line)
            custom_id = document.get("custom_id")
            response = document.get("response")
            error = document.get("error")
        except (orjson.JSONDecodeError, AttributeError) as problem:
            log.warning("judge %s: unreadable batch line skipped (%s)", spec.id, problem)
            return None, JudgeConnectionError("unreadable line", judge_id=spec.id)
        if not isinstance(custom_id, str):
            return None, JudgeConnectionError("line without custom_id", judge_id=spec.id)
        if isinstance(response, dict) and isinstance(response.get("status_code"), int):
            status = response["status_code"]
            body = response.get("body")
            if 200 <= status < 300:
                try:
                    return custom_id, self._direct.read_document(body)
                except JudgeOutputError as failure:
                    return custom_id, failure
            content = orjson.dumps(body) if not isinstance(body, str) else body.encode()
            return custom_id, self._direct.status_error(status, content, {})
        if isinstance(error, dict):
            return custom_id, self._line_error(error)
        return custom_id, JudgeConnectionError(
            scrub(f"batch line without a response: {line[:200]}", spec), judge_id=spec.id
        )

    def _line_error(self, error: dict[str, Any]) -> JudgeError:
        spec = self._spec
        code = str(error.get("code") or "")
        message = scrub(f"{code}: {error.get('message') or ''}".strip(": "), spec)
        if code == "batch_expired":
            return JudgeTimeoutError(
                f"the batch expired before answering this call ({message})", judge_id=spec.id
            )
        if code == "batch_cancelled":
            return JudgeConnectionError(
                f"the batch was cancelled before answering this call ({message})",
                judge_id=spec.id,
            )
        return JudgeHTTPError(f"batch line failed: {message}", judge_id=spec.id, status_code=500)

    def _rejected(self, text: str) -> JudgeHTTPError:
        return JudgeHTTPError(
            scrub(f"HTTP 400: the batch failed validation: {text}", self._spec),
            judge_id=self._spec.id,
            status_code=400,
        )

    def _answer(self, batch: _Batch, custom_id: str, outcome: JudgeError | DirectReply) -> None:
        if isinstance(outcome, JudgeError):
            outcome.batched = True
            if self._spec.batch.retry_synchronously:
                self._failed.add(custom_id.rpartition("-")[0])
        call = batch.waiting.pop(custom_id, None)
        if call is None:
            batch.answers[custom_id] = outcome
            return
        _settle_call(call, outcome if isinstance(outcome, JudgeError) else (outcome, True))

    # ------------------------------------------------------------------ plumbing

    def _openai(self) -> AsyncOpenAI:
        if self._client is None:
            from openai import AsyncOpenAI

            spec = self._spec
            base_url, query, headers, api_key = openai_client_target(
                self._api_base, spec.api_key, spec.headers
            )
            self._client = AsyncOpenAI(
                api_key=api_key.get_secret_value(),
                base_url=base_url,
                default_headers=headers or None,
                default_query=query or None,
                max_retries=0,
                http_client=openai_http_client(
                    self._api_base, spec.limits, spec.tls, proxied=spec.proxied
                ),
            )
        return self._client

    async def _translated(self, call: Any) -> Any:
        return await await_translated(call, lambda error: call_failure(error, spec=self._spec))

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = self._loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def aclose(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        for call in self._queue.values():
            call.future.cancel()
        self._queue = {}
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._client is not None:
            await self._client.close()
            self._client = None


def _settle_call(call: _Call, outcome: BaseException | BatchOutcome) -> None:
    if call.future.done():
        return
    if isinstance(outcome, BaseException):
        call.future.set_exception(outcome)
    else:
        call.future.set_result(outcome)


def _missing(spec: OpenAICompatibleSpec, batch: _Batch) -> JudgeError:
    """The error of a call its batch ended without answering."""
    ending = batch.ending
    if ending == "expired":
        error: JudgeError = JudgeTimeoutError(
            f"batch {batch.batch_id} expired before answering this call", judge_id=spec.id
        )
    elif ending == "cancelled":
        error = JudgeConnectionError(
            f"batch {batch.batch_id} was cancelled before answering this call", judge_id=spec.id
        )
    elif ending.startswith("failed"):
        error = JudgeHTTPError(
            scrub(f"HTTP 400: batch {batch.batch_id} {ending}", spec),
            judge_id=spec.id,
            status_code=400,
        )
    else:
        error = JudgeConnectionError(
            f"batch {batch.batch_id} ended ({ending or 'unknown'}) without an answer to this call",
            judge_id=spec.id,
        )
    error.batched = True
    return error


def _batch_failure(error: BaseException, spec: OpenAICompatibleSpec, doing: str) -> BaseException:
    """A failure of the batch API itself as the calls' judge error (a 404 says that the
    provider has no batch API)."""
    if isinstance(error, JudgeHTTPError) and error.status_code in (404, 405):
        return JudgeHTTPError(
            f"{error} (while {doing}: the provider may have no batch API at /files and "
            "/batches; set transport: direct for it)",
            judge_id=spec.id,
            status_code=error.status_code,
        )
    if isinstance(error, JudgeError):
        return error
    log.error("judge %s: %s failed: %r", spec.id, doing, error)
    return JudgeConnectionError(
        scrub(f"{doing} failed: {type(error).__name__}: {error}", spec), judge_id=spec.id
    )


def _transient(error: BaseException) -> bool:
    """Whether a failed poll is worth polling again (the batch is not lost for it)."""
    if isinstance(error, JudgeTimeoutError | JudgeConnectionError):
        return True
    return isinstance(error, JudgeHTTPError) and (
        error.status_code == 429 or error.status_code >= 500
    )


def _counts(batch: Batch) -> str:
    counts = batch.request_counts
    if counts is None:
        return "no counts"
    return f"{counts.completed} answered, {counts.failed} failed of {counts.total}"
