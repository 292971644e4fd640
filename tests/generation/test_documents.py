"""Documents read and split for `generate testset`: verbatim chunks with offsets, related
chunks by shared rare words, and every bad input named."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragas_boot.errors import DocumentError
from ragas_boot.generation.documents import read_documents, related_chunks, split_documents


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_directories_are_walked_in_name_order_skipping_hidden_and_unknown_kinds(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "b.md", "# B\n\nbravo text")
    _write(tmp_path, "a/z.txt", "zulu text")
    _write(tmp_path, "a/notes.yaml", "key: value")
    _write(tmp_path, ".hidden/x.md", "hidden")
    _write(tmp_path, ".draft.md", "draft")
    documents = read_documents([tmp_path])
    assert [Path(document.path).relative_to(tmp_path).as_posix() for document in documents] == [
        "a/z.txt",
        "b.md",
    ]
    assert [document.kind for document in documents] == ["text", "markdown"]


def test_empty_documents_are_left_out_and_none_with_text_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path, "blank.md", "  \n\n\t")
    kept = _write(tmp_path, "kept.md", "Привет, мир")
    assert [document.path for document in read_documents([tmp_path / "blank.md", kept])] == [
        kept.as_posix()
    ]
    with pytest.raises(DocumentError, match="no readable text") as caught:
        read_documents([tmp_path / "blank.md"])
    assert "blank.md" in caught.value.path


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("missing.md", "no such file or directory"),
        ("slides.pptx", "unknown document kind '.pptx'"),
        ("latin1.txt", "not UTF-8 text"),
        ("empty-dir", "the directory holds no document"),
    ],
)
def test_bad_paths_are_named(tmp_path: Path, name: str, problem: str) -> None:
    (tmp_path / "slides.pptx").write_bytes(b"PK")
    (tmp_path / "latin1.txt").write_bytes("café".encode("latin-1"))
    (tmp_path / "empty-dir").mkdir()
    with pytest.raises(DocumentError, match=problem) as caught:
        read_documents([tmp_path / name])
    assert caught.value.path.endswith(name)
    assert str(caught.value).startswith(caught.value.path)


def test_no_path_at_all_is_an_error() -> None:
    with pytest.raises(DocumentError, match="no documents were named"):
        read_documents([])


def test_every_chunk_is_its_documents_text_at_its_offsets(tmp_path: Path) -> None:
    body = "\n\n".join(
        f"## Section {n}\n\n" + f"Paragraph {n} about the wärmepumpe and its Фильтр. " * 12
        for n in range(6)
    )
    _write(tmp_path, "guide.md", "# Guide\n\n" + body)
    _write(tmp_path, "notes.txt", "plain words " * 300)
    documents = read_documents([tmp_path])
    chunks = split_documents(documents, chunk_size=400, chunk_overlap=50)
    texts = {document.path: document.text for document in documents}
    assert len({chunk.source for chunk in chunks}) == 2
    assert [chunk.id for chunk in chunks] == [f"c{n}" for n in range(1, len(chunks) + 1)]
    for chunk in chunks:
        assert texts[chunk.source][chunk.start : chunk.end] == chunk.text
        assert 0 < len(chunk.text) <= 400
    markdown = [chunk for chunk in chunks if chunk.source.endswith("guide.md")]
    assert [chunk.index for chunk in markdown] == list(range(len(markdown)))
    # Markdown breaks at headings first: each section starts a chunk.
    assert sum(chunk.text.startswith("## Section") for chunk in markdown) == 6


def test_split_refuses_bad_sizes(tmp_path: Path) -> None:
    documents = read_documents([_write(tmp_path, "a.md", "text")])
    with pytest.raises(ValueError, match="chunk_size"):
        split_documents(documents, chunk_size=0)
    with pytest.raises(ValueError, match="chunk_overlap"):
        split_documents(documents, chunk_size=10, chunk_overlap=10)


def test_related_chunks_pair_by_shared_rare_words(tmp_path: Path) -> None:
    _write(tmp_path, "a.md", "The heat pump defrost cycle runs when the coil ices.")
    _write(tmp_path, "b.md", "The invoice lists the monthly subscription price.")
    _write(tmp_path, "c.md", "A defrost cycle of the heat pump takes ten minutes.")
    _write(tmp_path, "d.md", "The subscription price changes with the invoice currency.")
    chunks = split_documents(read_documents([tmp_path]))
    related = related_chunks(chunks)
    assert related["c1"][0] == "c3"
    assert related["c2"][0] == "c4"
    # "the" is in every chunk: it weighs nothing, so unrelated chunks are not listed.
    assert "c2" not in related["c1"]


def test_a_pdf_is_read_through_pypdf(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    generic = pypdf.generic
    writer = pypdf.PdfWriter()
    page = writer.add_blank_page(width=300, height=200)
    font = generic.DictionaryObject(
        {
            generic.NameObject("/Type"): generic.NameObject("/Font"),
            generic.NameObject("/Subtype"): generic.NameObject("/Type1"),
            generic.NameObject("/BaseFont"): generic.NameObject("/Helvetica"),
        }
    )
    page[generic.NameObject("/Resources")] = generic.DictionaryObject(
        {
            generic.NameObject("/Font"): generic.DictionaryObject(
                {generic.NameObject("/F1"): writer._add_object(font)}
            )
        }
    )
    stream = generic.DecodedStreamObject()
    stream.set_data(b"BT /F1 12 Tf 20 100 Td (Defrost cycles take ten minutes.) Tj ET")
    page[generic.NameObject("/Contents")] = writer._add_object(stream)
    pdf = tmp_path / "manual.pdf"
    with pdf.open("wb") as handle:
        writer.write(handle)
    (document,) = read_documents([pdf])
    assert document.kind == "pdf"
    assert "Defrost cycles take ten minutes." in document.text
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    with pytest.raises(DocumentError, match="cannot read the PDF"):
        read_documents([tmp_path / "broken.pdf"])
