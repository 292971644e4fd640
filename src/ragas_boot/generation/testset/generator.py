"""``generate_testset``: RAG samples from documents, each checked before it is kept.

The cost: one call to the generating model (``spring.ai.ragas.generation``) per candidate,
then, for a candidate that passed the cheap checks, one call per voting judge (the executor's
fan-out). Both are seeded or at temperature 0 and so cached: the same documents, options and
seed again send nothing and write the same file. The loop stops when ``count`` cases are kept
(and ``min_coverage`` reached), or ``max_calls`` calls (cache answers included) or
``max_cost`` are spent (:class:`~ragas_boot.generation.budget.CallMeter`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.roles import ModelRole
from ragas_boot.generation.budget import CallMeter, Coverage, GenerationBudget
from ragas_boot.generation.documents import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    Chunk,
    read_documents,
    split_documents,
)
from ragas_boot.generation.duplicates import NearDuplicates
from ragas_boot.generation.models import ask_generator, role_of, vote
from ragas_boot.generation.report import GenerationReport, Rejection, StopReason
from ragas_boot.generation.testset.candidates import (
    Hops,
    candidate_model,
    chunk_problem,
    question_prompt,
    vote_prompt,
)
from ragas_boot.generation.testset.output import KeptCase, testset_sample, testset_text
from ragas_boot.generation.testset.plan import ChunkPlan, Pick
from ragas_boot.samples import Sample

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = ["DEFAULT_MULTI_HOP", "GeneratedTestset", "agenerate_testset", "generate_testset"]

#: Share of multi-hop cases when none is asked for.
DEFAULT_MULTI_HOP = 0.25

_STEP = "GenerateTestsetCase"


class GeneratedTestset(BaseModel):
    """What :func:`generate_testset` made: the samples, the file's text, the report."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    samples: list[Sample] = Field(description="The kept samples, in order.")
    text: str = Field(description="The test-set file (YAML), as written to `output`.")
    report: GenerationReport = Field(description="Kept, rejected by reason, calls, coverage.")


class _Run:
    """One generation: the plan, the checks, the tallies."""

    def __init__(
        self,
        *,
        chunks: list[Chunk],
        plan: ChunkPlan,
        role: ModelRole,
        executor: MultiModelExecutor,
        voters: list[JudgeModel],
        quorum: int,
        meter: CallMeter,
        coverage: Coverage,
        styles: Sequence[str],
        language: str | None,
    ) -> None:
        self.chunks = chunks
        self.plan = plan
        self.role = role
        self.executor = executor
        self.voters = voters
        self.quorum = quorum
        self.meter = meter
        self.coverage = coverage
        self.styles = list(styles)
        self.language = language
        self.kept: list[KeptCase] = []
        self.kinds: dict[Hops, int] = {"single_hop": 0, "multi_hop": 0}
        self.rejected: list[Rejection] = []
        self.duplicates = NearDuplicates()

    async def loop(self) -> StopReason:
        attempt = 0
        while True:
            stop = self.meter.stop_reason(len(self.kept), self.coverage.share())
            if stop is not None:
                return stop
            if await self.candidate(attempt, self.plan.next(self.kinds)) == "out_of_calls":
                return "max_calls"
            attempt += 1

    def reject(self, reason: str, message: str, candidate: dict[str, Any], attempt: int) -> None:
        self.rejected.append(
            Rejection(reason=reason, message=message, candidate=candidate, attempt=attempt)
        )

    async def candidate(self, attempt: int, pick: Pick) -> str:
        style = self.styles[attempt % len(self.styles)] if self.styles else None
        offered = tuple(chunk.id for chunk in pick.chunks)
        prompt = question_prompt(pick.chunks, pick.hops, language=self.language, style=style)
        answer = await ask_generator(
            self.role, self.meter, _STEP, prompt, candidate_model(offered), attempt=attempt
        )
        shown: dict[str, Any] = {"hops": pick.hops, "chunks": list(offered)}
        if answer.value is None:
            raw = answer.call.raw_text
            self.reject(
                "generator_failed",
                str(answer.fault),
                shown | ({"raw_answer": raw} if raw is not None else {}),
                attempt,
            )
            return "rejected"
        question = answer.value.question.strip()
        reference = answer.value.answer.strip()
        cited: list[str] = list(dict.fromkeys(answer.value.cited_chunks))  # type: ignore[attr-defined]
        candidate = shown | {"question": question, "answer": reference, "cited_chunks": cited}
        problem = self.cheap_problem(question, reference, cited, pick.hops)
        if problem is not None:
            self.reject(*problem, candidate, attempt)
            return "rejected"
        chunks = tuple(chunk for chunk in pick.chunks if chunk.id in cited)
        if self.voters:
            if not self.meter.room(len(self.voters)):
                self.reject(
                    "unchecked",
                    f"the judges' vote needs {len(self.voters)} more call(s) than --max-calls "
                    "leaves",
                    candidate,
                    attempt,
                )
                return "out_of_calls"
            verdict = await vote(
                self.executor,
                self.voters,
                self.meter,
                vote_prompt(question, reference, chunks, pick.hops),
                required=self.quorum,
            )
            if not verdict.passed:
                answered = verdict.yes + verdict.no
                reason = "vote_failed" if answered < verdict.required else "not_grounded"
                self.reject(reason, verdict.describe(), candidate, attempt)
                return "rejected"
        case = KeptCase(
            id=f"testset-{len(self.kept) + 1:03d}",
            hops=pick.hops,
            question=question,
            answer=reference,
            chunks=chunks,
            style=style,
            attempt=attempt,
        )
        self.kept.append(case)
        self.kinds[pick.hops] += 1
        self.duplicates.add(case.id, question)
        self.coverage.add("hops", pick.hops)
        for source in dict.fromkeys(chunk.source for chunk in chunks):
            self.coverage.add("document", source)
        return "kept"

    def cheap_problem(
        self, question: str, reference: str, cited: list[str], hops: Hops
    ) -> tuple[str, str] | None:
        if not question:
            return "empty_question", "the question is blank"
        if not reference:
            return "empty_answer", "the reference answer is blank"
        problem = chunk_problem(cited, hops)
        if problem is not None:
            return "too_few_chunks", problem
        duplicate = self.duplicates.find(question)
        if duplicate is not None:
            return (
                "near_duplicate",
                f"{duplicate.similarity:.0f}% like kept case {duplicate.key}: {duplicate.text}",
            )
        return None


async def agenerate_testset(
    documents: Sequence[str | os.PathLike[str]],
    *,
    container: RagasContainer,
    count: int = 10,
    multi_hop: float = DEFAULT_MULTI_HOP,
    styles: Sequence[str] = (),
    language: str | None = None,
    seed: int | None = None,
    max_calls: int | None = None,
    max_cost: float | None = None,
    min_coverage: float = 0.0,
    judges: Sequence[str] | None = None,
    check_with_judges: bool = True,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    output: str | os.PathLike[str] | None = None,
) -> GeneratedTestset:
    """Generate RAG samples (``user_input``, ``reference``, ``reference_contexts``) from
    documents, each checked before it is kept.

    Args:
        documents: Markdown, text or PDF files and directories of them.
        container: the configuration's container: the generating model
            (``spring.ai.ragas.generation``, else the first judge) and the judges.
        count: samples to keep.
        multi_hop: share (0..1) of the samples that must rest on two or more chunks.
        styles: question styles or personas (``terse``, ``a new customer``), taken in turn.
        language: the language to write in (``ru``, ``German``); none: the documents'.
        seed: the base seed (else ``spring.ai.ragas.generation.seed``); it also orders the
            chunks asked about.
        max_calls: model calls at most, cache answers included (default: 6 per sample).
        max_cost: spend cap in the models' price currency.
        min_coverage: share of the documents (and of the kinds) every kept set must reach.
        judges: ids of the judges that vote on each candidate (default: all).
        check_with_judges: whether the judges vote; without it a candidate is kept on the
            code's checks alone (verbatim contexts, chunks cited, blanks, duplicates).
        chunk_size: characters per chunk at most.
        chunk_overlap: characters neighbouring chunks share.
        output: the file to write (YAML) when at least one sample was kept.

    Raises:
        DocumentError: no document, or no readable text (naming the path).
        ConfigError: the generation model is not a judge of the configuration.
        JudgeNotFoundError: a judge named in ``judges`` is not configured.
        ValueError: an option out of range.
    """
    # Reading and splitting are file and CPU work: off the caller's loop.
    read = await asyncio.to_thread(read_documents, documents)
    chunks = await asyncio.to_thread(
        split_documents, read, chunk_size=chunk_size, chunk_overlap=chunk_overlap
    )
    settings = container.settings()
    role_settings = settings.generation
    if seed is not None:
        role_settings = role_settings.model_copy(update={"seed": seed})
    executor: MultiModelExecutor = container.executor()
    role = role_of(role_settings, executor)
    voters = executor.select(judges) if check_with_judges else []
    budget = GenerationBudget(
        count=count, min_coverage=min_coverage, max_calls=max_calls, max_cost=max_cost
    )
    plan = ChunkPlan(chunks, count=count, multi_hop=multi_hop, seed=role_settings.seed)
    kinds: list[str] = [kind for kind, target in plan.targets.items() if target]
    coverage = Coverage({"document": [document.path for document in read], "hops": kinds})
    meter = CallMeter(budget)
    run = _Run(
        chunks=chunks,
        plan=plan,
        role=role,
        executor=executor,
        voters=voters,
        quorum=settings.metrics.min_judges or 1,
        meter=meter,
        coverage=coverage,
        styles=[style for style in styles if style.strip()],
        language=language,
    )

    async def generate() -> StopReason:
        with executor.metered(meter.spend):
            try:
                return await run.loop()
            finally:
                await role.aclose()

    stop = await executor.portal.run(generate())
    samples = [testset_sample(case) for case in run.kept]
    text = testset_text(
        samples,
        documents=[document.path for document in read],
        model=role.model_id,
        seed=role_settings.seed,
        multi_hop=multi_hop,
    )
    if output is not None and samples:
        await asyncio.to_thread(Path(output).write_text, text, encoding="utf-8")
    report = GenerationReport(
        kind="testset",
        output=os.fspath(output) if output is not None and samples else None,
        requested=count,
        kept=[case.id for case in run.kept],
        rejected=run.rejected,
        calls=meter.tallies(),
        coverage=coverage.table(),
        min_coverage=min_coverage,
        stop_reason=stop,
        generator=role.model_id,
        judges=[judge.id for judge in voters],
        seed=role_settings.seed,
    )
    return GeneratedTestset(samples=samples, text=text, report=report)


def generate_testset(
    documents: Sequence[str | os.PathLike[str]],
    *,
    container: RagasContainer,
    **options: Any,
) -> GeneratedTestset:
    """Sync twin of :func:`agenerate_testset` (same arguments), on the container's I/O
    loop; do not call it from inside that loop."""
    portal = container.executor().portal
    result: GeneratedTestset = portal.call(
        agenerate_testset(documents, container=container, **options)
    )
    return result
