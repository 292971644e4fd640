"""A judge's cache key does not change when the code around it does: answers a user's cache
already holds stay hits. The keys below were computed before the judge specs were split by
provider kind (issue 33); each kind of judge a configuration declares is pinned."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, SecretStr

from ragas_boot.chat import LocalModelSpec, LocalSpec, judge_specs
from ragas_boot.config import load_settings
from ragas_boot.execution.cache import request_key

PROMPT = "Is it so? «ünïcode»"

YAML = """
spring:
  ai:
    ragas:
      providers:
        openai-compatible:
          - name: corp
            base-url: https://user:pw@judge.example/api?key=abc
            api-key: sk-secret-1
            headers: {X-Team: t1, X-Other: o}
            structured-output: json_object
            json-object-schema: false
            chat-models:
              - id: gpt-4o-mini
                options: {temperature: 0.0, max-tokens: 300}
              - id: gpt-4o
                alias: big
          - name: plain
            base-url: https://other.example/v1
            completions-path: /v1/chat/completions
            api-key: sk-secret-2
            transport: langchain
            chat-models:
              - id: m2
        langchain:
          - name: anthro
            class: langchain_anthropic.ChatAnthropic
            arguments:
              api-key: sk-ant-123
              base-url: "https://api.anthropic.example"
              max-tokens-to-sample: 5
            chat-models:
              - id: claude-x
    gigachat:
      auth:
        bearer:
          api-key: giga-key-123
      chat:
        options:
          model: GigaChat-Pro
"""

#: judge id -> its key for PROMPT and Verdict, as main computed it before the split.
PINNED = {
    "gpt-4o-mini": "d244152444adb6db85746121a501818a023f8ed633846b513bc8448028eb47f0",
    "big": "ae6c816b2bd3584cdc1af4749b8e91af4cfec7fc39ac0ee875873ef33a515fd4",
    "m2": "9533dc0262942b50afa22fc634d0aea599b507e0d860389dd470b99d925b4426",
    "claude-x": "f6b0aba1506ef47096151f6e15d5e3b5a847ba4ec6366b01ce8ca41090364732",
    "GigaChat-Pro": "e524c57eae008a240f90c6f5338d9ed24acd5f66db7eb4e63e9061474d664b2a",
}


class Verdict(BaseModel):
    """A verdict."""

    verdict: int = Field(description="1 or 0")
    reason: str


def test_the_keys_of_configured_judges_are_the_ones_they_always_had(tmp_path: Path) -> None:
    path = tmp_path / "application.yaml"
    path.write_text(YAML, encoding="utf-8")
    specs = judge_specs(load_settings(path, environ={}))
    keys = {spec.id: request_key(spec, PROMPT, Verdict) for spec in specs}
    assert keys == PINNED


def test_the_local_judges_key_is_the_one_it_always_had() -> None:
    # The model file is missing: its path stands for it (a real file adds size and mtime).
    spec = LocalSpec(
        id="smollm2-135m",
        model="smollm2-135m",
        provider="local",
        base_url="http://127.0.0.1:0",
        api_key=SecretStr("sk-ragas-boot-local-no-key-needed"),
        max_tokens=200,
        local=LocalModelSpec(model_path=Path("/models/none.gguf"), n_ctx=2048),
    )
    key = request_key(spec, PROMPT, Verdict)
    assert key == "f4bca54e5c4caa055cbb9222335ccb9e4a6338e2a198f835135826b406453d86"
