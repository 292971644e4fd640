"""Model roles: a configured chat model asked to play a part other than judging.

The simulated user and the simulated tools (``spring.ai.ragas.simulation``) and the case
generator (``spring.ai.ragas.generation``) are chat models of ``application.yaml`` like the
judges, and each of their calls is a judge call in all but purpose: one structured call
through :meth:`~ragas_boot.execution.executor.MultiModelExecutor.run_step` with one judge, so
transport retries, output re-asks, rate limits, the response cache, billing and the spend cap
come with it. What a role adds:

* its own sampling options (``temperature``, ``max-tokens``) and a ``seed``, sent in each
  request (OpenAI's ``seed``) and part of the call's cache key. A seeded call is cached at any
  temperature (:func:`~ragas_boot.execution.cache.is_cacheable`), so a run replayed from the
  cache sends nothing; play ``n`` of a repeated scenario uses ``seed + n``.
* a call that still fails after the executor's retries and re-asks is the role's fault
  (:data:`RoleFaultKind`: ``simulator_failed``, ``generator_failed``), reported apart from
  judge failures and never as an error of the agent under test.

The cost: one structured call per :meth:`ModelRole.ask`, plus whatever retries and re-asks
the executor makes; one judge copy per seed used (a few per run), each closed by
:meth:`ModelRole.aclose`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.config.settings import ModelRoleSettings
from ragas_boot.errors import ConfigError, JudgeNotFoundError
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.results import JudgeCall

__all__ = ["ModelRole", "RoleAnswer", "RoleFault", "RoleFaultKind"]

log = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

#: The fault of a role's call that failed after the executor's retries and re-asks: the
#: simulated user's or a simulated tool's (``simulator_failed``), the generator's
#: (``generator_failed``). Neither is a judge failure nor the agent's error.
RoleFaultKind = Literal["simulator_failed", "generator_failed"]


@dataclass(frozen=True, slots=True)
class RoleFault:
    """Why a role's call gave no answer.

    Attributes:
        kind: the role's fault kind.
        cause: the judge call's failure kind (``output_invalid``, ``timeout``,
            ``http_429``, ...).
        message: the failure's message.
    """

    kind: RoleFaultKind
    cause: str
    message: str

    def __str__(self) -> str:
        return f"{self.kind} ({self.cause}): {self.message}"


@dataclass(frozen=True, slots=True)
class RoleAnswer(Generic[OutputT]):
    """One call of a role: the answer, or the fault; and the call as the executor made it.

    Attributes:
        value: the validated answer; ``None`` when the call failed.
        call: the executor's record (attempts, tokens, cost, cache outcome, raw answers).
        fault: why there is no answer; ``None`` when there is one.
        seed: the seed the call was sent with.
    """

    value: OutputT | None
    call: JudgeCall
    fault: RoleFault | None
    seed: int

    @property
    def requests(self) -> int:
        """Requests sent for this call: transport retries and output re-asks included, 0
        when the response cache answered."""
        return 0 if self.call.cached else self.call.attempts


class ModelRole:
    """A configured chat model in one role: one seeded structured call at a time.

    Args:
        name: the role's settings section (``simulation``, ``generation``), named in errors
            and records.
        fault_kind: what a failed call is reported as.
        judge: the chat model that plays the role (a judge of the configuration).
        executor: the judges' executor (retries, limits, cache, billing, spend cap).
        settings: the role's section.
    """

    def __init__(
        self,
        *,
        name: str,
        fault_kind: RoleFaultKind,
        judge: JudgeModel,
        executor: MultiModelExecutor,
        settings: ModelRoleSettings,
    ) -> None:
        self._name = name
        self._fault_kind: RoleFaultKind = fault_kind
        self._judge = judge
        self._executor = executor
        self._settings = settings
        self._seeded: dict[int, JudgeModel] = {}

    @classmethod
    def from_settings(
        cls,
        settings: ModelRoleSettings,
        executor: MultiModelExecutor,
        *,
        name: str,
        fault_kind: RoleFaultKind,
    ) -> ModelRole:
        """The role played by ``settings.model`` (a judge id or alias), else the first judge.

        Raises:
            ConfigError: the model is not a judge of the configuration, or there is no judge
                at all (naming ``spring.ai.ragas.<name>.model``).
        """
        key = f"spring.ai.ragas.{name}.model"
        if settings.model is not None:
            try:
                judge = executor.select([settings.model])[0]
            except JudgeNotFoundError as error:
                raise ConfigError(str(error), key=key) from None
        elif executor.judges:
            judge = executor.judges[0]
        else:
            raise ConfigError(
                f"no chat model can play the {name} role: the configuration declares no judge; "
                "declare one (the embedded local provider works offline) or name one here",
                key=key,
            )
        return cls(
            name=name, fault_kind=fault_kind, judge=judge, executor=executor, settings=settings
        )

    def __repr__(self) -> str:
        return f"ModelRole(name={self._name!r}, model={self._judge.id!r})"

    @property
    def name(self) -> str:
        """The role's settings section."""
        return self._name

    @property
    def judge(self) -> JudgeModel:
        """The configured judge that plays the role (its seeded copies are the role's own)."""
        return self._judge

    @property
    def model_id(self) -> str:
        """The id of the judge that plays the role."""
        return self._judge.id

    @property
    def fault_kind(self) -> RoleFaultKind:
        """What a failed call is reported as."""
        return self._fault_kind

    @property
    def settings(self) -> ModelRoleSettings:
        """The role's section."""
        return self._settings

    def seed_for(self, offset: int) -> int:
        """The seed of play ``offset``: the section's ``seed`` plus ``offset``."""
        return self._settings.seed + offset

    def _judge_for(self, seed: int) -> JudgeModel:
        judge = self._seeded.get(seed)
        if judge is None:
            spec = dataclasses.replace(
                self._judge.spec,
                temperature=self._settings.temperature,
                max_tokens=self._settings.max_tokens,
                seed=seed,
            )
            with_spec = getattr(self._judge, "with_spec", None)
            if callable(with_spec):
                judge = with_spec(spec)
            else:  # a JudgeModel of the user's own: asked as it is
                log.warning(
                    "%s cannot take the %s role's sampling options (no with_spec); it is asked "
                    "with its own, unseeded",
                    self._judge.id,
                    self._name,
                )
                judge = self._judge
            self._seeded[seed] = judge
        return judge

    async def ask(
        self, step: str, prompt: str, output_model: type[OutputT], *, seed_offset: int = 0
    ) -> RoleAnswer[OutputT]:
        """One structured call: ``prompt`` answered as ``output_model`` by the role's model,
        seeded with :meth:`seed_for` ``(seed_offset)``. Never raises for the model's failure:
        the answer carries the fault.

        Args:
            step: what the call is for, recorded with it (``SimulatedUserTurn``, ...).
            prompt: the whole prompt.
            output_model: the model the answer must validate as (an invalid one is re-asked).
            seed_offset: added to the section's seed (the play of a repeated scenario).
        """
        seed = self.seed_for(seed_offset)
        judge = self._judge_for(seed)
        record = await self._executor.run_step(step, [judge], prompt, output_model)
        call = record.calls[0]
        if call.ok:
            value: OutputT = call.value
            return RoleAnswer(value=value, call=call, fault=None, seed=seed)
        fault = RoleFault(
            kind=self._fault_kind,
            cause=call.error_kind or "error",
            message=call.error_message or "no answer",
        )
        return RoleAnswer(value=None, call=call, fault=fault, seed=seed)

    async def aclose(self) -> None:
        """Close the HTTP clients of the seeded copies (the configured judge is the
        container's to close); the role stays usable."""
        copies = [judge for judge in self._seeded.values() if judge is not self._judge]
        self._seeded.clear()
        if copies:
            await self._executor.portal.run(self._close(copies))

    @staticmethod
    async def _close(judges: list[JudgeModel]) -> None:
        await asyncio.gather(*(judge.aclose() for judge in judges), return_exceptions=True)
