"""The one base of every mode enum: values in Java's spelling, accepted in any case."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = ["CaseInsensitiveEnum"]


class CaseInsensitiveEnum(StrEnum):
    """A string enum read from YAML or code in any case, with ``-`` or ``_`` and blanks.

    ``ToolCallMode("strict")``, ``ToolCallMode("STRICT")`` and ``ToolCallMode(" Strict ")``
    are the same member; so are ``"with-reference"`` and ``"WITH_REFERENCE"``.
    """

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if isinstance(value, str):
            wanted = value.strip().replace("-", "_").lower()
            for member in cls:
                if member.value.lower() == wanted or member.name.lower() == wanted:
                    return member
        return None
