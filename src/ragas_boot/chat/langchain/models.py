"""The LangChain chat class a judge runs on: found without importing it (a missing package
fails the configuration, naming the pip command), built with our limits, named as a
provider, and its connections released when the judge closes."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr, ValidationError

from ragas_boot.chat.failures import scrub
from ragas_boot.chat.specs import LangChainSpec
from ragas_boot.errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["build_chat_model", "check_chat_class", "provider_name_of", "release_connections"]

#: Option → the constructor arguments that take it, first match wins.
_OPTION_ARGUMENTS = {
    "temperature": ("temperature",),
    "top_p": ("top_p",),
    "max_tokens": ("max_tokens", "max_output_tokens", "num_predict", "max_new_tokens"),
    "seed": ("seed",),
}
_TIMEOUT_ARGUMENTS = ("timeout", "request_timeout", "default_request_timeout")
_TIMEOUT_ARGUMENTS = ("timeout", "request_timeout", "default_request_timeout")


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


def build_chat_model(spec: LangChainSpec) -> BaseChatModel:
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
        message = scrub(str(error), spec)
        raise ConfigError(
            f"{langchain.class_path} refused its arguments for judge '{spec.id}': {message}"
        ) from None


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


async def release_connections(model: Any) -> None:
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
