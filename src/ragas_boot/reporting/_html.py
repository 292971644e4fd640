"""HTML pieces shared by the report pages: escaping, tables, numeric cells."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape as _escape
from typing import Any

__all__ = ["escape", "numeric_cell", "sample_anchor", "table"]


def escape(value: Any) -> str:
    """``str(value)`` made safe for HTML text and attribute values."""
    return _escape(str(value), quote=True)


def table(headers: Sequence[str], rows: Iterable[str], numeric: Iterable[int] = ()) -> str:
    """A table of ready ``<tr>`` rows; the columns in ``numeric`` are right-aligned."""
    right = set(numeric)
    head = "".join(
        f'<th class="num">{escape(h)}</th>' if i in right else f"<th>{escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def numeric_cell(text: str) -> str:
    """A right-aligned ``<td>``."""
    return f'<td class="num">{escape(text)}</td>'


def sample_anchor(sample_id: str) -> str:
    """The id of a sample's element in the HTML report: ``sample-`` and the id, made safe."""
    return "sample-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in sample_id)
