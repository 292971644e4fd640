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

import contextlib
import dataclasses
import importlib
import importlib.util
import json
import time
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, SecretStr, ValidationError

from ragas_boot.chat.judge import JudgeAnswer, JudgeSpec, TokenUsage
from ragas_boot.chat.openai_calls import (
    PerLoop,
    await_translated,
    body_usage,
    retry_after_seconds,
    scrub_secret,
    translate_error,
    usage_of,
)
from ragas_boot.chat.structured import (
    output_schema,
    parse_structured,
    prompt_text,
    schema_name,
)
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import (
    ConfigError,
    JudgeConnectionError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
    MissingExtraError,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel, LanguageModelInput
    from langchain_core.runnables import Runnable

    from ragas_boot.chat.embeddings import EmbeddingSpec

__all__ = [
    "LangChainJudge",
    "build_chat_model",
    "check_chat_class",
    "provider_name_of",
    "translate_client_error",
]

OutputT = TypeVar("OutputT", bound=BaseModel)

#: What ``with_structured_output`` calls each mode.
_METHODS = {
    StructuredOutputMode.FUNCTION_CALLING: "function_calling",
    StructuredOutputMode.JSON_SCHEMA: "json_schema",
    StructuredOutputMode.JSON_OBJECT: "json_mode",
}
#: Option → the constructor arguments that take it, first match wins.
_OPTION_ARGUMENTS = {
    "temperature": ("temperature",),
    "top_p": ("top_p",),
    "max_tokens": ("max_tokens", "max_output_tokens", "num_predict", "max_new_tokens"),
    "seed": ("seed",),
}
_TIMEOUT_ARGUMENTS = ("timeout", "request_timeout", "default_request_timeout")
_MAX_ECHO = 300
#: Errors that are bugs, not a provider's failure to answer.
_PROGRAMMING_ERRORS = (AttributeError, NameError, ImportError, NotImplementedError, AssertionError)


def provider_name_of(model: object) -> str:
    """A provider name for a chat model registered in code, from its class (as Java does).

    ``GigaChat`` → ``gigachat``; ``ChatAnthropic`` → ``anthropic``; ``ChatOllama`` →
    ``ollama``; ``ChatVertexAI``/Gemini → ``vertex``; else the lower-case class name without
    ``chat`` and ``model``.
    """
    name = type(model).__name__.lower()
    for needle, provider in (
        ("gigachat", "gigachat"),
        ("anthropic", "anthropic"),
        ("claude", "anthropic"),
        ("ollama", "ollama"),
        ("vertex", "vertex"),
        ("gemini", "vertex"),
    ):
        if needle in name:
            return provider
    stripped = name.replace("chatmodel", "").replace("model", "").replace("chat", "")
    return stripped or name


def _split_path(class_path: str) -> tuple[str, str]:
    module, _, attribute = class_path.rpartition(".")
    return module, attribute


def check_chat_class(class_path: str, *, key: str, extra: str | None = None) -> None:
    """Check, without importing it, that the package of ``class_path`` is installed.

    Raises:
        MissingExtraError: it is not, and ``extra`` names the ragas-boot extra that installs it.
        ConfigError: it is not (names ``key`` and the package to install).
    """
    package = _split_path(class_path)[0].split(".")[0]
    if importlib.util.find_spec(package) is not None:
        return
    distribution = package.replace("_", "-")
    if extra is not None:
        raise MissingExtraError(f"the judge class {class_path}", extra, distribution)
    raise ConfigError(
        f"the chat class {class_path} cannot be imported: package '{package}' is not installed",
        key=key,
        hint=f"Install it (pip install {distribution}) or fix the class path",
    )


def _chat_class(class_path: str) -> type[BaseChatModel]:
    from langchain_core.language_models import BaseChatModel

    module_name, attribute = _split_path(class_path)
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, attribute)
    except (ImportError, AttributeError) as error:
        raise ConfigError(f"cannot import the chat class {class_path}: {error}") from None
    if not (isinstance(cls, type) and issubclass(cls, BaseChatModel)):
        raise ConfigError(f"{class_path} is not a LangChain chat model (a BaseChatModel subclass)")
    return cls


def _argument_names(cls: type[BaseChatModel]) -> set[str]:
    names: set[str] = set()
    for name, info in cls.model_fields.items():
        names.add(name)
        if info.alias:
            names.add(info.alias)
    return names


def _plain(value: Any) -> Any:
    return value.get_secret_value() if isinstance(value, SecretStr) else value


def build_chat_model(spec: JudgeSpec) -> BaseChatModel:
    """A new instance of the spec's chat class, with its model id, options and our limits.

    The model id goes into ``model_argument``; ``temperature``, ``top_p`` and ``max_tokens``
    into the first argument of the class that takes them (``max_tokens`` is ``num_predict``
    for Ollama); retries are turned off (``max_retries=0``) and the call timeout set where the
    class has such fields and the YAML does not set them.

    Raises:
        ConfigError: the class cannot be imported, is not a chat model, or refuses the arguments.
    """
    langchain = spec.langchain
    if langchain is None:
        raise ValueError(f"judge '{spec.id}' has no LangChain class to build")
    cls = _chat_class(langchain.class_path)
    accepted = _argument_names(cls)
    arguments = {name: _plain(value) for name, value in langchain.arguments}
    arguments.setdefault(langchain.model_argument, spec.model)
    options = {"temperature": spec.temperature, "top_p": spec.top_p, "max_tokens": spec.max_tokens}
    if spec.seed is not None:
        options["seed"] = spec.seed
    for option, value in options.items():
        candidates = [name for name in _OPTION_ARGUMENTS[option] if name in accepted]
        if candidates and not any(name in arguments for name in candidates):
            arguments[candidates[0]] = value
    if "max_retries" in accepted and "max_retries" not in arguments:
        arguments["max_retries"] = 0
    seconds = spec.limits.call_timeout.total_seconds() or None
    timeout_names = [name for name in _TIMEOUT_ARGUMENTS if name in accepted]
    if timeout_names and not any(name in arguments for name in timeout_names):
        arguments[timeout_names[0]] = seconds
    elif not timeout_names and "client_kwargs" in accepted:  # Ollama: httpx client arguments
        arguments["client_kwargs"] = {"timeout": seconds, **(arguments.get("client_kwargs") or {})}
    if "max_connections" in accepted and "max_connections" not in arguments:
        arguments["max_connections"] = spec.limits.max_concurrency + 8
    try:
        return cls(**arguments)
    except (ValidationError, TypeError, ValueError) as error:
        message = scrub_secrets(str(error), spec)
        raise ConfigError(
            f"{langchain.class_path} refused its arguments for judge '{spec.id}': {message}"
        ) from None


def scrub_secrets(text: str, spec: JudgeSpec | EmbeddingSpec) -> str:
    """``text`` with the spec's API key and secret class arguments masked."""
    text = scrub_secret(text, spec)
    if spec.langchain is not None:
        for _, value in spec.langchain.arguments:
            if isinstance(value, SecretStr):
                secret = value.get_secret_value()
                if len(secret) >= 4:
                    text = text.replace(secret, "**********")
    return text


def _causes(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _error_text(error: BaseException) -> str:
    content = getattr(error, "content", None)
    if isinstance(content, bytes):
        text = content.decode("utf-8", "replace")
    else:
        text = str(getattr(error, "message", None) or getattr(error, "error", None) or error)
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ECHO else text[:_MAX_ECHO] + "…"


def _headers_of(error: BaseException) -> Any:
    headers = getattr(error, "headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    return headers


def _error_body(error: BaseException) -> object:
    """The JSON body an HTTP error of a chat client carries, if it can be read: ``body``
    (anthropic, openai), ``content`` bytes (gigachat), or the ``response`` itself."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        return body
    content = getattr(error, "content", None)
    if not isinstance(content, bytes | str):
        response = getattr(error, "response", None)
        content = getattr(response, "content", None)
    if isinstance(content, bytes | str) and content:
        try:
            return json.loads(content)
        except ValueError:  # not JSON (UnicodeDecodeError too): nothing to bill
            return None
    return None


def translate_client_error(
    error: BaseException, *, spec: JudgeSpec | EmbeddingSpec
) -> BaseException:
    """Any chat client's error as the judge error the retry policy understands.

    OpenAI-client errors go through :func:`~ragas_boot.chat.openai_calls.translate_error`;
    otherwise the error (or one of its causes) is read for what it carries: an HTTP
    ``status_code`` (with its ``Retry-After``), a timeout, a refused or dropped connection.
    Anything else from the client (a body it could not read) is this judge's failure to
    answer; programming errors are returned unchanged. Messages are scrubbed of secrets.
    """
    if isinstance(error, JudgeError):
        return error
    translated = translate_error(error, spec=spec)
    if translated is not error:
        return translated
    for cause in _causes(error):
        status = getattr(cause, "status_code", None)
        if isinstance(status, int) and 400 <= status <= 599:
            headers = _headers_of(cause)
            retry_after = None
            if headers is not None and hasattr(headers, "get"):
                retry_after = retry_after_seconds(headers.get("retry-after"))
            translated = JudgeHTTPError(
                scrub_secrets(f"HTTP {status}: {_error_text(cause)}", spec),
                judge_id=spec.id,
                status_code=status,
                retry_after=retry_after,
            )
            # As on the OpenAI-compatible transports: a provider that bills a failed
            # completion says so in the error body, and that is billed.
            translated.usage = body_usage(_error_body(cause))
            return translated
        name = type(cause).__name__
        if isinstance(cause, TimeoutError) or "Timeout" in name:
            return JudgeTimeoutError(
                f"no answer within {spec.limits.call_timeout.total_seconds():g}s",
                judge_id=spec.id,
            )
        if (
            isinstance(cause, ConnectionError)
            or "Connect" in name
            or name in ("RemoteProtocolError", "ReadError", "WriteError", "NetworkError")
        ):
            return JudgeConnectionError(
                scrub_secrets(f"connection failed: {_error_text(cause)}", spec), judge_id=spec.id
            )
    if isinstance(error, _PROGRAMMING_ERRORS):
        return error
    return JudgeOutputError(
        scrub_secrets(f"malformed response ({type(error).__name__}: {_error_text(error)})", spec),
        judge_id=spec.id,
        raw_text=None,
    )


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


def _is_async_httpx_client(obj: Any) -> bool:
    # httpx's, or a fork of it with the same shape (the anthropic SDK ships on "httpx2").
    return hasattr(obj, "_transport") and any(
        cls.__name__ == "AsyncClient" and cls.__module__.split(".")[0].startswith("httpx")
        for cls in type(obj).__mro__
    )


def _async_http_clients(obj: Any, depth: int, seen: set[int]) -> Iterator[Any]:
    """The httpx ``AsyncClient`` objects a chat model holds, through its ``*client*`` fields."""
    if depth < 0 or id(obj) in seen:
        return
    seen.add(id(obj))
    if _is_async_httpx_client(obj):
        yield obj
        return
    fields = dict(getattr(obj, "__dict__", None) or {})
    fields.update(getattr(obj, "__pydantic_private__", None) or {})
    for name, value in fields.items():
        if value is not None and "client" in name.lower():
            yield from _async_http_clients(value, depth - 1, seen)


async def _release_connections(model: Any) -> None:
    """Close the pooled connections a chat model opened on the running loop.

    Connections belong to the loop they were opened on, which may end before the model does
    (the container's loop ends with the container). Closing the connection pools, not the
    clients, releases them and leaves every client usable: a client that langchain-anthropic
    shares between models, or a model registered in code that its owner uses afterwards,
    just opens new connections. Clients that are not httpx's are left as they are.
    """
    for client in _async_http_clients(model, depth=4, seen=set()):
        transports = [client._transport, *client._mounts.values()]  # httpx keeps no public handle
        for transport in transports:
            if transport is not None:
                with contextlib.suppress(Exception):  # closing is best effort
                    await transport.aclose()


class LangChainJudge:
    """One chat model of a LangChain class, used as a judge.

    Built from a spec whose ``langchain`` names the class (one instance per event loop, made
    on first use: a client bound to one loop is never used from another), or around a ready
    ``model`` instance (used as it is, from whichever loop calls it; the container calls it
    from its own loop only).

    Args:
        spec: the judge's settings.
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
        if model is None and spec.langchain is None:
            raise ValueError(f"judge '{spec.id}' needs a chat model or spec.langchain")
        self._spec = spec
        self._model = model
        self._models: PerLoop[BaseChatModel] = PerLoop(lambda: build_chat_model(spec))

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
    def id(self) -> str:
        """Judge id."""
        return self._spec.id

    @property
    def provider(self) -> str:
        """Provider name."""
        return self._spec.provider

    @property
    def spec(self) -> JudgeSpec:
        """The judge's settings."""
        return self._spec

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

    def with_spec(self, spec: JudgeSpec) -> LangChainJudge:
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
                f"{_error_text(error)}",
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
            raw = scrub_secrets(raw, self._spec)
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
        """Release the connections the judge's models opened (see ``_release_connections``).

        The models stay usable: a given model is its owner's, and may be called again.
        """
        if self._model is not None:
            await _release_connections(self._model)
        await self._models.aclose(_release_connections)
