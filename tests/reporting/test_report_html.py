"""The HTML report: one self-contained page, escaped, with charts, reasons and prompts."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ragas_boot.reporting import render_html


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def test_the_page_is_self_contained(run):
    page = render_html(run)
    tags = _tags(page)
    names = {tag for tag, _ in tags}
    assert "script" not in names and "link" not in names and "iframe" not in names
    for tag, attrs in tags:
        for name in ("src", "href"):
            value = attrs.get(name) or ""
            assert not value.startswith(("http://", "https://", "//")), (tag, value)
    assert not re.search(r"<(script|link)\b[^>]*https?://", page)
    assert "@import" not in page and "url(" not in page
    assert page.startswith("<!DOCTYPE html>")


def test_it_has_the_sections_charts_and_every_sample(run):
    page = render_html(run, title="Judges on trial")
    assert "<title>Judges on trial</title>" in page
    for anchor in ("metrics", "judges", "agreement", "failures", "samples"):
        assert f'id="{anchor}"' in page
    assert page.count("<svg") == 2
    assert "Mean score by judge" in page and "Latency of answered calls" in page
    for sample in run.samples[:-1]:
        assert f'<span class="sid">{sample.sample_id}</span>' in page
    assert page.count('<details class="sample"') == len(run.samples)


def test_each_judge_has_its_verdict_and_reason_and_the_prompts_are_behind_a_toggle(run):
    page = render_html(run)
    assert "The conversation shows the expected outcome." in page
    assert "Falls under weather." in page
    assert '<span class="badge failed">excluded</span>' in page
    assert "model overloaded" in page
    toggles = re.findall(
        r"<details class=\"part\"><summary>Prompt</summary><pre>(.*?)</pre>", page, re.S
    )
    assert toggles and "Expected outcome:" in toggles[0]
    assert "<summary>Raw answer</summary>" in page
    assert "Prompts and raw answers (5 calls)" in page


def test_user_content_is_escaped(run):
    page = render_html(run)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "<img" not in page
    assert "hostile&lt;script&gt;" in page
    assert 'id="sample-hostile_script_"' in page  # anchors are made safe too


def test_failed_evaluations_are_listed_with_their_error(run):
    page = render_html(run)
    assert "Failed evaluations (2)" in page
    assert "All models failed at step CompareOutcome" in page
    assert "is missing or empty; TopicAdherence needs the allowed topics" in page
    assert 'href="#sample-hostile_script_"' in page
