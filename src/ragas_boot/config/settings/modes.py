"""The modes a config chooses from, as enums that read any case (``WAIT``, ``wait``)."""

from __future__ import annotations

from typing import Any, Literal

from ragas_boot._enums import CaseInsensitiveEnum

__all__ = [
    "Aggregation",
    "Language",
    "LocalDecoder",
    "LoggingLevel",
    "QuorumFailure",
    "RateLimitStrategy",
    "StructuredOutputMode",
    "Transport",
]


class RateLimitStrategy(CaseInsensitiveEnum):
    """What to do when a provider's rate limit has no token left."""

    WAIT = "WAIT"
    """Wait for a token (at most ``timeout``; zero means forever)."""
    REJECT = "REJECT"
    """Fail the call at once; the judge is excluded for that step."""


class LocalDecoder(CaseInsensitiveEnum):
    """How the embedded local judge keeps a greedy answer inside its JSON schema."""

    LLGUIDANCE = "llguidance"
    """llguidance (what llama.cpp's ``LLAMA_LLGUIDANCE`` build uses): text the schema forces
    (keys, constants, brackets) is read in one batch and tokenized canonically; compact JSON."""
    GRAMMAR = "grammar"
    """llama.cpp's GBNF grammar from llama-cpp-python's converter, every token generated; the
    answers ragas-boot 0.x gave before the llguidance decoder, token for token."""


class StructuredOutputMode(CaseInsensitiveEnum):
    """How a judge is asked for JSON."""

    PROMPT = "prompt"
    """The JSON schema is written into the prompt; works with every OpenAI-compatible server."""
    JSON_SCHEMA = "json_schema"
    """``response_format: {type: json_schema}`` (OpenAI, OpenRouter, the embedded local judge)."""
    FUNCTION_CALLING = "function_calling"
    """The schema is sent as the only tool and the tool call's arguments are the answer."""
    JSON_OBJECT = "json_object"
    """``response_format: {type: json_object}`` with the schema in the prompt (and beside the
    type, unless ``json-object-schema: false``): llama-cpp-python's server, older vLLM, Ollama."""
    NATIVE = "native"
    """LangChain and GigaChat judges only: the chat class's own ``with_structured_output``
    with its default method."""


class Transport(CaseInsensitiveEnum):
    """How an OpenAI-compatible judge sends its calls."""

    DIRECT = "direct"
    """An aiohttp session with pre-serialised requests and orjson: about a third of the
    client CPU per call of the openai client on aiohttp (benchmarks/README.md)."""
    LANGCHAIN = "langchain"
    """langchain-openai's ``ChatOpenAI`` on openai's aiohttp transport. Both transports take
    proxies from the environment, decode compressed answers, verify TLS the same way and
    report redirects instead of following them (docs/providers.md)."""
    BATCH = "batch"
    """The provider's batch API (``/v1/files``, ``/v1/batches``): every call ready at one
    moment of a run goes into one batch file per model, answered within the provider's
    window (usually at half the price); see ``providers.batch``."""


class Aggregation(CaseInsensitiveEnum):
    """How the judges' scores become one score."""

    AVERAGE = "AVERAGE"
    MEDIAN = "MEDIAN"
    MIN = "MIN"
    MAX = "MAX"
    MAJORITY_VOTING = "MAJORITY_VOTING"
    CONSENSUS = "CONSENSUS"


class QuorumFailure(CaseInsensitiveEnum):
    """What a gate makes of an evaluation that lacks its quorum of answering judges."""

    FAIL = "FAIL"
    """It counts as not passed: the gate fails (the default)."""
    SKIP = "SKIP"
    """It is left out of the gate, like any undefined score."""


class LoggingLevel(CaseInsensitiveEnum):
    """Detail of the logging listener's summary box."""

    MINIMAL = "MINIMAL"
    NORMAL = "NORMAL"
    VERBOSE = "VERBOSE"


Language = Literal["en", "ru"]


def _lower_language(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value
