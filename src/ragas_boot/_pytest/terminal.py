"""What the plugin prints around the score table: the header lines, where the report went.

The score table itself is a renderer: :func:`ragas_boot.reporting.pytest_table.summary_lines`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from ragas_boot._pytest.state import RagasPluginState
from ragas_boot.runs.pytest_session import PytestEvaluation

__all__ = ["cache_line", "header_lines", "report_line"]


class _Named(Protocol):
    """A judge's or an embedding model's spec, as far as the header goes."""

    @property
    def id(self) -> str: ...
    @property
    def provider(self) -> str: ...


def _display_path(path: str, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return path


def _by_provider(models: Iterable[_Named]) -> str:
    """``openrouter: a, b; gigachat: c``: model ids grouped by provider, in order."""
    grouped: dict[str, list[str]] = {}
    for model in models:
        grouped.setdefault(model.provider, []).append(model.id)
    return "; ".join(f"{name}: {', '.join(ids)}" for name, ids in grouped.items())


def header_lines(state: RagasPluginState) -> list[str]:
    """Config file, active profiles, judges and embedding models in effect; nothing unless
    configured.

    Loads the settings (once; the fixtures reuse them) but builds no judge, so no HTTP
    client is made and langchain is not imported.
    """
    options = state.options
    if not options.configured:
        return []
    try:
        from ragas_boot.chat.factory.embeddings import embedding_specs
        from ragas_boot.chat.factory.judges import judge_specs

        settings = state.settings()
        specs = judge_specs(settings)
        embeddings = embedding_specs(settings)
    except Exception as error:
        where = options.config_path or "the default application.yaml"
        return [f"ragas-boot: cannot load {where}: {error}"]
    root = state.config.rootpath
    files = ", ".join(_display_path(path, root) for path in settings.source.files)
    profiles = ", ".join(settings.source.active_profiles) or "none"
    lines = [f"ragas-boot: config {files} (profiles: {profiles})"]
    if not specs:
        lines.append("ragas-boot: no judges configured (only computed metrics can run)")
        return lines
    lines.append(f"ragas-boot: {len(specs)} judge(s) - {_by_provider(specs)}")
    if embeddings:
        lines.append(
            f"ragas-boot: {len(embeddings)} embedding model(s) - {_by_provider(embeddings)}"
        )
    return lines


def cache_line(records: Sequence[PytestEvaluation]) -> str | None:
    """``ragas-boot cache: 9 hits, 0 misses, 1,071 tokens saved``; None when the response
    cache answered or missed no judge call of the session (its workers' included)."""
    hits = misses = saved = 0
    saved_cost: float | None = None
    for record in records:
        for call in record.judge_calls():
            hits += call.cache == "hit"
            misses += call.cache == "miss"
            saved += call.saved_usage.total_tokens
            if call.saved_cost is not None:
                saved_cost = (saved_cost or 0.0) + call.saved_cost
    if not hits and not misses:
        return None
    from ragas_boot.reporting._format import cache  # rich and co. only when there is a line

    return f"ragas-boot {cache(hits, misses, saved, saved_cost)}"


def report_line(path: Path) -> str:
    """The line telling where the JSON report went."""
    return f"ragas-boot report: {os.fspath(path)}"
