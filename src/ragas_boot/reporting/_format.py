"""Number and text formatting shared by every renderer (one spelling of each figure)."""

from __future__ import annotations

from rich.text import Text

from ragas_boot._text import printable
from ragas_boot.config.settings import PriceSettings
from ragas_boot.runs.records import Evaluation, JudgeInfo

__all__ = [
    "MISSING",
    "cache",
    "cost",
    "evaluation_label",
    "fraction",
    "interval",
    "kappa",
    "milliseconds",
    "percent",
    "plain",
    "prices",
    "score",
    "seconds",
    "short",
    "spend",
    "tokens",
]

#: Shown where a figure does not exist (no score, no items), in every renderer: console,
#: HTML, the suite reports, the pytest table and the Allure page.
MISSING = "—"


def score(value: float | None) -> str:
    """``0.750``, or the missing mark."""
    return MISSING if value is None else f"{value:.3f}"


def fraction(value: float | None) -> str:
    """``0.75`` (two decimals, for a suite's per-case figures), or the missing mark."""
    return MISSING if value is None else f"{value:.2f}"


def percent(value: float | None) -> str:
    """``85.0%``, or the missing mark."""
    return MISSING if value is None else f"{value * 100:.1f}%"


def kappa(value: float | None) -> str:
    """``0.62``; ``n/a`` when undefined."""
    return "n/a" if value is None else f"{value:.2f}"


def seconds(value: float | None) -> str:
    """``850 ms`` under a second, else ``1.25 s``; or the missing mark."""
    if value is None:
        return MISSING
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def milliseconds(value: float | None) -> str:
    """``850 ms``; ``12.5 s`` from ten seconds on; or the missing mark."""
    if value is None:
        return MISSING
    if value >= 10_000:
        return f"{value / 1000:.1f} s"
    return f"{value:.0f} ms"


def tokens(value: int) -> str:
    """``12,345``."""
    return f"{value:,}"


def cost(value: float | None) -> str:
    """``$0.0123`` (four decimals under $10), ``$12.34``; the missing mark without a price."""
    if value is None:
        return MISSING
    return f"${value:.4f}" if value < 10 else f"${value:,.2f}"


def spend(
    billed: int, answered: int, value: float | None, unpriced: int = 0, *, cap: float | None = None
) -> str:
    """``1,234 tokens billed (1,000 answered) · $0.0123`` (+ unpriced tokens, the cap)."""
    text = f"{tokens(billed)} tokens billed ({tokens(answered)} answered)"
    if value is not None:
        text += f" · {cost(value)}"
        if unpriced:
            text += f" + {tokens(unpriced)} unpriced tokens"
    if cap is not None:
        text += f" (cap {cost(cap)})"
    return text


def _rate(price: PriceSettings) -> str:
    return f"${price.input_per_million:g}/${price.output_per_million:g} per M"


def prices(judges: list[JudgeInfo]) -> str | None:
    """``Prices: judge-a $0.15/$0.6 per M (catalog genai-prices 0.2.3; batch: catalog rate
    $0.075/$0.3 per M) · judge-b unpriced``: each judge's input/output price and where it
    came from; None when no judge has a price."""
    if not any(judge.price is not None for judge in judges):
        return None
    parts = []
    for judge in judges:
        if judge.price is None:
            parts.append(f"{judge.id} unpriced")
            continue
        note = judge.price_note()
        if judge.batch_price is not None:
            note += f" {_rate(judge.batch_price)}"
        parts.append(f"{judge.id} {_rate(judge.price)} ({note})")
    return "Prices: " + " · ".join(parts)


def cache(hits: int, misses: int, saved_tokens: int, saved_cost: float | None = None) -> str | None:
    """``cache: 9 hits, 0 misses, 1,071 tokens saved ($0.0012)``; None when the cache was not
    asked. The money is shown only when a priced judge's answer was a hit."""
    if not hits and not misses:
        return None
    money = f" ({cost(saved_cost)})" if saved_cost is not None else ""
    return (
        f"cache: {hits} hit{'s' if hits != 1 else ''}, {misses} miss{'es' if misses != 1 else ''}"
        f", {tokens(saved_tokens)} tokens saved{money}"
    )


def short(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def plain(value: object, style: str = "") -> Text:
    """Text from a dataset or a configuration for a rich console: shown as written.

    A ``Text`` is never parsed for markup (``[/x]`` and ``[link=...]`` stay literal), and
    :func:`~ragas_boot._text.printable` shows control characters as escapes.
    """
    return Text(printable(value), style=style)


def evaluation_label(evaluation: Evaluation) -> str:
    """``0.750 pass``, ``0.250 fail``, ``undefined``, ``no quorum (2/4)``, ``budget`` or
    ``failed (kind)``; repeated evaluations add ``· 3/5 passed`` and ``unstable``."""
    if evaluation.status == "budget":
        return "budget"
    if evaluation.status == "failed":
        kind = evaluation.error.kind if evaluation.error is not None else "error"
        return f"failed ({kind.replace('_', ' ')})"
    repeats = evaluation.result.repeats if evaluation.result is not None else None
    suffix = ""
    if repeats is not None:
        suffix = f" · {repeats.passed}/{repeats.scored} passed"
        suffix += " unstable" if repeats.unstable else ""
    if evaluation.status == "undefined":
        quorum = evaluation.result.quorum if evaluation.result is not None else None
        if quorum is not None and not quorum.met:
            return f"no quorum ({quorum.answered}/{quorum.asked})"
        return "undefined" + suffix
    return f"{score(evaluation.score)} {'pass' if evaluation.passed else 'fail'}{suffix}"


def interval(low: float | None, high: float | None) -> str:
    """``[23.1%, 88.2%]``, or the missing mark."""
    if low is None or high is None:
        return MISSING
    return f"[{percent(low)}, {percent(high)}]"
