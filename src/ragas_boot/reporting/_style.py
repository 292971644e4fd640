"""The one stylesheet of every HTML page ragas-boot writes: run reports, suite reports and
the Allure attachment of an evaluation (inline in each page; no page fetches anything)."""

from __future__ import annotations

__all__ = ["STYLESHEET", "style_tag"]

STYLESHEET = """
:root { --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  color: var(--fg); background: var(--soft); }
main { max-width: 1180px; margin: 0 auto; padding: 24px; }
header.top { background: var(--bg); border-bottom: 1px solid var(--line); }
header.top div { max-width: 1180px; margin: 0 auto; padding: 20px 24px 12px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 12px; }
h3 { font-size: 15px; margin: 16px 0 8px; }
h4 { font-size: 14px; margin: 12px 0 6px; }
nav a { margin-right: 16px; color: var(--accent); text-decoration: none; }
.meta { color: var(--muted); margin: 0 0 8px; }
section.card { background: var(--bg); border: 1px solid var(--line); border-radius: 8px;
  padding: 16px 20px; margin: 0 0 20px; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 8px; }
th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.group-start td { border-top: 2px solid var(--line); }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px;
  font-weight: 600; white-space: nowrap; border: 1px solid transparent; margin-right: 4px; }
.badge.pass { color: var(--pass); border-color: var(--pass); background: #dafbe1; }
.badge.fail { color: var(--fail); border-color: var(--fail); background: #ffebe9; }
.badge.failed { color: #fff; background: var(--fail); }
.badge.undefined { color: var(--warn); border-color: var(--warn); background: #fff8c5; }
.badge.budget { color: #fff; background: #8250df; }
.muted { color: var(--muted); }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
.chart { flex: 1 1 520px; }
svg text { font: 12px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; fill: var(--fg); }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .axis { fill: var(--muted); }
.legend span { display: inline-block; margin-right: 14px; font-size: 12px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px;
  border-radius: 2px; vertical-align: middle; }
details.sample { background: var(--bg); border: 1px solid var(--line); border-radius: 8px;
  margin: 0 0 8px; }
details.sample > summary { padding: 8px 14px; cursor: pointer; }
details.sample[open] > summary { border-bottom: 1px solid var(--line); }
.sample-body { padding: 8px 16px 12px; }
.sid { font-weight: 600; margin-right: 8px; font-family: ui-monospace, Menlo, Consolas, monospace; }
.cols { display: flex; flex-wrap: wrap; gap: 20px; }
.cols > div { flex: 1 1 420px; min-width: 0; }
.msg { border-left: 3px solid var(--line); padding: 2px 10px; margin: 4px 0; }
.msg.human { border-color: var(--accent); }
.msg.ai { border-color: var(--pass); }
.msg.tool { border-color: var(--warn); background: var(--soft); }
.role { font-size: 11px; font-weight: 700; text-transform: uppercase; color: var(--muted); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
code.call { display: block; background: var(--soft); padding: 2px 6px; margin: 2px 0;
  border-radius: 4px; overflow-wrap: anywhere; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px;
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 420px; overflow: auto;
  margin: 4px 0; }
.chip { display: inline-block; background: #ddf4ff; color: #0550ae; border-radius: 10px;
  padding: 0 8px; margin: 0 4px 4px 0; font-size: 12px; }
.evaluation { border-top: 1px dashed var(--line); margin-top: 10px; padding-top: 4px; }
.error { color: var(--fail); }
details.calls > summary, details.part > summary { cursor: pointer; color: var(--accent); }
.call-box { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 6px 0; }
footer { color: var(--muted); text-align: center; padding: 8px 0 24px; font-size: 12px; }
.tiles { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0; }
.tile { background: var(--bg); border: 1px solid var(--line); border-radius: 8px;
  padding: 8px 14px; min-width: 110px; }
.tile b { display: block; font-size: 20px; }
.gate { padding: 10px 16px; border-radius: 8px; font-weight: 600; margin: 12px 0; }
.gate.pass { background: #dafbe1; color: var(--pass); }
.gate.fail { background: #ffebe9; color: var(--fail); }
.badge.good { color: #fff; background: var(--pass); }
.badge.fair { color: #fff; background: var(--warn); }
.badge.poor { color: #fff; background: var(--fail); }
.badge.none { color: #fff; background: var(--muted); }
"""
"""Colours, tables, badges (pass, fail, failed, undefined; good, fair, poor, none for a score),
cards and tiles, the gate banner, samples and cases behind ``<details>``, code and charts."""


def style_tag() -> str:
    """``<style>`` with :data:`STYLESHEET`, for a page's ``<head>``."""
    return f"<style>{STYLESHEET}</style>"
