"""Any chat client's error as the judge error the retry policy understands, whatever the
client library: what the error (or one of its causes) carries, read by duck typing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ragas_boot.chat.answers import body_usage
from ragas_boot.chat.failures import CallSpec, retry_after_seconds, scrub, translate_error
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)

__all__ = ["error_text", "translate_client_error"]

_MAX_ECHO = 300
#: Errors that are bugs, not a provider's failure to answer.
_PROGRAMMING_ERRORS = (AttributeError, NameError, ImportError, NotImplementedError, AssertionError)


def _causes(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def error_text(error: BaseException) -> str:
    content = getattr(error, "content", None)
    if isinstance(content, bytes):
        text = content.decode("utf-8", "replace")
    else:
        text = str(getattr(error, "message", None) or getattr(error, "error", None) or error)
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ECHO else text[:_MAX_ECHO] + "…"


def _headers_of(error: BaseException) -> Any:
    headers = getattr(error, "headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    return headers


def _error_body(error: BaseException) -> object:
    """The JSON body an HTTP error of a chat client carries, if it can be read: ``body``
    (anthropic, openai), ``content`` bytes (gigachat), or the ``response`` itself."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        return body
    content = getattr(error, "content", None)
    if not isinstance(content, bytes | str):
        response = getattr(error, "response", None)
        content = getattr(response, "content", None)
    if isinstance(content, bytes | str) and content:
        try:
            return json.loads(content)
        except ValueError:  # not JSON (UnicodeDecodeError too): nothing to bill
            return None
    return None


def translate_client_error(error: BaseException, *, spec: CallSpec) -> BaseException:
    """Any chat client's error as the judge error the retry policy understands.

    OpenAI-client errors go through :func:`~ragas_boot.chat.failures.translate_error`;
    otherwise the error (or one of its causes) is read for what it carries: an HTTP
    ``status_code`` (with its ``Retry-After``), a timeout, a refused or dropped connection.
    Anything else from the client (a body it could not read) is this judge's failure to
    answer; programming errors are returned unchanged. Messages are scrubbed of secrets.
    """
    if isinstance(error, JudgeError):
        return error
    translated = translate_error(error, spec=spec)
    if translated is not error:
        return translated
    for cause in _causes(error):
        status = getattr(cause, "status_code", None)
        if isinstance(status, int) and 400 <= status <= 599:
            headers = _headers_of(cause)
            retry_after = None
            if headers is not None and hasattr(headers, "get"):
                retry_after = retry_after_seconds(headers.get("retry-after"))
            translated = JudgeHTTPError(
                scrub(f"HTTP {status}: {error_text(cause)}", spec),
                judge_id=spec.id,
                status_code=status,
                retry_after=retry_after,
            )
            # As on the OpenAI-compatible transports: a provider that bills a failed
            # completion says so in the error body, and that is billed.
            translated.usage = body_usage(_error_body(cause))
            return translated
        name = type(cause).__name__
        if isinstance(cause, TimeoutError) or "Timeout" in name:
            return JudgeTimeoutError(
                f"no answer within {spec.limits.call_timeout.total_seconds():g}s",
                judge_id=spec.id,
            )
        if (
            isinstance(cause, ConnectionError)
            or "Connect" in name
            or name in ("RemoteProtocolError", "ReadError", "WriteError", "NetworkError")
        ):
            return JudgeConnectionError(
                scrub(f"connection failed: {error_text(cause)}", spec), judge_id=spec.id
            )
    if isinstance(error, _PROGRAMMING_ERRORS):
        return error
    return JudgeOutputError(
        scrub(f"malformed response ({type(error).__name__}: {error_text(error)})", spec),
        judge_id=spec.id,
        raw_text=None,
    )
