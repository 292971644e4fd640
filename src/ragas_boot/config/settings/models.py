"""A provider's chat and embedding models: ids, aliases, options and prices."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ragas_boot.config.settings._base import _Section
from ragas_boot.config.settings.modes import Transport

__all__ = [
    "ChatModelEntry",
    "ChatModelSettings",
    "ChatOptions",
    "DefaultOptions",
    "EmbeddingDefaultOptions",
    "EmbeddingModelSettings",
    "PriceSettings",
    "PriceSource",
]


class ChatOptions(_Section):
    """Per-model options; an unset option falls back to ``default-options``."""

    temperature: float | None = Field(default=None, ge=0.0, le=2.0, description="Temperature.")
    max_tokens: int | None = Field(default=None, ge=1, description="Completion token cap.")
    top_p: float | None = Field(default=None, gt=0.0, le=1.0, description="Nucleus sampling.")


class DefaultOptions(_Section):
    """``spring.ai.ragas.providers.default-options``: options every judge starts from."""

    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="Temperature.")
    max_tokens: int = Field(default=1000, ge=1, description="Completion token cap.")
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, description="Nucleus sampling.")


class PriceSettings(_Section):
    """A chat model's price per million tokens (``chat-models[].price``), as providers list it.

    Reports show the cost of every judge, metric and run from it; a judge without a price
    shows tokens only (no price is ever guessed). All prices of a config are in one currency
    (reports write it as ``$``).
    """

    input_per_million: float = Field(
        ge=0.0, allow_inf_nan=False, description="Price of one million input (prompt) tokens."
    )
    output_per_million: float = Field(
        ge=0.0, allow_inf_nan=False, description="Price of one million output (completion) tokens."
    )
    cached_input_per_million: float | None = Field(
        default=None,
        ge=0.0,
        allow_inf_nan=False,
        description="Price of one million input tokens read from the provider's prompt cache; "
        "unset = the input price.",
    )

    def cost(self, *, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        """What these tokens cost (``cached_input_tokens`` are part of ``input_tokens``)."""
        cached = min(cached_input_tokens, input_tokens)
        cached_price = (
            self.cached_input_per_million
            if self.cached_input_per_million is not None
            else self.input_per_million
        )
        return (
            (input_tokens - cached) * self.input_per_million
            + cached * cached_price
            + output_tokens * self.output_per_million
        ) / 1_000_000


class PriceSource(BaseModel):
    """Where a judge's prices came from, as reports show it (not a configuration key).

    Attributes:
        price: ``config`` (the chat model's ``price``) or ``catalog`` (the price catalog,
            :attr:`catalog` names it and its version).
        catalog: the catalog and its version (``genai-prices 0.2.3``) when it gave a price.
        batch: where the price of calls answered through a provider batch came from:
            ``config`` (``batch-price``), ``catalog`` (the catalog's batch rate), ``discount``
            (the provider's ``batch.discount`` of the price); ``None`` when the judge sends
            no batches.
        discount: the share of the price a batch call is billed at, when ``batch`` is
            ``discount``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    price: Literal["config", "catalog"] = Field(description="config or catalog.")
    catalog: str | None = Field(
        default=None, description="The price catalog and its version, when it gave a price."
    )
    batch: Literal["config", "catalog", "discount"] | None = Field(
        default=None,
        description="Where the batch price came from (batch-price, the catalog's batch rate, "
        "the provider's discount); None for a judge that sends no batches.",
    )
    discount: float | None = Field(
        default=None, description="The share of the price batch calls are billed at (discount)."
    )

    def describe(self) -> str:
        """One phrase: ``config``, ``catalog genai-prices 0.2.3``, then the batch price's."""
        text = "config" if self.price == "config" else f"catalog {self.catalog or ''}".strip()
        if self.batch == "config":
            text += "; batch: config"
        elif self.batch == "catalog":
            text += "; batch: catalog rate"
        elif self.batch == "discount" and self.discount is not None:
            text += f"; batch: {self.discount:.0%} of it"
        return text


class ChatModelSettings(_Section):
    """One chat model of a provider; it becomes one judge."""

    id: str = Field(min_length=1, description="Model id sent to the provider.")
    alias: str | None = Field(
        default=None, min_length=1, description="Judge id to use instead of the model id."
    )
    max_prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Largest prompt sent to this model, in estimated tokens (characters / 4); "
        "a larger one fails that evaluation unsent. Unset: the provider's, else "
        "providers.max-prompt-tokens.",
    )
    options: ChatOptions = Field(default_factory=ChatOptions, description="Per-model options.")
    price: PriceSettings | None = Field(
        default=None,
        description="Price per million tokens; unset = the price catalog's for a model it "
        "knows (providers.price-catalog), else reports show this judge's tokens only.",
    )
    transport: Transport | None = Field(
        default=None,
        description="How this model's calls are sent (direct|langchain|batch; OpenAI-compatible "
        "providers only); unset = its provider's.",
    )
    batch_price: PriceSettings | None = Field(
        default=None,
        description="Price per million tokens of calls answered through a provider batch; "
        "unset = the catalog's batch rate, else price times the provider's batch.discount.",
    )

    @property
    def judge_id(self) -> str:
        """The id metrics and reports know this judge by: the alias, else the model id."""
        return self.alias or self.id


class EmbeddingModelSettings(_Section):
    """One embedding model of a provider (SemanticSimilarity, ResponseRelevancy, ...)."""

    id: str = Field(min_length=1, description="Model id sent to the provider.")
    alias: str | None = Field(
        default=None, min_length=1, description="Id to use instead of the model id."
    )
    dimensions: int | None = Field(
        default=None,
        ge=1,
        description="Vector size to ask for; default embedding-default-options.dimensions.",
    )

    @property
    def embedding_id(self) -> str:
        """The id results and reports know this embedding model by: the alias, else the id."""
        return self.alias or self.id


class EmbeddingDefaultOptions(_Section):
    """``spring.ai.ragas.providers.embedding-default-options``."""

    dimensions: int | None = Field(
        default=None,
        ge=1,
        description="Vector size asked of models that set none; unset: the model's own "
        "(Java sent 1024, which models with a fixed size reject).",
    )


def _model_entry(value: Any) -> Any:
    """A chat model given as a bare id (``- GigaChat-2-Max``, as Java lists them)."""
    return {"id": value} if isinstance(value, str) else value


#: A chat model of ``external-starters`` or ``langchain``: a section, or a bare model id.
ChatModelEntry = Annotated[ChatModelSettings, BeforeValidator(_model_entry)]
