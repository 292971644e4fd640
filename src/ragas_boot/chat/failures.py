"""How a failed call becomes the judge error the attempt loop understands, secrets scrubbed.

Every transport raises the same errors for the same failure, whichever client made the call:
the ``direct`` aiohttp session and openai's client (OpenAI-compatible judges, the tool agent,
``OpenAIEmbeddings``) through :func:`translate_error` and :func:`http_error`, any LangChain
class through ``chat/langchain/errors.py``, which starts from these. What a provider sends
back (an error page, an answer) goes through the one :func:`scrub`, which masks every secret
a spec holds (:meth:`~ragas_boot.chat.specs.JudgeSpec.secret_values`) and the credentials in
its base URL.

Redirects are never followed, on either transport: a judge call is a ``POST`` that carries the
API key, and following a 301/302/303 turns it into a ``GET`` (a misleading 404/405 later),
while following a 307/308 re-sends the key to wherever ``Location`` points and pays a second
round trip on every call for good. A 3xx answer is a :class:`~ragas_boot.errors.JudgeHTTPError`
with its status and ``Location`` (not retried): setting ``base-url`` to that address fixes it
once.
"""

from __future__ import annotations

import email.utils
import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from ragas_boot.chat.answers import body_usage
from ragas_boot.chat.specs import ProviderLimits
from ragas_boot.config.urls import URL_MASK, mask_url, url_secrets
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)

ResultT = TypeVar("ResultT")

__all__ = [
    "MASK",
    "REDIRECT_STATUSES",
    "CallSpec",
    "await_translated",
    "call_failure",
    "http_error",
    "malformed_answer",
    "retry_after_seconds",
    "root_cause",
    "scrub",
    "translate_error",
]

#: The answers that ask the client to send the request elsewhere (never followed).
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
#: What a secret is replaced with (a URL's credentials get :data:`URL_MASK`).
MASK = "**********"
#: Shorter secrets are not masked: replacing every "ab" in a message would garble it.
_MIN_SECRET = 4


class CallSpec(Protocol):
    """What error translation reads of a judge's or an embedding model's spec."""

    @property
    def id(self) -> str: ...

    @property
    def limits(self) -> ProviderLimits: ...

    @property
    def base_url(self) -> str: ...

    def secret_values(self) -> tuple[str, ...]: ...


def scrub(text: str, spec: CallSpec) -> str:
    """``text`` with every secret of ``spec`` masked (the API key, header values, secret class
    arguments) and the credentials in its base URL (providers sometimes echo them back: a key,
    a header, a URL with its ``?key=``)."""
    for secret in spec.secret_values():
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, MASK)
    for credential in _url_credentials(spec.base_url):
        text = text.replace(credential, URL_MASK)
    return text


@functools.lru_cache(maxsize=256)
def _url_credentials(base_url: str) -> tuple[str, ...]:
    # Every answer is scrubbed: the base URL is parsed once, not per call.
    return tuple(credential for credential in url_secrets(base_url) if len(credential) >= 4)


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header (seconds or an HTTP date) as seconds from now; ``None`` when
    absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())


def http_error(
    spec: CallSpec,
    status: int,
    message: str,
    *,
    retry_after: str | None = None,
    location: str | None = None,
) -> JudgeHTTPError:
    """The judge error of an error or redirect status, as both transports raise it.

    ``message`` is the server's (scrubbed here); a redirect says where it points and that it
    was not followed (see the module's docstring).
    """
    shown_location = scrub(mask_url(location), spec) if location else None
    if status in REDIRECT_STATUSES:
        where = f"to {shown_location}" if shown_location else "without a Location"
        message = (
            f"the server redirects {where}; redirects are not followed: point base-url "
            "(or completions-path) at the address that answers"
        )
    return JudgeHTTPError(
        scrub(f"HTTP {status}: {message}", spec),
        judge_id=spec.id,
        status_code=status,
        retry_after=retry_after_seconds(retry_after),
        location=shown_location,
    )


def root_cause(error: BaseException) -> BaseException:
    """The last of ``error``'s causes (or ``error``)."""
    seen = {id(error)}
    while True:
        cause = error.__cause__ or error.__context__
        if cause is None or id(cause) in seen:
            return error
        seen.add(id(cause))
        error = cause


def _timed_out(error: BaseException) -> bool:
    """Whether an ``APITimeoutError`` really is a timeout.

    openai's aiohttp transport reports a refused or dropped connection as a connect timeout;
    the exception it came from tells them apart (aiohttp's timeouts subclass ``TimeoutError``).
    """
    root = root_cause(error)
    if isinstance(root, TimeoutError):
        return True
    return (
        not isinstance(root, OSError | ConnectionError) and "aiohttp" not in type(root).__module__
    )


def _response_usage(response: Any) -> Any:
    try:
        return body_usage(response.json())
    except Exception:  # an unreadable body bills nothing we can count
        return None


def translate_error(error: BaseException, *, spec: CallSpec) -> BaseException:
    """An OpenAI-client error as the judge error the retry policy understands.

    Errors that are not the client's (a bug, a malformed body) are returned unchanged; so are
    judge errors. Messages are scrubbed of secrets.
    """
    import openai

    if isinstance(error, JudgeError):
        return error
    if isinstance(error, openai.APITimeoutError):
        if not _timed_out(error):
            return JudgeConnectionError(
                scrub(f"connection failed: {root_cause(error)}", spec), judge_id=spec.id
            )
        return JudgeTimeoutError(
            f"no answer within {spec.limits.call_timeout.total_seconds():g}s", judge_id=spec.id
        )
    if isinstance(error, openai.APIConnectionError):
        return JudgeConnectionError(scrub(f"connection failed: {error}", spec), judge_id=spec.id)
    if isinstance(error, openai.APIStatusError):
        headers = error.response.headers
        translated = http_error(
            spec,
            error.status_code,
            error.message,
            retry_after=headers.get("retry-after"),
            location=headers.get("location"),
        )
        # Some providers bill a failed completion and say so in the error body.
        translated.usage = _response_usage(error.response)
        return translated
    if _from_aiohttp(error):
        # openai's aiohttp transport passes some of aiohttp's errors on unmapped: an answer
        # whose framing its parser rejects (two different Content-Lengths) is one.
        return JudgeConnectionError(scrub(f"connection failed: {error}", spec), judge_id=spec.id)
    return error


def _from_aiohttp(error: BaseException) -> bool:
    import aiohttp

    return isinstance(error, aiohttp.ClientError) or isinstance(
        root_cause(error), aiohttp.ClientError
    )


async def await_translated(
    call: Awaitable[ResultT], translate: Callable[[Exception], BaseException]
) -> ResultT:
    """``call``'s result; a client error is raised as ``translate(error)`` stands for it
    (chained to it), or as it is when ``translate`` gives it back unchanged.

    Every client call of a judge, embedding model or agent turn goes through this, so the
    attempt loop sees judge errors whichever library made the call.
    """
    try:
        return await call
    except Exception as error:
        failure = translate(error)
        if failure is error:
            raise
        raise failure from error


def call_failure(error: Exception, *, spec: CallSpec) -> BaseException:
    """What a failed client call raises: the judge error it stands for (see
    :func:`translate_error`); an answer the client could not read (a 200 that is not a chat
    completion or an embedding list) is the model's :class:`JudgeOutputError`, not a bug of
    the caller. Judge errors come back unchanged."""
    translated = translate_error(error, spec=spec)
    if translated is error and not isinstance(error, JudgeError):
        return malformed_answer(error, spec=spec)
    return translated


def malformed_answer(error: BaseException, *, spec: CallSpec) -> JudgeOutputError:
    """A 2xx body that is not what the call expects: the model's failure, raw text unknown."""
    return JudgeOutputError(
        scrub(f"malformed response from server ({type(error).__name__}: {error})", spec),
        judge_id=spec.id,
        raw_text=None,
    )
