"""Credentials inside URLs: found, masked, and base URLs checked to be absolute http(s).

A ``base-url`` copied from a provider's console may carry credentials
(``https://user:pass@host``, ``https://host/v1?key=...``); they are secrets like ``api-key``:
:func:`mask_url` hides them wherever a URL is shown, :func:`url_secrets` lists them (and the
Basic token they become) for the output redaction. User-info is never sent in the URL: HTTP
clients refuse it beside an ``Authorization`` header, so :func:`split_credentials` turns it
into the request's Basic credentials. Query parameters known to hold no secret (Azure's
``api-version``) are shown as they are. A base URL's query is kept on every request:
:func:`append_path` puts a path before it, :func:`split_query` hands it to a client that takes
its query apart.
"""

from __future__ import annotations

import base64
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

__all__ = [
    "URL_MASK",
    "append_path",
    "check_base_url",
    "mask_url",
    "split_credentials",
    "split_query",
    "url_secrets",
]

#: What a credential in a URL is replaced with.
URL_MASK = "****"

#: Query parameters that never hold a credential: shown in clear, not redacted from output (a
#: version date such as ``2024-06-01`` would otherwise be masked wherever it appears).
_PUBLIC_QUERY_NAMES = frozenset({"api-version", "api_version"})


def _secret_param(name: str) -> bool:
    return name.lower() not in _PUBLIC_QUERY_NAMES


def split_query(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its query (and fragment), and the query's parameters (the last of a
    repeated name wins), for clients that take a base URL and query parameters apart."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), query


def append_path(url: str, path: str) -> str:
    """``url`` with ``path`` appended to its path; its query stays at the end
    (``https://h/d?api-version=1`` + ``/chat/completions`` is
    ``https://h/d/chat/completions?api-version=1``)."""
    parts = urlsplit(url)
    return urlunsplit(
        (parts.scheme, parts.netloc, parts.path.rstrip("/") + path, parts.query, parts.fragment)
    )


def _basic_token(user: str, password: str) -> str:
    # RFC 7617's user-pass in UTF-8, as httpx encodes it.
    return base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def split_credentials(url: str) -> tuple[str, str | None]:
    """``url`` without its user-info, and the ``Authorization`` value its credentials stand
    for (``Basic <base64 of user:password>``, percent-escapes decoded); ``None`` when it has
    none. ``https://token@host`` sends the token as the user name with an empty password."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.netloc.rsplit("@", 1)[1]
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    bare = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return bare, f"Basic {_basic_token(user, password)}"


def url_secrets(url: str) -> list[str]:
    """The credentials in ``url``: the user-info's password (or a lone user name, often a
    token) as written and decoded, the Basic token they are sent as, and every query
    parameter's value but those known to be public (``api-version``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    secret = parts.password or parts.username
    if secret:
        found.extend(dict.fromkeys((secret, unquote(secret))))
        found.append(_basic_token(unquote(parts.username or ""), unquote(parts.password or "")))
    found.extend(
        value
        for name, value in parse_qsl(parts.query, keep_blank_values=False)
        if value and _secret_param(name)
    )
    return found


def mask_url(url: str) -> str:
    """``url`` with its user-info password (or lone user name) and query values masked (but
    those of public parameters such as ``api-version``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not (parts.username or parts.password or parts.query):
        return url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0] if parts.password else URL_MASK
        netloc = f"{user}:{URL_MASK}@{host}" if parts.password else f"{user}@{host}"
    query = "&".join(
        f"{quote(name, safe='')}="
        + (URL_MASK if value and _secret_param(name) else quote(value, safe=""))
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def check_base_url(value: str) -> str:
    """``value`` when it is an absolute http(s) URL with a host.

    Raises:
        ValueError: it is not (``localhost:8080``, ``api.openai.com``, ``ftp://...``).
    """
    text = value.strip()
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        raise ValueError(
            "must be an absolute http(s) URL with a host, such as https://api.openai.com or "
            f"http://localhost:8080; got '{mask_url(text)}'"
        )
    return text
