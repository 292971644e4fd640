"""Documents a test set is generated from, and their chunks.

What is read: the files and directories a user names (directories walked in name order,
hidden entries skipped): Markdown (``.md``, ``.markdown``) and plain text (``.txt``,
``.text``) as UTF-8, PDF (``.pdf``) through pypdf when the ``[pdf]`` extra is installed. A
file over :data:`MAX_DOCUMENT_BYTES` is refused before it is read, so a stray archive in a
documents folder costs nothing.

Chunks come from langchain-text-splitters' ``RecursiveCharacterTextSplitter`` (its Markdown
separators for Markdown, so a chunk breaks at a heading before a paragraph, a paragraph before
a line), with each chunk's start offset: every chunk is a slice of its document's text,
``text[start:end]``, which is what lets a generated sample's ``reference_contexts`` be
verbatim text with its source. A PDF's offsets are into the text pypdf extracts (pages joined
by a blank line).

Which chunks go together into a multi-hop question: :func:`related_chunks` ranks the other
chunks by the words they share with a chunk, each shared word weighted by how rare it is among
all chunks (its inverse document frequency), so that two chunks about the same subject pair up
and two chunks that merely share "the" and "with" do not.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ragas_boot._extras import import_extra
from ragas_boot.errors import DocumentError

__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
    "DOCUMENT_KINDS",
    "MAX_DOCUMENT_BYTES",
    "Chunk",
    "Document",
    "DocumentKind",
    "read_documents",
    "related_chunks",
    "split_documents",
]

DocumentKind = Literal["markdown", "text", "pdf"]

#: File suffix → how the file is read.
DOCUMENT_KINDS: dict[str, DocumentKind] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".pdf": "pdf",
}

#: Largest document file read (bytes): a test set needs prose, not archives.
MAX_DOCUMENT_BYTES = 32 * 1024 * 1024

#: Characters per chunk at most (the splitter's ``chunk_size``).
DEFAULT_CHUNK_SIZE = 1200

#: Characters two neighbouring chunks share (the splitter's ``chunk_overlap``).
DEFAULT_CHUNK_OVERLAP = 0

# Words of at least three letters (any script) are what related_chunks compares.
_WORD = re.compile(r"\w{3,}")


@dataclass(frozen=True, slots=True)
class Document:
    """One document's text.

    Attributes:
        path: the file, as named (under a directory that was named, that directory joined
            with the file's relative path), ``/`` separated.
        kind: how it was read.
        text: its whole text (a PDF's extracted text).
    """

    path: str
    kind: DocumentKind
    text: str


@dataclass(frozen=True, slots=True)
class Chunk:
    """A slice of a document, the unit a generated question rests on.

    Attributes:
        id: ``c<n>``, the chunk's position among all chunks of the run (1-based): what the
            generating model cites.
        source: the document's path.
        index: the chunk's position within its document (0-based).
        start: offset of its first character in the document's text.
        end: offset after its last character: ``text == document.text[start:end]``.
        text: the chunk's text, verbatim.
    """

    id: str
    source: str
    index: int
    start: int
    end: int
    text: str


def read_documents(paths: Sequence[str | os.PathLike[str]]) -> list[Document]:
    """Read every document under ``paths`` (files, and directories walked in name order).

    Files with no text (empty, whitespace only) are left out; a named file of an unknown kind
    is an error, a directory's are skipped.

    Raises:
        DocumentError: nothing was named, a path does not exist, a file is too large or not
            readable as its kind, or no document has any text (naming the path at fault).
        MissingExtraError: a PDF was named and the ``[pdf]`` extra is not installed.
    """
    if not paths:
        raise DocumentError("no documents were named; give files or directories", path=".")
    documents: list[Document] = []
    for given in paths:
        root = Path(given)
        if not root.exists():
            raise DocumentError("no such file or directory", path=str(given))
        if root.is_dir():
            files = _walk(root)
            if not files:
                known = ", ".join(DOCUMENT_KINDS)
                raise DocumentError(f"the directory holds no document ({known})", path=str(given))
        else:
            if root.suffix.lower() not in DOCUMENT_KINDS:
                known = ", ".join(DOCUMENT_KINDS)
                raise DocumentError(
                    f"unknown document kind '{root.suffix}'; use one of {known}", path=str(given)
                )
            files = [root]
        for file in files:
            document = _read(file)
            if document.text.strip():
                documents.append(document)
    if not documents:
        named = ", ".join(str(path) for path in paths)
        raise DocumentError("no readable text in any document", path=named)
    return documents


def _walk(root: Path) -> list[Path]:
    found = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        for name in sorted(names):
            file = Path(directory, name)
            if not name.startswith(".") and file.suffix.lower() in DOCUMENT_KINDS:
                found.append(file)
    return sorted(found, key=lambda file: file.relative_to(root).parts)


def _read(file: Path) -> Document:
    kind = DOCUMENT_KINDS[file.suffix.lower()]
    path = file.as_posix()
    try:
        size = file.stat().st_size
    except OSError as error:
        raise DocumentError(f"cannot read the document: {error.strerror}", path=path) from None
    if size > MAX_DOCUMENT_BYTES:
        raise DocumentError(
            f"the file has {size:,} bytes, more than the {MAX_DOCUMENT_BYTES:,} a document may "
            "have; split it",
            path=path,
        )
    if kind == "pdf":
        return Document(path=path, kind=kind, text=_pdf_text(file, path))
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise DocumentError(
            f"not UTF-8 text (byte {error.start}); save it as UTF-8", path=path
        ) from None
    except OSError as error:
        raise DocumentError(f"cannot read the document: {error.strerror}", path=path) from None
    return Document(path=path, kind=kind, text=text)


def _pdf_text(file: Path, path: str) -> str:
    pypdf = import_extra("pypdf", feature="reading PDF documents", extra="pdf", package="pypdf")
    try:
        reader = pypdf.PdfReader(file)
        pages = [page.extract_text() or "" for page in reader.pages]
    except (OSError, ValueError, pypdf.errors.PyPdfError) as error:
        raise DocumentError(f"cannot read the PDF: {error}", path=path) from None
    return "\n\n".join(page.strip() for page in pages if page.strip())


def split_documents(
    documents: Sequence[Document],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
) -> list[Chunk]:
    """Split each document into chunks, numbered ``c1``, ``c2``, ... across all of them.

    Args:
        documents: the documents, in the order their chunks are numbered.
        chunk_size: characters per chunk at most (a longer word stays whole).
        chunk_overlap: characters neighbouring chunks share.

    Raises:
        ValueError: ``chunk_size`` is below 1 or ``chunk_overlap`` not below it.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    if not 0 <= chunk_overlap < chunk_size:
        raise ValueError(f"chunk_overlap must be within 0..chunk_size-1, got {chunk_overlap}")
    # Imported here: it loads langchain-core (about 0.3 s), which only generation needs.
    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter

    markdown = RecursiveCharacterTextSplitter.from_language(
        Language.MARKDOWN,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        add_start_index=True,
    )
    plain = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
    )
    chunks: list[Chunk] = []
    for document in documents:
        splitter = markdown if document.kind == "markdown" else plain
        for index, piece in enumerate(splitter.create_documents([document.text])):
            start: int = piece.metadata["start_index"]
            text: str = piece.page_content
            if start < 0 or document.text[start : start + len(text)] != text:
                # The splitter finds a chunk's start by searching the text; a chunk it could
                # not place is not verbatim text we can cite, so it is left out.
                continue
            chunks.append(
                Chunk(
                    id=f"c{len(chunks) + 1}",
                    source=document.path,
                    index=index,
                    start=start,
                    end=start + len(text),
                    text=text,
                )
            )
    return chunks


def related_chunks(chunks: Sequence[Chunk]) -> dict[str, list[str]]:
    """For each chunk, the other chunks it shares words with, the most related first.

    Relatedness is the sum, over the distinct words (three letters or more, case folded) two
    chunks share, of each word's inverse document frequency among all chunks; a word every
    chunk has weighs 0. Ties go to a chunk of another document, then to chunk order. Chunks
    that share no weighted word are not listed.
    """
    words = {chunk.id: set(_WORD.findall(chunk.text.casefold())) for chunk in chunks}
    frequency: Counter[str] = Counter(word for bag in words.values() for word in bag)
    total = len(chunks)
    weight = {word: math.log(total / count) for word, count in frequency.items()}
    related: dict[str, list[str]] = {}
    for chunk in chunks:
        scored = []
        for position, other in enumerate(chunks):
            if other.id == chunk.id:
                continue
            score = sum(weight[word] for word in words[chunk.id] & words[other.id])
            if score > 0:
                scored.append((-score, other.source == chunk.source, position, other.id))
        related[chunk.id] = [entry[3] for entry in sorted(scored)]
    return related
