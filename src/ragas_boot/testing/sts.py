"""A small STS check for embedding models: similar pairs must score above unrelated ones.

English, Russian and cross-lingual pairs; the local embedding model's test and
``benchmarks/local_embeddings.py`` use it, and ``docs/local-judge.md`` quotes its scores.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["STS_PAIRS"]

#: ``(text, text, kind)``: ``similar`` pairs say the same thing; ``unrelated`` ones do not.
STS_PAIRS: Final[tuple[tuple[str, str, Literal["similar", "unrelated"]], ...]] = (
    ("The cat sits on the mat.", "A cat is sitting on a rug.", "similar"),
    ("Paris is the capital of France.", "The capital of France is Paris.", "similar"),
    ("How do I reset my password?", "I forgot my password, how can I change it?", "similar"),
    (
        "The refund will arrive in 5 business days.",
        "You will get your money back within five working days.",
        "similar",
    ),
    ("Столица Франции — Париж.", "Париж является столицей Франции.", "similar"),
    ("Мне нужно забронировать билет в Париж.", "Я хочу купить авиабилет до Парижа.", "similar"),
    ("Paris is the capital of France.", "Столица Франции — Париж.", "similar"),
    ("The cat sits on the mat.", "Quarterly revenue grew by 12 percent.", "unrelated"),
    ("How do I reset my password?", "The Great Wall of China is very long.", "unrelated"),
    (
        "The refund will arrive in 5 business days.",
        "Photosynthesis converts light into chemical energy.",
        "unrelated",
    ),
    ("Столица Франции — Париж.", "Рецепт борща включает свёклу.", "unrelated"),
    (
        "Мне нужно забронировать билет в Париж.",
        "Квантовая механика описывает микромир.",
        "unrelated",
    ),
)
