"""``ragas-boot generate testset``: the file evaluate reads, the replay that sends nothing,
a garbage-answering model's candidates rejected with reasons (exit 1), bad input (exit 2)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from ragas_boot.cli import main
from ragas_boot.datasets import load_dataset
from ragas_boot.testing import Reply
from support.testset import (
    JUDGE,
    WRITER,
    chunk_blocks,
    good_writer,
    write_documents,
    yes_judge,
)


def _config(tmp_path: Path, server, extra: str = "") -> Path:
    config = tmp_path / "application.yaml"
    config.write_text(
        textwrap.dedent(
            f"""
            spring.ai.retry: {{max-attempts: 2, backoff: {{initial-interval: 5ms}}}}
            spring.ai.ragas:
              cache: {{loopback: true}}
              providers:
                openai-compatible:
                  - name: server
                    base-url: {server.base_url}
                    api-key: test
                    chat-models: [{{id: {WRITER}}}, {{id: {JUDGE}}}]
              generation: {{model: {WRITER}, seed: 5}}
            """
        )
        + textwrap.dedent(extra),
        encoding="utf-8",
    )
    return config


def test_a_test_set_from_five_documents_is_written_and_replayed_byte_for_byte(
    openai_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_server.respond(WRITER, good_writer)
    openai_server.respond(JUDGE, yes_judge)
    docs = write_documents(tmp_path)
    config = _config(tmp_path, openai_server)
    out = tmp_path / "testset.yaml"
    report = tmp_path / "report.json"
    argv = [
        "generate",
        "testset",
        str(docs),
        "--count",
        "6",
        "--multi-hop",
        "50%",
        "--judge",
        JUDGE,
        "--chunk-size",
        "200",
        "--out",
        str(out),
        "--report",
        str(report),
        "--config",
        str(config),
    ]
    assert main(argv) == 0
    first = out.read_bytes()
    sent = openai_server.count()
    assert sent == 12  # a generation and a vote per sample: nothing was rejected
    document = json.loads(report.read_text(encoding="utf-8"))
    assert (document["kind"], document["output"], document["rejected"]) == ("testset", str(out), [])
    assert document["calls_per_kept_case"] == 2.0
    assert document["coverage"]["hops"] == {"single_hop": 3, "multi_hop": 3}
    # single-hop cases run through the documents from the first, multi-hop ones from the last
    assert all(document["coverage"]["document"].values())
    printed = capsys.readouterr().out
    assert "Kept 6/6" in printed
    dataset = load_dataset(out)
    assert len(dataset.samples) == 6
    multi = [s for s in dataset.samples if s.metadata["generated"]["hops"] == "multi_hop"]
    assert len(multi) == 3 and all(len(s.reference_contexts) >= 2 for s in multi)
    assert main(argv) == 0
    assert openai_server.count() == sent  # the replay: 0 requests
    assert out.read_bytes() == first


def test_a_garbage_answering_model_gets_its_candidates_rejected_with_reasons(
    openai_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def shown(request) -> list[str]:
        return list(chunk_blocks(request.prompt))

    answers = iter(
        [
            # prose where JSON was asked for, twice (the executor re-asks once)
            lambda request: Reply.text("Sure! Here is a question about heat pumps."),
            lambda request: Reply.text("Sure! Here is a question about heat pumps."),
            lambda request: {"question": " ", "answer": "x", "cited_chunks": shown(request)},
            lambda request: {"question": "What?", "answer": "", "cited_chunks": shown(request)},
        ]
    )

    def writer(request):
        answer = next(answers, None)
        if answer is not None:
            return answer(request)
        # then good single-hop cases, and "multi-hop" ones citing one chunk only
        written = good_writer(request)
        return written | {"cited_chunks": written["cited_chunks"][:1]}

    openai_server.respond(WRITER, writer)
    openai_server.respond(JUDGE, yes_judge)
    docs = write_documents(tmp_path)
    config = _config(tmp_path, openai_server)
    out = tmp_path / "testset.yaml"
    report = tmp_path / "report.json"
    code = main(
        [
            "generate",
            "testset",
            str(docs),
            "--count",
            "4",
            "--multi-hop",
            "0.5",
            "--judge",
            JUDGE,
            "--max-calls",
            "10",
            "--out",
            str(out),
            "--report",
            str(report),
            "--config",
            str(config),
        ]
    )
    assert code == 1
    found = json.loads(report.read_text(encoding="utf-8"))
    rejected = found["rejected"]
    reasons = [rejection["reason"] for rejection in rejected]
    assert reasons[:3] == ["generator_failed", "empty_question", "empty_answer"]
    assert set(reasons[3:]) == {"too_few_chunks"}
    assert "invalid_output" in rejected[0]["message"]
    # what the model wrote is kept, to be read
    assert rejected[0]["candidate"]["raw_answer"] == "Sure! Here is a question about heat pumps."
    assert rejected[3]["candidate"]["hops"] == "multi_hop"
    assert "it cites c" in rejected[3]["message"]
    assert found["stop_reason"] == "max_calls"
    assert found["total"]["calls"] == 10
    kept = load_dataset(out).samples
    assert 0 < len(kept) < 4
    assert all(s.metadata["generated"]["hops"] == "single_hop" for s in kept)
    assert "Kept " in capsys.readouterr().out


def test_no_document_with_text_is_exit_2_naming_the_path(
    openai_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, openai_server)
    empty = tmp_path / "empty.md"
    empty.write_text("\n\n", encoding="utf-8")
    assert main(["generate", "testset", str(empty), "--config", str(config)]) == 2
    assert f"{empty}: no readable text" in capsys.readouterr().err
    assert main(["generate", "testset", str(tmp_path / "nope"), "--config", str(config)]) == 2
    assert "nope: no such file or directory" in capsys.readouterr().err
    assert openai_server.count() == 0


def test_cache_flags_name_the_folder_or_turn_the_cache_off(
    openai_server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_server.respond(WRITER, good_writer)
    openai_server.respond(JUDGE, yes_judge)
    docs = write_documents(tmp_path)
    config = _config(tmp_path, openai_server)
    folder = tmp_path / "team-cache"
    out = tmp_path / "t.yaml"
    argv = ["generate", "testset", str(docs), "--count", "2", "--judge", JUDGE,
            "--chunk-size", "200", "--out", str(out), "--config", str(config)]  # fmt: skip
    assert main([*argv, "--cache-dir", str(folder)]) == 0
    sent = openai_server.count()
    assert sent == 4 and any(folder.iterdir())  # a generation and a vote per case, kept there
    assert main([*argv, "--cache-dir", str(folder)]) == 0
    assert openai_server.count() == sent  # replayed from that folder
    assert main([*argv, "--no-cache"]) == 0
    assert openai_server.count() == 2 * sent  # asked again, nothing read
