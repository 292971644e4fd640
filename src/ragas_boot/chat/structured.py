"""Asking a judge for JSON and reading its answer back into a pydantic model.

How each structured-output mode asks (the schema in the prompt, ``response_format``, a forced
tool: :func:`structured_request_keys`) is the same whichever transport sends the request or
whether the local model plans it in process; how an answer is read back
(:func:`parse_structured`) is the same for every judge.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ragas_boot._loading import DATASET_LIMITS, LoadLimitError, check_json_depth
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import JudgeOutputError

__all__ = [
    "MAX_CACHED_OUTPUT_MODELS",
    "REQUEST_MODES",
    "SCHEMA_IN_PROMPT",
    "format_instructions",
    "output_schema",
    "parse_structured",
    "prompt_text",
    "schema_name",
    "structured_request_keys",
]

OutputT = TypeVar("OutputT", bound=BaseModel)

#: Output models whose request keys a judge keeps ready per loop (bound runnables, serialised
#: tails): metrics with per-sample output models (topic classification) must not grow these
#: caches without end.
MAX_CACHED_OUTPUT_MODELS = 256

#: The modes a chat-completions request can carry (``native`` needs a LangChain chat class):
#: what OpenAI-compatible and local judges take, and ``config check --ping`` tries on them.
REQUEST_MODES: tuple[StructuredOutputMode, ...] = (
    StructuredOutputMode.PROMPT,
    StructuredOutputMode.JSON_OBJECT,
    StructuredOutputMode.JSON_SCHEMA,
    StructuredOutputMode.FUNCTION_CALLING,
)

_FENCE_RE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_MAX_ECHO = 200


@lru_cache(maxsize=256)
def output_schema(output_model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of an output model (cached: building it costs more than a call's CPU)."""
    return output_model.model_json_schema()


@lru_cache(maxsize=256)
def _schema_text(output_model: type[BaseModel]) -> str:
    return json.dumps(output_schema(output_model), ensure_ascii=False, indent=2)


def schema_name(output_model: type[BaseModel]) -> str:
    """A function/schema name OpenAI accepts (``[a-zA-Z0-9_-]{1,64}``)."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", output_model.__name__)[:64] or "answer"


@lru_cache(maxsize=256)
def format_instructions(output_model: type[BaseModel]) -> str:
    """The block appended to a prompt in ``prompt`` mode: answer with JSON fitting the schema."""
    return (
        "\n\nYour response should be in JSON format.\n"
        "Do not include any explanations, only provide a RFC8259 compliant JSON response "
        "following this format without deviation.\n"
        "Do not include markdown code blocks in your response.\n"
        "Here is the JSON Schema instance your output must adhere to:\n"
        f"```\n{_schema_text(output_model)}\n```\n"
    )


#: The structured-output modes whose prompt carries the format block (the schema in it);
#: the others send the schema beside the prompt (``response_format``, a tool).
SCHEMA_IN_PROMPT = frozenset({StructuredOutputMode.PROMPT, StructuredOutputMode.JSON_OBJECT})


def prompt_text(prompt: str, output_model: type[BaseModel], mode: StructuredOutputMode) -> str:
    """The text a judge is sent for ``prompt`` in ``mode``: with :func:`format_instructions`
    appended in the :data:`SCHEMA_IN_PROMPT` modes, else the prompt alone."""
    return prompt + format_instructions(output_model) if mode in SCHEMA_IN_PROMPT else prompt


def _strip_fences(text: str) -> str:
    match = _FENCE_RE.match(text)
    return match.group(1).strip() if match else text.strip()


def _outermost_object(text: str) -> str | None:
    start = text.find("{")
    end = text.rfind("}")
    if start == -1 or end <= start:
        return None
    return text[start : end + 1]


def _echo(text: str) -> str:
    return text if len(text) <= _MAX_ECHO else text[:_MAX_ECHO] + "…"


def parse_structured(
    raw_text: str | None, output_model: type[OutputT], *, judge_id: str
) -> OutputT:
    """Validate a judge's raw answer as ``output_model``.

    One surrounding code fence is stripped; if the text still is not JSON, the outermost
    ``{...}`` is tried (small models often write a sentence before the object).

    Raises:
        JudgeOutputError: empty, unparseable or schema-invalid; carries the raw text.
    """
    if raw_text is None or not raw_text.strip():
        raise JudgeOutputError("empty response", judge_id=judge_id, raw_text=raw_text)
    text = _strip_fences(raw_text)
    try:
        check_json_depth(text, DATASET_LIMITS.max_depth)
    except LoadLimitError as error:
        raise JudgeOutputError(
            f"response refused: {error}", judge_id=judge_id, raw_text=raw_text
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as first_error:
        candidate = _outermost_object(text)
        try:
            if candidate is None:
                raise first_error
            data = json.loads(candidate)
        except json.JSONDecodeError:
            raise JudgeOutputError(
                f"response is not JSON ({first_error.msg} at char {first_error.pos}): "
                f"{_echo(raw_text)!r}",
                judge_id=judge_id,
                raw_text=raw_text,
            ) from None
    try:
        return output_model.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc']) or '<root>'}: {item['msg']}"
            for item in error.errors()[:5]
        )
        raise JudgeOutputError(
            f"response does not fit {output_model.__name__} ({problems}): {_echo(raw_text)!r}",
            judge_id=judge_id,
            raw_text=raw_text,
        ) from None


def structured_request_keys(
    mode: StructuredOutputMode, output_model: type[BaseModel], *, json_object_schema: bool = True
) -> dict[str, Any]:
    """The chat-request keys of a structured-output ``mode`` (``response_format``, or
    ``tools`` and ``tool_choice``); none for ``prompt`` mode. Both transports send these, and
    the local judge plans its calls from them.

    Args:
        mode: how JSON is asked for.
        output_model: the answer's model (its schema goes in the keys).
        json_object_schema: in ``json_object`` mode, send the schema beside the type too.
    """
    if mode is StructuredOutputMode.JSON_OBJECT:
        response_format: dict[str, Any] = {"type": "json_object"}
        if json_object_schema:
            # llama-cpp-python's server and vLLM constrain decoding to it; the schema is in
            # the prompt as well for servers that only take the type.
            response_format["schema"] = output_schema(output_model)
        return {"response_format": response_format}
    if mode is StructuredOutputMode.JSON_SCHEMA:
        json_schema = {
            "name": schema_name(output_model),
            "schema": output_schema(output_model),
            "strict": False,
        }
        return {"response_format": {"type": "json_schema", "json_schema": json_schema}}
    if mode is StructuredOutputMode.FUNCTION_CALLING:
        name = schema_name(output_model)
        function = {
            "name": name,
            "description": output_model.__doc__ or name,
            "parameters": output_schema(output_model),
        }
        return {
            "tools": [{"type": "function", "function": function}],
            "tool_choice": {"type": "function", "function": {"name": name}},
        }
    return {}
