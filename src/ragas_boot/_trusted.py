"""Frozen pydantic models built from values this library made itself, not validated again.

Validation is for what users and providers give; a judge-less metric builds thousands of
results a second from figures it computed, and a spooled run a slim copy of each evaluation,
both typed as declared. ``model_construct`` would do, but calls the default factory of every
field left out and copies its fields-set; this takes every field and may share one
fields-set between instances (pydantic copies it before changing it in ``model_copy``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["trusted"]

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


def trusted(
    model: type[M],
    values: dict[str, Any],
    private: dict[str, Any] | None = None,
    fields_set: set[str] | None = None,
) -> M:
    """An instance of ``model`` holding ``values`` (every field, typed as declared; the dict
    becomes the instance's own) and ``private`` attributes, without validation;
    ``fields_set`` (default: the keys of ``values``) may be one set shared by many."""
    instance = model.__new__(model)
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", set(values) if fields_set is None else fields_set)
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", private)
    return instance
