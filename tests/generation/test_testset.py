"""`generate testset` through the Python API, against the test server: verbatim contexts,
multi-hop cases on two chunks, replays from the cache, rejections with their reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragas_boot.datasets import load_dataset
from ragas_boot.generation.testset import generate_testset
from support.testset import JUDGE, WRITER, good_writer, write_documents, yes_judge

CACHED = """
spring.ai.ragas.cache: {loopback: true}
spring.ai.ragas.generation: {model: writer-model, seed: 3}
"""


@pytest.fixture
def container(make_container):
    return make_container([WRITER, JUDGE], extra=CACHED)


def test_five_markdown_documents_give_verbatim_single_and_multi_hop_samples(
    openai_server, container, tmp_path: Path
) -> None:
    openai_server.respond(WRITER, good_writer)
    openai_server.respond(JUDGE, yes_judge)
    docs = write_documents(tmp_path)
    out = tmp_path / "testset.yaml"
    made = generate_testset(
        [docs],
        container=container,
        count=8,
        multi_hop=0.5,
        judges=[JUDGE],
        output=out,
        chunk_size=200,
    )
    report = made.report
    assert report.kept_count == 8, report.rejected
    assert report.stop_reason == "complete"
    dataset = load_dataset(out)
    assert [sample.id for sample in dataset.samples] == report.kept
    hops = [sample.metadata["generated"]["hops"] for sample in dataset.samples]
    assert hops.count("multi_hop") == 4
    for sample in dataset.samples:
        sources = sample.metadata["generated"]["sources"]
        assert len(sample.reference_contexts) == len(sources)
        for context, source in zip(sample.reference_contexts, sources, strict=True):
            text = Path(source["file"]).read_text(encoding="utf-8")
            assert text[source["start"] : source["end"]] == context
        if sample.metadata["generated"]["hops"] == "multi_hop":
            assert len({(s["file"], s["chunk"]) for s in sources}) >= 2
    assert report.coverage["hops"] == {"single_hop": 4, "multi_hop": 4}
    assert set(report.coverage["document"]) == {
        (docs / name).as_posix()
        for name in ("heat-pump.md", "warranty.md", "app.md", "noise.md", "отопление.md")
    }
    assert report.calls["generation"].calls == 8
    assert report.calls["judge_vote"].calls == 8
    first = out.read_bytes()
    sent = openai_server.count()
    again = generate_testset(
        [docs],
        container=container,
        count=8,
        multi_hop=0.5,
        judges=[JUDGE],
        output=out,
        chunk_size=200,
    )
    assert openai_server.count() == sent
    assert out.read_bytes() == first
    assert again.report.total.cached == again.report.total.calls == 16
