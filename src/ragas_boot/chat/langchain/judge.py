"""A judge on any LangChain chat model: a class named in YAML, GigaChat, or an instance.

:class:`LangChainJudge` asks a ``BaseChatModel`` for JSON the way its spec says:

- ``native``: the model's own ``with_structured_output`` (its default method) when the class
  has one (it overrides ``with_structured_output`` or ``bind_tools``), else ``prompt``;
- ``function_calling`` / ``json_schema`` / ``json_object``: ``with_structured_output`` with
  ``method="function_calling"`` / ``"json_schema"`` / ``"json_mode"`` (the schema also goes
  into the prompt for ``json_object``);
- ``prompt``: the schema in the prompt, a plain call.

Whatever the model's parser made of the answer, the judge reads the raw message (tool-call
arguments or text) and validates it itself, so that every judge fails the same way
(:class:`~ragas_boot.errors.JudgeOutputError` with the raw text) and reports its tokens.

Retries belong to the executor (``spring.ai.retry``): a class with a ``max_retries`` field gets
``max_retries=0`` unless the YAML sets it. Client errors become judge errors by what they carry
(a ``status_code``, a timeout, a refused connection), whatever the client library.
"""

from __future__ import annotations

import dataclasses
import json
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from ragas_boot.chat.answers import usage_of
from ragas_boot.chat.failures import await_translated, scrub
from ragas_boot.chat.judge import JudgeAnswer, ModelIdentity, TokenUsage
from ragas_boot.chat.langchain.errors import error_text, translate_client_error
from ragas_boot.chat.langchain.models import build_chat_model, provider_name_of, release_connections
from ragas_boot.chat.loops import PerLoop
from ragas_boot.chat.specs import JudgeSpec, LangChainSpec
from ragas_boot.chat.structured import (
    output_schema,
    parse_structured,
    prompt_text,
    schema_name,
)
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import JudgeOutputError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel, LanguageModelInput
    from langchain_core.runnables import Runnable

__all__ = ["LangChainJudge"]

OutputT = TypeVar("OutputT", bound=BaseModel)

#: What ``with_structured_output`` calls each mode.
_METHODS = {
    StructuredOutputMode.FUNCTION_CALLING: "function_calling",
    StructuredOutputMode.JSON_SCHEMA: "json_schema",
    StructuredOutputMode.JSON_OBJECT: "json_mode",
}


def _tool_schema(output_model: type[BaseModel]) -> dict[str, Any]:
    """The output schema as a tool definition every class takes (some need a description)."""
    schema = dict(output_schema(output_model))
    schema["title"] = schema_name(output_model)
    schema.setdefault(
        "description", (output_model.__doc__ or "").strip() or f"The answer, as {schema['title']}."
    )
    return schema


def _string_enums_only(schema: Any) -> Any:
    """``schema`` with every non-string ``enum`` moved into its description.

    GigaChat's function parameters take string enums only (its client rejects a rubric's
    ``enum: [1, 2, 3, 4, 5]`` before sending anything); the answer is still validated against
    the output model, so a level outside the list stays invalid output.
    """
    if isinstance(schema, list):
        return [_string_enums_only(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    fixed = {key: _string_enums_only(value) for key, value in schema.items()}
    values = fixed.get("enum")
    if isinstance(values, list) and not all(isinstance(value, str) for value in values):
        del fixed["enum"]
        listed = ", ".join(json.dumps(value, ensure_ascii=False) for value in values)
        description = str(fixed.get("description") or "").rstrip(".")
        fixed["description"] = (f"{description}. " if description else "") + f"One of: {listed}."
    return fixed


def _has_native_structured_output(model: BaseChatModel) -> bool:
    from langchain_core.language_models import BaseChatModel

    cls = type(model)
    return (
        cls.with_structured_output is not BaseChatModel.with_structured_output
        or cls.bind_tools is not BaseChatModel.bind_tools
    )


def _message_text(message: Any) -> str | None:
    content = getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
        ]
        return "".join(parts)
    return None


def _tool_arguments(message: Any) -> str | None:
    for call in getattr(message, "tool_calls", None) or ():
        return json.dumps(call.get("args", {}), ensure_ascii=False)
    function_call = (getattr(message, "additional_kwargs", None) or {}).get("function_call")
    if isinstance(function_call, dict):
        arguments = function_call.get("arguments")
        if isinstance(arguments, str):
            return arguments
        if arguments is not None:
            return json.dumps(arguments, ensure_ascii=False)
    return None


class LangChainJudge(ModelIdentity[LangChainSpec]):
    """One chat model of a LangChain class, used as a judge.

    Built from a spec whose ``langchain`` names the class (one instance per event loop, made
    on first use: a client bound to one loop is never used from another), or around a ready
    ``model`` instance (used as it is, from whichever loop calls it; the container calls it
    from its own loop only).

    Args:
        spec: the judge's settings (a plain :class:`~ragas_boot.chat.specs.JudgeSpec` with a
            ``model``).
        model: a ready chat model; ``None`` builds them from ``spec.langchain``.
    """

    #: The modes ``config check --ping`` tries on this judge.
    output_modes: tuple[StructuredOutputMode, ...] = (
        StructuredOutputMode.NATIVE,
        StructuredOutputMode.PROMPT,
        StructuredOutputMode.JSON_OBJECT,
        StructuredOutputMode.JSON_SCHEMA,
        StructuredOutputMode.FUNCTION_CALLING,
    )

    def __init__(self, *, spec: JudgeSpec, model: BaseChatModel | None = None) -> None:
        own = LangChainSpec.of(spec)
        if model is None and own.langchain is None:
            raise ValueError(f"judge '{own.id}' needs a chat model or spec.langchain")
        self._spec = own
        self._model = model
        self._models: PerLoop[BaseChatModel] = PerLoop(lambda: build_chat_model(own))

    def __repr__(self) -> str:
        what = (
            self._spec.langchain.class_path
            if self._spec.langchain is not None
            else type(self._model).__name__
        )
        return (
            f"LangChainJudge(id={self.id!r}, provider={self.provider!r}, "
            f"model={self._spec.model!r}, class={what!r})"
        )

    @property
    def endpoint(self) -> str:
        """The chat class (and its base URL, when one is configured)."""
        what = (
            self._spec.langchain.class_path
            if self._spec.langchain is not None
            else f"{type(self._model).__module__}.{type(self._model).__qualname__}"
        )
        return f"{what} at {self._spec.base_url}" if self._spec.base_url else what

    def with_output_mode(self, mode: StructuredOutputMode) -> LangChainJudge:
        """The same judge asking for JSON another way (its own clients: close it)."""
        return LangChainJudge(
            spec=dataclasses.replace(self._spec, structured_output=mode), model=self._model
        )

    def with_spec(self, spec: LangChainSpec) -> LangChainJudge:
        """This judge on ``spec``, a copy of its own with other sampling options (a model
        role's temperature, seed and max tokens; its own clients: close it). A chat model
        instance given in code keeps its own options."""
        return LangChainJudge(spec=spec, model=self._model)

    def prepare(self) -> None:
        """Build this loop's chat model now (importing its class on first use)."""
        self._current()

    def _current(self) -> BaseChatModel:
        if self._model is not None:
            return self._model
        return self._models.get()

    def _runnable(
        self, model: BaseChatModel, output_model: type[BaseModel]
    ) -> tuple[Runnable[LanguageModelInput, Any], bool, StructuredOutputMode]:
        """The runnable to call, whether it answers ``{"raw": ...}``, and the mode in effect."""
        mode = self._spec.structured_output
        if mode is StructuredOutputMode.NATIVE and not _has_native_structured_output(model):
            mode = StructuredOutputMode.PROMPT
        if mode is StructuredOutputMode.PROMPT:
            return model, False, mode
        kwargs: dict[str, Any] = {"include_raw": True}
        if mode in _METHODS:
            kwargs["method"] = _METHODS[mode]
        try:
            with warnings.catch_warnings():
                # Some classes deprecate a method name ("json_mode": GigaChat) that is our
                # stable mode, or fall back from it to another (Anthropic: json_schema).
                warnings.simplefilter("ignore", DeprecationWarning)
                warnings.simplefilter("ignore", UserWarning)
                schema = _tool_schema(output_model)
                if provider_name_of(model) == "gigachat":
                    schema = _string_enums_only(schema)
                return model.with_structured_output(schema, **kwargs), True, mode
        except (ValueError, TypeError, NotImplementedError) as error:
            raise JudgeOutputError(
                f"{type(model).__name__} does not take structured output '{mode.value}': "
                f"{error_text(error)}",
                judge_id=self.id,
                raw_text=None,
            ) from None

    async def ainvoke_structured(
        self, prompt: str, output_model: type[OutputT]
    ) -> JudgeAnswer[OutputT]:
        """Send one prompt as a single human message; return the validated answer.

        Raises:
            JudgeHTTPError: the provider answered with an error status.
            JudgeTimeoutError: no answer within the call timeout.
            JudgeConnectionError: the provider could not be reached.
            JudgeOutputError: empty, unparseable or schema-invalid answer (raw text kept), or
                a structured-output mode the class does not take.
        """
        from langchain_core.messages import HumanMessage

        runnable, wrapped, mode = self._runnable(self._current(), output_model)
        text = prompt_text(prompt, output_model, mode)
        started = time.perf_counter()
        result = await await_translated(
            runnable.ainvoke([HumanMessage(content=text)]),
            lambda error: translate_client_error(error, spec=self._spec),
        )
        latency = time.perf_counter() - started
        message = result.get("raw") if wrapped and isinstance(result, dict) else result
        raw = self._raw(message, mode)
        if raw is not None:
            raw = scrub(raw, self._spec)
        usage = usage_of(message) if message is not None else TokenUsage()
        try:
            value = parse_structured(raw, output_model, judge_id=self.id)
        except JudgeOutputError as error:
            error.usage = usage  # an invalid answer is billed all the same
            raise
        return JudgeAnswer(value=value, raw_text=raw or "", usage=usage, latency_s=latency)

    @staticmethod
    def _raw(message: Any, mode: StructuredOutputMode) -> str | None:
        readers: tuple[Callable[[Any], str | None], ...] = (
            (_tool_arguments, _message_text)
            if mode in (StructuredOutputMode.NATIVE, StructuredOutputMode.FUNCTION_CALLING)
            else (_message_text, _tool_arguments)
        )
        for read in readers:
            raw = read(message)
            if raw:
                return raw
        return None

    async def aclose(self) -> None:
        """Release the connections the judge's models opened (see
        :func:`~ragas_boot.chat.langchain.models.release_connections`).

        The models stay usable: a given model is its owner's, and may be called again.
        """
        if self._model is not None:
            await release_connections(self._model)
        await self._models.aclose(release_connections)
