"""What the ten retrieval/response/NVIDIA metrics share: inputs, undefined cases, languages,
sync/async, 4 judges with a deterministic sentence-matching judge, and a failing judge."""

from __future__ import annotations

import itertools

import pytest

from ragas_boot import Sample, SampleValidationError
from ragas_boot.metrics.registry import metric_class
from ragas_boot.testing import Reply
from ragas_boot.testing.rag_judge import SentenceJudge

EIFFEL = Sample(
    user_input="Where is the Eiffel Tower and when was it built?",
    response="The Eiffel Tower is in Paris. The Eiffel Tower was built in 1889.",
    reference="The Eiffel Tower is in Paris. The Eiffel Tower was built in 1889.",
    retrieved_contexts=[
        "The Eiffel Tower is in Paris. The Eiffel Tower was built in 1889.",
        "Paris has many museums.",
    ],
)

#: bean → (fields that are required, steps with 4 judges as dependent steps, calls)
METRICS = {
    "faithfulness": (("user_input", "response", "retrieved_contexts"), 2, 8),
    "context_precision": (("user_input", "retrieved_contexts"), 1, 8),
    "context_recall": (("user_input", "reference", "retrieved_contexts"), 2, 8),
    "context_entity_recall": (("reference", "retrieved_contexts"), 1, 8),
    "noise_sensitivity": (
        ("user_input", "response", "reference", "retrieved_contexts"),
        2,
        8 + 4 * 5,
    ),
    "factual_correctness": (("response", "reference"), 2, 16),
    "hallucination": (("user_input", "response", "retrieved_contexts"), 2, 8),
    "answer_accuracy": (("response", "reference"), 1, 4),
    "context_relevance": (("user_input", "retrieved_contexts"), 1, 8),
    "response_groundedness": (("response", "retrieved_contexts"), 1, 4),
}
#: The groundedness heuristic would answer without judges (the response is in a context).
NO_SHORTCUT = {"response_groundedness": {"use_heuristic_shortcuts": False}}
CONTEXT_METRICS = [
    bean for bean, (fields, _, _) in METRICS.items() if "retrieved_contexts" in fields
]


@pytest.mark.parametrize("bean", list(METRICS))
def test_every_metric_is_a_bean_configured_from_yaml(make_container, openai_server, bean):
    cls = metric_class(bean)
    section = bean.replace("_", "-")
    container = make_container(
        ["judge-a"],
        extra=f"""
        spring.ai.ragas.metrics:
          {section}:
            threshold: 0.25
            language: ru
        """,
    )
    metric = getattr(container, bean)()
    assert isinstance(metric, cls)
    assert metric.defaults.threshold == 0.25
    assert metric.defaults.language == "ru"
    assert cls.lower_is_better is (bean in ("noise_sensitivity", "hallucination"))


@pytest.mark.parametrize(
    ("bean", "field"),
    [(bean, field) for bean, (fields, _, _) in METRICS.items() for field in fields],
)
def test_a_missing_field_is_a_sample_validation_error(make_container, openai_server, bean, field):
    sample = EIFFEL.model_copy(update={field: None})
    metric = getattr(make_container(["judge-a"]), bean)()
    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(sample)
    assert caught.value.field == field
    assert caught.value.metric == metric.name
    assert openai_server.count() == 0


@pytest.mark.parametrize("bean", CONTEXT_METRICS)
@pytest.mark.parametrize("contexts", [[], ["   "]])
def test_no_contexts_is_undefined_with_its_reason_and_no_call(
    make_container, openai_server, bean, contexts
):
    metric = getattr(make_container(["judge-a"]), bean)()
    result = metric.evaluate(EIFFEL.model_copy(update={"retrieved_contexts": contexts}))
    assert result.score is None
    assert "no retrieved contexts" in result.undefined_reason
    assert openai_server.count() == 0


@pytest.mark.parametrize("bean", list(METRICS))
def test_four_judges_each_run_their_own_chain(make_container, openai_server, bean):
    openai_server.respond(None, SentenceJudge())
    result = getattr(make_container(), bean)().evaluate(EIFFEL, NO_SHORTCUT.get(bean))
    _, dependent, calls = METRICS[bean]
    assert list(result.model_scores) == ["judge-a", "judge-b", "judge-c", "judge-d"]
    assert result.metadata["dependent_steps"] == dependent
    assert result.metadata["calls"] == openai_server.count() == calls
    for judge in ("judge-a", "judge-b", "judge-c", "judge-d"):
        assert len(openai_server.requests_for(judge)) == calls // 4
    assert result.lower_is_better is metric_class(bean).lower_is_better
    # Each level's requests reach the server after every request of the level before.
    received = []
    for names in result.metadata["levels"]:
        prompts = {
            call.prompt for step in result.steps if step.name in names for call in step.calls
        }
        received.append(
            [
                r.request.received_at
                for r in openai_server.requests
                if any(r.request.prompt.startswith(p) for p in prompts)
            ]
        )
    assert sum(map(len, received)) == calls
    for before, after in itertools.pairwise(received):
        assert max(before) < min(after)


@pytest.mark.parametrize("bean", list(METRICS))
def test_a_judge_that_is_down_is_excluded_while_the_others_score(
    make_container, openai_server, bean
):
    openai_server.respond(None, SentenceJudge())
    openai_server.fail_always("judge-b", Reply.error(500))
    metric = getattr(make_container(["judge-a", "judge-b", "judge-c"]), bean)()
    result = metric.evaluate(EIFFEL, NO_SHORTCUT.get(bean))
    assert list(result.model_scores) == ["judge-a", "judge-c"]
    assert result.excluded_judges == ["judge-b"]
    assert result.score is not None


@pytest.mark.parametrize("bean", list(METRICS))
def test_russian_prompts_and_explanations(make_container, openai_server, bean):
    openai_server.respond(None, SentenceJudge())
    sample = Sample(
        user_input="Где находится Эйфелева башня?",
        response="Эйфелева башня находится в Париже.",
        reference="Эйфелева башня находится в Париже.",
        retrieved_contexts=["Эйфелева башня находится в Париже."],
    )
    result = getattr(make_container(["judge-a"]), bean)().evaluate(sample, {"language": "ru"})
    assert result.language == "ru"
    prompts = [r.request.prompt for r in openai_server.requests]
    for prompt in prompts:
        assert any(word in prompt for word in ("Контекст", "Ответ", "Текст", "Эталонный"))
    assert any("а" <= ch <= "я" for ch in result.explanation), result.explanation
    if bean == "response_groundedness":
        assert result.metadata["heuristic_match"] is True and not prompts
    else:
        assert prompts


@pytest.mark.asyncio
@pytest.mark.parametrize("bean", list(METRICS))
async def test_async_and_sync_agree(make_container, openai_server, bean):
    openai_server.respond(None, SentenceJudge())
    metric = getattr(make_container(["judge-a", "judge-b"]), bean)()
    asynchronous = await metric.aevaluate(EIFFEL)
    assert asynchronous.score == metric.evaluate(EIFFEL).score
