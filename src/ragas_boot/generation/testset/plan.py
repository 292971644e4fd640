"""Which chunks the next candidate is written from, single- or multi-hop.

The plan is a pure function of the chunks, the seed and what has been kept so far, so the
same inputs and seed ask the same prompts in the same order (and a replay is all cache hits).

* Kind: the share of multi-hop cases asked for (``multi_hop``) fixes how many of ``count``
  are multi-hop; the next candidate is of the kind further behind its target (single-hop on
  a tie). With fewer than two chunks there is no multi-hop case to write.
* Anchors: the chunks long enough to ask about (:data:`MIN_CHUNK_CHARS`), each document's in
  an order shuffled by the seed, taken round the documents in turn (document 1's first, then
  document 2's first, ...), so that every document is asked about early.
* Multi-hop anchors are taken from the far end of that order, so that a few single- and
  multi-hop cases between them reach every document.
* Partner of a multi-hop anchor: the most related chunk
  (:func:`~ragas_boot.generation.documents.related_chunks`: shared rare words) not yet paired
  with it; an anchor related to nothing pairs with a chunk of another document.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ragas_boot.generation.documents import Chunk, related_chunks
from ragas_boot.generation.testset.candidates import Hops

__all__ = ["MIN_CHUNK_CHARS", "ChunkPlan", "Pick"]

#: Chunks shorter than this (a heading alone, a stray line) are not asked about.
MIN_CHUNK_CHARS = 40


@dataclass(frozen=True, slots=True)
class Pick:
    """The chunks of one candidate.

    Attributes:
        hops: the kind of case.
        chunks: the chunks shown to the model (one, or an anchor and its partner).
    """

    hops: Hops
    chunks: tuple[Chunk, ...]


class ChunkPlan:
    """The candidates' chunks, in a seeded order.

    Args:
        chunks: every chunk of the documents.
        count: cases to keep.
        multi_hop: share of them (0..1) to be multi-hop.
        seed: shuffles each document's chunks.

    Raises:
        ValueError: ``multi_hop`` is outside 0..1, or no chunk is long enough to ask about.
    """

    def __init__(self, chunks: Sequence[Chunk], *, count: int, multi_hop: float, seed: int) -> None:
        if not 0.0 <= multi_hop <= 1.0:
            raise ValueError(f"multi_hop must be within 0..1, got {multi_hop}")
        usable = [chunk for chunk in chunks if len(chunk.text.strip()) >= MIN_CHUNK_CHARS]
        if not usable:
            raise ValueError(
                f"no chunk has {MIN_CHUNK_CHARS} characters or more to write a question about"
            )
        shuffle = random.Random(seed)
        by_source: dict[str, list[Chunk]] = {}
        for chunk in usable:
            by_source.setdefault(chunk.source, []).append(chunk)
        for group in by_source.values():
            shuffle.shuffle(group)
        groups = list(by_source.values())
        self._anchors = [
            group[depth]
            for depth in range(max(map(len, groups)))
            for group in groups
            if depth < len(group)
        ]
        known = {chunk.id: chunk for chunk in usable}
        self._related = {
            chunk_id: [known[other] for other in others if other in known]
            for chunk_id, others in related_chunks(usable).items()
        }
        self._multi_target = round(count * multi_hop) if len(usable) > 1 else 0
        self._single_target = count - self._multi_target
        self._turns: dict[Hops, int] = {"single_hop": 0, "multi_hop": 0}
        self._partners: dict[str, int] = {}
        self._pairs: set[frozenset[str]] = set()

    @property
    def targets(self) -> dict[Hops, int]:
        """Cases of each kind to keep."""
        return {"single_hop": self._single_target, "multi_hop": self._multi_target}

    def next(self, kept: dict[Hops, int]) -> Pick:
        """The chunks of the next candidate, given the cases of each kind kept so far."""
        if not self._multi_target:
            return self._single()
        if not self._single_target:
            return self._multi()
        behind_single = self._single_target - kept.get("single_hop", 0)
        behind_multi = self._multi_target - kept.get("multi_hop", 0)
        if behind_multi == behind_single:
            # Level (both done too: coverage still wanted): take turns.
            turns = self._turns
            return self._multi() if turns["multi_hop"] < turns["single_hop"] else self._single()
        return self._multi() if behind_multi > behind_single else self._single()

    def _single(self) -> Pick:
        turn = self._turns["single_hop"]
        self._turns["single_hop"] = turn + 1
        return Pick("single_hop", (self._anchors[turn % len(self._anchors)],))

    def _multi(self) -> Pick:
        turn = self._turns["multi_hop"]
        self._turns["multi_hop"] = turn + 1
        # Multi-hop anchors run from the other end: with few cases asked for, single- and
        # multi-hop ones between them still reach every document.
        anchor = self._anchors[-1 - turn % len(self._anchors)]
        candidates = (
            self._related.get(anchor.id)
            or [chunk for chunk in self._anchors if chunk.source != anchor.source]
            or [chunk for chunk in self._anchors if chunk.id != anchor.id]
        )
        used = self._partners.get(anchor.id, 0)
        self._partners[anchor.id] = used + 1
        # A pair asked for already (from either end) comes last: the same two chunks would
        # only give the same question again.
        fresh = [c for c in candidates if frozenset((anchor.id, c.id)) not in self._pairs]
        partner = fresh[0] if fresh else candidates[used % len(candidates)]
        self._pairs.add(frozenset((anchor.id, partner.id)))
        first, second = sorted((anchor, partner), key=lambda chunk: int(chunk.id[1:]))
        return Pick("multi_hop", (first, second))
