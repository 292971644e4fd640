"""Named criteria of the YAML as pytest fixtures and through ``ragas_metric``."""

from __future__ import annotations

import textwrap

CRITERIA = """
spring.ai.ragas.metrics:
  aspect-critic:
    criteria:
      no-profanity: {definition: The response contains no profanity.}
      no-threats: {definition: The response contains no threats, strictness: 3}
"""


def test_each_criterion_is_a_fixture(project, openai_server, judges_config):
    project.makefile(".yaml", application=judges_config() + textwrap.dedent(CRITERIA))
    openai_server.respond(None, {"reasoning": "clean", "verdict": True})
    project.makepyfile(
        test_criteria="""
        from ragas_boot import Sample
        from ragas_boot.metrics.general.aspect_critic import AspectCriticMetric

        SAMPLE = Sample(user_input="Refund?", response="Your refund is on its way.")

        def test_fixtures(aspect_critic__no_profanity, aspect_critic__no_threats, ragas_metric):
            assert isinstance(aspect_critic__no_profanity, AspectCriticMetric)
            assert aspect_critic__no_profanity.criterion == "no-profanity"
            assert ragas_metric("aspect_critic:no-threats") is aspect_critic__no_threats
            assert aspect_critic__no_profanity.evaluate(SAMPLE).score == 1.0
            assert aspect_critic__no_threats.evaluate(SAMPLE).score == 1.0

        def test_undeclared(ragas_metric):
            import pytest
            from ragas_boot import ConfigError
            with pytest.raises(ConfigError, match="declared: no-profanity, no-threats"):
                ragas_metric("aspect_critic:polite")
        """
    )
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert openai_server.count() == 2 * (1 + 3)  # two judges; no-threats asks each 3 times
    result.stdout.fnmatch_lines(
        ["*ragas-boot scores*", "*test_fixtures*AspectCritic:no-profanity*1.000*"]
    )


def test_no_config_named_no_criterion_fixtures_and_no_yaml_read(plain, judges_config):
    plain.makefile(".yaml", application=judges_config() + textwrap.dedent(CRITERIA))
    plain.makepyfile(
        test_none="""
        import pytest

        def test_fixture_absent(request):
            with pytest.raises(pytest.FixtureLookupError):
                request.getfixturevalue("aspect_critic__no_profanity")
        """
    )
    result = plain.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "ragas-boot: config" not in result.stdout.str()


def test_a_criterion_bean_reached_through_the_container_reports_its_score(
    project, openai_server, judges_config
):
    project.makefile(".yaml", application=judges_config() + textwrap.dedent(CRITERIA))
    openai_server.respond(None, {"reasoning": "clean", "verdict": True})
    project.makepyfile(
        test_direct="""
        from ragas_boot import Sample

        def test_direct(ragas_container):
            bean = ragas_container.aspect_critic__no_profanity()
            assert bean.evaluate(Sample(response="Fine.")).score == 1.0
        """
    )
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_direct*AspectCritic:no-profanity*1.000*"])


def test_a_criterion_bean_is_injected_by_name(project, openai_server, judges_config):
    project.makefile(".yaml", application=judges_config() + textwrap.dedent(CRITERIA))
    openai_server.respond(None, {"reasoning": "clean", "verdict": True})
    project.makepyfile(
        # Its own module name: pytester runs in this process, and dependency-injector's wiring
        # remembers the functions it patched by module.
        test_criterion_injected="""
        from dependency_injector.wiring import Provide, inject

        from ragas_boot import Sample
        from ragas_boot.metrics.general.aspect_critic import AspectCriticMetric

        @inject
        def test_injected(
            aspect_critic__no_threats,
            metric: AspectCriticMetric = Provide["aspect_critic__no_profanity"],
            other: AspectCriticMetric = Provide["aspect_critic__no_threats"],
        ):
            assert isinstance(metric, AspectCriticMetric)
            assert metric.criterion == "no-profanity"
            assert other is aspect_critic__no_threats
            assert metric.evaluate(Sample(response="Fine.")).score == 1.0
        """
    )
    result = project.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
