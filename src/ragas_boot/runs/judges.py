"""A judge as a run reports it: its ids, its transport, its prices and where they came from
(the config or the price catalog and its version, and its batch price's)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.config.settings import PriceSettings, PriceSource

__all__ = ["JudgeInfo"]


class JudgeInfo(BaseModel):
    """One judge taking part in the run."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Judge id (alias, else model id).")
    provider: str = Field(description="Provider name from the config.")
    model: str = Field(description="Model id sent to the provider.")
    transport: str | None = Field(
        default=None,
        description="How an OpenAI-compatible judge sent its calls (direct, langchain, batch); "
        "None for the other kinds.",
    )
    price: PriceSettings | None = Field(
        default=None, description="Its price per million tokens; None: unpriced (tokens only)."
    )
    batch_price: PriceSettings | None = Field(
        default=None,
        description="Price per million tokens of its calls a provider's batch answered; None "
        "for a judge that sends no batches.",
    )
    price_source: PriceSource | None = Field(
        default=None,
        description="Where its prices came from: the config or the price catalog (and its "
        "version), and its batch price's; None when it is unpriced.",
    )

    @classmethod
    def of(cls, judge: JudgeModel) -> JudgeInfo:
        """What a run reports of ``judge``: its ids, transport and prices."""
        spec = judge.spec
        transport = getattr(spec, "transport", None)
        return cls(
            id=judge.id,
            provider=judge.provider,
            model=spec.model,
            transport=None if transport is None else str(transport.value),
            price=spec.price,
            batch_price=spec.batch_price if spec.sends_batches else None,
            price_source=spec.price_source,
        )

    def price_note(self) -> str:
        """Where its price came from, in a few words (``unpriced`` without one)."""
        if self.price_source is None:
            return "unpriced" if self.price is None else "config"
        return self.price_source.describe()
