"""The round trip a ragas user makes: a DataFrame in, scores out as a DataFrame; the same data
as CSV, Parquet and a saved Hugging Face dataset scores the same."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragas_boot import RagasContainer
from ragas_boot.datasets import load_dataset
from ragas_boot.errors import DatasetError
from ragas_boot.runs import RunResult, evaluate_dataset
from ragas_boot.testing import ChatRequest, FakeOpenAIServer, asks_for

pd = pytest.importorskip("pandas", reason="the [tables] extra")
pytest.importorskip("pyarrow", reason="the [tables] extra")
pytest.importorskip("rapidfuzz", reason="string_similarity needs the [nlp] extra")

#: An EvaluationDataset's to_pandas(): ragas's column names, lists as lists.
FRAME = {
    "user_input": ["Capital of France?", "Capital of Japan?", "Capital of Peru?"],
    "response": ["Paris.", "Kyoto, I think.", "Lima."],
    "retrieved_contexts": [["Paris is France's capital."], ["Tokyo is Japan's capital."], []],
    "reference": ["Paris.", "Tokyo.", "Lima."],
}
CRITERION = "The response names the capital city correctly."


def _verdict(request: ChatRequest) -> dict[str, Any]:
    correct = "Kyoto" not in request.prompt
    return {"reasoning": "Kyoto is wrong." if not correct else "Correct.", "verdict": correct}


def _score(container: RagasContainer, source: Any) -> RunResult:
    return evaluate_dataset(
        load_dataset(source),
        {
            "aspect_critic": container.aspect_critic(),
            "string_similarity": container.string_similarity(),
        },
        configs={"aspect_critic": {"definition": CRITERION}},
    )


def test_a_ragas_frame_scores_the_same_from_every_format(
    openai_server: FakeOpenAIServer,
    make_container: Callable[..., RagasContainer],
    tmp_path: Path,
):
    openai_server.when(asks_for("verdict"), _verdict)
    container = make_container(["judge-a", "judge-b"])
    frame = pd.DataFrame(FRAME)
    frame.to_parquet(tmp_path / "data.parquet")
    as_text = frame.assign(retrieved_contexts=frame.retrieved_contexts.map(json.dumps))
    as_text.to_csv(tmp_path / "data.csv", index=False)
    datasets = pytest.importorskip("datasets", reason="the [hf] extra")
    datasets.Dataset.from_pandas(frame).save_to_disk(str(tmp_path / "saved"))

    results = {
        name: _score(container, source).to_pandas()
        for name, source in {
            "frame": frame,
            "csv": tmp_path / "data.csv",
            "parquet": tmp_path / "data.parquet",
            "hf": tmp_path / "saved",
        }.items()
    }
    scores = results["frame"]
    assert len(scores) == 3 * 2
    assert list(zip(scores.sample_id, scores.metric, strict=True)) == [
        (sample, metric)
        for sample in ("sample-001", "sample-002", "sample-003")
        for metric in ("aspect_critic", "string_similarity")
    ]
    critic = scores[scores.metric == "aspect_critic"]
    assert list(critic.score) == [1.0, 0.0, 1.0]
    assert list(critic["score:judge-a"]) == list(critic["score:judge-b"]) == [1.0, 0.0, 1.0]
    assert list(critic["reason:judge-a"]) == ["Correct.", "Kyoto is wrong.", "Correct."]
    assert scores[scores.metric == "string_similarity"].score.notna().all()
    compared = [
        "sample_id",
        "metric",
        "status",
        "score",
        "passed",
        "score:judge-a",
        "score:judge-b",
    ]
    for name in ("csv", "parquet", "hf"):
        assert results[name][compared].equals(scores[compared]), name


def test_a_malformed_row_fails_before_any_judge_is_asked(
    openai_server: FakeOpenAIServer, tmp_path: Path
):
    path = tmp_path / "data.csv"
    path.write_text(
        'user_input,response,retrieved_contexts\nq,a,"[""ok""]"\nq2,a2,"[""oops"", "\n',
        encoding="utf-8",
    )
    with pytest.raises(DatasetError, match=r"data\.csv:3 \(row 2\): field 'retrieved_contexts'"):
        load_dataset(path)
    assert openai_server.count() == 0
