"""Keeping secrets out of what ragas-boot prints and writes.

Results never hold API keys, and settings mask them (``SecretStr``); :func:`redact` is the
last line of defence at the output edge (a provider's error message that quotes a key).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, SecretStr

__all__ = ["MASK", "is_sensitive_header", "redact", "secret_values"]

#: What a secret is replaced with.
MASK = "****"

#: Secrets shorter than this are not searched for (they would mask ordinary words).
_MIN_SECRET_LENGTH = 8
_SENSITIVE_HEADER = re.compile(r"auth|key|token|secret|cookie|password", re.IGNORECASE)


def is_sensitive_header(name: str) -> bool:
    """Whether an HTTP header's value is a credential (``Authorization``, ``X-Api-Key``...)."""
    return bool(_SENSITIVE_HEADER.search(name))


def _walk(value: Any, found: list[str]) -> None:
    if isinstance(value, SecretStr):
        found.append(value.get_secret_value())
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            item = getattr(value, name)
            if name == "headers" and isinstance(item, Mapping):
                found.extend(str(v) for k, v in item.items() if is_sensitive_header(str(k)))
            else:
                _walk(item, found)
    elif isinstance(value, Mapping):
        for item in value.values():
            _walk(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _walk(item, found)


def secret_values(settings: BaseModel) -> list[str]:
    """Every secret in a settings tree: ``SecretStr`` values and credential headers."""
    found: list[str] = []
    _walk(settings, found)
    return sorted({value for value in found if len(value) >= _MIN_SECRET_LENGTH}, key=len)[::-1]


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (longest first) replaced by :data:`MASK`."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= _MIN_SECRET_LENGTH:
            text = text.replace(secret, MASK)
    return text
