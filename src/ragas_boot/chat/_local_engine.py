"""One GGUF model loaded with llama.cpp, answering one :class:`ChatPlan` at a time.

``llama_cpp`` is imported here only, when a model is loaded: importing it loads the native
library, which ``ragas-boot --help`` and runs without a local judge never need.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ragas_boot.chat._local_plan import ChatPlan, Generation
from ragas_boot.chat.judge import LocalModelSpec
from ragas_boot.chat.wire.framing import WireError

if TYPE_CHECKING:
    from llama_cpp.llama_grammar import LlamaGrammar

__all__ = ["LlamaEngine", "bound_schema", "default_threads"]

log = logging.getLogger(__name__)

_GRAMMAR_CACHE_SIZE: Final = 64
#: Keys whose values map names to schemas.
_SCHEMA_MAPS: Final = ("properties", "patternProperties", "$defs", "definitions")
#: Keys whose values are a schema or a list of schemas.
_SUBSCHEMA_KEYS: Final = (
    "items",
    "prefixItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
)

#: A string schema with one of these is already bounded (or not free text).
_BOUNDED_STRING_KEYS: Final = ("maxLength", "enum", "const", "pattern", "format")


def default_threads() -> int:
    """Half the logical CPUs (at least 1): the physical cores on most machines.

    llama.cpp's threads wait for each other at every step; with more threads than free cores
    (hyper-threads, or other processes busy) a generation slows down many times over.
    """
    return max(1, (os.cpu_count() or 2) // 2)


def bound_schema(schema: Any, *, max_string_length: int, max_array_items: int) -> Any:
    """``schema`` with a ``maxLength`` on every free-text string and a ``maxItems`` on every
    array that has none (a limit of 0 leaves that kind alone).

    A small model can loop inside a JSON string, or repeat one array item, until ``max_tokens``
    runs out; with the bounds, the grammar closes the string or the array and the answer stays
    valid JSON. Strings with an ``enum``, ``const``, ``pattern`` or ``format`` are left alone.
    """
    if isinstance(schema, list):
        return [
            bound_schema(item, max_string_length=max_string_length, max_array_items=max_array_items)
            for item in schema
        ]
    if not isinstance(schema, dict):
        return schema

    def sub(value: Any) -> Any:
        return bound_schema(
            value, max_string_length=max_string_length, max_array_items=max_array_items
        )

    bounded: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            bounded[key] = {name: sub(item) for name, item in value.items()}
        elif key in _SUBSCHEMA_KEYS:
            bounded[key] = sub(value)
        else:
            bounded[key] = value
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if (
        max_string_length
        and "string" in kinds
        and not any(key in schema for key in _BOUNDED_STRING_KEYS)
    ):
        bounded["maxLength"] = max_string_length
    if max_array_items and "array" in kinds and "maxItems" not in schema:
        bounded["maxItems"] = max(max_array_items, schema.get("minItems", 0))
    return bounded


class LlamaEngine:
    """A loaded model; :meth:`generate` runs one generation at a time (a llama.cpp context is
    not re-entrant), the others wait on a lock.

    Every request is evaluated from an empty context (no prompt cache), so an answer depends
    only on its request, never on the requests before it: at temperature 0 the same request
    gets the same answer, whatever ran in between.

    Args:
        spec: the model to load.
        stopping: once set (server shutdown), waiting requests are refused with 503; a
            running generation finishes first (it is capped by its ``max_tokens``).
    """

    def __init__(self, *, spec: LocalModelSpec, stopping: threading.Event) -> None:
        from llama_cpp import Llama

        threads = spec.n_threads or default_threads()
        started = time.perf_counter()
        try:
            # Any: llama-cpp-python's API is only partly annotated.
            self._llm: Any = Llama(
                model_path=str(spec.model_path),
                n_ctx=spec.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                seed=spec.seed,
                chat_format=spec.chat_format,
                verbose=False,
            )
        except ValueError as error:
            raise RuntimeError(f"llama.cpp could not load {spec.model_path}: {error}") from error
        self.load_s = time.perf_counter() - started
        self._spec = spec
        self._stopping = stopping
        self._lock = threading.Lock()
        self._grammars: OrderedDict[str, LlamaGrammar] = OrderedDict()
        self._active = 0
        self.peak_active = 0
        log.info("loaded %s in %.2fs (%d threads)", spec.model_path.name, self.load_s, threads)

    def _grammar(self, schema: dict[str, Any]) -> LlamaGrammar:
        from llama_cpp.llama_grammar import LlamaGrammar

        schema = bound_schema(
            schema,
            max_string_length=self._spec.max_string_length,
            max_array_items=self._spec.max_array_items,
        )
        # Property order is kept: the grammar writes the keys in the schema's order.
        text = json.dumps(schema, ensure_ascii=False)
        grammar = self._grammars.get(text)
        if grammar is not None:
            self._grammars.move_to_end(text)
            return grammar
        try:
            grammar = LlamaGrammar.from_json_schema(text, verbose=False)
        except Exception as error:  # the converter raises plain errors on unsupported schemas
            raise WireError(
                400,
                f"the JSON schema cannot be turned into a grammar: {error}",
                param="response_format",
            ) from error
        self._grammars[text] = grammar
        if len(self._grammars) > _GRAMMAR_CACHE_SIZE:
            self._grammars.popitem(last=False)
        return grammar

    def generate(
        self, plan: ChatPlan, *, abandoned: Callable[[], bool] | None = None
    ) -> Generation:
        """Run ``plan``; blocks while another generation runs.

        Args:
            plan: what to generate.
            abandoned: checked when the plan's turn comes; if it says the client has gone,
                nothing is generated (499).

        Raises:
            WireError: the schema has no grammar, the prompt does not fit the context,
                the server is stopping (503) or the client has gone (499).
        """
        with self._lock:
            if self._stopping.is_set():
                raise WireError(503, "the local model server is stopping")
            if abandoned is not None and abandoned():
                raise WireError(499, "the client closed the connection while queued")
            grammar = self._grammar(plan.schema) if plan.schema is not None else None
            self._active += 1
            self.peak_active = max(self.peak_active, self._active)
            started = time.monotonic()
            try:
                result = self._complete(plan, grammar)
            finally:
                self._active -= 1
            finished = time.monotonic()
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        return Generation(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason") or "stop",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            started=started,
            finished=finished,
        )

    def _complete(self, plan: ChatPlan, grammar: LlamaGrammar | None) -> Any:
        self._llm.reset()  # no prompt cache: the answer depends on this request alone
        try:
            return self._llm.create_chat_completion(
                messages=plan.messages,
                temperature=plan.temperature,
                top_p=plan.top_p,
                max_tokens=plan.max_tokens,
                seed=self._spec.seed if plan.seed is None else plan.seed,
                stop=list(plan.stop),
                frequency_penalty=plan.frequency_penalty,
                presence_penalty=plan.presence_penalty,
                grammar=grammar,
            )
        except ValueError as error:
            if "context window" in str(error):
                raise WireError(
                    400,
                    f"{error}; shorten the prompt or raise n-ctx",
                    param="messages",
                    code="context_length_exceeded",
                ) from error
            raise

    def close(self) -> None:
        """Free the model (waits for a running generation)."""
        with self._lock:
            self._llm.close()
