"""Credentials inside URLs: found, masked, and base URLs checked to be absolute http(s).

A ``base-url`` copied from a provider's console may carry credentials
(``https://user:pass@host``, ``https://host/v1?key=...``); they are secrets like ``api-key``:
:func:`mask_url` hides them wherever a URL is shown, :func:`url_secrets` lists them for the
output redaction.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

__all__ = ["URL_MASK", "check_base_url", "mask_url", "url_secrets"]

#: What a credential in a URL is replaced with.
URL_MASK = "****"


def url_secrets(url: str) -> list[str]:
    """The credentials in ``url``: the user-info's password (or a lone user name, often a
    token) and every query parameter's value."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found: list[str] = []
    if parts.password:
        found.append(parts.password)
    elif parts.username:
        found.append(parts.username)
    found.extend(value for _, value in parse_qsl(parts.query, keep_blank_values=False) if value)
    return found


def mask_url(url: str) -> str:
    """``url`` with its user-info password (or lone user name) and query values masked."""
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
        f"{quote(name, safe='')}={URL_MASK if value else ''}"
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
