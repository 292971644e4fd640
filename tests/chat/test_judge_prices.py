"""A judge's prices as the configuration makes them: its own ``price``, else the price catalog's
(genai-prices, for a model of a provider the catalog knows by its URL or name), and for a
judge on ``transport: batch`` the price of its batch calls (``batch-price``, the catalog's batch
rate, or the provider's discount: 50% where the provider publishes it), each with its source."""

from __future__ import annotations

from pathlib import Path

import genai_prices
import pytest

from ragas_boot.chat import judge_specs
from ragas_boot.config import load_settings
from ragas_boot.config.settings import PriceSettings
from ragas_boot.errors import ConfigError

CATALOG = f"genai-prices {genai_prices.__version__}"
OWN = "{input-per-million: 2.0, output-per-million: 8.0}"


def _specs(tmp_path: Path, providers: str, top: str = "") -> dict[str, object]:
    path = tmp_path / "application.yaml"
    path.write_text(
        f"spring.ai.ragas.providers:\n{top}  openai-compatible:\n{providers}", encoding="utf-8"
    )
    return {spec.id: spec for spec in judge_specs(load_settings(path))}


def _provider(name: str, url: str, models: str, transport: str = "batch", extra: str = "") -> str:
    return (
        f"    - name: {name}\n      base-url: {url}\n      api-key: sk-price-0001\n"
        f"      transport: {transport}\n{extra}      chat-models: {models}\n"
    )


def test_a_known_model_without_a_price_is_priced_from_the_catalog_with_its_batch_rate(
    tmp_path: Path,
) -> None:
    specs = _specs(
        tmp_path,
        _provider("hosted", "https://api.openai.com/v1", "[{id: gpt-4o-mini}]")
        + _provider(
            "plain", "https://api.openai.com/v1", "[{id: gpt-4.1-mini, alias: d}]", "direct"
        ),
    )

    batched = specs["gpt-4o-mini"]
    assert batched.price == PriceSettings(
        input_per_million=0.15, output_per_million=0.6, cached_input_per_million=0.075
    )
    assert batched.batch_price == PriceSettings(input_per_million=0.075, output_per_million=0.3)
    assert batched.price_source.model_dump() == {
        "price": "catalog", "catalog": CATALOG, "batch": "catalog", "discount": None,
    }  # fmt: skip
    assert batched.price_source.describe() == f"catalog {CATALOG}; batch: catalog rate"
    assert batched.call_price == batched.batch_price  # what the cap and --dry-run count
    direct = specs["d"]
    assert direct.price.input_per_million == 0.4
    assert direct.batch_price is None and direct.call_price == direct.price
    assert direct.price_source.batch is None
    assert direct.price_source.describe() == f"catalog {CATALOG}"


def test_the_provider_is_found_by_its_name_but_never_a_model_of_an_unknown_endpoint(
    tmp_path: Path,
) -> None:
    specs = _specs(
        tmp_path,
        _provider("openai", "http://127.0.0.1:9/v1", "[{id: gpt-4o-mini, alias: named}]")
        + _provider("gateway", "http://127.0.0.1:9/v1", "[{id: gpt-4o-mini, alias: unknown}]"),
    )

    assert specs["named"].price is not None
    assert specs["named"].price_source.price == "catalog"
    unknown = specs["unknown"]
    assert (unknown.price, unknown.batch_price, unknown.price_source) == (None, None, None)


def test_a_price_in_the_config_wins_and_batch_calls_get_the_providers_discount(
    tmp_path: Path,
) -> None:
    specs = _specs(
        tmp_path,
        _provider("openai-api", "https://api.openai.com/v1", f"[{{id: gpt-4o-mini, price: {OWN}}}]")
        + _provider("gateway", "https://llm.example/v1", f"[{{id: m-full, price: {OWN}}}]")
        + _provider("own", "https://llm.example/v1", f"[{{id: m-own, price: {OWN}}}]",
                    extra="      batch: {discount: 0.6}\n")
        + _provider("typed", "https://llm.example/v1",
                    f"[{{id: m-typed, price: {OWN}, batch-price: {{input-per-million: 1.5, "
                    "output-per-million: 5.0}}]"),
    )  # fmt: skip

    openai = specs["gpt-4o-mini"]
    assert openai.price == PriceSettings(input_per_million=2.0, output_per_million=8.0)
    assert openai.batch_price == PriceSettings(input_per_million=1.0, output_per_million=4.0)
    assert openai.price_source.describe() == "config; batch: 50% of it"
    # A provider that publishes no batch discount is not assumed to give one.
    assert specs["m-full"].batch_price == specs["m-full"].price
    assert specs["m-full"].price_source.discount == 1.0
    own = specs["m-own"].batch_price
    assert (own.input_per_million, own.output_per_million) == pytest.approx((1.2, 4.8))
    typed = specs["m-typed"]
    assert typed.batch_price == PriceSettings(input_per_million=1.5, output_per_million=5.0)
    assert typed.price_source.describe() == "config; batch: config"


def test_every_provider_takes_the_discount_of_providers_batch_unless_it_has_its_own(
    tmp_path: Path,
) -> None:
    specs = _specs(
        tmp_path,
        _provider("openai-api", "https://api.openai.com/v1", f"[{{id: a, price: {OWN}}}]")
        + _provider("gateway", "https://llm.example/v1", f"[{{id: b, price: {OWN}}}]"),
        top="  batch: {discount: 0.25}\n",
    )

    assert [specs[name].price_source.discount for name in ("a", "b")] == [0.25, 0.25]
    assert specs["b"].batch_price == PriceSettings(input_per_million=0.5, output_per_million=2.0)


def test_price_catalog_false_leaves_a_judge_without_a_price_unpriced(tmp_path: Path) -> None:
    specs = _specs(
        tmp_path,
        _provider("hosted", "https://api.openai.com/v1", "[{id: gpt-4o-mini}]"),
        top="  price-catalog: false\n",
    )

    spec = specs["gpt-4o-mini"]
    assert (spec.price, spec.batch_price, spec.price_source) == (None, None, None)


def test_a_model_the_catalog_does_not_know_stays_unpriced(tmp_path: Path) -> None:
    specs = _specs(
        tmp_path, _provider("hosted", "https://api.openai.com/v1", "[{id: no-such-model-ü}]")
    )

    assert specs["no-such-model-ü"].price is None


@pytest.mark.parametrize(
    "key", ["transport: batch", "batch-price: {input-per-million: 1, output-per-million: 2}"]
)
def test_a_batch_key_on_a_langchain_model_is_refused_naming_it(tmp_path: Path, key: str) -> None:
    path = tmp_path / "application.yaml"
    path.write_text(
        "spring.ai.ragas.providers.langchain:\n"
        "  - name: anthro\n"
        "    class: langchain_anthropic.ChatAnthropic\n"
        f"    chat-models: [{{id: claude-x, {key}}}]\n",
        encoding="utf-8",
    )

    with pytest.raises(ConfigError) as raised:
        judge_specs(load_settings(path))

    name = key.split(":")[0]
    assert f"providers.langchain[0].chat-models[0].{name}" in str(raised.value)
    assert "not OpenAI-compatible" in str(raised.value)
