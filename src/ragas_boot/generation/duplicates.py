"""Near-duplicate detection: is a new candidate's text nearly one already kept?

A generating model asked many times for cases about one tool writes the same question in
slightly different words; a suite of ten such cases tests one thing ten times. The check is
rapidfuzz's token-sort ratio (word order does not matter, case, punctuation and spacing
are folded), against every kept text: the cost is one comparison per kept case, microseconds
each, so a few thousand kept cases are fine.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz, utils

__all__ = ["DEFAULT_SIMILARITY", "Duplicate", "NearDuplicates"]

#: Token-sort similarity (0..100) at or above which two texts are near-duplicates.
DEFAULT_SIMILARITY = 90.0


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The kept text a candidate nearly repeats.

    Attributes:
        key: the kept case's key (its id).
        text: the kept text.
        similarity: token-sort similarity, 0..100.
    """

    key: str
    text: str
    similarity: float


class NearDuplicates:
    """The kept texts, and the near-duplicate check against them.

    Args:
        threshold: similarity (0..100) from which a text is a near-duplicate.

    Raises:
        ValueError: ``threshold`` is outside 0..100.
    """

    def __init__(self, *, threshold: float = DEFAULT_SIMILARITY) -> None:
        if not 0.0 <= threshold <= 100.0:
            raise ValueError(f"threshold must be within 0..100, got {threshold}")
        self._threshold = threshold
        self._kept: list[tuple[str, str]] = []

    def __len__(self) -> int:
        return len(self._kept)

    def find(self, text: str) -> Duplicate | None:
        """The most similar kept text at or above the threshold, if any."""
        best: Duplicate | None = None
        for key, kept in self._kept:
            similarity = fuzz.token_sort_ratio(text, kept, processor=utils.default_process)
            if similarity >= self._threshold and (best is None or similarity > best.similarity):
                best = Duplicate(key=key, text=kept, similarity=similarity)
        return best

    def add(self, key: str, text: str) -> None:
        """Keep ``text`` under ``key`` for later checks."""
        self._kept.append((key, text))
