"""Sample text is data in every report a run writes: Markdown, CSV, JUnit XML, Parquet, JSON.

The sample ids, the dataset's name and the judges' reasons carry a Markdown link and image, HTML,
table pipes, backticks, emphasis, spreadsheet formulas (``=HYPERLINK``, ``@SUM``, ``-2+3``), NUL,
ESC and a bidi override. Each file is read back by what reads it next (markdown-it for GitHub's
summary, :mod:`csv` for a spreadsheet, expat, junitparser and xunitparser for a CI server,
pyarrow): the text must come back as text, never as a link, tag, formula or invalid file; the
typed formats keep it exactly.
"""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ragas_boot._text import printable
from ragas_boot.testing import ChatRequest, FakeOpenAIServer

markdown_it = pytest.importorskip("markdown_it", reason="rich's dependency")

IDS = [
    '=HYPERLINK("https://evil.example/x","click") [c](https://evil.example/c) '
    "![t](https://evil.example/t.png)",
    '<img src="https://evil.example/i.png"> a|b `tick` *em* __init__ ~~gone~~ $x$ \\ # end #',
    "nul\x00esc\x1b[2Jbell\x07\u202ebidi",
    "@SUM(A1)",
    "-2+3 <b>x</b>",
]
NAME = "![n](https://evil.example/n.png) <b>run</b> | [home](https://evil.example)"
REASON = '=HYPERLINK("https://evil.example/r") [r](https://evil.example/r) <script>x</script>'
#: What no text cell of the CSV may hold raw: C0 controls but tab and newline, DEL, C1.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _answer(request: ChatRequest) -> dict[str, object]:
    if request.asks_for("goal_achieved"):
        return {"goal_achieved": False, "reason": REASON}
    return {"ok": True}


@pytest.fixture
def hostile_dataset(tmp_path: Path) -> Path:
    samples = [
        {
            "id": sample_id,
            "user_input_messages": [
                {"type": "human", "content": "Book the 9am flight to Paris."},
                {"type": "ai", "content": "Booked."},
            ],
            "reference": "The 9am flight to Paris is booked",
            "reference_tool_calls": [{"name": "book_flight", "arguments": {"time": "09:00"}}],
        }
        for sample_id in IDS
    ]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps({"name": NAME, "samples": samples}), encoding="utf-8")
    return path


@pytest.fixture
def outs(
    run_cli, config_file, hostile_dataset, openai_server: FakeOpenAIServer, tmp_path, monkeypatch
) -> dict[str, Path]:
    openai_server.respond(None, _answer)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    paths = {kind: tmp_path / f"run.{kind}" for kind in ("md", "csv", "xml", "parquet", "json")}
    result = run_cli(
        "evaluate", hostile_dataset, "--metric", "agent_goal_accuracy",
        "--metric", "tool_call_accuracy", "--config", config_file, "--no-history",
        "--fail-under", "0.5",
        *(arg for path in paths.values() for arg in ("--out", path)),
    )  # fmt: skip
    assert result.code == 1, result.text  # every sample fails: the gate fails
    for path in paths.values():
        assert path.is_file(), result.text
    return paths


def _inline_text(token) -> str:
    return "".join(child.content for child in token.children or () if child.type == "text")


def test_the_markdown_summary_renders_sample_text_as_text(outs):
    source = outs["md"].read_text(encoding="utf-8")
    parser = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    tokens = parser.parse(source)
    markup = {"link_open", "image", "html_inline", "html_block", "code_inline", "s_open",
              "em_open", "strong_open", "code_block", "fence"}  # fmt: skip
    found = {
        child.type
        for token in tokens
        for child in [token, *(token.children or ())]
        if child.type in markup
    }
    assert not found, f"dataset text became Markdown: {found}"
    heading = next(tokens[i + 1] for i, t in enumerate(tokens) if t.type == "heading_open")
    assert _inline_text(heading) == f"❌ ragas-boot: {printable(NAME)}"
    rows: list[list[str]] = []
    cells: list[str] = []
    for token in tokens:
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append(_inline_text(token))
        elif token.type == "tr_close":
            rows.append(cells)
    failing_ids = {row[0] for row in rows if len(row) == 5}
    assert {printable(sample_id) for sample_id in IDS} <= failing_ids
    assert any(row[1:3] == ["tool_call_accuracy", "0.000 fail"] for row in rows)
    assert "\x00" not in source and "\x1b" not in source and "\u202e" not in source


def test_the_csv_starts_no_formula_and_holds_no_control_character_unlike_parquet(outs):
    with outs["csv"].open(encoding="utf-8", newline="") as file:
        header, *rows = list(csv.reader(file))
    for row in [header, *rows]:
        for cell in row:
            assert not CONTROL.search(cell), cell
            number = re.fullmatch(r"[+-]?[\d.]+(e[+-]?\d+)?", cell)
            assert not cell.startswith(FORMULA) or number, cell
    by_column = [dict(zip(header, row, strict=True)) for row in rows]
    shown = {row["sample_id"] for row in by_column}
    assert shown == {
        ("'" if sample_id.startswith(FORMULA) else "") + printable(sample_id) for sample_id in IDS
    }
    goal = [row for row in by_column if row["metric"] == "agent_goal_accuracy"]
    assert {row["reason:judge-a"] for row in goal} == {"'" + REASON}
    # Parquet and JSON are typed data for programs: they keep the exact text.
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet", reason="the [tables] extra")
    table = pyarrow_parquet.read_table(outs["parquet"]).to_pylist()
    assert {row["sample_id"] for row in table} == set(IDS)
    goal_rows = [row for row in table if row["metric"] == "agent_goal_accuracy"]
    assert {row["reason:judge-a"] for row in goal_rows} == {REASON}
    document = json.loads(outs["json"].read_text(encoding="utf-8"))
    assert [sample["sample_id"] for sample in document["samples"]] == IDS


def test_the_junit_file_is_valid_xml_that_ci_readers_take(outs):
    junitparser = pytest.importorskip("junitparser", reason="the dev extra")
    xunitparser = pytest.importorskip("xunitparser", reason="the dev extra")
    path = outs["xml"]
    root = ET.parse(path).getroot()  # expat is strict: an illegal character fails here
    names = [case.get("name") for case in root.iter("testcase")]
    assert sorted(set(names)) == sorted(printable(sample_id) for sample_id in IDS)
    report = junitparser.JUnitXml.fromfile(str(path))
    assert report.tests == 2 * len(IDS)
    with path.open(encoding="utf-8") as file:
        _, result = xunitparser.parse(file)
    assert result.testsRun == 2 * len(IDS)
    messages = [failure.get("message") for failure in root.iter("failure")]
    assert any(f"judge-a 0.000 ({REASON})" in message for message in messages)
    properties = [prop.get("name") for prop in root.iter("property")]
    assert len(properties) == len(set(properties)) == 8  # 4 per metric, none repeated
