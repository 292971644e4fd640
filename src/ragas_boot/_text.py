"""Text that came from a dataset or a configuration, made safe to show in a terminal.

Sample ids, dataset names, judge ids and error messages quoting them are written by other
people (production traces, copy-paste); a terminal must show them, never obey them. ESC
sequences (``ESC[2J`` clears the screen, OSC sets the window title), carriage returns that
overwrite a line and bidirectional overrides that reorder it become visible escapes such as
``\\x1b``; rich markup is never interpreted because renderers wrap such text in ``rich.Text``
(see :func:`ragas_boot.reporting._format.plain`), never in a markup string.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the
# invisible format characters that reorder or hide text (bidi overrides and isolates,
# zero-width marks, line and paragraph separators).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: object) -> str:
    """``str(value)`` with every control or invisible formatting character shown as an escape.

    Tabs and newlines are kept; everything else a terminal would act on (ESC, BEL, CR,
    backspace, C1 controls, bidi overrides) becomes ``\\xNN`` or ``\\uNNNN``, so the text is
    seen, not executed, and a reader can tell it was there.

    >>> printable("id\\x1b[2J")
    'id\\\\x1b[2J'
    """
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE.sub(_escape, text)
