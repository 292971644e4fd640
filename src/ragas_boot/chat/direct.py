"""The ``direct`` transport of OpenAI-compatible judges: one chat-completions call, lean.

The request is built from bytes prepared once per judge (model and options) and once per
output model and mode (``response_format`` or ``tools``, the schema serialised once), plus the
prompt serialised with orjson; it goes out on :class:`~ragas_boot.chat.wire.client.HttpClient`,
one per event loop. Every failure becomes the judge error the ``langchain`` transport raises
for it (status and ``Retry-After``, timeout, connection, malformed answer, an over-long body),
with the API key scrubbed from every message and answer.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from typing import Any

import orjson
from pydantic import BaseModel, SecretStr

from ragas_boot.chat.judge import JudgeSpec, TokenUsage
from ragas_boot.chat.openai_judge import (
    _retry_after_seconds,
    body_usage,
    close_loop_clients,
    cut_answer,
    scrub_secret,
    structured_request_keys,
)
from ragas_boot.chat.wire.client import (
    BodyTooLargeError,
    HttpClient,
    HttpConnectionError,
    HttpResponse,
)
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)

__all__ = ["DirectChat", "DirectReply"]

_CHAT_PATH = "/chat/completions"


class DirectReply:
    """What one call answered: the raw text (content or tool-call arguments) and usage."""

    __slots__ = ("raw", "usage")

    def __init__(self, raw: str | None, usage: TokenUsage) -> None:
        self.raw = raw
        self.usage = usage


class DirectChat:
    """Chat-completions calls for one judge spec, with one HTTP client per event loop.

    Args:
        spec: the judge's settings.
        api_base: the base URL (``.../v1``) that ``/chat/completions`` is appended to.
    """

    def __init__(self, *, spec: JudgeSpec, api_base: str) -> None:
        self._spec = spec
        self._api_base = api_base
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, HttpClient] = (
            weakref.WeakKeyDictionary()
        )
        self._head = (
            b'{"model":' + orjson.dumps(spec.model) + b',"messages":[{"role":"user","content":'
        )
        self._options = (
            b',"stream":false,"temperature":'
            + orjson.dumps(spec.temperature)
            + b',"top_p":'
            + orjson.dumps(spec.top_p)
            + b',"max_completion_tokens":'
            + orjson.dumps(spec.max_tokens)
        )
        self._tails: dict[type[BaseModel], bytes] = {}
        timeout = spec.limits.call_timeout.total_seconds()
        self._timeout = timeout or None
        self._max_body = spec.max_answer_chars * 6 + 64 * 1024
        self._secret = spec.api_key.get_secret_value()

    def client(self) -> HttpClient:
        """The running loop's HTTP client (made on first use)."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            headers = {"Authorization": f"Bearer {self._secret}", "User-Agent": "ragas-boot"}
            for name, value in self._spec.headers.items():
                headers[name] = (
                    value.get_secret_value() if isinstance(value, SecretStr) else str(value)
                )
            client = HttpClient(
                self._api_base,
                headers=headers,
                max_idle=self._spec.limits.max_concurrency + 8,
            )
            self._clients[loop] = client
        return client

    def _tail(self, output_model: type[BaseModel]) -> bytes:
        tail = self._tails.get(output_model)
        if tail is None:
            tail = self._options + _mode_fragment(self._spec, output_model) + b"}"
            self._tails[output_model] = tail
        return tail

    def _scrub(self, text: str) -> str:
        return scrub_secret(text, self._spec)

    async def complete(self, text: str, output_model: type[BaseModel]) -> DirectReply:
        """Send ``text`` as one user message; the raw answer and usage.

        Raises:
            JudgeHTTPError, JudgeTimeoutError, JudgeConnectionError: as the ``langchain``
                transport raises them.
            JudgeOutputError: a body that is not a chat completion, or one too large.
        """
        spec = self._spec
        body = self._head + orjson.dumps(text) + b"}]" + self._tail(output_model)
        client = self.client()
        try:
            async with asyncio.timeout(self._timeout):
                response = await client.post(
                    _CHAT_PATH, body, max_body=self._max_body, keep_head=spec.max_answer_chars
                )
        except TimeoutError:
            raise JudgeTimeoutError(
                f"no answer within {spec.limits.call_timeout.total_seconds():g}s",
                judge_id=spec.id,
            ) from None
        except HttpConnectionError as error:
            raise JudgeConnectionError(
                self._scrub(f"connection failed: {error}"), judge_id=spec.id
            ) from None
        except BodyTooLargeError as error:
            chars = spec.max_answer_chars
            raise JudgeOutputError(
                f"the answer is larger than {self._max_body:,} bytes (max-answer-chars "
                f"{chars:,}); reading stopped",
                judge_id=spec.id,
                raw_text=self._scrub(
                    cut_answer(
                        error.head.decode("utf-8", "replace"),
                        chars,
                        f"more than {self._max_body:,} bytes",
                    )
                ),
            ) from None
        if response.status >= 400:
            raise self._status_error(response)
        return self._read(response)

    def _status_error(self, response: HttpResponse) -> JudgeHTTPError:
        # The message the openai client would give (the body after "Error code: N - ").
        text = response.body.decode("utf-8", "replace").strip()
        body: Any = None
        try:
            body = json.loads(text)
            message = f"Error code: {response.status} - {body}"
        except ValueError:
            message = text or f"Error code: {response.status}"
        error = JudgeHTTPError(
            self._scrub(f"HTTP {response.status}: {message}"),
            judge_id=self._spec.id,
            status_code=response.status,
            retry_after=_retry_after_seconds(response.headers.get("retry-after")),
        )
        error.usage = body_usage(body)  # an error body with usage is billed
        return error

    def _read(self, response: HttpResponse) -> DirectReply:
        try:
            document = orjson.loads(response.body)
            message = document["choices"][0]["message"]
            if not isinstance(message, dict):
                raise TypeError("message is not an object")
            raw: str | None = None
            if self._spec.structured_output is StructuredOutputMode.FUNCTION_CALLING:
                for call in message.get("tool_calls") or ():
                    arguments = (call.get("function") or {}).get("arguments")
                    if isinstance(arguments, str):
                        raw = arguments
                        break
                    if isinstance(arguments, dict):
                        raw = json.dumps(arguments, ensure_ascii=False)
                        break
            if raw is None:
                content = message.get("content")
                if isinstance(content, str):
                    raw = content
                elif content:
                    raw = json.dumps(content, ensure_ascii=False)
            usage = body_usage(document) or TokenUsage()
        except (
            orjson.JSONDecodeError,
            ValueError,
            KeyError,
            IndexError,
            TypeError,
            AttributeError,
        ) as error:
            raise JudgeOutputError(
                self._scrub(f"malformed response from server ({type(error).__name__}: {error})"),
                judge_id=self._spec.id,
                raw_text=None,
            ) from None
        return DirectReply(raw, usage)

    async def aclose(self) -> None:
        """Close the clients of the current loop (and of loops still running)."""
        clients = list(self._clients.items())
        self._clients.clear()
        await close_loop_clients(clients)


def _mode_fragment(spec: JudgeSpec, output_model: type[BaseModel]) -> bytes:
    """The request keys of the spec's structured-output mode, serialised once."""
    return b"".join(
        b"," + orjson.dumps(key) + b":" + orjson.dumps(value)
        for key, value in structured_request_keys(spec, output_model).items()
    )
