"""Keeping secrets out of what ragas-boot prints and writes.

Results never hold API keys, and settings mask them (``SecretStr``: API keys and every header
value); :func:`redact` is the last line of defence at the output edge (a provider's error
message that quotes a key, a credential inside a ``base-url``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, SecretStr

from ragas_boot.config.urls import url_secrets

__all__ = ["MASK", "redact", "secret_values"]

#: What a secret is replaced with.
MASK = "****"

#: Secrets shorter than this are not searched for (they would mask ordinary words).
_MIN_SECRET_LENGTH = 8


#: Settings fields holding URLs whose credentials are secrets (a judge's base URL, a history
#: database URL such as ``postgresql://user:password@host/db``).
_URL_FIELDS = frozenset({"base_url", "url"})


def _walk(value: Any, found: list[str]) -> None:
    if isinstance(value, SecretStr):
        found.append(value.get_secret_value())
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            item = getattr(value, name)
            if name in _URL_FIELDS and isinstance(item, str):
                found.extend(url_secrets(item))
            else:
                _walk(item, found)
    elif isinstance(value, Mapping):
        for item in value.values():
            _walk(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _walk(item, found)


def secret_values(settings: BaseModel) -> list[str]:
    """Every secret in a settings tree: ``SecretStr`` values (keys, header values) and the
    credentials inside base URLs."""
    found: list[str] = []
    _walk(settings, found)
    return sorted({value for value in found if len(value) >= _MIN_SECRET_LENGTH}, key=len)[::-1]


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (longest first) replaced by :data:`MASK`."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= _MIN_SECRET_LENGTH:
            text = text.replace(secret, MASK)
    return text
