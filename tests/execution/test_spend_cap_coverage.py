"""A spend cap says, before the first call, which judges it cannot count (no price): the
executor warns once per such judge under a metered cap, and ``cap_coverage`` sorts a run's
models into those a cap counts and those it does not."""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import BaseModel, SecretStr

from ragas_boot.chat import JudgeSpec, LocalModelPool, LocalSpec, OpenAICompatibleJudge
from ragas_boot.chat.embeddings.openai_compatible import OpenAICompatibleEmbeddingModel
from ragas_boot.chat.factory.build import build_judges
from ragas_boot.chat.specs import EmbeddingSpec, LocalModelSpec
from ragas_boot.config.settings import PriceSettings
from ragas_boot.execution import MultiModelExecutor
from ragas_boot.execution.spending import SpendMeter, cap_coverage

PRICE = PriceSettings(input_per_million=1.0, output_per_million=2.0)


class Verdict(BaseModel):
    verdict: int


def judge(server, model: str, price: PriceSettings | None = None) -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge(
        spec=JudgeSpec(
            id=model,
            model=model,
            provider="p",
            base_url=server.base_url,
            api_key=SecretStr("sk-cap-0001"),
            price=price,
        )
    )


def test_an_unpriced_judge_under_a_cap_is_named_once_before_its_first_call(openai_server, caplog):
    openai_server.respond(None, {"verdict": 1})
    judges = [judge(openai_server, "priced", PRICE), judge(openai_server, "free-ride")]
    executor = MultiModelExecutor(judges=judges)
    caplog.set_level(logging.WARNING, logger="ragas_boot.execution")
    try:
        with executor.metered(SpendMeter(max_cost=10.0)):
            for _ in range(2):
                executor.portal.call(executor.run_step("Judge", judges, "Done?", Verdict))
        executor.portal.call(executor.run_step("Judge", judges, "Done?", Verdict))  # no cap
    finally:
        executor.close()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "judge 'free-ride' has no price: its calls are sent and not counted against the spend "
        "cap of 10 (give its chat model a price to cap them)"
    ]
    assert openai_server.count() == 6


def test_cap_coverage_counts_priced_and_free_models(openai_server, tmp_path: Path):
    model_file = tmp_path / "model.gguf"
    model_file.write_bytes(b"GGUF")
    pool = LocalModelPool()  # the model is never loaded: no call is made
    [local] = build_judges(
        [
            LocalSpec(
                id="local-judge", model="m", provider="local", local=LocalModelSpec(model_file)
            )
        ],
        local_models=pool,
    )
    remote_embedding = OpenAICompatibleEmbeddingModel(
        spec=EmbeddingSpec(
            id="embed", model="embed", provider="p", base_url=openai_server.base_url,
            api_key=SecretStr("k"),
        )
    )  # fmt: skip
    counted, uncounted = cap_coverage(
        [judge(openai_server, "priced", PRICE), judge(openai_server, "unpriced"), local],
        [remote_embedding],
    )
    assert counted == ["priced", "local-judge"]
    assert uncounted == ["unpriced", "embed"]
    assert cap_coverage([]) == ([], [])
    pool.close()
