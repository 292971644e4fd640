"""What the generating model is asked for a test-set sample, and the checks of its answer.

The model sees one chunk (a single-hop case) or two related chunks (a multi-hop case), each
fenced with its id, and answers with a question, a reference answer and the ids of the chunks
the answer rests on. It never writes context text: the ids are an enum of the chunks it was
shown (schema-constrained), and the code fills ``reference_contexts`` with those chunks'
verbatim text. Before a candidate is kept it passes, in this order (cheapest first; the first
failing check is its rejection reason):

* ``generator_failed``: the call gave no valid answer after the executor's retries and
  re-asks;
* ``empty_question`` / ``empty_answer``: a blank field;
* ``too_few_chunks``: a multi-hop candidate citing fewer than two distinct chunks;
* ``near_duplicate``: its question nearly repeats a kept one's (rapidfuzz);
* ``not_grounded``: the judges voted that the answer is not supported by the cited chunks,
  the question needs no chunk, or (multi-hop) it needs only one; ``vote_failed``: too few
  judges answered for the quorum; ``unchecked``: the call budget ran out before the vote.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ragas_boot.generation.documents import Chunk
from ragas_boot.metrics.prompting import data_block, render_prompt

__all__ = [
    "REJECTION_REASONS",
    "Hops",
    "candidate_model",
    "chunk_problem",
    "question_prompt",
    "vote_prompt",
]

#: A single-hop case rests on one chunk; a multi-hop case on two or more.
Hops = Literal["single_hop", "multi_hop"]

#: Every reason a test-set candidate is rejected for, with what it means.
REJECTION_REASONS: dict[str, str] = {
    "generator_failed": "the generating model gave no valid answer",
    "empty_question": "the question is blank",
    "empty_answer": "the reference answer is blank",
    "too_few_chunks": "a multi-hop case cites fewer than two distinct chunks",
    "near_duplicate": "the question nearly repeats a kept one",
    "not_grounded": "the judges voted the case wrong (answer not supported by its chunks, or "
    "not needing them all)",
    "vote_failed": "too few judges answered the vote for the quorum",
    "unchecked": "the call budget ran out before the judges could vote",
}

_LANGUAGES = {"en": "English", "ru": "Russian"}

_TASKS: dict[Hops, str] = {
    "single_hop": "Write one case answered by the one chunk below.",
    "multi_hop": (
        "Write one case whose answer needs facts from every chunk below together: a question "
        "that no single chunk answers alone. Cite every chunk the answer uses (at least two)."
    ),
}

_MULTI_HOP_RULE = "- answering needs facts from at least two of the chunks, not from one alone."


class _Candidate(BaseModel):
    model_config = ConfigDict(frozen=True)

    question: str = Field(description="The user's question.")
    answer: str = Field(description="The correct answer, from the chunks only.")


@functools.lru_cache(maxsize=256)
def candidate_model(chunk_ids: tuple[str, ...]) -> type[_Candidate]:
    """The answer's model for a prompt showing ``chunk_ids``: the question, the answer, and
    ``cited_chunks``, a non-empty list of those ids (an enum in the schema the model is
    constrained by, so it cannot cite a chunk it was not shown)."""
    chunk_id: Any = Literal[chunk_ids]
    cited: Any = (
        list[chunk_id],
        Field(min_length=1, description="Ids of the chunks the answer rests on."),
    )
    return create_model("TestsetCandidate", __base__=_Candidate, cited_chunks=cited)


def _template(name: str) -> str:
    return resources.files(__package__).joinpath(f"prompts/{name}.txt").read_text("utf-8")


def _chunk_blocks(chunks: Sequence[Chunk]) -> str:
    # Each chunk in its own fenced block named by its id: the fence (data_block) is the
    # prompt layer's one defence against instructions inside a document.
    return "\n\n".join(data_block(chunk.id, chunk.text) for chunk in chunks)


def language_name(language: str | None) -> str:
    """The language the case is written in, as the prompt names it (``ru`` → Russian; a
    name given is kept; none: the documents' own)."""
    if language is None or not language.strip():
        return "the language of the chunks"
    return _LANGUAGES.get(language.strip().lower(), language.strip())


def question_prompt(
    chunks: Sequence[Chunk], hops: Hops, *, language: str | None, style: str | None
) -> str:
    """The generating model's prompt for one candidate over ``chunks``."""
    return render_prompt(
        _template("testset_question"),
        data={},
        config={
            "task": _TASKS[hops],
            "language": language_name(language),
            "style": f"Write the question in this style: {style}."
            if style
            else "Write the question as a typical user of these documents would.",
            "chunks": _chunk_blocks(chunks),
        },
    )


def vote_prompt(question: str, answer: str, chunks: Sequence[Chunk], hops: Hops) -> str:
    """The judges' prompt: is the candidate a grounded case (needing every chunk, when
    multi-hop)?"""
    return render_prompt(
        _template("testset_vote"),
        data={"question": question, "answer": answer},
        config={
            "multi_hop_rule": _MULTI_HOP_RULE if hops == "multi_hop" else "",
            "chunks": _chunk_blocks(chunks),
        },
    )


def chunk_problem(cited: Sequence[str], hops: Hops) -> str | None:
    """Why ``cited`` (the ids the model cited) cannot be the candidate's contexts, or
    ``None``."""
    distinct = list(dict.fromkeys(cited))
    if hops == "multi_hop" and len(distinct) < 2:
        return (
            f"a multi-hop case must rest on two or more chunks; it cites "
            f"{', '.join(distinct) or 'none'}"
        )
    return None
