"""Frozen pydantic models built from values this library made itself, not validated again.

Validation is for what users and providers give; a judge-less metric builds thousands of
results a second from figures it computed, typed as declared, and pydantic's
``model_construct`` is slower than validating them (it inspects each default factory).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["trusted"]

M = TypeVar("M", bound=BaseModel)

_set = object.__setattr__


def trusted(model: type[M], values: dict[str, Any], private: dict[str, Any] | None = None) -> M:
    """An instance of ``model`` holding ``values`` (every field, typed as declared; the dict
    becomes the instance's own) and ``private`` attributes, without validation."""
    instance = model.__new__(model)
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", set(values))
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", private)
    return instance
