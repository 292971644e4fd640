"""Metrics on embedding models: SemanticSimilarity, ResponseRelevancy, AnswerCorrectness.

Like the other metric sub-packages it exports nothing itself: :mod:`ragas_boot.metrics` is the
metrics' one public face.
"""

__all__: list[str] = []
