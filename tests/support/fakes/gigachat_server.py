"""A fake GigaChat API on 127.0.0.1: the OAuth token exchange and chat completions.

Point ``spring.ai.gigachat.base-url`` at :attr:`FakeGigaChatServer.base_url` and
``auth.bearer.url`` at :attr:`FakeGigaChatServer.auth_url`; the real ``gigachat`` client (under
``langchain-gigachat``) then exchanges its authorization key for a bearer token and sends chat
completions here, as it would to GigaChat:

- ``POST /api/v2/oauth`` (Basic authorization key, ``RqUID``, form ``scope``) answers
  ``{"access_token", "expires_at"}`` (milliseconds); a wrong key or scope is a 401 / 400;
- ``POST /api/v1/chat/completions`` needs a live bearer token (else 401, which makes the
  client fetch a new token and try once more) and answers GigaChat's completion format,
  with ``function_call`` arguments as a JSON object in function-calling mode;
- ``POST /api/v1/embeddings`` (bearer token as above) answers one vector per input: the
  deterministic :func:`~ragas_boot.testing.hashed_vector` of the text (texts sharing words
  are closer), or the vector :meth:`FakeGigaChatServer.set_vectors` gives it;
- ``GET /api/v1/models`` lists the models.

Tokens live ``token_ttl`` seconds on the server; :meth:`FakeGigaChatServer.expire_tokens`
revokes the live ones (as an expiry the client did not foresee). Answers are scripted per
model like those of :class:`~ragas_boot.testing.FakeOpenAIServer`, with the same
:class:`~ragas_boot.testing.Reply` values (429 with ``Retry-After``, 5xx, hangs, drops...).
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

from ragas_boot.chat.wire.schemas import find_schema_in_text
from ragas_boot.testing import Reply, hashed_vector
from support.fakes._api import ChatCall, FakeAPIServer, ProviderRequest, Response

__all__ = ["FakeGigaChatServer", "gigachat_key"]

_SCOPES = frozenset({"GIGACHAT_API_PERS", "GIGACHAT_API_B2B", "GIGACHAT_API_CORP"})


def gigachat_key(client_id: str, client_secret: str) -> str:
    """The authorization key of a client id and secret: base64 of ``id:secret``."""
    return base64.b64encode(f"{client_id}:{client_secret}".encode()).decode("ascii")


class FakeGigaChatServer(FakeAPIServer):
    """The GigaChat API, faked on a free port of 127.0.0.1.

    Args:
        credentials: the authorization key the OAuth endpoint accepts (any, when ``None``).
        token_ttl: seconds a token lives; under the client's 60 s refresh margin, the client
            fetches a new token before every call.
        models: the model ids ``GET /models`` lists and chat completions accept (any, when
            empty).
    """

    thread_name = "ragas-boot-fake-gigachat"

    def __init__(
        self,
        *,
        credentials: str | None = None,
        token_ttl: float = 1800.0,
        models: tuple[str, ...] = ("GigaChat", "GigaChat-2-Max", "GigaChat-2-Pro"),
    ) -> None:
        super().__init__()
        self.credentials = credentials
        self.token_ttl = token_ttl
        self.models = models
        self._tokens: dict[str, float] = {}
        self._tokens_lock = threading.Lock()
        self._oauth_replies: list[Reply] = []
        self._vectors: dict[str, list[float]] = {}

    @property
    def base_url(self) -> str:
        """The API base, as ``spring.ai.gigachat.base-url`` takes it (``.../api/v1``)."""
        return f"{self.origin}/api/v1"

    @property
    def auth_url(self) -> str:
        """The OAuth token URL, as ``spring.ai.gigachat.auth.bearer.url`` takes it."""
        return f"{self.origin}/api/v2/oauth"

    @property
    def token_requests(self) -> int:
        """How many token exchanges were asked for."""
        return sum(1 for record in self.requests if record.path == "/api/v2/oauth")

    def expire_tokens(self) -> None:
        """Revoke every live token: the next call with one gets a 401."""
        with self._tokens_lock:
            self._tokens.clear()

    @property
    def embedding_requests(self) -> list[ProviderRequest]:
        """The embedding requests received (their :class:`ProviderRequest` records), in order."""
        return [record for record in self.requests if record.path == "/api/v1/embeddings"]

    def set_vectors(self, vectors: Mapping[str, list[float]]) -> None:
        """Answer these texts with these vectors (other texts keep their hashed vectors)."""
        with self._lock:
            self._vectors.update(vectors)

    def fail_token_exchange(self, *replies: Reply) -> None:
        """Answer the next token exchanges with these (error) replies, in order."""
        with self._lock:
            self._oauth_replies.extend(replies)

    # ------------------------------------------------------------------ routes

    def _route(
        self, method: str, path: str, headers: Mapping[str, str], body: Any
    ) -> tuple[Response, str | None]:
        if method == "POST" and path == "/api/v2/oauth":
            return self._oauth(headers, body), None
        if not path.startswith("/api/v1/"):
            return Response(404, self._error_body(404, f"no route {method} {path}")), None
        if not self._authorized(headers):
            model = body.get("model") if isinstance(body, dict) else None
            return Response(401, self._error_body(401, "Unauthorized")), model
        if method == "GET" and path == "/api/v1/models":
            listed = self.models or ("GigaChat",)
            data = [{"id": m, "object": "model", "owned_by": "salutedevices"} for m in listed]
            return Response(200, {"object": "list", "data": data}), None
        if method == "POST" and path == "/api/v1/chat/completions":
            return self._chat(body)
        if method == "POST" and path == "/api/v1/embeddings":
            return self._embeddings(body), None
        return Response(404, self._error_body(404, f"no route {method} {path}")), None

    def _oauth(self, headers: Mapping[str, str], body: Any) -> Response:
        with self._lock:
            scripted = self._oauth_replies.pop(0) if self._oauth_replies else None
        if scripted is not None and scripted.kind == "error":
            return Response(scripted.status, self._error_body(scripted.status, "oauth failed"))
        authorization = headers.get("authorization", "")
        key = authorization.removeprefix("Basic ").strip()
        if not authorization.startswith("Basic ") or (
            self.credentials is not None and key != self.credentials
        ):
            return Response(401, {"code": 6, "message": "credentials doesn't match db data"})
        if not headers.get("rquid"):
            return Response(400, {"code": 5, "message": "RqUID header is missing"})
        scope = body.get("scope") if isinstance(body, dict) else None
        if scope not in _SCOPES:
            return Response(400, {"code": 7, "message": f"scope '{scope}' is not valid"})
        token = "fake-gigachat-" + secrets.token_hex(12)
        expires = time.time() + self.token_ttl
        with self._tokens_lock:
            self._tokens[token] = expires
        return Response(200, {"access_token": token, "expires_at": int(expires * 1000)})

    def _authorized(self, headers: Mapping[str, str]) -> bool:
        authorization = headers.get("authorization", "")
        token = authorization.removeprefix("Bearer ").strip()
        with self._tokens_lock:
            expires = self._tokens.get(token)
        return authorization.startswith("Bearer ") and expires is not None and expires > time.time()

    def _chat(self, body: Any) -> tuple[Response, str | None]:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return Response(400, self._error_body(400, "messages are required")), None
        model = str(body.get("model") or "")
        if self.models and model not in self.models:
            return Response(404, self._error_body(404, f"model '{model}' not found")), model
        texts = tuple(
            str(message.get("content") or "")
            for message in reversed(body["messages"])
            if isinstance(message, dict)
        )
        tool, schema = self._function(body)
        if schema is None:
            response_format = body.get("response_format")
            if isinstance(response_format, dict) and isinstance(
                response_format.get("schema"), dict
            ):
                schema = response_format["schema"]
        if schema is None:
            schema = find_schema_in_text(texts)
        call = ChatCall(model=model, texts=texts, schema=schema, tool=tool, body=body)
        return self._answer_chat(call), model

    def _embeddings(self, body: Any) -> Response:
        texts = body.get("input") if isinstance(body, dict) else None
        if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
            return Response(400, self._error_body(400, "input must be a list of strings"))
        with self._lock:
            vectors = [self._vectors.get(text) or hashed_vector(text) for text in texts]
        data = [
            {
                "object": "embedding",
                "embedding": vector,
                "index": index,
                "usage": {"prompt_tokens": max(1, len(text) // 4)},
            }
            for index, (text, vector) in enumerate(zip(texts, vectors, strict=True))
        ]
        return Response(200, {"object": "list", "data": data, "model": body.get("model")})

    @staticmethod
    def _function(body: Mapping[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
        choice = body.get("function_call")
        functions = [f for f in body.get("functions") or () if isinstance(f, dict)]
        name = choice.get("name") if isinstance(choice, dict) else None
        for function in functions:
            if function.get("name") == name:
                parameters = function.get("parameters")
                if not isinstance(parameters, dict):
                    return str(name), None
                # GigaChat's function format has no "required": a model fills every property.
                properties = parameters.get("properties") or {}
                return str(name), {**parameters, "required": list(properties)}
        return None, None

    # ------------------------------------------------------------------ rendering

    def _render(self, call: ChatCall, reply: Reply) -> Any:
        import json

        content = reply.content or ""
        message: dict[str, Any] = {"role": "assistant", "content": content}
        finish = "stop"
        if call.tool is not None and reply.kind == "json":
            message = {
                "role": "assistant",
                "content": "",
                "function_call": {"name": call.tool, "arguments": json.loads(content)},
                "functions_state_id": "00000000-0000-0000-0000-000000000000",
            }
            finish = "function_call"
        elif reply.kind == "tool_calls" and reply.calls:
            name, arguments, _ = reply.calls[0]
            message = {
                "role": "assistant",
                "content": reply.content or "",
                "function_call": {"name": name, "arguments": json.loads(arguments)},
            }
            finish = "function_call"
        prompt, completion = self.usage(call, content)
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "precached_prompt_tokens": 0,
        }
        usage.update(reply.usage or {})
        return {
            "choices": [{"message": message, "index": 0, "finish_reason": finish}],
            "created": int(time.time()),
            "model": call.model,
            "object": "chat.completion",
            "usage": usage,
        }

    def _error_body(self, status: int, message: str) -> Any:
        return {"status": status, "message": message}
