"""Which judges an evaluation asks, and whether enough of them answered for a score.

One job: the judges a config selects (``models``), the quorum it asks for (``min-judges``
and ``quorum-failure``, each falling back to ``spring.ai.ragas.metrics``), refusing a quorum
no run could reach before any call is made, and the quorum check of a finished evaluation
(:class:`~ragas_boot.metrics.results.Quorum`). A judge excluded at any step did not answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.config.settings import MetricsSettings, QuorumFailure
from ragas_boot.errors import ConfigError
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.configuration import MetricConfig
from ragas_boot.metrics.results import Quorum

__all__ = ["check_quorum", "quorum_check", "quorum_policy", "select_judges"]


def quorum_policy(
    config: MetricConfig, settings: MetricsSettings, *, uses_judges: bool
) -> tuple[int | None, QuorumFailure]:
    """The quorum ``config`` asks for (``min-judges``; None: any one judge, and always for a
    metric that asks no judge) and what gates make of a missed one (``quorum-failure``), each
    falling back to the global YAML key."""
    required = config.min_judges or settings.min_judges
    on_failure = config.quorum_failure or settings.quorum_failure
    return (required if uses_judges else None), on_failure


def check_quorum(
    required: int | None, judges: Sequence[JudgeModel], *, metric: str, bean_name: str
) -> None:
    """Raise when a quorum of ``required`` exceeds the judges asked (no run could reach it).

    Raises:
        ConfigError: naming the metric's ``min-judges``.
    """
    if required is not None and required > len(judges):
        # A quorum no run can reach is a mistake in the config, not a failing sample.
        raise ConfigError(
            f"{metric} requires {required} answering judges (min-judges) but asks only "
            f"{len(judges)}",
            key=f"spring.ai.ragas.metrics.{bean_name.replace('_', '-')}.min-judges",
            hint=f"Lower min-judges to at most {len(judges)}, or select more judges",
        )


def select_judges(
    executor: MultiModelExecutor, config: MetricConfig, *, metric: str
) -> list[JudgeModel]:
    """The judges ``config.models`` names (all when empty).

    Raises:
        ConfigError: no judge is configured at all.
        JudgeNotFoundError: ``models`` names an unknown judge.
    """
    if not executor.judges:
        raise ConfigError(
            f"no judges are configured, and {metric} needs at least one",
            key="spring.ai.ragas.providers",
            hint="Declare chat-models under openai-compatible (or enable the local judge)",
        )
    return executor.select(config.models)


def quorum_check(
    required: int,
    on_failure: QuorumFailure,
    judge_ids: Sequence[str],
    exclusions: Sequence[Exclusion],
) -> Quorum:
    """Whether enough of the judges asked answered: one excluded at any step did not."""
    excluded = {exclusion.judge_id for exclusion in exclusions}
    asked = list(dict.fromkeys(judge_ids))
    answered = len([judge_id for judge_id in asked if judge_id not in excluded])
    return Quorum(
        required=required,
        answered=answered,
        asked=len(asked),
        met=answered >= required,
        on_failure=on_failure,
    )
