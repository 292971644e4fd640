"""The bound on how much of an answer the OpenAI-compatible transports read: a server that
ignores ``max_tokens`` cannot make the client read or keep megabytes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from ragas_boot.chat.answers import cut_answer
from ragas_boot.chat.failures import scrub
from ragas_boot.chat.specs import JudgeSpec
from ragas_boot.errors import JudgeOutputError

__all__ = ["answer_bound", "answer_size_hook", "answer_too_large"]


def answer_bound(spec: JudgeSpec) -> int:
    """The most bytes of an answer read: ``6 × max-answer-chars + 64 KiB``.

    A chat-completion body holds the answer as a JSON string (each character up to 6 bytes
    escaped) in a small envelope. The bound applies to the decoded body (after gzip).
    """
    return spec.max_answer_chars * 6 + 64 * 1024


def answer_too_large(spec: JudgeSpec, head: bytes) -> JudgeOutputError:
    """The error of an answer longer than :func:`answer_bound`; ``raw_text`` holds its start,
    scrubbed and marked as cut."""
    chars = spec.max_answer_chars
    limit = answer_bound(spec)
    return JudgeOutputError(
        f"the answer is larger than {limit:,} bytes (max-answer-chars {chars:,}); reading stopped",
        judge_id=spec.id,
        raw_text=scrub(
            cut_answer(head.decode("utf-8", "replace"), chars, f"more than {limit:,} bytes"), spec
        ),
    )


def answer_size_hook(spec: JudgeSpec) -> Callable[[Any], Awaitable[None]]:
    """An httpx response hook (openai's client) that stops reading a body longer than
    :func:`answer_bound`; the ``direct`` transport bounds its reads itself.

    Raises (from the response's body, while it is read):
        JudgeOutputError: the body is larger; ``raw_text`` holds its start, marked as cut.
    """
    import httpx2

    chars = spec.max_answer_chars
    limit = answer_bound(spec)

    class BoundedStream(httpx2.AsyncByteStream):
        def __init__(self, inner: httpx2.AsyncByteStream) -> None:
            self._inner = inner

        async def __aiter__(self) -> AsyncIterator[bytes]:
            seen = 0
            head = bytearray()
            async for chunk in self._inner:
                seen += len(chunk)
                if len(head) < chars:
                    head += chunk[: chars - len(head)]
                if seen > limit:
                    await self._inner.aclose()
                    raise answer_too_large(spec, bytes(head))
                yield chunk

        async def aclose(self) -> None:
            await self._inner.aclose()

    async def hook(response: Any) -> None:
        # Read up to the bound whatever Content-Length says: the start is kept for the report.
        response.stream = BoundedStream(response.stream)

    return hook
