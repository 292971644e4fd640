"""Embedding models: the :class:`~ragas_boot.chat.embeddings.model.EmbeddingModel` protocol
(:mod:`~ragas_boot.chat.embeddings.model`) and its three kinds, one module each
(:mod:`~ragas_boot.chat.embeddings.openai_compatible`, :mod:`~ragas_boot.chat.embeddings.gigachat`,
:mod:`~ragas_boot.chat.embeddings.local`). Their specs come from ``chat/factory/``.

Internal: nothing is exported here; :mod:`ragas_boot.chat` is the public face.
"""

__all__: list[str] = []
