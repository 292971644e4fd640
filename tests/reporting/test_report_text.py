"""The one escaping of outside text for each output (``_text``): Markdown renders it as the text
it is, a spreadsheet shows it without running it, XML takes every character.

Markdown is checked by rendering it with markdown-it (CommonMark, with GitHub's tables and
strikethrough) in the three places the summary puts such text: a table cell, a heading and a
list item. The rendered text must equal the input (controls shown as escapes, blanks
collapsed), with no link, image, tag, code or emphasis made of it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragas_boot._text import markdown_text, printable, spreadsheet_cell

markdown_it = pytest.importorskip("markdown_it", reason="rich's dependency")

PARSER = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
MARKUP = {
    "link_open", "image", "html_inline", "html_block", "code_inline", "code_block", "fence",
    "em_open", "strong_open", "s_open", "bullet_list_open", "ordered_list_open", "hr",
    "blockquote_open", "heading_open", "softbreak", "hardbreak",
}  # fmt: skip
# Punctuation Markdown reads, letters, digits, blanks and the characters printable escapes.
ALPHABET = st.sampled_from(
    [*"\\`*_[]()<>&|~$#!+-=.:/@ \t\nabcz09", "\x00", "\x1b", "\r", "\u202e", "é", "д"]
)


def _expected(value: str) -> str:
    return re.sub("[ \t\n]+", " ", printable(value)).strip(" ")


def _rendered(document: str, skip: set[str]) -> tuple[str, set[str]]:
    """The text of the document's last inline content (the value's), and the markup token
    types found anywhere in it."""
    text, found = "", set()
    for token in PARSER.parse(document):
        if token.type in MARKUP - skip:
            found.add(token.type)
        if token.type == "inline":
            children = token.children or ()
            text = "".join(child.content for child in children if child.type == "text")
            found.update(child.type for child in children if child.type in MARKUP)
    return text, found


@pytest.mark.parametrize(
    ("place", "skip"),
    [
        ("| h |\n|---|\n| {} |\n", set()),
        ("## ragas-boot: {}\n", {"heading_open"}),
        ("- {}\n", {"bullet_list_open"}),
    ],
)
@pytest.mark.parametrize(
    "value",
    [
        "[c](https://evil.example/c)",
        "![t](https://evil.example/t.png)",
        '<img src="https://evil.example/i.png">',
        "<https://evil.example>",
        "[ref]: https://evil.example",
        "a|b | c",
        "`tick` ``two``",
        "*em* **strong** _u_ __init__ ~~gone~~",
        "&lt;b&gt; &amp; &#x3C;",
        "# heading ##",
        "- item",
        "+ item",
        "1. first",
        "12) twelfth",
        "---",
        "> quote",
        "$x^2$",
        "back\\slash \\[ at end\\",
        "line one\nline two\r\n  indented",
        "nul\x00esc\x1b[2Jbidi\u202e",
        "agent_goal_accuracy",
        "",
        "    four blanks first",
        "日本語 | ü",
    ],
)
def test_markdown_text_renders_as_the_text_it_is(place: str, skip: set[str], value: str):
    shown = markdown_text(value)
    text, found = _rendered(place.format(shown), skip)
    assert not found, f"{value!r} became {found}: {shown!r}"
    prefix = "ragas-boot: " if place.startswith("#") else ""
    assert text == (prefix + _expected(value)).rstrip(" "), (text, shown)


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=30))
def test_any_text_in_a_table_cell_renders_as_itself(value: str):
    text, found = _rendered(f"| h |\n|---|\n| {markdown_text(value)} |\n", set())
    assert not found
    assert text == _expected(value)


def test_plain_identifiers_stay_readable_in_the_markdown_file():
    assert markdown_text("agent_goal_accuracy") == "agent_goal_accuracy"
    assert markdown_text("gpt-4o-mini 0.750 pass") == "gpt-4o-mini 0.750 pass"
    assert markdown_text("0.000 fail") == "0.000 fail"


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ('=HYPERLINK("https://x","c")', '\'=HYPERLINK("https://x","c")'),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tTAB", "'\tTAB"),
        ("\r=1", "\\x0d=1"),  # the carriage return shown: the cell starts with a backslash
        ("nul\x00esc\x1b", "nul\\x00esc\\x1b"),
        ("-1", "-1"),  # plain numbers are no formulas
        ("+2.5", "+2.5"),
        ("-3e-2", "-3e-2"),
        ("-", "'-"),
        ("", ""),
        ("plain = text", "plain = text"),
        ("ünïcode", "ünïcode"),
    ],
)
def test_spreadsheet_cells_never_start_a_formula(value: str, cell: str):
    assert spreadsheet_cell(value) == cell


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20))
def test_printable_text_is_always_valid_xml(value: str):
    element = ET.Element("testcase", name=printable(value))
    element.text = printable(value)
    document = ET.tostring(element, encoding="unicode")
    assert ET.fromstring(document.encode("utf-8")).get("name") == printable(value)
