"""One spec per kind of provider: each judge of a configuration gets its provider's kind, a
plain ``JudgeSpec`` made by hand is an OpenAI-compatible judge, a spec of one kind is refused
by another kind's judge, and every secret a spec holds is masked by the one scrub."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import (
    EmbeddingSpec,
    JudgeSpec,
    LangChainJudge,
    LangChainModelSpec,
    LangChainSpec,
    LocalModelSpec,
    LocalSpec,
    OpenAICompatibleJudge,
    OpenAICompatibleSpec,
    judge_specs,
)
from ragas_boot.chat.failures import MASK, scrub
from ragas_boot.config import load_settings
from ragas_boot.config.settings import StructuredOutputMode, Transport
from ragas_boot.testing import FakeOpenAIServer

YAML = """
spring:
  ai:
    openai:
      base-url: https://openai.example
      api-key: sk-default-0001
    ragas:
      providers:
        openai-compatible:
          - name: corp
            base-url: https://judge.example
            api-key: sk-corp-0001
            headers: {X-Team: team-secret-1}
            transport: langchain
            chat-models: [{id: gpt-4o-mini}]
        default-provider:
          models: [{id: gpt-4o}]
        langchain:
          - name: anthro
            class: langchain_anthropic.ChatAnthropic
            arguments: {api-key: sk-ant-0001}
            chat-models: [{id: claude-x}]
        local:
          enabled: true
          model-path: {model}
          chat-models: [{id: small}]
"""


class Verdict(BaseModel):
    verdict: int


def test_each_judge_gets_the_spec_of_its_providers_kind(tmp_path: Path) -> None:
    model = tmp_path / "small.gguf"
    model.write_bytes(b"GGUF")
    path = tmp_path / "application.yaml"
    path.write_text(YAML.replace("{model}", str(model)), encoding="utf-8")

    specs = {spec.id: spec for spec in judge_specs(load_settings(path, environ={}))}

    assert {name: type(spec) for name, spec in specs.items()} == {
        "gpt-4o-mini": OpenAICompatibleSpec,
        "gpt-4o": OpenAICompatibleSpec,
        "claude-x": LangChainSpec,
        "small": LocalSpec,
    }
    corp, default = specs["gpt-4o-mini"], specs["gpt-4o"]
    assert isinstance(corp, OpenAICompatibleSpec) and isinstance(default, OpenAICompatibleSpec)
    assert corp.transport is Transport.LANGCHAIN and corp.headers.keys() == {"X-Team"}
    assert default.provider == "default" and default.headers == {}
    claude = specs["claude-x"]
    assert isinstance(claude, LangChainSpec) and claude.langchain is not None
    assert claude.langchain.class_path == "langchain_anthropic.ChatAnthropic"
    assert claude.structured_output is StructuredOutputMode.NATIVE
    small = specs["small"]
    assert isinstance(small, LocalSpec) and small.local.model_path == model.resolve()
    assert small.max_prompt_tokens == small.local.n_ctx  # its own context bounds a prompt
    for spec in (claude, small):  # what only OpenAI-compatible judges have, they have not
        assert not hasattr(spec, "completions_path") and not hasattr(spec, "transport")


@pytest.mark.asyncio
async def test_a_plain_judge_spec_made_by_hand_is_an_openai_compatible_judge(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script("by-hand", {"verdict": 1})
    spec = JudgeSpec(
        id="by-hand",
        model="by-hand",
        provider="test",
        base_url=openai_server.base_url,
        api_key=SecretStr("sk-by-hand"),
        structured_output="json_schema",  # type: ignore[arg-type]  # a name, as YAML gives it
    )
    judge = OpenAICompatibleJudge(spec=spec)
    try:
        answer = await judge.ainvoke_structured("Is it so?", Verdict)
    finally:
        await judge.aclose()

    assert answer.value == Verdict(verdict=1)
    assert isinstance(judge.spec, OpenAICompatibleSpec)
    assert judge.spec.structured_output is StructuredOutputMode.JSON_SCHEMA
    assert (judge.spec.completions_path, judge.spec.transport, judge.spec.proxied) == (
        "/v1/chat/completions",
        Transport.DIRECT,
        True,
    )
    assert openai_server.requests[0].request.path == "/v1/chat/completions"


def test_a_spec_of_another_kind_is_refused_naming_the_judge(tmp_path: Path) -> None:
    chat_class = LangChainSpec(
        id="claude-x",
        model="claude-x",
        provider="anthro",
        langchain=LangChainModelSpec("langchain_anthropic.ChatAnthropic"),
    )
    with pytest.raises(TypeError, match="judge 'claude-x' runs on a LangChain chat class"):
        OpenAICompatibleJudge(spec=chat_class)
    endpoint = OpenAICompatibleSpec(
        id="gpt", model="gpt", provider="corp", base_url="https://x.example", api_key=SecretStr("k")
    )
    with pytest.raises(TypeError, match=r"judge 'gpt' has a spec of another kind \(OpenAICompat"):
        LangChainJudge(spec=endpoint)


def test_a_local_judges_served_endpoint_is_never_proxied() -> None:
    local = LocalSpec(id="small", model="small", provider="local", local=LocalModelSpec(Path("m")))
    served = OpenAICompatibleSpec.of(dataclasses.replace(local, base_url="http://127.0.0.1:5"))
    assert served.proxied is False
    assert served.base_url == "http://127.0.0.1:5" and served.id == "small"


def test_every_secret_a_spec_holds_is_masked_by_the_one_scrub() -> None:
    text = (
        "key sk-key-0001, header hdr-value-1, argument arg-secret-1, url user:pw-9 ?key=q-secret-1,"
        " short ab, ünïcode kept"
    )
    url = "https://user:pw-9@host.example/api?key=q-secret-1"
    endpoint = OpenAICompatibleSpec(
        id="a",
        model="a",
        provider="p",
        base_url=url,
        api_key=SecretStr("sk-key-0001"),
        headers={"X-Team": SecretStr("hdr-value-1"), "X-Short": SecretStr("ab")},
    )
    chat_class = LangChainSpec(
        id="b",
        model="b",
        provider="p",
        base_url=url,
        api_key=SecretStr("sk-key-0001"),
        langchain=LangChainModelSpec(
            "x.Chat", arguments=(("token", SecretStr("arg-secret-1")), ("plain", "arg-plain"))
        ),
    )
    embedding = EmbeddingSpec(
        id="c",
        model="c",
        provider="p",
        base_url=url,
        api_key=SecretStr("sk-key-0001"),
        headers={"X-Team": SecretStr("hdr-value-1")},
        langchain=LangChainModelSpec("x.Embed", arguments=(("token", SecretStr("arg-secret-1")),)),
    )

    assert scrub(text, endpoint) == (
        f"key {MASK}, header {MASK}, argument arg-secret-1, url user:**** ?key=****,"
        " short ab, ünïcode kept"
    )
    assert scrub(text, chat_class) == (
        f"key {MASK}, header hdr-value-1, argument {MASK}, url user:**** ?key=****,"
        " short ab, ünïcode kept"
    )
    assert scrub(text, embedding) == (
        f"key {MASK}, header {MASK}, argument {MASK}, url user:**** ?key=****,"
        " short ab, ünïcode kept"
    )
    assert scrub("", endpoint) == ""
