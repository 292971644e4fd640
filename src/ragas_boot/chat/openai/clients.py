"""The clients under the ``langchain`` transport, the tool agent and ``OpenAIEmbeddings``:
openai's aiohttp transport as they take it, and the lazy import of ``langchain_openai``.

:func:`openai_http_client` gives openai's client what the ``direct`` transport has of its own:
the provider's call timeout and connections, redirects reported and not followed, the TLS
context of :mod:`~ragas_boot.chat.openai.tls`, URL credentials masked in the client's logs and
the proxy :mod:`~ragas_boot.chat.openai.proxies` finds (openai's client reads none itself).
Importing ``langchain_openai`` costs about 1.6 s, so :func:`chat_openai_class` and
:func:`openai_embeddings_class` import it on first use, here only.
"""

from __future__ import annotations

import functools
import gc
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ragas_boot.chat.openai.proxies import environment_proxy
from ragas_boot.chat.openai.tls import tls_context
from ragas_boot.chat.specs import ProviderLimits, TlsFiles
from ragas_boot.config.urls import mask_url

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI, OpenAIEmbeddings
    from openai import DefaultAioHttpClient

__all__ = [
    "chat_openai_class",
    "idle_sync_client",
    "openai_embeddings_class",
    "openai_http_client",
]


@functools.cache
def chat_openai_class() -> type[ChatOpenAI]:
    """Import ``ChatOpenAI`` on first use.

    The import adds a few hundred thousand long-lived objects (langchain, openai, aiohttp,
    their pydantic models) that every later full garbage collection would walk again: about
    0.12 s of CPU each on a 2-core machine, a loop stall long enough to trip short call
    timeouts, and some 0.3 ms per judge call in a large fan-out (benchmarks/fanout.py).
    ``gc.freeze()`` moves what is alive now into the permanent generation, which collections
    skip; objects made later are collected as before.
    """
    from langchain_openai import ChatOpenAI

    gc.freeze()
    return ChatOpenAI


@functools.cache
def openai_embeddings_class() -> type[OpenAIEmbeddings]:
    """Import ``OpenAIEmbeddings`` on first use (after ``ChatOpenAI``, for the same reason)."""
    chat_openai_class()
    from langchain_openai import OpenAIEmbeddings

    return OpenAIEmbeddings


class _MaskUrlCredentials(logging.Filter):
    """httpx logs every request's full URL at INFO: a ``?key=`` of a base-url is masked there."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(
                mask_url(str(arg)) if type(arg).__name__ == "URL" else arg for arg in record.args
            )
        return True


@functools.cache
def _mask_client_logs() -> None:
    """Mask URL credentials in the request lines the openai client's httpx logs (once)."""
    for name in ("httpx", "httpx2"):
        logging.getLogger(name).addFilter(_MaskUrlCredentials())


def _connection_limits(max_concurrency: int) -> Any:
    """The openai client's connection limits for a provider's concurrency."""
    from openai import DEFAULT_CONNECTION_LIMITS

    # The Limits class of whichever httpx flavour this openai version is built on.
    limits_class = type(DEFAULT_CONNECTION_LIMITS)
    connections = max_concurrency + 8
    return limits_class(max_connections=connections, max_keepalive_connections=connections)


def openai_http_client(
    url: str, limits: ProviderLimits, tls: TlsFiles, *, proxied: bool = True, **options: Any
) -> DefaultAioHttpClient:
    """openai's aiohttp transport for calls to ``url`` (judges on the ``langchain`` transport,
    the tool agent, embedding models), bound to the running loop.

    The provider's call timeout, connections for its concurrency, redirects reported and not
    followed (``chat/failures.py`` says why), :func:`~ragas_boot.chat.openai.tls.tls_context`
    for https, URL credentials masked in the client's logs, and the proxy the environment
    sets for ``url`` as the ``direct`` transport reads it (none when ``proxied`` is false),
    not httpx's own reading; ``options`` go to the client as they are.
    """
    from openai import DefaultAioHttpClient

    _mask_client_logs()
    if urlsplit(url).scheme == "https":
        options["verify"] = tls_context(tls)
    found = environment_proxy(url) if proxied else None
    if found is not None:
        import httpx2

        # The credentials as a header that aiohttp moves to Proxy-Authorization (as in
        # chat/openai/direct.py): httpx's auth= would reach aiohttp as its deprecated proxy_auth.
        headers = {"Authorization": found.authorization} if found.authorization else None
        options["proxy"] = httpx2.Proxy(found.url, headers=headers)
    return DefaultAioHttpClient(
        trust_env=False,
        timeout=limits.call_timeout.total_seconds() or None,
        limits=_connection_limits(limits.max_concurrency),
        follow_redirects=False,
        **options,
    )


@functools.cache
def idle_sync_client() -> Any:
    """A sync client for langchain-openai's models to hold and never use (every call here is
    async), shared: without one, each builds its own, which reads the proxy variables itself
    (and fails on a ``socks5://`` one without socksio) where the async client is told the
    proxy :mod:`~ragas_boot.chat.openai.proxies` found. It opens no connection until used."""
    from openai import DefaultHttpxClient

    return DefaultHttpxClient(trust_env=False)
