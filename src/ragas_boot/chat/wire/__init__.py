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

Only the standard library is used.
"""

from ragas_boot.chat.wire.framing import Headers, HttpRequest, Response, WireError
from ragas_boot.chat.wire.openai import (
    ANY_OBJECT,
    ChatAnswerer,
    ChatCompletionRequest,
    ChatMessage,
    ContentPart,
    FunctionTool,
    ResponseFormat,
    Role,
    ToolCall,
    ToolChoice,
    chat_route,
    completion_body,
    error_body,
    error_response,
    models_body,
    models_route,
    parse_chat_request,
    parse_json_body,
    unsupported,
)
from ragas_boot.chat.wire.shell import HOST, LoopbackServer, Route, Routes

__all__ = [
    "ANY_OBJECT",
    "HOST",
    "ChatAnswerer",
    "ChatCompletionRequest",
    "ChatMessage",
    "ContentPart",
    "FunctionTool",
    "Headers",
    "HttpRequest",
    "LoopbackServer",
    "Response",
    "ResponseFormat",
    "Role",
    "Route",
    "Routes",
    "ToolCall",
    "ToolChoice",
    "WireError",
    "chat_route",
    "completion_body",
    "error_body",
    "error_response",
    "models_body",
    "models_route",
    "parse_chat_request",
    "parse_json_body",
    "unsupported",
]
