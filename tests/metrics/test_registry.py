"""The metric registry: the one list of metrics, built from the metric classes themselves."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import ClassVar

import pytest

from ragas_boot import Sample
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics import (
    METRICS,
    AgentGoalAccuracyMetric,
    Metric,
    MetricConfig,
    Need,
    ScoringOutcome,
    ToolCallAccuracyMetric,
    metric_class,
)
from ragas_boot.metrics.registry import MetricRegistry, check_declaration

pytest_plugins = ["pytester"]


class EchoConfig(MetricConfig):
    """No options."""


class EchoMetric(Metric[EchoConfig]):
    bean_name: ClassVar[str] = "echo_length"
    name: ClassVar[str] = "EchoLengthMetric"
    description: ClassVar[str] = "1.0 when a response exists"
    config_type: ClassVar[type[MetricConfig]] = EchoConfig
    needs: ClassVar[frozenset[Need]] = frozenset()
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response",)}

    def check_sample(self, sample: Sample, config: EchoConfig) -> EchoConfig:
        return config

    def total_steps(self, config: EchoConfig) -> int:
        return 0

    async def _score(
        self, sample: Sample, config: EchoConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        return ScoringOutcome({}, [], [], {}, "", score=1.0, aggregated=False)


def test_the_built_in_metrics_are_found_by_their_declarations():
    assert {"tool_call_accuracy", "agent_goal_accuracy", "topic_adherence"} <= set(METRICS)
    tool = METRICS["tool_call_accuracy"]
    assert tool is ToolCallAccuracyMetric
    assert tool.needs == frozenset()
    assert METRICS["agent_goal_accuracy"].needs == {Need.JUDGES}
    assert METRICS["agent_goal_accuracy"].reads["WITH_REFERENCE"] == (
        "user_input_messages",
        "reference",
    )
    for bean, cls in METRICS.items():
        assert cls.bean_name == bean
        check_declaration(cls)


def test_the_metrics_package_exports_every_built_in_metric_and_its_config():
    """``ragas_boot.metrics.__all__`` follows the registry: a new metric module is exported."""
    import ragas_boot.metrics as metrics

    built_in = [cls for cls in METRICS.values() if cls.__module__.startswith("ragas_boot.metrics.")]
    assert len(built_in) >= 23
    for cls in built_in:
        for exported in (cls, cls.config_type):
            assert exported.__name__ in metrics.__all__, f"{exported.__name__} is not exported"
            assert getattr(metrics, exported.__name__) is exported
    assert len(set(metrics.__all__)) == len(metrics.__all__)


@pytest.mark.parametrize(
    "name", ["agent_goal_accuracy", "agent-goal-accuracy", "AgentGoalAccuracyMetric",
             "AgentGoalAccuracy", "  AGENT_GOAL_ACCURACY "],
)  # fmt: skip
def test_a_metric_is_found_by_bean_java_or_kebab_name(name):
    assert metric_class(name) is AgentGoalAccuracyMetric


def test_an_unknown_metric_suggests_the_closest_and_lists_all():
    with pytest.raises(KeyError) as error:
        metric_class("topic_adherance")
    message = str(error.value)
    assert "did you mean 'topic_adherence'?" in message
    assert "tool_call_accuracy" in message


def test_a_registered_metric_joins_its_registry_and_a_bean_name_is_unique():
    registry = MetricRegistry()
    assert registry.register(EchoMetric) is EchoMetric
    assert registry["echo_length"] is EchoMetric
    assert registry.lookup("EchoLengthMetric") is EchoMetric
    assert registry.section_models()["echo_length"] is EchoConfig

    class Clash(EchoMetric):
        name: ClassVar[str] = "ClashMetric"

    with pytest.raises(ValueError, match=r"'echo_length' .* is taken by .*EchoMetric"):
        registry.register(Clash)


def test_an_incomplete_declaration_is_refused_with_what_is_missing():
    class NoBean(Metric[EchoConfig]):
        name: ClassVar[str] = "NoBeanMetric"
        config_type: ClassVar[type[MetricConfig]] = EchoConfig
        check_sample = EchoMetric.check_sample
        total_steps = EchoMetric.total_steps
        _score = EchoMetric._score

    with pytest.raises(TypeError, match="does not declare bean_name, description, reads"):
        check_declaration(NoBean)
    with pytest.raises(TypeError, match="is abstract"):
        check_declaration(Metric)
    with pytest.raises(TypeError, match="is not a Metric subclass"):
        check_declaration(dict)

    class BadName(EchoMetric):
        bean_name: ClassVar[str] = "Bad-Name"

    with pytest.raises(TypeError, match="snake_case"):
        check_declaration(BadName)


def test_register_metric_makes_a_bean_a_fixture_a_yaml_section_and_a_cli_metric(
    pytester: pytest.Pytester,
):
    """In a fresh process: a conftest registers a metric; every surface knows it."""
    pytester.makeconftest(
        textwrap.dedent(
            """
            from collections.abc import Mapping
            from typing import ClassVar

            from pydantic import Field

            from ragas_boot import register_metric
            from ragas_boot.metrics import Metric, MetricConfig, ScoringOutcome


            class WordsConfig(MetricConfig):
                most: int = Field(default=5, ge=1)


            @register_metric
            class WordsMetric(Metric[WordsConfig]):
                bean_name: ClassVar[str] = "word_budget"
                name: ClassVar[str] = "WordBudgetMetric"
                description: ClassVar[str] = "At most `most` words"
                config_type = WordsConfig
                needs = frozenset()
                reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response",)}

                def check_sample(self, sample, config):
                    return config

                def total_steps(self, config):
                    return 0

                async def _score(self, sample, config, judges):
                    words = len((sample.response or "").split())
                    return ScoringOutcome(
                        {}, [], [], {"words": words}, "", score=float(words <= config.most),
                        aggregated=False,
                    )
            """
        )
    )
    pytester.makefile(
        ".yaml",
        application="spring.ai.ragas.metrics.word-budget.most: 3\n",
    )
    pytester.makeini("[pytest]\nragas_config = application.yaml\n")
    pytester.makepyfile(
        textwrap.dedent(
            """
            import pytest
            from conftest import WordsMetric
            from ragas_boot import Sample, load_settings
            from ragas_boot.cli import main
            from ragas_boot.errors import ConfigError


            def test_fixture_and_yaml_defaults(word_budget, ragas_container):
                assert isinstance(word_budget, WordsMetric)
                assert ragas_container.metric(WordsMetric) is word_budget
                assert word_budget.defaults.most == 3
                assert word_budget.multi_turn_score(Sample(response="one two three")) == 1.0
                assert word_budget.multi_turn_score(Sample(response="a b c d")) == 0.0


            def test_a_typo_in_its_section(tmp_path):
                bad = tmp_path / "bad.yaml"
                bad.write_text("spring.ai.ragas.metrics.word-budget.mots: 3\\n")
                with pytest.raises(ConfigError, match="did you mean 'most'"):
                    load_settings(bad)


            def test_the_cli_runs_it(tmp_path, capsys):
                data = tmp_path / "d.yaml"
                data.write_text("samples: [{id: s1, response: two words}]\\n")
                assert main(["evaluate", str(data), "--metric", "word-budget"]) == 0
                assert "s1" in capsys.readouterr().out
            """
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
