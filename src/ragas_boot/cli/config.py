"""``ragas-boot config show | check [--ping]``: the resolved YAML; validate (and reach) judges.

``check`` also lists the metrics that cannot run with the configuration, and why (one that
needs embedding models when none is configured, or judges when there are none). Exit 2 when
such a metric is one the configuration asks for: named with ``--metric``, or configured in
the YAML (its section under ``spring.ai.ragas.metrics``, or a named criterion); the others
are a warning (exit 0), since a run leaves them out unless asked for them by name.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragas_boot.cli._arguments import add_config_arguments, settings_from_args
from ragas_boot.cli._console import message, stdout, write
from ragas_boot.cli._errors import EXIT_BAD_INPUT, EXIT_GATE_FAILED, EXIT_OK
from ragas_boot.cli._metrics import metric_names
from ragas_boot.cli._registry import register_command

if TYPE_CHECKING:
    from rich.table import Table

    from ragas_boot.config.settings import RagasSettings

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``show`` and ``check`` actions."""
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = actions.add_parser(
        "show", help="print the resolved YAML (secrets masked) with where each value came from"
    )
    check = actions.add_parser("check", help="validate the configuration and build the judges")
    for action in (show, check):
        add_config_arguments(action)
    check.add_argument("--ping", action="store_true", help="send one tiny request to each judge")
    check.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME",
        help="a metric the runs will use (METRIC:CRITERION for a named criterion); exit 2 when "
        "it cannot run with this configuration; repeat (default: report every metric that "
        "cannot run, failing only for those the YAML configures)",
    )
    check.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="--ping: seconds to wait for each judge (default: 30)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the resolved YAML, or check (and ping) the judges."""
    if args.config_command == "show":
        from ragas_boot.reporting import render_settings_yaml

        write(render_settings_yaml(settings_from_args(args)))
        return EXIT_OK
    return _config_check(args)


def _config_check(args: argparse.Namespace) -> int:
    from ragas_boot.container import create_container
    from ragas_boot.metrics.registry import METRICS, criterion_beans
    from ragas_boot.reporting._format import plain

    settings = settings_from_args(args)
    selected = metric_names(args.metric) if args.metric else None  # unknown: exit 2 now
    with create_container(settings) as container:
        judges = container.judges()
        if settings.metrics.enabled:
            for name in METRICS:  # building the beans validates their YAML sections
                getattr(container, name)()
            for name in criterion_beans(settings):  # and each named criterion over them
                getattr(container, name)()
        stdout().print(_judges_table(judges))
        embedding_models = container.embedding_models()
        if embedding_models:
            stdout().print(_embedding_models_table(embedding_models))
        if not judges:
            judged = _judged_sections(settings)
            if judged:  # configured, but they cannot run: the same error evaluate gives
                message(
                    "ragas-boot: error: spring.ai.ragas.providers: no judges are configured, "
                    f"and the YAML configures metrics that need them: {', '.join(judged)}. "
                    "Declare chat-models under openai-compatible (or enable the local judge)",
                    "bold red",
                )
                return EXIT_BAD_INPUT
        blocked = _unrunnable(container, settings, args.metric)
        asked = set(selected) if selected is not None else _configured(settings)
        failing = [entry for entry in blocked if entry.name in asked]
        if failing:
            where = "asked for with --metric" if selected is not None else "configured in the YAML"
            message(
                f"ragas-boot: error: {len(failing)} metric(s) {where} cannot run with this "
                "configuration:\n" + "\n".join(f"  {e.name}: {e.reason}" for e in failing),
                "bold red",
            )
            return EXIT_BAD_INPUT
        providers = len({judge.provider for judge in judges})
        files = ", ".join(settings.source.files)
        profiles = ", ".join(settings.source.active_profiles)
        stdout().print(
            plain(
                f"Configuration OK: {len(judges)} judge(s) in {providers} provider(s) "
                f"(files: {files}; profiles: {profiles})",
                style="green",
            )
        )
        if not judges:
            message(
                "warning: no judge is configured; only metrics without judges can run "
                "(tool_call_accuracy, the NLP metrics)",
                "yellow",
            )
        for reason, names in _by_reason(blocked).items():
            message(f"warning: cannot run with this configuration: {', '.join(names)}: {reason}")
        if not args.ping:
            return EXIT_OK
        results = container.portal().call(_ping_all(judges, args.timeout))
    stdout().print(_ping_table(results))
    failed = [result.judge_id for result in results if result.error is not None]
    if failed:
        message(f"FAILED {len(failed)} judge(s) did not answer: {', '.join(failed)}", "bold red")
        return EXIT_GATE_FAILED
    return EXIT_OK


def _table(title: str, columns: Sequence[str]) -> Table:
    """A titled table whose long cells (endpoints, errors) fold rather than cut."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def _judges_table(judges: Sequence[Any]) -> Table:
    """Each judge: id, provider, model, endpoint (credentials masked), output mode."""
    from ragas_boot.config.urls import mask_url
    from ragas_boot.reporting._format import plain

    table = _table("Judges", ("Judge", "Provider", "Model", "Endpoint", "Output"))
    for judge in judges:
        spec = judge.spec
        endpoint = getattr(judge, "endpoint", None) or mask_url(spec.base_url)
        table.add_row(
            plain(judge.id),
            plain(judge.provider),
            plain(spec.model),
            plain(endpoint),
            spec.structured_output.value,
        )
    return table


def _embedding_models_table(models: Sequence[Any]) -> Table:
    """Each embedding model: id, provider, model id sent, endpoint (or in process)."""
    from ragas_boot.config.urls import append_path, mask_url
    from ragas_boot.reporting._format import plain

    table = _table("Embedding models", ("Model", "Provider", "Model id sent", "Endpoint"))
    for model in models:
        spec = model.spec
        where = (
            "in process"
            if spec.local
            else mask_url(append_path(spec.base_url, spec.embeddings_path))
        )
        table.add_row(plain(model.id), plain(spec.provider), plain(spec.model), plain(where))
    return table


def _ping_table(results: Sequence[_PingResult]) -> Table:
    """Each judge's health check: status, latency, error, the output modes it took."""
    from rich.text import Text

    from ragas_boot.reporting._format import plain

    table = _table("Ping", ("Judge", "Status", "Latency", "Detail", "Modes accepted"))
    for result in results:
        ok = result.error is None
        table.add_row(
            plain(result.judge_id),
            Text("ok" if ok else "failed", style="green" if ok else "red"),
            f"{result.latency_s * 1000:.0f} ms",
            plain(result.error or ""),
            plain(result.modes_text()),
        )
    return table


def _unrunnable(container: Any, settings: RagasSettings, metrics: Sequence[str]) -> list[Any]:
    """The metrics (those of ``--metric``, else every one) that cannot run, and why."""
    from ragas_boot.container.readiness import unrunnable_metrics

    if metrics:
        return unrunnable_metrics(container, metric_names(metrics, settings))
    if not settings.metrics.enabled:
        return []
    return unrunnable_metrics(container)


def _configured(settings: RagasSettings) -> set[str]:
    """The metrics the YAML configures: a section under spring.ai.ragas.metrics, or a named
    criterion."""
    from ragas_boot.metrics.registry import METRICS, criterion_beans

    sections = {name for name in settings.metrics.sections if name in METRICS}
    return sections | set(criterion_beans(settings))


def _by_reason(blocked: Sequence[Any]) -> dict[str, list[str]]:
    """The metrics that cannot run, grouped by why (one warning line per reason)."""
    grouped: dict[str, list[str]] = {}
    for entry in blocked:
        grouped.setdefault(entry.reason, []).append(entry.name)
    return grouped


def _judged_sections(settings: RagasSettings) -> list[str]:
    """The metrics needing judges that the YAML configures (a section or a named criterion)."""
    from ragas_boot.metrics.base import Need
    from ragas_boot.metrics.registry import METRICS

    return [
        name
        for name in settings.metrics.sections
        if name in METRICS and METRICS[name].uses(Need.JUDGES)
    ]


@dataclass
class _PingResult:
    judge_id: str
    error: str | None
    latency_s: float
    modes: dict[str, str | None] = field(default_factory=dict)

    def modes_text(self) -> str:
        """``prompt, json_object; not: json_schema (HTTP 500)``: what the judge took."""
        accepted = [mode for mode, error in self.modes.items() if error is None]
        refused = [f"{mode} ({error})" for mode, error in self.modes.items() if error is not None]
        text = ", ".join(accepted) or "none"
        return text + (f"; not: {', '.join(refused)}" if refused else "")


async def _ping_all(judges: Sequence[Any], seconds: float) -> list[_PingResult]:
    import asyncio
    import time

    from pydantic import BaseModel, Field

    class Ping(BaseModel):
        """The answer to a health check."""

        ok: bool = Field(description="Always true.")

    prompt = 'This is a health check. Answer with the JSON object {"ok": true}.'

    async def attempt(judge: Any) -> tuple[Exception | None, float]:
        """The judge asked once: its error (None when it answered) and the latency."""
        started = time.perf_counter()
        try:
            judge.prepare()
            async with asyncio.timeout(seconds):
                await judge.ainvoke_structured(prompt, Ping)
        except Exception as error:
            return error, time.perf_counter() - started
        return None, time.perf_counter() - started

    def detail(error: Exception) -> str:
        kind = getattr(error, "kind_detail", None) or getattr(error, "kind", None)
        return f"{kind or type(error).__name__}: {error or f'no answer in {seconds:g} s'}"

    async def short(judge: Any) -> str | None:
        """Why a mode failed, in a word or two (``HTTP 500``, ``output``, ``timeout``)."""
        error, _ = await attempt(judge)
        if error is None:
            return None
        status = getattr(error, "status_code", None)
        if status is not None:
            return f"HTTP {status}"
        return str(getattr(error, "kind", None) or type(error).__name__)

    async def ping(judge: Any) -> _PingResult:
        error, latency = await attempt(judge)
        result = _PingResult(judge.id, None if error is None else detail(error), latency)
        configured = judge.spec.structured_output
        modes = [mode for mode in getattr(judge, "output_modes", ()) if mode is not configured]
        variants = [judge.with_output_mode(mode) for mode in modes]
        try:
            answers = await asyncio.gather(*(short(variant) for variant in variants))
        finally:
            await asyncio.gather(
                *(variant.aclose() for variant in variants), return_exceptions=True
            )
        result.modes[configured.value] = None if error is None else "failed"
        for mode, answer in zip(modes, answers, strict=True):
            result.modes[mode.value] = answer
        return result

    return list(await asyncio.gather(*(ping(judge) for judge in judges)))


register_command("config", configure, run, help="show or check the configuration")
