"""A judge prompt is bounded (max-prompt-tokens): a larger one is never sent, and says why."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec
from ragas_boot.chat.factory.judges import judge_specs
from ragas_boot.chat.specs import DEFAULT_MAX_PROMPT_TOKENS
from ragas_boot.config import load_settings
from ragas_boot.execution import MultiModelExecutor


class Verdict(BaseModel):
    verdict: int


@pytest.fixture
def executor(openai_server, judge_transport):
    def judge(model: str, **spec: object) -> OpenAICompatibleJudge:
        return OpenAICompatibleJudge(
            spec=OpenAICompatibleSpec(
                id=model,
                model=model,
                provider="p",
                base_url=openai_server.base_url,
                api_key=SecretStr("k"),
                transport=judge_transport,
                **spec,  # type: ignore[arg-type]
            )
        )

    made = MultiModelExecutor(
        judges=[judge("small"), judge("large", max_prompt_tokens=400_000)], output_retries=0
    )
    yield made
    made.close()


def test_a_1_mb_prompt_to_a_32k_judge_is_not_sent_and_names_the_limit(executor, openai_server):
    openai_server.respond(None, {"verdict": 1})
    prompt = "x" * 1_000_000

    record = executor.portal.call(
        executor.run_step("Judge", executor.select(["small"]), prompt, Verdict)
    )

    assert openai_server.count() == 0
    call = record.calls[0]
    assert not call.ok and call.error_kind == "prompt_too_large"
    assert "max-prompt-tokens 32,768" in call.error_message
    assert "about 250," in call.error_message  # the estimate: 1 MB / 4 characters a token
    assert call.attempts == 0


def test_each_judge_is_held_to_its_own_bound(executor, openai_server):
    openai_server.respond(None, {"verdict": 1})

    record = executor.portal.call(
        executor.run_step("Judge", executor.judges, "y" * 1_000_000, Verdict)
    )

    assert [call.ok for call in record.calls] == [False, True]
    assert [r.request.model for r in openai_server.requests] == ["large"]


def test_max_prompt_tokens_per_chat_model_then_provider_then_everywhere(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text(
        """\
spring.ai.ragas.providers:
  openai-compatible:
    - name: a
      base-url: http://127.0.0.1:9
      api-key: k
      max-prompt-tokens: 8000
      chat-models: [{ id: own, max-prompt-tokens: 1000 }, { id: provider }]
    - name: b
      base-url: http://127.0.0.1:9
      api-key: k
      chat-models: [{ id: default }]
""",
        encoding="utf-8",
    )
    specs = {spec.id: spec for spec in judge_specs(load_settings(path, environ={}))}

    assert specs["own"].max_prompt_tokens == 1000
    assert specs["provider"].max_prompt_tokens == 8000
    assert specs["default"].max_prompt_tokens == DEFAULT_MAX_PROMPT_TOKENS == 32_768
