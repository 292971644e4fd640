"""From settings to judges and embedding models: the one spec builder and what builds from it.

- :mod:`~ragas_boot.chat.factory.providers`: what every provider's specs share (names, unique
  ids, limits, TLS files, the options every judge has);
- :mod:`~ragas_boot.chat.factory.judges`: :func:`judge_specs`, a spec of its provider's kind
  per (provider, chat model): openai-compatible, ``default-provider`` and ``langchain`` here,
  GigaChat in :mod:`~ragas_boot.chat.factory.gigachat`, the embedded model in
  :mod:`~ragas_boot.chat.factory.local`;
- :mod:`~ragas_boot.chat.factory.embeddings`: :func:`embedding_specs`, from the same
  providers;
- :mod:`~ragas_boot.chat.factory.build`: :func:`build_judges`, :func:`registered_judges`
  (chat model instances given in code), :func:`build_embedding_models`.

It sits above the transports (``openai/``, ``langchain/``, ``local/``) and ``embeddings/``,
which never import it. Internal: nothing is exported here; :mod:`ragas_boot.chat` is the
public face, and the container imports from the modules.
"""

__all__: list[str] = []
