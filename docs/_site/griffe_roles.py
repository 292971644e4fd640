"""A griffe extension of the API reference: Sphinx roles as site links, field descriptions.

The docstrings name other objects the way Sphinx does (``:class:`~ragas_boot.runs.RunResult```,
``:meth:`aclose```). mkdocstrings renders Markdown, where a role would show as literal text, so
each one becomes a cross-reference: the name resolved in the scope of the object whose
docstring holds it (as Python would resolve it there), linked where the site documents that
object and shown as code where it does not (a private helper has no page). A face that exports
a name it does not have, or a docs page that links an object the reference lacks, still fails
the strict build: those are written by hand, not derived from a docstring.

A pydantic model documents its fields with ``Field(description=...)`` (they feed the JSON
Schemas too): a field with no docstring of its own gets its description as one, read from the
imported model so that inherited and generated fields count as pydantic sees them. Its
``model_config`` is pydantic's plumbing, not an attribute a user reads: it is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from html import escape
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|exc|obj|const):`(~?)([^`<>]+)`")


class SphinxRoles(griffe.Extension):
    """Turns ``:role:`target``` in every docstring of a package into an optional autoref."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Rewrite the docstrings once the whole package is loaded (its imports resolve)."""
        for obj in _objects(pkg):
            if obj.is_class:
                _describe_fields(obj)
        for obj in _objects(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = _ROLE.sub(partial(_reference, obj), obj.docstring.value)


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    yield obj
    for member in obj.members.values():
        if not member.is_alias and isinstance(member, griffe.Object):
            yield from _objects(member)


def _describe_fields(cls: griffe.Object) -> None:
    from pydantic import BaseModel

    try:
        model = griffe.dynamic_import(cls.path)
    except ImportError:
        return
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return
    if isinstance(cls.members.get("model_config"), griffe.Attribute):
        cls.del_member("model_config")
    for name, info in model.model_fields.items():
        member = cls.members.get(name)
        if info.description and isinstance(member, griffe.Attribute) and member.docstring is None:
            member.docstring = griffe.Docstring(info.description, parent=member)


def _reference(obj: griffe.Object, match: re.Match[str]) -> str:
    short, target = match.group(1) == "~", match.group(2).strip().removesuffix("()")
    head, _, rest = target.partition(".")
    try:
        path = obj.resolve(head) + (f".{rest}" if rest else "")
    except griffe.NameResolutionError:
        path = target
    title = target.rsplit(".", 1)[-1] if short else target
    return f'<autoref identifier="{escape(path)}" optional><code>{escape(title)}</code></autoref>'
