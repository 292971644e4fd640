"""A fake Anthropic Messages API on 127.0.0.1, for judges on ``langchain_anthropic.ChatAnthropic``.

Give the class ``base-url:`` :attr:`FakeAnthropicServer.base_url` (and any ``api-key``); it then
posts ``/v1/messages`` here. Tools (``tool_choice: {type: tool}``) are answered with a
``tool_use`` block, ``output_config.format`` (json_schema) and plain prompts with a text block;
errors carry Anthropic's ``{"type": "error", "error": {...}}`` body and, for 429, a
``Retry-After`` header. Answers are scripted per model like those of
:class:`~ragas_boot.testing.FakeOpenAIServer`, with :class:`~ragas_boot.testing.Reply` values.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Any

from ragas_boot.chat.wire.schemas import find_schema_in_text
from ragas_boot.testing import Reply
from support.fakes._api import ChatCall, FakeAPIServer, Response

__all__ = ["FakeAnthropicServer"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return ""


class FakeAnthropicServer(FakeAPIServer):
    """Anthropic's ``POST /v1/messages``, faked on a free port of 127.0.0.1.

    Args:
        api_key: the key it accepts, as ``x-api-key`` or a bearer token (any, when ``None``).
    """

    thread_name = "ragas-boot-fake-anthropic"

    def __init__(self, *, api_key: str | None = None) -> None:
        super().__init__()
        self.api_key = api_key

    @property
    def base_url(self) -> str:
        """The base URL ``ChatAnthropic(base_url=...)`` takes (no ``/v1``)."""
        return self.origin

    def _route(
        self, method: str, path: str, headers: Mapping[str, str], body: Any
    ) -> tuple[Response, str | None]:
        if method != "POST" or path != "/v1/messages":
            return Response(404, self._error_body(404, f"no route {method} {path}")), None
        given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if self.api_key is not None and given != self.api_key:
            return Response(401, self._error_body(401, "invalid x-api-key")), None
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return Response(400, self._error_body(400, "messages: Field required")), None
        if not isinstance(body.get("max_tokens"), int):
            return Response(400, self._error_body(400, "max_tokens: Field required")), None
        model = str(body.get("model") or "")
        texts = (
            *(_text_of(m.get("content")) for m in reversed(body["messages"])),
            _text_of(body.get("system")),
        )
        tool, schema = self._tool(body)
        if schema is None:
            output_format = (body.get("output_config") or {}).get("format") or {}
            if isinstance(output_format.get("schema"), dict):
                schema = output_format["schema"]
        if schema is None:
            schema = find_schema_in_text(texts)
        call = ChatCall(model=model, texts=texts, schema=schema, tool=tool, body=body)
        return self._answer_chat(call), model

    @staticmethod
    def _tool(body: Mapping[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
        choice = body.get("tool_choice") or {}
        tools = [t for t in body.get("tools") or () if isinstance(t, dict)]
        name = choice.get("name") if choice.get("type") == "tool" else None
        if name is None and choice.get("type") == "any" and len(tools) == 1:
            name = tools[0].get("name")
        for tool in tools:
            if tool.get("name") == name:
                schema = tool.get("input_schema")
                return str(name), schema if isinstance(schema, dict) else None
        return None, None

    def _render(self, call: ChatCall, reply: Reply) -> Any:
        content = reply.content or ""
        blocks: list[dict[str, Any]]
        stop = "end_turn"
        if call.tool is not None and reply.kind == "json":
            blocks = [
                {
                    "type": "tool_use",
                    "id": "toolu_" + secrets.token_hex(8),
                    "name": call.tool,
                    "input": json.loads(content),
                }
            ]
            stop = "tool_use"
        elif reply.kind == "tool_calls" and reply.calls:
            blocks = [
                {
                    "type": "tool_use",
                    "id": call_id or "toolu_" + secrets.token_hex(8),
                    "name": name,
                    "input": json.loads(arguments),
                }
                for name, arguments, call_id in reply.calls
            ]
            stop = "tool_use"
        else:
            blocks = [{"type": "text", "text": content}]
        prompt, completion = self.usage(call, content)
        usage = {"input_tokens": prompt, "output_tokens": completion}
        usage.update(reply.usage or {})
        return {
            "id": "msg_" + secrets.token_hex(8),
            "type": "message",
            "role": "assistant",
            "model": call.model,
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    def _error_body(self, status: int, message: str) -> Any:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
