"""A judge's prices: the chat model's own, else the kept price catalog's, and the price of the
calls a provider's batch answers.

The catalog is ``genai-prices`` (maintained with pydantic-ai), the version installed: the data
it bundles, never fetched at run time, so two machines with the same lock price a run alike
and a report names the version it priced with. A model is looked up only where its provider
is known: the base URL is one the catalog lists (``api.openai.com``, ``openrouter.ai``, ...)
or the provider's name is a catalog provider's id (``openai``, ``anthropic``, ``google``,
...); a model of an unknown endpoint is never priced by its name alone. Prices are the
catalog's standard rates as of today, at the first tier of a tiered price (prompts of a few
thousand tokens, as judges send).

A batch call is billed at the model's ``batch-price``, else the catalog's batch rate for a
model priced from the catalog (OpenAI, Anthropic, Google, Mistral, Groq and xAI publish them),
else the price times the provider's ``batch.discount``: 0.5 by default for the providers that
publish half-price batches on an OpenAI-compatible batch API (:data:`HALF_PRICE_HOSTS`), 1
(no discount assumed) for any other.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from ragas_boot.config.settings import ChatModelSettings, PriceSettings, PriceSource

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice

__all__ = [
    "HALF_PRICE_HOSTS",
    "CatalogPrice",
    "batch_discount",
    "catalog_price",
    "judge_prices",
]

#: Hosts of the providers that publish a 50% discount for their OpenAI-compatible batch API:
#: OpenAI, Azure OpenAI, Groq and Together AI.
HALF_PRICE_HOSTS: Final = re.compile(
    r"(^|\.)(api\.openai\.com|openai\.azure\.com|api\.groq\.com|api\.together\.(xyz|ai))$"
)

#: Tokens priced to read a per-million rate: below every catalog tier's threshold.
_PROBE_TOKENS = 1000


@dataclass(frozen=True, slots=True)
class CatalogPrice:
    """What the catalog has for one model.

    Attributes:
        price: its standard price per million tokens.
        batch: its batch rate, when the catalog has one; else ``None``.
        catalog: the catalog and its version (``genai-prices 0.2.3``).
    """

    price: PriceSettings
    batch: PriceSettings | None
    catalog: str


def batch_discount(base_url: str, configured: float | None) -> float:
    """The share of the price a batch call is billed at: ``configured``, else 0.5 for a
    provider of :data:`HALF_PRICE_HOSTS`, else 1."""
    if configured is not None:
        return configured
    host = (urlsplit(base_url).hostname or "").lower()
    return 0.5 if HALF_PRICE_HOSTS.search(host) else 1.0


def judge_prices(
    model: ChatModelSettings,
    *,
    provider: str,
    base_url: str,
    catalog: bool,
    batch_discount: float | None = None,
) -> tuple[PriceSettings | None, PriceSettings | None, PriceSource | None]:
    """A judge's ``(price, batch price, where they came from)``.

    Args:
        model: the chat model (its ``price`` and ``batch-price``).
        provider: the provider's name (a catalog provider's id finds it).
        base_url: where the provider answers (a catalog provider's URL finds it).
        catalog: whether the catalog may price a model without a ``price``.
        batch_discount: the share of the price a batch call is billed at; ``None`` for a
            judge that sends no batches (no batch price then).
    """
    found: CatalogPrice | None = None
    price = model.price
    source: PriceSource | None = None
    if price is None and catalog:
        found = catalog_price(model.id, provider=provider, base_url=base_url)
        if found is not None:
            price = found.price
    if price is None:
        return None, None, None
    origin: dict[str, object] = {"price": "config"}
    if found is not None:
        origin = {"price": "catalog", "catalog": found.catalog}
    if batch_discount is None:
        return price, None, PriceSource.model_validate(origin)
    if model.batch_price is not None:
        batch, source = model.batch_price, PriceSource.model_validate({**origin, "batch": "config"})
    elif found is not None and found.batch is not None:
        batch, source = found.batch, PriceSource.model_validate({**origin, "batch": "catalog"})
    else:
        batch = _scaled(price, batch_discount)
        source = PriceSource.model_validate(
            {**origin, "batch": "discount", "discount": batch_discount}
        )
    return price, batch, source


def catalog_price(model: str, *, provider: str, base_url: str) -> CatalogPrice | None:
    """The catalog's prices of ``model`` at a provider found by ``base_url`` or ``provider``
    (see the module docstring); ``None`` when it has none."""
    return _catalog_price(model, provider.strip().lower(), base_url)


@functools.lru_cache(maxsize=256)
def _catalog_price(model: str, provider: str, base_url: str) -> CatalogPrice | None:
    # The catalog is data of ~1.6 MB: imported only when a judge has no price of its own.
    import genai_prices
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    found: tuple[Any, ModelInfo] | None = None
    for provider_id, api_url in ((None, base_url), (provider, None)):
        if (api_url is not None and not api_url) or (provider_id is not None and not provider_id):
            continue
        try:
            found = snapshot.find_provider_model(model, None, provider_id, api_url)
            break
        except LookupError:
            continue
    if found is None:
        return None
    info = found[1]
    now = datetime.now(UTC)
    standard = _per_million(info.get_prices(now))
    if standard is None:
        return None
    batch = None
    if any(
        variant.when.get("processing") == "batch"
        and (variant.constraint is None or variant.constraint.active(now))
        for variant in info.price_variants or ()
    ):
        batch = _per_million(info.get_prices(now, {"processing": "batch"}))
    return CatalogPrice(
        price=standard, batch=batch, catalog=f"genai-prices {genai_prices.__version__}"
    )


def _per_million(prices: ModelPrice) -> PriceSettings | None:
    """A catalog price as per-million rates (``None``: it prices no tokens)."""
    from genai_prices import Usage

    plain = prices.calc_price(Usage(input_tokens=_PROBE_TOKENS, output_tokens=_PROBE_TOKENS))
    cached = prices.calc_price(Usage(input_tokens=_PROBE_TOKENS, cache_read_tokens=_PROBE_TOKENS))
    scale = Decimal(1_000_000 // _PROBE_TOKENS)
    input_price = plain["input_price"] * scale
    output_price = plain["output_price"] * scale
    if not input_price and not output_price:
        return None
    cached_price = cached["input_price"] * scale
    return PriceSettings(
        input_per_million=float(input_price),
        output_per_million=float(output_price),
        cached_input_per_million=float(cached_price) if cached_price != input_price else None,
    )


def _scaled(price: PriceSettings, share: float) -> PriceSettings:
    """``price`` times ``share``."""
    return PriceSettings(
        input_per_million=price.input_per_million * share,
        output_per_million=price.output_per_million * share,
        cached_input_per_million=None
        if price.cached_input_per_million is None
        else price.cached_input_per_million * share,
    )
