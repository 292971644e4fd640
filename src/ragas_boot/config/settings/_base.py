"""What every settings section is: kebab-case YAML keys, frozen, URLs masked; durations.

Every section takes its YAML keys in kebab-case (``base-url``) and its Python field names in
snake_case (``base_url``); unknown keys are errors, but in the sections of other Java starters
(:class:`_JavaSection`), whose keys ragas-boot reads only in part.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    FieldSerializationInfo,
    field_serializer,
)
from pydantic.alias_generators import to_snake

from ragas_boot.config.urls import mask_url

__all__ = ["REVEAL_URLS", "URL_FIELDS", "Duration", "parse_duration"]

_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ns|us|ms|s|m|h|d)?\s*$", re.IGNORECASE)
_ISO_RE = re.compile(
    r"^P(?:(?P<d>\d+(?:\.\d+)?)D)?(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?"
    r"(?:(?P<s>\d+(?:\.\d+)?)S)?)?$",
    re.IGNORECASE,
)
_UNIT_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}


def parse_duration(value: Any) -> Any:
    """Read a Spring duration: ``500ms``, ``30s``, ``2m``, ISO ``PT30S``; a bare number is ms.

    A negative number is refused as the text ``-5s`` is: no duration of the config is below 0.
    Anything else is returned unchanged for pydantic to reject with its own message.
    """
    if isinstance(value, timedelta) or value is None:
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError(
                f"'{value}' is not a duration: it is negative; use e.g. 500ms, 30s, 2m, PT30S "
                "or a number of ms"
            )
        return timedelta(milliseconds=value)
    if isinstance(value, str):
        match = _DURATION_RE.match(value)
        if match:
            number, unit = match.groups()
            return timedelta(seconds=float(number) * _UNIT_SECONDS[(unit or "ms").lower()])
        iso = _ISO_RE.match(value.strip())
        if iso and value.strip().upper() not in ("P", "PT"):
            parts = {k: float(v) if v else 0.0 for k, v in iso.groupdict().items()}
            return timedelta(
                days=parts["d"], hours=parts["h"], minutes=parts["m"], seconds=parts["s"]
            )
        raise ValueError(
            f"'{value}' is not a duration; use e.g. 500ms, 30s, 2m, PT30S or a number of ms"
        )
    return value


#: A duration field: accepts ``2000ms``, ``30s``, ``2m``, ``PT30S`` or a number of milliseconds.
Duration = Annotated[timedelta, BeforeValidator(parse_duration)]


def _kebab(name: str) -> str:
    return name.replace("_", "-")


#: Fields that hold a URL, which may carry credentials (``https://user:PASS@host``,
#: ``?key=...``): masked in every repr, str and dump of a section (see :class:`_Section`).
URL_FIELDS = frozenset({"base_url", "url", "auth_url"})

#: ``model_dump(context={REVEAL_URLS: True})`` keeps URLs whole, for code that must reach them.
REVEAL_URLS = "reveal_urls"


class _Section(BaseModel):
    """A YAML section: kebab-case keys, snake_case fields, unknown keys rejected, frozen.

    A URL field (:data:`URL_FIELDS`) is shown with its credentials masked wherever the section
    is printed or dumped (``repr``, ``str``, ``model_dump``, ``model_dump_json``), as
    ``SecretStr`` fields are; the attribute itself stays the real URL, which the judges use.
    """

    model_config = ConfigDict(
        alias_generator=_kebab,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        use_enum_values=False,
    )

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():
            if name in URL_FIELDS and isinstance(value, str):
                value = mask_url(value)
            yield name, value

    @field_serializer(*URL_FIELDS, check_fields=False)
    def _masked_url(self, value: str | None, info: FieldSerializationInfo) -> str | None:
        if value is None or (info.context or {}).get(REVEAL_URLS):
            return value
        return mask_url(value)


class _JavaSection(_Section):
    """A section of another Java starter: keys ragas-boot does not use are ignored."""

    model_config = ConfigDict(extra="ignore")


def _snake_key(key: str) -> str:
    """``base-url``, ``baseUrl`` and ``base_url`` all become ``base_url``."""
    return to_snake(key.replace("-", "_"))
