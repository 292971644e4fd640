"""Text that came from a dataset or a configuration, made inert for each place it is shown.

Sample ids, dataset names, judge ids, judges' reasons and error messages quoting them are
written by other people (production traces, copy-paste, a model's answer). Every output shows
them as data and obeys none of them:

- a terminal (:func:`printable`): ESC sequences (``ESC[2J`` clears the screen, OSC sets the
  window title), carriage returns that overwrite a line and bidirectional overrides that
  reorder it become visible escapes such as ``\\x1b``; rich markup is never interpreted
  because renderers wrap such text in ``rich.Text`` (see
  :func:`ragas_boot.reporting._format.plain`), never in a markup string;
- XML (the JUnit report): :func:`printable` too, whose escapes cover every character XML 1.0
  forbids (C0 controls, lone surrogates, U+FFFE/U+FFFF), so no sample makes the file invalid;
- Markdown (:func:`markdown_text`, the CI summary GitHub renders): links, images, HTML tags,
  emphasis, code spans and table pipes render as the characters they are;
- a spreadsheet (:func:`spreadsheet_cell`, the CSV report): a cell that starts like a formula
  (``=HYPERLINK(...)``) is kept as text, per OWASP's rule against CSV injection.

The escapes are one mechanism: every format starts from :func:`printable`, so a control
character reads ``\\x1b`` wherever it is shown. Typed outputs (JSON, Parquet, ``to_pandas()``)
keep the exact text: their readers never execute it.
"""

from __future__ import annotations

import re

__all__ = ["markdown_text", "printable", "spreadsheet_cell"]

# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), the invisible
# format characters that reorder or hide text (bidi overrides and isolates, zero-width marks,
# line and paragraph separators), lone surrogates (no encoder writes them) and the two
# non-characters XML 1.0 forbids.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064"
    "\u2066-\u2069\ufeff\ud800-\udfff\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: object) -> str:
    """``str(value)`` with every control or invisible formatting character shown as an escape.

    Tabs and newlines are kept; everything else a terminal would act on (ESC, BEL, CR,
    backspace, C1 controls, bidi overrides) or an XML parser would refuse (NUL, lone
    surrogates) becomes ``\\xNN`` or ``\\uNNNN``, so the text is seen, not executed, and a
    reader can tell it was there.

    >>> printable("id\\x1b[2J")
    'id\\\\x1b[2J'
    """
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE.sub(_escape, text)


# Markdown punctuation that can start a construct anywhere in a line: a backslash (which would
# escape what follows), code spans, emphasis, links and images ([ and ]), HTML tags and
# entities, table pipes, strikethrough, GitHub's math, and # (a heading's closing sequence).
# An underscore only between two letters or digits cannot emphasise, so "agent_goal_accuracy"
# stays as it is.
_MARKDOWN = re.compile(r"[\\`*\[\]<>&|~$#]|(?<![^\W_])_|_(?![^\W_])")
# What starts a block only at the start of a line: a bullet or a thematic break (- and +; * is
# escaped anywhere), an ordered list item (digits, then . or ) and a blank or the end).
_MARKDOWN_LEADING = re.compile(r"[+\-]|\d{1,9}(?=[.)](?: |$))")
_BLANKS = re.compile(r"[ \t\n]+")


def markdown_text(value: object) -> str:
    """``value`` as inline Markdown that renders as exactly its text (after :func:`printable`).

    Every character Markdown (CommonMark, GitHub's tables and strikethrough) would read as
    markup is backslash-escaped, so ``[c](https://...)`` is no link, ``![t](...)`` no image,
    ``<img>`` no tag and ``a|b`` one table cell; line breaks and runs of blanks become one
    space (the text sits in a table cell, a heading or a list item). A bare address may still
    be linked by GitHub's autolinker, showing its own target.

    >>> markdown_text("[c](https://x)")
    '\\\\[c\\\\](https://x)'
    """
    text = _BLANKS.sub(" ", printable(value)).strip(" ")
    text = _MARKDOWN.sub(lambda match: "\\" + match.group(), text)
    leading = _MARKDOWN_LEADING.match(text)
    if leading is not None:
        end = leading.end()
        text = text[:end] + "\\" + text[end:] if text[end - 1].isdigit() else "\\" + text
    return text


# A spreadsheet reads a cell that starts with one of these as a formula (OWASP: CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# ... except a plain number, which no spreadsheet can make do anything (-1, +2.5, -3e-2).
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_cell(value: str) -> str:
    """``value`` as a CSV cell a spreadsheet shows as text: :func:`printable`, and a leading
    ``'`` when it would start a formula (``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return), unless it is a plain number.

    >>> spreadsheet_cell('=HYPERLINK("https://x")')
    '\\'=HYPERLINK("https://x")'
    """
    text = printable(value)
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text
