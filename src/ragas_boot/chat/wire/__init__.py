"""The OpenAI-compatible wire: one typed chat request, its answers, and one loopback shell.

Both local servers of ragas-boot read requests with the same body models, so they read exactly
the same requests: the test server (:class:`ragas_boot.testing.FakeOpenAIServer`: scripts and
faults, served by ``aiohttp.web``) and the embedded local judge
(:class:`ragas_boot.chat.LocalModelServer`: llama.cpp, still on the loopback shell below).

- :mod:`~ragas_boot.chat.wire.openai`: :func:`parse_chat_request` into a
  :class:`ChatCompletionRequest`; completion, error and model-list bodies; the shell's routes.
- :mod:`~ragas_boot.chat.wire.embeddings`: the ``/v1/embeddings`` request and answer bodies.
- :mod:`~ragas_boot.chat.wire.shell`: :class:`LoopbackServer`, a route table served on
  ``127.0.0.1`` from an asyncio loop in a daemon thread (the local judge's only).
- :mod:`~ragas_boot.chat.wire.framing`: HTTP/1.1 requests and responses on a stream (the
  shell's only).

Only the standard library is used. Internal: nothing is exported here, import from the modules.
"""

__all__: list[str] = []
