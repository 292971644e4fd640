"""What you need to test your own metrics, agents and configs offline.

- :class:`FakeOpenAIServer`: a local OpenAI-compatible server (chat completions, embeddings,
  the model list) with scripted answers (:class:`Reply`, rules with :func:`asks_for`) and
  injected faults (429, 500, garbage, hang, drop, trickle) and the batch API (files, batches
  that change status over time, expire or fail), which records every request. Point
  a config's ``base-url`` at :attr:`FakeOpenAIServer.base_url` (or an OpenAI client's
  ``base_url`` at :attr:`FakeOpenAIServer.url`).
- :class:`SentenceJudge`: a deterministic stand-in judge for the RAG metrics
  (``server.respond(None, SentenceJudge())``).
- :func:`assert_score`: checks a score and, when it fails, says what every judge thought.

The pytest plugin offers the server as the session fixture ``ragas_openai_server``; a fresh
server per test is the ``openai_server`` fixture of :mod:`ragas_boot.testing.fixtures` (kept
apart because it imports pytest).
"""

from ragas_boot.testing._schema import minimal_instance
from ragas_boot.testing.assertions import assert_score
from ragas_boot.testing.rag_judge import SentenceJudge
from ragas_boot.testing.server import (
    DEFAULT_EMBEDDING_DIMENSIONS,
    DEFAULT_MODEL,
    DEFAULT_TEXT,
    BatchRecord,
    BatchTiming,
    ChatRequest,
    FakeOpenAIServer,
    FaultName,
    RecordedEmbeddingRequest,
    RecordedRequest,
    Reply,
    ReplyKind,
    ReplyLike,
    ReplySource,
    Rule,
    VectorSource,
    asks_for,
    hashed_vector,
)

__all__ = [
    "DEFAULT_EMBEDDING_DIMENSIONS",
    "DEFAULT_MODEL",
    "DEFAULT_TEXT",
    "BatchRecord",
    "BatchTiming",
    "ChatRequest",
    "FakeOpenAIServer",
    "FaultName",
    "RecordedEmbeddingRequest",
    "RecordedRequest",
    "Reply",
    "ReplyKind",
    "ReplyLike",
    "ReplySource",
    "Rule",
    "SentenceJudge",
    "VectorSource",
    "asks_for",
    "assert_score",
    "hashed_vector",
    "minimal_instance",
]
