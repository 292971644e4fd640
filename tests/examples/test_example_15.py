"""Example 15: a RAG test set generated from five Markdown documents. Against the test server
(scripted writer and judge) the file is what the done-when asks: multi-hop samples on two
chunks, every context verbatim text of its chunk, a rerun that sends nothing and writes the
same bytes, and `evaluate` scoring it once a RAG system filled in its answers. With the
[local] extra, the embedded model runs the same command offline (its questions are poor;
the mechanics hold)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
import yaml

from ragas_boot.cli import main
from ragas_boot.datasets import load_dataset
from support.examples import ROOT
from support.testset import JUDGE, WRITER, good_writer, yes_judge

EXAMPLE = ROOT / "examples" / "15_generated_testset"


def _server_config(folder: Path, server) -> Path:
    config = folder / "server.yaml"
    config.write_text(
        textwrap.dedent(
            f"""
            spring.ai.ragas:
              cache: {{loopback: true}}
              providers:
                openai-compatible:
                  - name: server
                    base-url: {server.base_url}
                    api-key: test
                    chat-models: [{{id: {WRITER}}}, {{id: {JUDGE}}}]
              generation: {{model: {WRITER}}}
            """
        ),
        encoding="utf-8",
    )
    return config


def test_the_example_documents_give_a_test_set_that_evaluate_scores(
    openai_server, tmp_path, monkeypatch, capsys
):
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    monkeypatch.chdir(folder)
    openai_server.respond(WRITER, good_writer)
    openai_server.respond(JUDGE, yes_judge)
    config = _server_config(folder, openai_server)
    argv = ["generate", "testset", "docs", "--count", "8", "--multi-hop", "0.5", "--judge",
            JUDGE, "--config", str(config)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    first = Path("testset.yaml").read_bytes()
    sent = openai_server.count()
    samples = load_dataset("testset.yaml").samples
    assert len(samples) == 8
    for sample in samples:
        generated = sample.metadata["generated"]
        for context, source in zip(sample.reference_contexts, generated["sources"], strict=True):
            text = Path(source["file"]).read_text(encoding="utf-8")
            assert text[source["start"] : source["end"]] == context
        if generated["hops"] == "multi_hop":
            assert len({source["file"] for source in generated["sources"]}) >= 2
    assert sum(s.metadata["generated"]["hops"] == "multi_hop" for s in samples) == 4
    assert main(argv) == 0
    assert openai_server.count() == sent
    assert Path("testset.yaml").read_bytes() == first
    # The RAG system under test answers each question (here: perfectly, from its reference
    # contexts); evaluate reads the file with those two fields added and scores it.
    data = yaml.safe_load(first)
    for sample in data["samples"]:
        sample["response"] = sample["reference"]
        sample["retrieved_contexts"] = sample["reference_contexts"]
    Path("answered.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    capsys.readouterr()
    code = main(["evaluate", "answered.yaml", "--metric", "context_recall", "--models", JUDGE,
                 "--no-history", "--no-progress", "--config", str(config)])  # fmt: skip
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    assert "context_recall" in captured.out.lower() or "ContextRecall" in captured.out


@pytest.mark.local_llm
def test_the_embedded_model_writes_a_test_set_offline_and_a_rerun_replays_it(
    tmp_path, monkeypatch, capsys
):
    pytest.importorskip("llama_cpp", reason="needs the [local] extra")
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE, folder)
    monkeypatch.chdir(folder)
    argv = ["generate", "testset", "docs", "--count", "1", "--max-calls", "4", "--report",
            "report.json"]  # fmt: skip
    code = main(argv)
    assert code in (0, 1), capsys.readouterr().err  # the tiny model may get nothing kept
    first = Path("testset.yaml").read_bytes() if Path("testset.yaml").exists() else None
    assert main(argv) == code
    report = yaml.safe_load(Path("report.json").read_text(encoding="utf-8"))
    assert report["total"]["cached"] == report["total"]["calls"] > 0  # the replay asked nothing
    if first is not None:
        assert Path("testset.yaml").read_bytes() == first
        for sample in load_dataset("testset.yaml").samples:
            for context, source in zip(
                sample.reference_contexts, sample.metadata["generated"]["sources"], strict=True
            ):
                text = Path(source["file"]).read_text(encoding="utf-8")
                assert text[source["start"] : source["end"]] == context
