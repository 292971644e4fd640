"""A fake Ollama API on 127.0.0.1, for judges on ``langchain_ollama.ChatOllama``.

Give the class ``base-url:`` :attr:`FakeOllamaServer.base_url`; it then posts ``/api/chat``
here (streamed as NDJSON, as ChatOllama asks by default, or as one JSON object). ``format``
(a JSON schema, or ``"json"`` with the schema in the prompt) and a single tool are answered
with content or ``tool_calls``; errors carry Ollama's ``{"error": "..."}`` body. Answers are
scripted per model like those of :class:`~ragas_boot.testing.FakeOpenAIServer`, with
:class:`~ragas_boot.testing.Reply` values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ragas_boot.chat.wire.schemas import find_schema_in_text
from ragas_boot.testing import Reply
from support.fakes._api import ChatCall, FakeAPIServer, Response

__all__ = ["FakeOllamaServer"]


class FakeOllamaServer(FakeAPIServer):
    """Ollama's ``POST /api/chat`` (and ``GET /api/tags``), faked on a free port of 127.0.0.1."""

    thread_name = "ragas-boot-fake-ollama"

    @property
    def base_url(self) -> str:
        """The base URL ``ChatOllama(base_url=...)`` takes."""
        return self.origin

    def _route(
        self, method: str, path: str, headers: Mapping[str, str], body: Any
    ) -> tuple[Response, str | None]:
        if method == "GET" and path == "/api/tags":
            return Response(200, {"models": []}), None
        if method != "POST" or path != "/api/chat":
            return Response(404, self._error_body(404, f"no route {method} {path}")), None
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return Response(400, self._error_body(400, "messages are required")), None
        model = str(body.get("model") or "")
        texts = tuple(
            str(m.get("content") or "") for m in reversed(body["messages"]) if isinstance(m, dict)
        )
        tool, schema = self._tool(body)
        if schema is None and isinstance(body.get("format"), dict):
            schema = body["format"]
        if schema is None:
            schema = find_schema_in_text(texts)
        call = ChatCall(model=model, texts=texts, schema=schema, tool=tool, body=body)
        response = self._answer_chat(call)
        if response.status == 200 and response.raw is None and body.get("stream", True):
            response = Response(200, raw=self._ndjson(response.body))
        return response, model

    @staticmethod
    def _tool(body: Mapping[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
        tools = [t for t in body.get("tools") or () if isinstance(t, dict)]
        if len(tools) != 1:  # Ollama cannot force a tool: a lone one is the structured answer
            return None, None
        function = tools[0].get("function") or {}
        parameters = function.get("parameters")
        return str(function.get("name")), parameters if isinstance(parameters, dict) else None

    @staticmethod
    def _ndjson(final: dict[str, Any]) -> bytes:
        message = final["message"]
        first = {**final, "message": message, "done": False}
        for key in ("done_reason", "prompt_eval_count", "eval_count", "total_duration"):
            first.pop(key, None)
        last = {**final, "message": {"role": "assistant", "content": ""}}
        return (json.dumps(first) + "\n" + json.dumps(last) + "\n").encode()

    def _render(self, call: ChatCall, reply: Reply) -> Any:
        content = reply.content or ""
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if call.tool is not None and reply.kind == "json":
            message = {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": call.tool, "arguments": json.loads(content)}}],
            }
        elif reply.kind == "tool_calls" and reply.calls:
            message = {
                "role": "assistant",
                "content": reply.content or "",
                "tool_calls": [
                    {"function": {"name": name, "arguments": json.loads(arguments)}}
                    for name, arguments, _ in reply.calls
                ],
            }
        prompt, completion = self.usage(call, content)
        return {
            "model": call.model,
            "created_at": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "message": message,
            "done": True,
            "done_reason": "stop",
            "total_duration": 1000,
            "prompt_eval_count": (reply.usage or {}).get("prompt_tokens", prompt),
            "eval_count": (reply.usage or {}).get("completion_tokens", completion),
        }

    def _error_body(self, status: int, message: str) -> Any:
        return {"error": message}
