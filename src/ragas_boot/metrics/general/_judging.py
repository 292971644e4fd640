"""What the general-purpose judge metrics share: the interaction shown to judges, the checks of
what they read, and asking each judge several times (``strictness``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, Field, field_validator

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import ConfigError, SampleValidationError
from ragas_boot.execution.results import Exclusion, JudgeCall, StepRecord
from ragas_boot.metrics.base import Metric, MetricConfig
from ragas_boot.metrics.prompting import data_block, localized, render_conversation
from ragas_boot.samples import Sample

__all__ = [
    "INTERACTION_READS",
    "DefinitionConfig",
    "Interaction",
    "InteractionConfig",
    "JudgedTextMetric",
    "Repeats",
    "render_interaction",
    "render_reference",
    "scale_text",
]

ConfigT = TypeVar("ConfigT", bound=MetricConfig)

#: The fields a general metric reads: a single turn, or a conversation.
INTERACTION_READS: tuple[str, ...] = ("response|user_input_messages", "user_input")

_LABELS = {
    "en": {
        "user_input": "User input:",
        "response": "Response:",
        "conversation": "Conversation:",
        "final": "Final response:",
    },
    "ru": {
        "user_input": "Запрос пользователя:",
        "response": "Ответ:",
        "conversation": "Диалог:",
        "final": "Итоговый ответ:",
    },
}


class Interaction(CaseInsensitiveEnum):
    """What a general metric shows its judges of a sample (``interaction`` in its config)."""

    #: ``user_input`` + ``response`` when the sample has both (what Java judges), else the
    #: conversation when it has one, else the response.
    AUTO = "AUTO"
    #: ``user_input`` (when present) + ``response``, even when a conversation is there too.
    SINGLE_TURN = "SINGLE_TURN"
    #: The whole conversation with ``response`` as its final response, when there is one.
    CONVERSATION = "CONVERSATION"


class InteractionConfig(MetricConfig):
    """The config field every general judge metric shares: what its judges read."""

    interaction: Interaction = Field(
        default=Interaction.AUTO,
        description="AUTO: user_input + response when the sample has both (as Java), else the "
        "conversation; SINGLE_TURN: always user_input + response; CONVERSATION: the whole "
        "conversation when there is one.",
    )


def _conversation_view(sample: Sample, interaction: Interaction) -> bool:
    if not sample.user_input_messages or interaction is Interaction.SINGLE_TURN:
        return False
    if interaction is Interaction.CONVERSATION:
        return True
    single_turn = bool(
        sample.user_input
        and sample.user_input.strip()
        and sample.response
        and sample.response.strip()
    )
    return not single_turn


def render_interaction(
    sample: Sample, language: str, interaction: Interaction = Interaction.AUTO
) -> str:
    """What the judge reads: input + response, or the conversation (see :class:`Interaction`).

    A conversation (``user_input_messages``) is rendered like the agent metrics render it; a
    ``response`` given beside it is shown as the final response. ``user_input`` is optional
    in a single-turn sample (a check such as "no profanity" needs only the response).
    """
    labels = localized(_LABELS, language)
    parts: list[str] = []
    if sample.user_input_messages and _conversation_view(sample, interaction):
        parts.append(f"{labels['conversation']}\n{render_conversation(sample.user_input_messages)}")
        if sample.response and sample.response.strip():
            parts.append(f"{labels['final']}\n{sample.response}")
        return "\n\n".join(parts)
    if sample.user_input and sample.user_input.strip():
        parts.append(f"{labels['user_input']}\n{sample.user_input}")
    parts.append(f"{labels['response']}\n{sample.response}")
    return "\n\n".join(parts)


def render_reference(sample: Sample, instruction: str) -> str:
    """The optional reference part of a prompt: a line break, then ``instruction`` with its
    ``{reference}`` filled by the sample's reference in a :func:`data_block`; ``""`` when the
    sample has no reference.

    The result goes into a template as configuration: the instruction stays outside the block
    and only the sample's text is data.
    """
    if not (sample.reference and sample.reference.strip()):
        return ""
    return "\n" + instruction.format(reference=data_block("reference", sample.reference))


class DefinitionConfig(InteractionConfig):
    """Shared by AspectCritic and SimpleCriteriaScore: the criterion and the repeats."""

    definition: str | None = Field(
        default=None,
        description="The criterion, in plain words (required; empty is an error).",
    )
    strictness: int = Field(
        default=1,
        ge=1,
        le=5,
        description="How many times each judge is asked (independent concurrent calls).",
    )

    @field_validator("definition")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("the definition is empty; write the criterion to check")
        return value.strip() if value is not None else None


@dataclass
class Repeats:
    """Each judge's repeats of one step: the answers and the failures, in judge order."""

    step: StepRecord
    answers: dict[str, list[Any]] = field(default_factory=dict)
    failures: dict[str, list[JudgeCall]] = field(default_factory=dict)

    def exclusions(self) -> list[Exclusion]:
        """Judges whose every repeat failed (the last failure says why)."""
        excluded = []
        for judge_id, failed in self.failures.items():
            if self.answers.get(judge_id):
                continue
            last = failed[-1]
            count = len(failed)
            message = last.error_message or ""
            if count > 1:
                message = f"all {count} repeats failed; last: {message}"
            excluded.append(
                Exclusion(
                    judge_id=judge_id,
                    step=last.step,
                    kind=last.error_kind or "error",
                    message=message,
                )
            )
        return excluded

    def record(self, describe: Callable[[Any], dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """Every repeat of every judge, in the order sent: an answer or the error."""
        out: dict[str, list[dict[str, Any]]] = {}
        for call in self.step.calls:
            entry = (
                describe(call.value)
                if call.ok
                else {"error": call.error_kind, "message": call.error_message}
            )
            out.setdefault(call.judge_id, []).append(entry)
        return out


class JudgedTextMetric(Metric[ConfigT]):
    """A judge metric reading one interaction (single turn or conversation)."""

    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": INTERACTION_READS}

    def _check_interaction(self, sample: Sample, config: InteractionConfig) -> None:
        if sample.user_input_messages and config.interaction is not Interaction.SINGLE_TURN:
            return
        if sample.response is None or not sample.response.strip():
            what = "missing" if sample.response is None else "empty"
            if sample.user_input_messages:  # there is one, but SINGLE_TURN does not show it
                reason = (
                    "interaction SINGLE_TURN judges user_input + response (interaction "
                    "CONVERSATION judges the user_input_messages conversation)"
                )
            else:
                reason = "there is no user_input_messages conversation to judge instead"
            raise SampleValidationError(
                f"is {what}, and {reason}", field="response", metric=self.name
            )

    def _require(self, config: MetricConfig, name: str, what: str) -> None:
        if getattr(config, name) is None:
            section = self.bean_name.replace("_", "-")
            raise ConfigError(
                f"{self.name} needs {what}",
                key=f"spring.ai.ragas.metrics.{section}.{name.replace('_', '-')}",
                hint=f"Pass {type(config).__name__}({name}=...) or declare a named criterion "
                f"under spring.ai.ragas.metrics.{section}.criteria",
            )

    async def _ask(
        self,
        step: str,
        judges: Sequence[JudgeModel],
        prompt: str,
        output: type[BaseModel],
        strictness: int,
    ) -> Repeats:
        """Ask every judge ``strictness`` times at once (independent calls, one step)."""
        sent = [judge for judge in judges for _ in range(strictness)]
        record = await self.executor.run_step(step, sent, prompt, output, index=0)
        repeats = Repeats(step=record)
        for judge in judges:
            repeats.answers.setdefault(judge.id, [])
        for call in record.calls:
            if call.ok:
                repeats.answers[call.judge_id].append(call.value)
            else:
                repeats.failures.setdefault(call.judge_id, []).append(call)
        return repeats


def scale_text(value: float) -> str:
    """A scale bound as people write it: ``5`` for 5.0, ``2.5`` (Java showed ``5.0``)."""
    return f"{value:g}"
