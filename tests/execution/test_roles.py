"""Model roles: one seeded structured call through the executor, cached at any temperature,
its faults the role's own kind."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from datetime import timedelta

import pytest
from pydantic import BaseModel, Field, SecretStr

from ragas_boot import load_settings
from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec
from ragas_boot.config.settings import (
    BackoffSettings,
    GenerationSettings,
    RetrySettings,
    SimulationSettings,
    Transport,
)
from ragas_boot.errors import ConfigError
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.execution.cache import ResponseCache, is_cacheable, request_key
from ragas_boot.execution.roles import ModelRole
from ragas_boot.testing import Reply


class Turn(BaseModel):
    message: str = Field(min_length=1)


def spec(server, model="user-model", **changes):
    made = OpenAICompatibleSpec(
        id=model, model=model, provider="p", base_url=server.base_url, api_key=SecretStr("k")
    )
    return dataclasses.replace(made, **changes)


@pytest.fixture
def executor_with(tmp_path):
    made = []

    def build(judges, *, cache=True, output_retries=1):
        store = ResponseCache(directory=tmp_path / "cache", loopback=True) if cache else None
        executor = MultiModelExecutor(
            judges=judges,
            cache=store,
            output_retries=output_retries,
            retry=RetrySettings(
                max_attempts=3,
                backoff=BackoffSettings(
                    initial_interval=timedelta(milliseconds=5),
                    max_interval=timedelta(milliseconds=10),
                ),
            ),
        )
        made.append(executor)
        return executor

    yield build
    for executor in made:
        executor.close()


def ask(role, executor, prompt="Who are you?", offset=0):
    return executor.portal.call(role.ask("SimulatedUserTurn", prompt, Turn, seed_offset=offset))


def test_settings_sections_load_with_their_defaults_and_keys(tmp_path):
    file = tmp_path / "application.yaml"
    file.write_text(
        textwrap.dedent(
            """
            spring.ai.ragas:
              simulation: {model: judge-b, temperature: 0.3, seed: 42, max-tokens: 300}
              generation: {}
            """
        )
    )
    settings = load_settings(str(file))
    assert settings.simulation == SimulationSettings(
        model="judge-b", temperature=0.3, seed=42, max_tokens=300
    )
    assert settings.generation == GenerationSettings()
    assert (settings.generation.model, settings.generation.seed) == (None, 0)
    file.write_text("spring.ai.ragas.simulation: {seeds: 3}\n")
    with pytest.raises(ConfigError, match=r"spring\.ai\.ragas\.simulation\.seeds.*did you mean"):
        load_settings(str(file))
    file.write_text("spring.ai.ragas.simulation: {temperature: 3}\n")
    with pytest.raises(ConfigError, match=r"spring\.ai\.ragas\.simulation\.temperature"):
        load_settings(str(file))


@pytest.mark.parametrize("transport", ["direct", "langchain"])
def test_the_seed_and_the_roles_options_travel_in_the_request(
    openai_server, executor_with, transport
):
    judge = OpenAICompatibleJudge(spec=spec(openai_server, transport=Transport(transport)))
    executor = executor_with([judge], cache=False)
    role = ModelRole(
        name="simulation",
        fault_kind="simulator_failed",
        judge=judge,
        executor=executor,
        settings=SimulationSettings(temperature=0.9, seed=7, max_tokens=64),
    )
    openai_server.script("user-model", {"message": "Hi"}, {"message": "Hello"})
    first = ask(role, executor)
    second = ask(role, executor, offset=3)
    assert (first.value, first.seed, first.fault) == (Turn(message="Hi"), 7, None)
    assert second.seed == 10
    bodies = [record.request.body for record in openai_server.requests_for("user-model")]
    assert [body.get("seed") for body in bodies] == [7, 10]
    assert {body.get("temperature") for body in bodies} == {0.9}
    assert {body.get("max_completion_tokens", body.get("max_tokens")) for body in bodies} == {64}
    executor.portal.call(role.aclose())


def test_a_judge_without_a_seed_sends_none(openai_server, executor_with):
    judge = OpenAICompatibleJudge(spec=spec(openai_server))
    executor = executor_with([judge], cache=False)
    executor.portal.call(executor.run_step("Judge", [judge], "x", Turn))
    assert "seed" not in openai_server.requests_for("user-model")[0].request.body


def test_a_seeded_call_is_cached_at_any_temperature_and_replays_with_no_request(
    openai_server, executor_with
):
    judge = OpenAICompatibleJudge(spec=spec(openai_server))
    settings = SimulationSettings(temperature=1.0, seed=5)
    openai_server.script("user-model", {"message": "first"}, {"message": "other seed"})
    for _ in range(2):  # two runs, one cache folder
        executor = executor_with([judge])
        role = ModelRole(
            name="simulation",
            fault_kind="simulator_failed",
            judge=judge,
            executor=executor,
            settings=settings,
        )
        answer = ask(role, executor)
        assert answer.value == Turn(message="first")
        executor.portal.call(role.aclose())
    assert openai_server.count("user-model") == 1
    assert (answer.call.cache, answer.requests) == ("hit", 0)
    other = ask(role, executor, offset=1)  # another seed: another entry
    assert (other.value, other.call.cache) == (Turn(message="other seed"), "miss")
    assert other.requests == 1
    assert openai_server.count("user-model") == 2
    executor.portal.call(role.aclose())


def test_cache_rule_and_key_for_seeded_specs(openai_server):
    plain = spec(openai_server, base_url="https://api.example.com", temperature=0.7)
    seeded = dataclasses.replace(plain, seed=3)
    assert not is_cacheable(plain)
    assert is_cacheable(seeded)
    assert not is_cacheable(dataclasses.replace(seeded, base_url=openai_server.base_url))
    assert is_cacheable(dataclasses.replace(seeded, base_url=openai_server.base_url), loopback=True)
    keys = {request_key(s, "p", Turn) for s in (plain, seeded, dataclasses.replace(plain, seed=4))}
    assert len(keys) == 3
    # An unseeded judge's key is what it was before seeds existed: users' caches stay valid.
    assert request_key(plain, "p", Turn) == request_key(
        dataclasses.replace(plain, seed=None), "p", Turn
    )


@pytest.mark.parametrize(
    ("faults", "cause", "requests"),
    [
        ([Reply.empty(), Reply.text("not json")], "invalid_output", 2),
        ([Reply.error(500), Reply.error(500), Reply.error(500)], "server_error", 3),
    ],
)
def test_a_call_that_still_fails_is_the_roles_fault(
    openai_server, executor_with, faults, cause, requests
):
    judge = OpenAICompatibleJudge(spec=spec(openai_server))
    executor = executor_with([judge], cache=False)
    role = ModelRole(
        name="simulation",
        fault_kind="simulator_failed",
        judge=judge,
        executor=executor,
        settings=SimulationSettings(),
    )
    openai_server.script("user-model", *faults)
    answer = ask(role, executor)
    assert answer.value is None
    assert answer.fault is not None
    assert (answer.fault.kind, answer.fault.cause) == ("simulator_failed", cause)
    assert answer.requests == requests == openai_server.count("user-model")
    assert str(answer.fault).startswith(f"simulator_failed ({cause}): ")
    executor.portal.call(role.aclose())


def test_an_empty_answer_is_reasked_once_then_answered(openai_server, executor_with):
    judge = OpenAICompatibleJudge(spec=spec(openai_server))
    executor = executor_with([judge], cache=False)
    role = ModelRole(
        name="simulation",
        fault_kind="simulator_failed",
        judge=judge,
        executor=executor,
        settings=SimulationSettings(),
    )
    openai_server.script("user-model", Reply.json({"message": ""}), {"message": "ok now"})
    answer = ask(role, executor)
    assert (answer.value, answer.requests) == (Turn(message="ok now"), 2)
    assert json.loads(answer.call.raw_attempts[0]) == {"message": ""}
    executor.portal.call(role.aclose())


def test_from_settings_picks_the_named_model_else_the_first_judge(openai_server, executor_with):
    judges = [OpenAICompatibleJudge(spec=spec(openai_server, model=name)) for name in ("a", "b")]
    executor = executor_with(judges, cache=False)
    first = ModelRole.from_settings(
        SimulationSettings(), executor, name="simulation", fault_kind="simulator_failed"
    )
    named = ModelRole.from_settings(
        SimulationSettings(model="b"), executor, name="simulation", fault_kind="simulator_failed"
    )
    assert (first.model_id, named.model_id) == ("a", "b")
    with pytest.raises(ConfigError, match="unknown-model") as caught:
        ModelRole.from_settings(
            GenerationSettings(model="unknown-model"),
            executor,
            name="generation",
            fault_kind="generator_failed",
        )
    assert caught.value.key == "spring.ai.ragas.generation.model"
    with pytest.raises(ConfigError, match="declares no judge") as caught:
        ModelRole.from_settings(
            SimulationSettings(),
            executor_with([], cache=False),
            name="simulation",
            fault_kind="simulator_failed",
        )
    assert caught.value.key == "spring.ai.ragas.simulation.model"
