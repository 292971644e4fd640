"""The dry run's report (``ragas-boot evaluate --dry-run``): calls, tokens and cost per judge."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ragas_boot.reporting import _format as fmt
from ragas_boot.runs.estimate import CallEstimate, RunEstimate

__all__ = ["estimate_renderables"]


def _cost(row: CallEstimate) -> str:
    if row.cost_min is None or row.cost_max is None:
        return fmt.MISSING
    return f"{fmt.cost(row.cost_min)} – {fmt.cost(row.cost_max)}"


def estimate_renderables(estimate: RunEstimate) -> list[RenderableType]:
    """A table per metric × judge, and lines saying how the figures were made."""
    table = Table(
        title=f"Dry run: judge calls for {estimate.samples} samples (nothing sent)",
        title_justify="left",
    )
    table.add_column("Metric", no_wrap=True)
    table.add_column("Judge", no_wrap=True)
    for name in ("Calls", "Cached", "Input tokens", "Output tokens ≤", "Cost"):
        table.add_column(name, justify="right", no_wrap=True)
    previous = None
    for row in estimate.rows:
        table.add_row(
            fmt.plain(row.metric if row.metric != previous else ""),
            fmt.plain(row.judge_id or ""),
            str(row.calls),
            str(row.cached_calls),
            fmt.tokens(row.input_tokens),
            fmt.tokens(row.max_output_tokens),
            _cost(row),
        )
        previous = row.metric
    totals = estimate.totals
    table.add_row(
        Text("Total", style="bold"),
        "",
        Text(str(totals.calls), style="bold"),
        str(totals.cached_calls),
        fmt.tokens(totals.input_tokens),
        fmt.tokens(totals.max_output_tokens),
        Text(_cost(totals), style="bold"),
        end_section=True,
    )
    lines = [
        f"Tokens: {estimate.token_method}; output tokens are at most each judge's max-tokens, "
        "so the cost is a range (prompts only – every answer as long as allowed). Dependent "
        "steps are counted as minimal answers lead them.",
    ]
    largest = max(estimate.rows, key=lambda row: row.largest_prompt_tokens, default=None)
    if largest is not None and largest.largest_prompt_tokens:
        lines.append(
            f"Largest prompt: {fmt.tokens(largest.largest_prompt_tokens)} tokens "
            f"({largest.metric}, judge {largest.judge_id})."
        )
    if totals.over_limit_calls:
        over = [
            f"{row.judge_id} ({row.metric}): {row.over_limit_calls}"
            for row in estimate.rows
            if row.over_limit_calls
        ]
        lines.append(
            f"Over max-prompt-tokens: {totals.over_limit_calls} calls would fail unsent – "
            + ", ".join(over)
        )
    price_line = fmt.prices(estimate.judges)
    if price_line is not None:
        batched = [judge.id for judge in estimate.judges if judge.batch_price is not None]
        if batched:
            price_line += " — " + ", ".join(batched) + " estimated at the batch price"
        lines.append(price_line)
    if estimate.unpriced_judges:
        lines.append("No price (tokens only): " + ", ".join(estimate.unpriced_judges))
    if estimate.not_estimated:
        lines.append(
            "Not estimated (they need embedding models): " + ", ".join(estimate.not_estimated)
        )
    return [table, *(fmt.plain(line) for line in lines)]
