"""Where an OpenAI-compatible call goes and what it carries: the client's base URL from
Spring AI's ``base-url`` and path, credentials in a URL sent as Basic auth, a provider's extra
headers. The ``direct`` transport, openai's client (``ChatOpenAI``, ``OpenAIEmbeddings``), the
tool agent and the configuration checks read them here."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from urllib.parse import urlsplit

from pydantic import SecretStr

from ragas_boot.config.urls import append_path, mask_url, split_credentials, split_query

__all__ = [
    "CHAT_SUFFIX",
    "api_base_url",
    "header_values",
    "openai_client_target",
    "request_authorization",
]

log = logging.getLogger(__name__)

#: What the OpenAI client appends to its base URL for chat completions.
CHAT_SUFFIX = "/chat/completions"
_logged_v1_bases: set[str] = set()


def api_base_url(
    base_url: str,
    completions_path: str,
    *,
    suffix: str = CHAT_SUFFIX,
    key: str = "completions-path",
) -> str:
    """The base URL to give the OpenAI client so that it posts to ``base_url + completions_path``.

    Spring AI's ``base-url`` has no ``/v1`` (``https://openrouter.ai/api``); the OpenAI client
    appends ``/chat/completions`` (``suffix``; ``/embeddings`` for embedding calls) to its own
    base, so the ``/v1`` moves over from the path. A ``base-url`` that already ends in ``/v1``
    is taken as it is. A query string (Azure's ``?api-version=``, a gateway's ``?key=``) stays
    at the end of the result: join paths to it with :func:`~ragas_boot.config.urls.append_path`.

    Raises:
        ValueError: ``completions_path`` does not end in ``suffix`` (the message names ``key``).
    """
    if not completions_path.endswith(suffix):
        raise ValueError(f"{key} must end with {suffix}, got '{completions_path}'")
    prefix = completions_path[: -len(suffix)]
    base = append_path(base_url, "")  # without a trailing slash, the query kept
    if prefix and urlsplit(base).path.endswith(prefix):
        if base not in _logged_v1_bases:
            _logged_v1_bases.add(base)
            log.info("base-url %s already ends with %s; using it as is", mask_url(base), prefix)
        return base
    return append_path(base_url, prefix)


def request_authorization(url: str, api_key: SecretStr) -> tuple[str, str]:
    """``url`` as it is sent (its user-info removed) and the ``Authorization`` value to send:
    ``Basic`` from the URL's credentials when it has some, else ``Bearer <api-key>``.

    Both transports, the tool agent and embedding models send the same: HTTP clients refuse
    credentials in a URL beside an ``Authorization`` header, and one header holds one scheme.
    The URL's credentials win over the api-key (as in httpx and requests, which send a URL's
    user-info as Basic auth in place of an ``Authorization`` header); a provider ``headers``
    entry named ``Authorization`` wins over both, being sent after.
    """
    bare, basic = split_credentials(url)
    return bare, basic or f"Bearer {api_key.get_secret_value()}"


def header_values(headers: Mapping[str, SecretStr | str]) -> dict[str, str]:
    """A provider's extra headers as sent: secret values revealed (for the request only)."""
    return {
        name: value.get_secret_value() if isinstance(value, SecretStr) else str(value)
        for name, value in headers.items()
    }


def openai_client_target(
    api_base: str, api_key: SecretStr, headers: Mapping[str, SecretStr | str]
) -> tuple[str, dict[str, str], dict[str, str], SecretStr]:
    """What the openai client (``ChatOpenAI``, ``OpenAIEmbeddings``) takes to reach
    ``api_base``: its base URL (no query, no user-info), the query (its ``default_query``: the
    client appends paths to the raw base URL, query and all), its default headers (the
    provider's, after the Basic auth of URL credentials, which they override) and an API key.

    With URL credentials the key is not sent (the ``Authorization`` default header replaces
    the client's Bearer), but the client refuses to be built without one.
    """
    bare, authorization = request_authorization(api_base, api_key)
    base_url, query = split_query(bare)
    sent = header_values(headers)
    if bare != api_base:
        sent = {"Authorization": authorization, **sent}
        if not api_key.get_secret_value():
            api_key = SecretStr("url-credentials")
    return base_url, query, sent, api_key
