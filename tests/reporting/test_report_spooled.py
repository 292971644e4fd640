"""The reports of a spooled run (more samples than spool-after): the console, the history and
calibration as unspooled; the HTML report reads back the samples whose prompts it shows and
says so."""

from __future__ import annotations

import html
import re

from ragas_boot.reporting import render_console, render_html
from ragas_boot.runs.history import snapshot_run

NOTE = re.compile(r'<p class="muted">A large run \(.*?</p>', re.DOTALL)


def test_the_spooled_run_keeps_no_prompt(spooled_run, unspooled):
    assert spooled_run.spooled and not unspooled.spooled
    for spooled, full in zip(spooled_run.samples, unspooled.samples, strict=True):
        for slim, whole in zip(spooled.evaluations, full.evaluations, strict=True):
            assert slim.steps == []
            assert len(slim.judge_calls()) == len(whole.judge_calls())
            assert all(call.prompt for call in whole.judge_calls())


def test_the_console_is_the_same(spooled_run, unspooled):
    for view in ("evaluate", "compare"):
        text = render_console(spooled_run, view, width=160)
        assert text == render_console(unspooled, view, width=160)
        assert "9 samples × 3 metrics" in text


def test_the_html_shows_every_prompt_of_a_small_spooled_run_and_says_why(spooled_run, unspooled):
    html = render_html(spooled_run)
    notes = NOTE.findall(html)
    assert len(notes) == 1
    assert "9 samples, more than" in notes[0] and "shown for 9 samples" in notes[0]
    assert "The JSON report has every prompt and raw answer" in notes[0]
    assert NOTE.sub("", html) == render_html(unspooled)


def test_the_html_of_a_large_spooled_run_shows_the_first_and_the_failing_samples(spooled_run):
    html = render_html(spooled_run, detailed_samples=1)
    assert "shown for 2 samples, the first 1 and the first 1 with an evaluation" in html
    bodies = {
        match.group(1): match.group(2)
        for match in re.finditer(
            r'<details class="sample" id="([^"]+)">(.*?)</details>\s*(?=<details class="sample"|'
            r"</section>)",
            html,
            re.DOTALL,
        )
    }
    ids = [sample.sample_id for sample in spooled_run.samples]
    failing = next(
        s.sample_id
        for s in spooled_run.samples
        if any(e.status != "scored" or e.passed is False for e in s.evaluations)
    )
    anchors = {sid: "sample-" + re.sub(r"[^\w-]", "_", sid) for sid in ids}
    assert len(bodies) == len(ids)
    shown = {sid for sid in ids if "Prompts and raw answers (" in bodies[anchors[sid]]}
    assert shown == {ids[0], failing}
    for sid in set(ids) - shown:
        body = bodies[anchors[sid]]
        assert "judge calls (" in body and "are in the JSON report" in body
        assert "<summary>Prompt</summary>" not in body


def test_the_history_records_the_same_run(spooled_run, unspooled):
    ignored = {"id", "recorded_at"}
    assert snapshot_run(spooled_run).model_dump(exclude=ignored) == snapshot_run(
        unspooled
    ).model_dump(exclude=ignored)


def test_calibration_is_the_same(spooled_run, unspooled):
    from ragas_boot.runs import calibrate

    assert calibrate(spooled_run).model_dump() == calibrate(unspooled).model_dump()


def test_the_gate_is_the_same(spooled_run, unspooled):
    assert spooled_run.gate(0.9, min_pass_rate=1.0) == unspooled.gate(0.9, min_pass_rate=1.0)


def test_the_html_in_pieces_is_the_same_text_a_sample_a_piece(spooled_run, unspooled):
    from ragas_boot.reporting.html_report import html_chunks

    for run in (spooled_run, unspooled):
        pieces = list(html_chunks(run))
        # the summary, the section's heading, one piece per sample, its end, the footer
        assert len(pieces) == len(run.samples) + 4
        samples = pieces[2:-2]
        # each sample's piece is its whole element (so each can be redacted on its own)
        assert all(p.startswith('<details class="sample"') for p in samples)
        assert all(p.rstrip().endswith("</details>") for p in samples)
        assert all(p.count('<details class="sample"') == 1 for p in samples)
        ids = [sample.sample_id for sample in run.samples]
        assert [re.search(r'<span class="sid">([^<]*)</span>', p).group(1) for p in samples] == [
            html.escape(sid) for sid in ids
        ]
