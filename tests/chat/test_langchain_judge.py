"""Judges on real LangChain chat classes (ChatAnthropic, ChatOllama) against local fakes of their
APIs: every structured-output mode, every fault path, our retry policy as the only one."""

from __future__ import annotations

import asyncio
import json
import socket
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import BaseModel, SecretStr

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.chat import JudgeSpec, LangChainSpec, ProviderLimits
from ragas_boot.chat.langchain.judge import LangChainJudge
from ragas_boot.chat.langchain.models import provider_name_of
from ragas_boot.chat.specs import LangChainModelSpec
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import (
    ConfigError,
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)
from ragas_boot.samples import AIMessage, HumanMessage
from ragas_boot.testing import Reply
from support.fakes import FakeAnthropicServer, FakeOllamaServer

pytest.importorskip("langchain_anthropic")
pytest.importorskip("langchain_ollama")

ANTHROPIC_KEY = "sk-ant-fake-key-5521"
ANTHROPIC = "langchain_anthropic.ChatAnthropic"
OLLAMA = "langchain_ollama.ChatOllama"
MODES = list(LangChainJudge.output_modes)


class Verdict(BaseModel):
    """Whether the goal was achieved."""

    goal_achieved: bool
    reason: str


@pytest.fixture
def anthropic_server():
    with FakeAnthropicServer(api_key=ANTHROPIC_KEY) as server:
        yield server


@pytest.fixture
def ollama_server():
    with FakeOllamaServer() as server:
        yield server


def spec_for(
    class_path: str,
    base_url: str,
    mode: StructuredOutputMode = StructuredOutputMode.NATIVE,
    *,
    model: str = "judge-model",
    timeout: float = 10.0,
    **arguments: object,
) -> JudgeSpec:
    arguments = {"base_url": base_url, **arguments}
    if class_path == ANTHROPIC:
        arguments.setdefault("api_key", SecretStr(ANTHROPIC_KEY))
    return LangChainSpec(
        id=model,
        model=model,
        provider="p",
        base_url=base_url,
        api_key=SecretStr(ANTHROPIC_KEY if class_path == ANTHROPIC else ""),
        structured_output=mode,
        max_tokens=321,
        limits=ProviderLimits(provider="p", call_timeout=timedelta(seconds=timeout)),
        langchain=LangChainModelSpec(class_path=class_path, arguments=tuple(arguments.items())),
    )


async def ask(judge: LangChainJudge, prompt: str = "Was the flight booked?"):
    try:
        judge.prepare()
        return await judge.ainvoke_structured(prompt, Verdict)
    finally:
        await judge.aclose()


# ------------------------------------------------------------------------------ modes


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
async def test_anthropic_judge_answers_in_every_mode(anthropic_server, mode):
    anthropic_server.script("judge-model", {"goal_achieved": True, "reason": "booked ✈"})
    judge = LangChainJudge(spec=spec_for(ANTHROPIC, anthropic_server.base_url, mode))

    answer = await ask(judge)

    assert answer.value == Verdict(goal_achieved=True, reason="booked ✈")
    assert json.loads(answer.raw_text) == {"goal_achieved": True, "reason": "booked ✈"}
    assert answer.usage.input_tokens > 0 and answer.usage.output_tokens > 0
    [request] = anthropic_server.chat_requests()
    body = request.body
    assert body["max_tokens"] == 321 and body["temperature"] == 0.0
    prompt = body["messages"][0]["content"]
    prompt = prompt if isinstance(prompt, str) else prompt[0]["text"]
    schema_in_prompt = '"goal_achieved"' in prompt
    if mode in (StructuredOutputMode.NATIVE, StructuredOutputMode.FUNCTION_CALLING):
        assert body["tool_choice"] == {"type": "tool", "name": "Verdict"}
        assert body["tools"][0]["input_schema"]["required"] == ["goal_achieved", "reason"]
        assert not schema_in_prompt
    elif mode is StructuredOutputMode.PROMPT:
        assert "tools" not in body and "output_config" not in body
        assert schema_in_prompt
    else:  # json_schema, and json_object (Anthropic has no JSON mode: it takes json_schema)
        assert body["output_config"]["format"]["type"] == "json_schema"
        assert schema_in_prompt is (mode is StructuredOutputMode.JSON_OBJECT)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
async def test_ollama_judge_answers_in_every_mode(ollama_server, mode):
    ollama_server.script("judge-model", {"goal_achieved": False, "reason": "не забронирован"})
    judge = LangChainJudge(spec=spec_for(OLLAMA, ollama_server.base_url, mode))

    answer = await ask(judge)

    assert answer.value == Verdict(goal_achieved=False, reason="не забронирован")
    assert answer.usage.total_tokens > 0
    [request] = ollama_server.chat_requests()
    body = request.body
    # max-tokens reaches Ollama's own option name.
    assert body["options"]["num_predict"] == 321
    if mode is StructuredOutputMode.FUNCTION_CALLING:
        assert body["tools"][0]["function"]["name"] == "Verdict"
    elif mode in (StructuredOutputMode.NATIVE, StructuredOutputMode.JSON_SCHEMA):
        # ChatOllama's own default method is json_schema: the schema as `format`.
        assert body["format"]["required"] == ["goal_achieved", "reason"]
    elif mode is StructuredOutputMode.JSON_OBJECT:
        assert body["format"] == "json"
    else:
        assert "format" not in body


@pytest.mark.asyncio
async def test_a_class_without_structured_output_falls_back_to_the_prompt():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    model = FakeListChatModel(responses=['```json\n{"goal_achieved": true, "reason": "ok"}\n```'])
    spec = JudgeSpec(id="fake", model="fake", provider="p", base_url="", api_key=SecretStr(""))
    judge = LangChainJudge(spec=spec, model=model)

    answer = await ask(judge)

    assert judge.spec.structured_output is StructuredOutputMode.PROMPT  # the spec's default
    assert answer.value.goal_achieved is True
    native = LangChainJudge(
        spec=JudgeSpec(
            id="fake",
            model="fake",
            provider="p",
            base_url="",
            api_key=SecretStr(""),
            structured_output=StructuredOutputMode.NATIVE,
        ),
        model=FakeListChatModel(responses=['{"goal_achieved": false, "reason": "no"}']),
    )
    assert (await ask(native)).value.goal_achieved is False


# ------------------------------------------------------------------------------ faults


@pytest.mark.asyncio
async def test_the_clients_own_retries_are_off_so_a_500_is_one_request(anthropic_server):
    anthropic_server.script("judge-model", Reply.error(500, "boom"))
    judge = LangChainJudge(spec=spec_for(ANTHROPIC, anthropic_server.base_url))

    with pytest.raises(JudgeHTTPError) as caught:
        await ask(judge)

    assert caught.value.status_code == 500
    # ChatAnthropic retries twice by default; max_retries=0 leaves retrying to our policy.
    assert anthropic_server.count() == 1


@pytest.mark.asyncio
async def test_a_5xx_body_with_usage_is_billed_where_the_client_keeps_the_body(
    anthropic_server, ollama_server
):
    usage = {"prompt_tokens": 70, "completion_tokens": 5}
    anthropic_server.script("judge-model", Reply.error(500, usage=usage))
    ollama_server.script("judge-model", Reply.error(500, usage=usage))

    with pytest.raises(JudgeHTTPError) as from_anthropic:
        await ask(LangChainJudge(spec=spec_for(ANTHROPIC, anthropic_server.base_url)))
    with pytest.raises(JudgeHTTPError) as from_ollama:
        await ask(LangChainJudge(spec=spec_for(OLLAMA, ollama_server.base_url)))

    billed = from_anthropic.value.usage
    assert (billed.input_tokens, billed.output_tokens, billed.total_tokens) == (70, 5, 75)
    # Ollama's client keeps only the error's message: nothing to bill (documented).
    assert from_ollama.value.status_code == 500 and from_ollama.value.usage is None


@pytest.mark.asyncio
async def test_a_429_carries_its_retry_after(anthropic_server, ollama_server):
    anthropic_server.script("judge-model", Reply.error(429, retry_after=7))
    ollama_server.script("judge-model", Reply.error(429))

    with pytest.raises(JudgeHTTPError) as from_anthropic:
        await ask(LangChainJudge(spec=spec_for(ANTHROPIC, anthropic_server.base_url)))
    with pytest.raises(JudgeHTTPError) as from_ollama:
        await ask(LangChainJudge(spec=spec_for(OLLAMA, ollama_server.base_url)))

    assert (from_anthropic.value.status_code, from_anthropic.value.retry_after) == (429, 7.0)
    # Ollama's client keeps no headers: the status alone, retried by the policy's backoff.
    assert (from_ollama.value.status_code, from_ollama.value.retry_after) == (429, None)


@pytest.mark.asyncio
@pytest.mark.parametrize("class_path", [ANTHROPIC, OLLAMA])
async def test_a_hung_request_is_a_timeout(anthropic_server, ollama_server, class_path):
    server = anthropic_server if class_path == ANTHROPIC else ollama_server
    server.script("judge-model", Reply.hang(30))
    judge = LangChainJudge(spec=spec_for(class_path, server.base_url, timeout=0.3))

    with pytest.raises(JudgeTimeoutError):
        await ask(judge)


@pytest.mark.asyncio
@pytest.mark.parametrize("class_path", [ANTHROPIC, OLLAMA])
async def test_a_dropped_connection_is_a_connection_error(
    anthropic_server, ollama_server, class_path
):
    server = anthropic_server if class_path == ANTHROPIC else ollama_server
    server.script("judge-model", Reply.drop())

    with pytest.raises(JudgeConnectionError):
        await ask(LangChainJudge(spec=spec_for(class_path, server.base_url)))


@pytest.mark.asyncio
@pytest.mark.parametrize("class_path", [ANTHROPIC, OLLAMA])
async def test_nobody_listening_is_a_connection_error(class_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    with pytest.raises(JudgeConnectionError):
        await ask(LangChainJudge(spec=spec_for(class_path, f"http://127.0.0.1:{port}")))


@pytest.mark.asyncio
@pytest.mark.parametrize("class_path", [ANTHROPIC, OLLAMA])
async def test_a_cut_off_body_and_a_wrong_answer_are_output_errors(
    anthropic_server, ollama_server, class_path
):
    server = anthropic_server if class_path == ANTHROPIC else ollama_server
    server.script("judge-model", Reply.garbage(), {"goal_achieved": "perhaps"})
    judge = LangChainJudge(spec=spec_for(class_path, server.base_url))

    with pytest.raises(JudgeOutputError) as garbage:
        await ask(judge)
    with pytest.raises(JudgeOutputError) as invalid:
        await ask(judge)

    assert "malformed response" in str(garbage.value)
    assert "goal_achieved" in str(invalid.value)
    assert invalid.value.raw_text is not None and "perhaps" in invalid.value.raw_text


@pytest.mark.asyncio
async def test_the_key_never_shows_in_errors_or_reprs(anthropic_server):
    anthropic_server.script("judge-model", Reply.error(400, f"bad key {ANTHROPIC_KEY} echoed"))
    spec = spec_for(ANTHROPIC, anthropic_server.base_url)
    judge = LangChainJudge(spec=spec)

    with pytest.raises(JudgeHTTPError) as caught:
        await ask(judge)

    for text in (str(caught.value), repr(judge), repr(spec), repr(spec.langchain)):
        assert ANTHROPIC_KEY not in text
    assert "**********" in str(caught.value)


# ------------------------------------------------------------------------------ YAML and container

SAMPLE = Sample(
    user_input_messages=[
        HumanMessage(content="Book the 9am flight to Paris."),
        AIMessage(content="Booked: AF1081, 09:00."),
    ],
    reference="The 9am flight to Paris is booked",
)


def write_config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "application.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_a_yaml_provider_names_the_class_its_arguments_and_models(tmp_path, anthropic_server):
    path = write_config(
        tmp_path,
        f"""
spring.ai.retry:
  max-attempts: 3
  backoff: {{ initial-interval: 10ms, multiplier: 1, max-interval: 10ms }}
spring.ai.ragas.providers:
  langchain:
    - name: anthropic
      class: {ANTHROPIC}
      arguments: {{ api-key: "${{ANTHROPIC_API_KEY}}", base-url: {anthropic_server.base_url} }}
      max-concurrency: 2
      chat-models:
        - {{ id: claude-a, options: {{ temperature: 0.5, max-tokens: 99 }} }}
        - {{ id: claude-b, alias: second }}
""",
    )
    settings = load_settings(path, environ={"ANTHROPIC_API_KEY": ANTHROPIC_KEY})
    anthropic_server.script("claude-a", Reply.error(429), Reply.error(503))
    anthropic_server.respond(None, {"goal_achieved": True, "reason": "booked"})

    with create_container(settings) as container:
        judges = container.judges()
        result = container.agent_goal_accuracy().evaluate(SAMPLE)

    assert [(j.id, j.provider, j.spec.model) for j in judges] == [
        ("claude-a", "anthropic", "claude-a"),
        ("second", "anthropic", "claude-b"),
    ]
    assert judges[0].spec.structured_output is StructuredOutputMode.NATIVE
    assert result.score == 1.0 and result.exclusions == []
    # 429 and 503 were retried by our policy: three requests for claude-a, one for claude-b.
    assert [r.status for r in anthropic_server.chat_requests("claude-a")] == [429, 503, 200]
    assert anthropic_server.count("claude-b") == 1
    first = anthropic_server.chat_requests("claude-a")[0].body
    assert (first["temperature"], first["max_tokens"]) == (0.5, 99)
    assert ANTHROPIC_KEY not in repr(settings)


def test_a_judge_that_keeps_failing_is_an_exclusion_not_a_crash(tmp_path, anthropic_server):
    path = write_config(
        tmp_path,
        f"""
spring.ai.retry: {{ max-attempts: 2, backoff: {{ initial-interval: 10ms, max-interval: 10ms }} }}
spring.ai.ragas.providers.langchain:
  - name: anthropic
    class: {ANTHROPIC}
    arguments: {{ api-key: {ANTHROPIC_KEY}, base-url: {anthropic_server.base_url} }}
    chat-models: [good, bad]
""",
    )
    anthropic_server.respond("good", {"goal_achieved": True, "reason": "ok"})
    anthropic_server.respond("bad", Reply.error(500))

    with create_container(load_settings(path, environ={})) as container:
        result = container.agent_goal_accuracy().evaluate(SAMPLE)

    assert result.score == 1.0
    assert result.model_scores == {"good": 1.0}
    [exclusion] = result.exclusions
    assert exclusion.judge_id == "bad" and "500" in exclusion.message
    assert anthropic_server.count("bad") == 2


@pytest.mark.parametrize(
    ("provider", "key", "message"),
    [
        (
            "{ name: x, class: not_a_package_at_all.Chat, chat-models: [m] }",
            "spring.ai.ragas.providers.langchain[0].class",
            "pip install not-a-package-at-all",
        ),
        (
            "{ name: local, class: langchain_ollama.ChatOllama, chat-models: [m] }",
            "spring.ai.ragas.providers.langchain[0].name",
            "already used",
        ),
    ],
)
def test_a_wrong_langchain_provider_names_its_key(tmp_path, provider, key, message):
    path = write_config(tmp_path, f"spring.ai.ragas.providers.langchain:\n  - {provider}\n")

    with pytest.raises(ConfigError) as caught, create_container(load_settings(path, environ={})):
        pass

    assert caught.value.key == key
    assert message in str(caught.value)


@pytest.mark.asyncio
async def test_a_class_that_is_not_a_chat_model_or_refuses_an_argument_is_a_config_error():
    not_chat = LangChainJudge(spec=spec_for("langchain_core.messages.HumanMessage", "http://x"))
    refused = LangChainJudge(
        spec=spec_for(
            OLLAMA, "http://127.0.0.1:9", num_predict="many", api_key=SecretStr("s3cr3t-arg")
        )
    )

    with pytest.raises(ConfigError, match="not a LangChain chat model"):
        not_chat.prepare()
    with pytest.raises(ConfigError) as caught:
        refused.prepare()

    assert "refused its arguments" in str(caught.value)
    assert "s3cr3t-arg" not in str(caught.value)


def test_a_malformed_class_path_is_rejected_when_loading(tmp_path):
    path = write_config(
        tmp_path, "spring.ai.ragas.providers.langchain:\n  - { name: x, class: ChatThing }\n"
    )

    with pytest.raises(ConfigError) as caught:
        load_settings(path, environ={})

    assert "spring.ai.ragas.providers.langchain[0].class" in str(caught.value)


def test_native_mode_is_refused_for_openai_compatible_providers(tmp_path):
    path = write_config(
        tmp_path,
        """
spring.ai.ragas.providers.openai-compatible:
  - { name: p, base-url: http://p, api-key: k, structured-output: native, chat-models: [{ id: m }] }
""",
    )

    with pytest.raises(ConfigError) as caught, create_container(load_settings(path, environ={})):
        pass

    assert caught.value.key == "spring.ai.ragas.providers.openai-compatible[0].structured-output"


# ------------------------------------------------------------------------------ instances


def test_provider_names_of_registered_models_follow_the_java_rules():
    from langchain_anthropic import ChatAnthropic
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_ollama import ChatOllama

    assert provider_name_of(ChatAnthropic(model="m", api_key="k")) == "anthropic"
    assert provider_name_of(ChatOllama(model="m")) == "ollama"
    assert provider_name_of(FakeListChatModel(responses=["x"])) == "fakelist"


def test_a_ready_chat_model_registers_as_a_judge_with_its_starter_limits(
    tmp_path, anthropic_server
):
    from langchain_anthropic import ChatAnthropic

    path = write_config(
        tmp_path,
        """
spring.ai.ragas.providers.external-starters:
  anthropic: { max-concurrency: 1, structured-output: function_calling }
  ollama: { enabled: false }
""",
    )
    from langchain_ollama import ChatOllama

    claude = ChatAnthropic(
        model="claude-x", api_key=ANTHROPIC_KEY, base_url=anthropic_server.base_url, max_retries=0
    )
    anthropic_server.respond(None, Reply.json({"goal_achieved": True, "reason": "ok"}, delay=0.05))
    samples = [SAMPLE.model_copy(update={"id": f"s{i}"}) for i in range(4)]

    with create_container(
        load_settings(path, environ={}),
        chat_models={"claude": claude, "skipped": ChatOllama(model="m")},
    ) as container:
        [judge] = container.judges()
        metric = container.agent_goal_accuracy()

        async def run_all():
            return await asyncio.gather(*(metric.aevaluate(sample) for sample in samples))

        results = container.portal().call(run_all())

    assert (judge.id, judge.provider, judge.spec.model) == ("claude", "anthropic", "claude-x")
    assert judge.spec.structured_output is StructuredOutputMode.FUNCTION_CALLING
    assert [r.score for r in results] == [1.0] * 4
    assert anthropic_server.count() == 4
    assert anthropic_server.peak_in_flight == 1  # external-starters.anthropic.max-concurrency


def test_a_registered_id_that_is_taken_or_not_a_chat_model_is_refused(tmp_path):
    from langchain_ollama import ChatOllama

    path = write_config(
        tmp_path,
        "spring.ai.ragas.providers.openai-compatible:\n"
        "  - { name: p, base-url: http://p, api-key: k, chat-models: [{ id: taken }] }\n",
    )
    settings = load_settings(path, environ={})

    with pytest.raises(ConfigError, match="already declared"):
        create_container(settings, chat_models={"taken": ChatOllama(model="m")})
    with pytest.raises(ConfigError, match="not a LangChain BaseChatModel"):
        create_container(settings, chat_models={"x": object()})  # type: ignore[dict-item]


def test_a_langchain_provider_has_its_rate_limit(tmp_path, ollama_server):
    path = write_config(
        tmp_path,
        f"""
spring.ai.ragas.providers.langchain:
  - name: ollama
    class: {OLLAMA}
    arguments: {{ base-url: {ollama_server.base_url} }}
    rate-limit: {{ rps: 1, strategy: REJECT }}
    chat-models: [qwen-a, qwen-b]
""",
    )
    ollama_server.respond(None, {"goal_achieved": True, "reason": "ok"})

    with create_container(load_settings(path, environ={})) as container:
        result = container.agent_goal_accuracy().evaluate(SAMPLE)

    # One token a second for the whole provider: one judge answers, the other is rejected.
    assert len(result.model_scores) == 1 and list(result.model_scores.values()) == [1.0]
    [exclusion] = result.exclusions
    assert exclusion.kind == "rate_limit_rejected"
    assert ollama_server.count() == 1
