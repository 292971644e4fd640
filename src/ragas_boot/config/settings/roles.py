"""Model roles: a configured chat model playing a part other than judging
(``spring.ai.ragas.simulation``, ``spring.ai.ragas.generation``)."""

from __future__ import annotations

from pydantic import Field

from ragas_boot.config.settings._base import _Section

__all__ = ["GenerationSettings", "ModelRoleSettings", "SimulationSettings"]


class ModelRoleSettings(_Section):
    """A configured chat model in a role other than judging: the simulated user and
    simulated tools (``spring.ai.ragas.simulation``), the case generator
    (``spring.ai.ragas.generation``).

    Each call of a role is one structured call through the judges' executor (retries, output
    re-asks, limits, the response cache, billing and the spend cap), with ``seed`` sent in
    the request and part of its cache key: a seeded call is cached at any temperature, so a
    run replayed from the cache sends nothing.
    """

    model: str | None = Field(
        default=None,
        description="Judge id or alias of the chat model that plays the role; unset: the "
        "first judge (the embedded local model when that is the configuration).",
    )
    temperature: float = Field(
        default=0.7,
        ge=0.0,
        le=2.0,
        description="Sampling temperature of the role's calls (above 0, so that different "
        "seeds give different answers).",
    )
    seed: int = Field(
        default=0,
        ge=0,
        description="Base sampling seed, sent with every call (OpenAI's seed) and part of "
        "its cache key; repeats use seed, seed + 1, ...",
    )
    max_tokens: int = Field(default=512, ge=1, description="Completion token cap of a call.")


class SimulationSettings(ModelRoleSettings):
    """``spring.ai.ragas.simulation``: the model that plays the user of scenario cases and
    answers the calls of ``simulated: true`` tools."""


class GenerationSettings(ModelRoleSettings):
    """``spring.ai.ragas.generation``: the model that writes generated test cases."""
