"""The OpenAI-compatible wire format: one typed chat request and the bodies sent back.

Every local server of ragas-boot reads requests with the same body models, so they read
exactly the same requests: the test server (:class:`ragas_boot.testing.FakeOpenAIServer`:
scripts and faults) and the embedded local model's endpoint (``chat/local/http.py``, where an
endpoint is needed), both on ``aiohttp.web``; the embedded judge itself plans its calls from
the same request model in process (``chat/local/plan.py``).

- :mod:`~ragas_boot.chat.wire.openai`: :func:`parse_chat_request` into a
  :class:`ChatCompletionRequest` (or a :class:`WireError` naming the field at fault);
  completion, error and model-list bodies.
- :mod:`~ragas_boot.chat.wire.embeddings`: the ``/v1/embeddings`` request and answer bodies.
- :mod:`~ragas_boot.chat.wire.schemas`: minimal instances of an output schema (dry runs and
  the test server's default answers).

No HTTP is written here: the servers are aiohttp's. Internal: nothing is exported here,
import from the modules.
"""

__all__: list[str] = []
