"""Text from datasets and configs reaches the terminal as plain text: no markup, no escapes.

Every field that ends up in a table, a message or the logging box carries rich markup
(unbalanced and balanced), ANSI CSI, an OSC window-title sequence, BEL, CR and a bidi override;
the run must end normally, print each of them visibly and send none of them raw.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ragas_boot._text import printable
from ragas_boot.testing import ChatRequest, FakeOpenAIServer

#: Markup rich would choke on or obey, then terminal control sequences.
HOSTILE = (
    "[/x][link=https://evil.example]click[/link][blink]B[/blink]\x1b[2J\x1b]0;owned\x07\r\u202e"
)
#: What must never reach the terminal raw.
RAW_CONTROLS = ("\x1b", "\x07", "\r", "\u202e", "\x9b")
JUDGE = "judge-[/x]\x1b[31m"


def _no_raw_controls(text: str) -> None:
    for char in RAW_CONTROLS:
        assert char not in text, f"{char!r} reached the terminal"


def _answer(request: ChatRequest) -> dict[str, object]:
    if request.asks_for("goal_achieved"):
        return {"goal_achieved": True, "reason": HOSTILE}
    return {"ok": True}


@pytest.fixture
def hostile_config(tmp_path: Path, openai_server: FakeOpenAIServer, secret: str) -> Path:
    """Two judges, one with markup and an escape sequence in its id; logging box on."""
    openai_server.respond(None, _answer)
    path = tmp_path / "application.yaml"
    # YAML forbids raw control characters; its double-quoted escapes make them.
    judge = json.dumps(JUDGE)
    path.write_text(
        textwrap.dedent(
            f"""\
            spring.ai.retry:
              max-attempts: 1
            spring.ai.ragas:
              providers:
                openai-compatible:
                  - name: "prov-[bold]x\\e]0;t\\a"
                    base-url: {openai_server.base_url}
                    api-key: {secret}
                    chat-models: [{{id: {judge}}}, {{id: judge-b}}]
              metrics:
                logging: {{enabled: true, level: verbose}}
                agent-goal-accuracy: {{mode: with_reference}}
            """
        ),
        encoding="utf-8",
    )
    return path


def _dataset(tmp_path: Path, *, named: bool) -> Path:
    sample = {
        "id": f"id-{HOSTILE}",
        "user_input_messages": [
            {"type": "human", "content": f"Please {HOSTILE}"},
            {"type": "ai", "content": f"Done {HOSTILE}"},
        ],
        "reference": f"ref {HOSTILE}",
        "reference_tool_calls": [{"name": f"tool{HOSTILE}", "arguments": {"k": HOSTILE}}],
        "metadata": {HOSTILE: HOSTILE},
    }
    # Lacks `reference`: agent_goal_accuracy infers the goal, which the judges do not answer,
    # so the failure (quoting the judge ids) reaches the failures table.
    broken = {
        "id": f"broken-{HOSTILE}",
        "user_input_messages": [{"type": "human", "content": HOSTILE}],
    }
    document: dict[str, object] = {"samples": [sample, broken]}
    if named:
        document["name"] = f"name-{HOSTILE}"
    path = tmp_path / f"data-{HOSTILE.replace('/', '_')}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("named", [True, False], ids=["dataset-name", "dataset-path"])
@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_markup_and_escape_sequences_in_every_field_are_shown_not_obeyed(
    run_cli, hostile_config, tmp_path, command, named
):
    dataset = _dataset(tmp_path, named=named)
    report = tmp_path / "run.json"

    result = run_cli(
        command, dataset, "--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy",
        "--config", hostile_config, "--out", report, "-v",
    )  # fmt: skip

    assert result.code == 0, result.err
    assert "Failed evaluations (2)" in result.out
    assert "Traceback" not in result.text
    _no_raw_controls(result.out)
    _no_raw_controls(result.err)
    # Shown, literally: the markup and the escapes as text.
    assert "[/x][link=https://evil.example]click[/link][blink]B[/blink]" in result.out
    assert "\\x1b[2J\\x1b]0;owned\\x07\\x0d\\u202e" in result.out
    if command == "evaluate":  # the results table's title
        assert ("name-[/x]" if named else "data-[_x]") in result.out
    else:
        assert "judge-[/x]\\x1b[31m" in result.out  # the judges table
    # The logging box quotes the prompt, which quotes the sample.
    assert "[USER]: [/x][link=https://evil.example]click" in result.err
    assert "\\x1b[2J" in result.err
    assert f"Report written: {printable(report)}" in result.err
    stored = json.loads(report.read_text(encoding="utf-8"))
    assert stored["samples"][0]["sample_id"] == f"id-{HOSTILE}"  # the data itself is kept


def test_an_error_message_quoting_a_file_name_is_shown_not_obeyed(run_cli, tmp_path):
    missing = tmp_path / f"gone-{HOSTILE.replace('/', '_')}.yaml"

    result = run_cli("evaluate", missing, "--metric", "tool_call_accuracy")

    assert result.code == 2
    _no_raw_controls(result.err)
    assert "gone-[_x][link=https:__evil.example]" in result.err
    assert "\\x1b[2J" in result.err


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain ünïcode ✓ 日本", "plain ünïcode ✓ 日本"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("\x9b31m", "\\x9b31m"),
        ("bell\x07", "bell\\x07"),
        ("over\rwrite", "over\\x0dwrite"),
        ("\u202eevil", "\\u202eevil"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("\x00nul\x7f", "\\x00nul\\x7f"),
    ],
)
def test_printable_escapes_what_a_terminal_would_act_on(text, shown):
    assert printable(text) == shown
