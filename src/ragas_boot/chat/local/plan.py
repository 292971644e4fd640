"""What the embedded local model makes of a chat request, and how its answer is sent.

The request itself is read by :mod:`ragas_boot.chat.wire` (as on every server here); this
module holds what is particular to one llama.cpp model: the ids it answers to, text-only
messages flattened for the chat template, and the one schema the answer is constrained to:

- ``response_format`` ``json_schema`` or ``json_object`` with a schema: that schema;
  ``json_object`` (or ``json_schema``) without one: any JSON object;
- a forced function (named by ``tool_choice``, or ``"required"`` with one tool): its
  ``parameters``, and the answer is sent as a call of it;
- otherwise free text (``tools`` with ``"auto"`` or ``"none"`` are answered in text).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ragas_boot.chat.specs import JudgeSpec
from ragas_boot.chat.structured import format_instructions, structured_request_keys
from ragas_boot.chat.wire.openai import (
    ANY_OBJECT,
    ChatCompletionRequest,
    WireError,
    completion_body,
    parse_chat_request,
    unsupported,
)
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.samples.openai_chat import (
    AssistantMessage,
    FunctionCall,
    FunctionToolCall,
    TextPart,
)

__all__ = ["ChatPlan", "Generation", "completion_for", "judge_plan", "plan_chat"]


@dataclass(frozen=True, slots=True)
class ChatPlan:
    """What one chat-completion request asks the model to do.

    Attributes:
        model: the model id asked for (one the server serves).
        messages: the conversation as ``{"role", "content"}`` text messages.
        temperature: sampling temperature (0 = greedy).
        top_p: nucleus sampling.
        max_tokens: completion cap; ``None``: up to the context window.
        seed: sampling seed, or ``None`` for the server's.
        stop: stop sequences.
        frequency_penalty: OpenAI's frequency penalty.
        presence_penalty: OpenAI's presence penalty.
        schema: the JSON schema the answer is constrained to, or ``None``.
        json_only: whether the answer must be JSON (with ``schema`` or any object).
        tool_name: the forced function: the answer is sent as a call of it.
    """

    model: str
    messages: list[dict[str, str]]
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    schema: dict[str, Any] | None = None
    json_only: bool = False
    tool_name: str | None = None


@dataclass(frozen=True, slots=True)
class Generation:
    """What the model produced for one plan.

    Attributes:
        text: the generated text (JSON text when the plan constrains it).
        finish_reason: ``stop`` or ``length``.
        prompt_tokens: tokens of the formatted prompt.
        completion_tokens: tokens generated.
        started: ``time.monotonic()`` when the generation began (after any queueing).
        finished: ``time.monotonic()`` when it ended (before the next one could begin).
    """

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    started: float
    finished: float

    @property
    def seconds(self) -> float:
        """Wall time of the generation, queueing excluded."""
        return self.finished - self.started


def _messages(request: ChatCompletionRequest) -> list[dict[str, str]]:
    messages: list[dict[str, str]] = []
    for index, message in enumerate(request.messages):
        content = getattr(message, "content", None)
        for position, part in enumerate(content if isinstance(content, list) else ()):
            if not isinstance(part, TextPart):
                raise WireError(
                    400,
                    f"only text content parts are supported by the local model, not {part.type!r}",
                    param=f"messages[{index}].content[{position}]",
                )
        text = message.text
        for call in message.calls if isinstance(message, AssistantMessage) else ():
            # The conversation's earlier tool calls, written out so the model can read them.
            text += f"\n[tool call {call.name}: {call.arguments_text}]"
        role = "system" if message.role == "developer" else message.role
        messages.append({"role": role, "content": text.strip()})
    return messages


def plan_chat(request: ChatCompletionRequest, *, models: Collection[str]) -> ChatPlan:
    """What the local model is to do for ``request``.

    Raises:
        WireError: 404 for a model this server does not serve; 400 for what a local model
            cannot do (a stream, non-text content, ``"required"`` among several tools).
    """
    refusal = unsupported(request)
    if refusal is not None:
        raise refusal
    if request.model not in models:
        raise WireError(
            404,
            f"The model '{request.model}' does not exist; this server serves: {', '.join(models)}",
            param="model",
            code="model_not_found",
        )
    messages = _messages(request)
    tool = request.forced_tool
    if tool is None and request.tool_mode == "required":
        raise WireError(
            400,
            "tool_choice 'required' needs exactly one tool here; name the function instead",
            param="tool_choice",
        )
    json_only = request.json_only
    schema = request.answer_schema
    if json_only and schema is None:
        schema = dict(ANY_OBJECT)
    return ChatPlan(
        model=request.model,
        messages=messages,
        temperature=1.0 if request.temperature is None else request.temperature,
        top_p=1.0 if request.top_p is None else request.top_p,
        max_tokens=request.max_tokens,
        seed=request.seed,
        stop=request.stop,
        frequency_penalty=request.frequency_penalty or 0.0,
        presence_penalty=request.presence_penalty or 0.0,
        schema=schema,
        json_only=json_only,
        tool_name=tool.name if tool is not None else None,
    )


def completion_for(plan: ChatPlan, generation: Generation) -> dict[str, Any]:
    """The ``chat.completion`` body answering ``plan``: a call of the forced tool, or text."""
    calls: list[FunctionToolCall] = []
    content: str | None = generation.text
    if plan.tool_name is not None:
        function = FunctionCall(name=plan.tool_name, arguments=generation.text)
        calls = [FunctionToolCall(id=f"call_{uuid.uuid4().hex[:24]}", function=function)]
        content = None
    return completion_body(
        completion_id=f"chatcmpl-{uuid.uuid4().hex}",
        created=int(time.time()),
        model=plan.model,
        content=content,
        tool_calls=calls,
        finish_reason=generation.finish_reason,
        prompt_tokens=generation.prompt_tokens,
        completion_tokens=generation.completion_tokens,
    )


def judge_plan(spec: JudgeSpec, prompt: str, output_model: type[BaseModel]) -> ChatPlan:
    """What a judge call asks the local model, in process: the plan :func:`plan_chat` makes
    of the request an OpenAI-compatible judge sends for it (the same message, the same
    :func:`~ragas_boot.chat.structured.structured_request_keys`), so a judge gets the same
    answer in process as over HTTP.

    ``prompt`` and ``json_object`` modes put the schema in the prompt (``json_object`` with
    ``json-object-schema`` also constrains to it); ``json_schema`` and ``function_calling``
    constrain to it (the answer of a forced function is its arguments' text).
    """
    text = prompt
    if spec.structured_output in (StructuredOutputMode.PROMPT, StructuredOutputMode.JSON_OBJECT):
        text = prompt + format_instructions(output_model)
    request = {
        "model": spec.model,
        "messages": [{"role": "user", "content": text}],
        "temperature": spec.temperature,
        "top_p": spec.top_p,
        "max_completion_tokens": spec.max_tokens,
        **({"seed": spec.seed} if spec.seed is not None else {}),
        **structured_request_keys(spec.structured_output, output_model),
    }
    return plan_chat(parse_chat_request(request), models=(spec.model,))
