"""How a greedy answer under a JSON schema picks each token: the decoders the engine's loop
drives (:class:`GuidedDecoder` with llguidance, the default; :class:`GreedyGrammar` with
llama.cpp's grammar), the schema they are given (strings and arrays bounded, objects closed),
and the checks of an answer that loops.

``llama_cpp``, ``llguidance`` and numpy are imported inside the functions: only when a model
is loaded.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

__all__ = [
    "LOOP_MIN_TOKENS",
    "GreedyDecoder",
    "GreedyGrammar",
    "GuidedDecoder",
    "bound_schema",
    "closed_objects",
    "closing_tokens",
    "looping",
    "token_data_scratch",
]

#: JSON characters that close a string, an array or an object, and what may follow them in
#: one token (spaces, as the model's vocabulary glues them).
_CLOSING: Final = frozenset('"]}')
_CLOSING_PIECE: Final = frozenset('"]} Ġ\n')
#: A greedy answer is looping once its last tokens are one span repeated back to back, the
#: span between :data:`LOOP_MIN_SPAN` and :data:`LOOP_MAX_SPAN` tokens long and the repeats
#: together at least :data:`LOOP_MIN_TOKENS` (and at least two).
LOOP_MIN_SPAN: Final = 3
LOOP_MAX_SPAN: Final = 32
LOOP_MIN_TOKENS: Final = 16
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


def _with_subschemas(schema: dict[str, Any], sub: Callable[[Any], Any]) -> dict[str, Any]:
    """A copy of ``schema`` whose sub-schemas (properties, items, anyOf...) went through
    ``sub``; its other keys as they are."""
    copied: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            copied[key] = {name: sub(item) for name, item in value.items()}
        elif key in _SUBSCHEMA_KEYS:
            copied[key] = sub(value)
        else:
            copied[key] = value
    return copied


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

    bounded = _with_subschemas(schema, sub)
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


def token_data_view(array: Any) -> Any:
    """A numpy view of a ctypes ``llama_token_data`` array (fields ``id``, ``logit``, ``p``)."""
    import numpy as np

    # llama.cpp's llama_token_data: token id, logit, probability.
    return np.frombuffer(array, dtype=[("id", np.intc), ("logit", np.single), ("p", np.single)])


def token_data_scratch(n_vocab: int) -> Any:
    """A ``llama_token_data`` array of ``n_vocab`` entries, ids in order."""
    import llama_cpp
    import numpy as np

    scratch = (llama_cpp.llama_token_data * n_vocab)()
    token_data_view(scratch)["id"] = np.arange(n_vocab, dtype=np.intc)
    return scratch


class GreedyDecoder(Protocol):
    """What :meth:`LlamaEngine._decode`'s loop asks of a grammar: the text it forces next,
    its choice among the model's logits, and to advance over the answer's tokens."""

    @property
    def steers(self) -> bool:
        """Whether :meth:`choose` can steer an answer to close its JSON (``closing``)."""
        ...

    @property
    def done(self) -> bool:
        """Whether the answer is complete (nothing but the end may follow)."""
        ...

    def forced(self) -> list[int]:
        """Tokens the grammar forces next (often none)."""
        ...

    def choose(self, scores: Any, *, closing: bool = False) -> int:
        """The highest-logit token the grammar accepts next (``scores``: the logits)."""
        ...

    def accept(self, tokens: list[int]) -> None:
        """Advance over ``tokens``."""
        ...


class GreedyGrammar:
    """Grammar-constrained greedy decoding that checks the model's own choice first.

    llama-cpp-python puts the grammar in its sampler chain, where it tests every token of the
    vocabulary (49,152 for SmolLM2) against the grammar at every step: measured here, that
    took generation from 64 to 23 tokens/s. At temperature 0 the answer is the highest-logit
    token the grammar accepts, so testing the few best tokens first gives the same token at a
    fraction of the cost; only when none of them fits is the whole vocabulary tested (as
    llama.cpp's own ``common_sampler`` does). The answers are the same token for token.

    It is a llama-cpp-python logits processor: called with the tokens so far and the next
    token's logits, it advances its grammar over the tokens generated since its last call and
    leaves only the chosen token finite. One instance serves one generation (see :meth:`begin`).

    Args:
        vocab: the model's ``llama_vocab`` pointer.
        grammar: the GBNF text; ``root`` its start rule.
        scratch: a ``llama_token_data`` array of the vocabulary's size, ids in order (shared
            by the grammars of one model: one generation runs at a time).
    """

    #: How many of the best tokens are tested before the whole vocabulary is.
    FIRST: Final = 8
    #: It cannot steer an answer to close its JSON (nor stop a looping one): see
    #: :class:`GuidedDecoder`.
    steers: Final = False
    #: Nothing follows the answer's end but the end of generation (the model says when).
    done: Final = False

    def __init__(self, *, vocab: Any, grammar: str, root: str, scratch: Any) -> None:
        import llama_cpp

        self._lib: Any = llama_cpp
        self._sampler = llama_cpp.llama_sampler_init_grammar(
            vocab, grammar.encode("utf-8"), root.encode("utf-8")
        )
        if not self._sampler:
            raise ValueError("llama.cpp could not parse the grammar")
        self._seen: int | None = None
        self._few: Any = (llama_cpp.llama_token_data * self.FIRST)()
        self._all = scratch
        self._all_logits = token_data_view(scratch)["logit"]

    def begin(self) -> GreedyGrammar:
        """Start a new generation from the grammar's start rule."""
        self._lib.llama_sampler_reset(self._sampler)
        self._seen = None
        return self

    def forced(self) -> list[int]:
        """None: every token of a grammar answer is generated (see :class:`GuidedDecoder`)."""
        return []

    def accept(self, tokens: list[int]) -> None:
        """Advance the grammar over ``tokens`` (the ones :meth:`choose` returned)."""
        for token in tokens:
            self._lib.llama_sampler_accept(self._sampler, token)

    def _allowed(self, data: Any, size: int) -> None:
        array = self._lib.llama_token_data_array(
            data=ctypes.cast(data, ctypes.POINTER(self._lib.llama_token_data)),
            size=size,
            selected=-1,
            sorted=False,
        )
        self._lib.llama_sampler_apply(self._sampler, ctypes.byref(array))

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        # As create_chat_completion's logits processor: where the engine cannot format the
        # prompt itself (a chat handler of llama-cpp-python's own), and in tests as reference.
        import numpy as np

        seen = len(input_ids)
        if self._seen is not None:
            self.accept([int(token) for token in input_ids[self._seen : seen]])
        self._seen = seen
        chosen = self.choose(scores)
        limited = np.full_like(scores, -np.inf)
        limited[chosen] = scores[chosen]
        return limited

    def choose(self, scores: Any, *, closing: bool = False) -> int:
        """The highest-logit token the grammar accepts next (``scores``: the logits;
        ``closing`` is ignored: this decoder does not steer, see :attr:`steers`)."""
        import numpy as np

        first = min(self.FIRST, len(scores))
        best = np.argpartition(-scores, first - 1)[:first]
        # Highest logit first, the lower id among equals (as greedy sampling picks).
        best = best[np.lexsort((best, -scores[best]))]
        if np.count_nonzero(scores >= scores[best[-1]]) > first:
            best = best[:0]  # ties across the cut: only the whole vocabulary decides
        for index, token in enumerate(best):
            self._few[index].id = int(token)
            self._few[index].logit = float(scores[token])
        if len(best):
            self._allowed(self._few, len(best))
            for index in range(len(best)):
                if self._few[index].logit != -math.inf:
                    return int(self._few[index].id)
        self._all_logits[:] = scores
        self._allowed(self._all, len(scores))
        return int(np.argmax(self._all_logits))

    def close(self) -> None:
        """Free the grammar."""
        if self._sampler:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None


def closed_objects(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: false`` on every object schema that lists its
    properties and says nothing of others (what llama.cpp's own converter assumes)."""
    if isinstance(schema, list):
        return [closed_objects(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = _with_subschemas(schema, closed_objects)
    if "properties" in schema and "additionalProperties" not in schema:
        closed["additionalProperties"] = False
    return closed


def looping(tokens: Sequence[int]) -> bool:
    """Whether ``tokens`` end with one span repeated back to back (see :data:`LOOP_MIN_SPAN`):
    a small model that writes the same topic, or the same clause, again and again."""
    n = len(tokens)
    for span in range(LOOP_MIN_SPAN, min(LOOP_MAX_SPAN, n // 2) + 1):
        repeats = max(2, -(-LOOP_MIN_TOKENS // span))
        if span * repeats > n:
            continue
        last = tokens[n - span :]
        if all(tokens[n - span * (k + 1) : n - span * k] == last for k in range(1, repeats)):
            return True
    return False


def closing_tokens(llm: Any) -> Any:
    """The ids of the vocabulary's tokens that only close JSON: made of ``"``, ``]``, ``}``
    and spaces, starting with one of the three (``"``, ``"}``, ``]}``...)."""
    import numpy as np

    ids = [
        token
        for token in range(llm.n_vocab())
        if (piece := llm._model.token_get_text(token))
        and piece[0] in _CLOSING
        and set(piece) <= _CLOSING_PIECE
    ]
    return np.array(ids, dtype=np.intc)


class GuidedDecoder:
    """Greedy decoding under a JSON schema with llguidance (what llama.cpp's own
    ``LLAMA_LLGUIDANCE`` build uses): the model's best token is checked against the
    grammar first, the whole vocabulary's mask (a bitmask, computed in microseconds) only
    when it does not fit; text the grammar forces (keys, ``const`` values, closing brackets)
    comes as :meth:`forced` tokens, which the engine reads in one batch instead of
    generating one by one. Forced text is tokenized canonically, as the model saw JSON in
    training. One instance per schema, reset for each generation (:meth:`begin`).
    """

    def __init__(self, *, tokenizer: Any, grammar: str, n_vocab: int, closers: Any) -> None:
        import llguidance
        import numpy as np

        self._matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
        if self._matcher.is_error():
            raise ValueError(self._matcher.get_error())
        self._n_vocab = n_vocab
        self._mask = np.zeros(((n_vocab + 31) // 32,), dtype=np.int32)
        self._closers = closers

    #: Near the end of ``max_tokens``, or once an answer loops, :meth:`choose` steers it to
    #: close its JSON.
    steers: Final = True

    def begin(self) -> GuidedDecoder:
        """Start a new generation."""
        self._matcher.reset()
        return self

    def forced(self) -> list[int]:
        """Tokens the grammar forces next (often none)."""
        return list(self._matcher.compute_ff_tokens())

    def choose(self, scores: Any, *, closing: bool = False) -> int:
        """The highest-logit token the grammar accepts next (``scores``: the logits).

        With ``closing``, the highest-logit one that closes a string, an array or an object
        (``"``, ``]``, ``}``...), when one may come next: how an answer about to run out of
        tokens, or looping, is still finished as valid JSON.
        """
        import numpy as np

        if closing:
            allowed = self._allowed()[self._closers]
            if allowed.any():
                candidates = self._closers[allowed]
                return int(candidates[np.argmax(scores[candidates])])
        token = int(np.argmax(scores))
        if self._matcher.validate_tokens([token]) == 1:
            return token
        allowed = self._allowed()
        return int(np.argmax(np.where(allowed, scores, -np.inf)))

    def _allowed(self) -> Any:
        import numpy as np

        self._matcher.unsafe_compute_mask_ptr(self._mask.ctypes.data, self._mask.nbytes)
        bits = np.unpackbits(self._mask.view(np.uint8), bitorder="little")[: self._n_vocab]
        return bits.astype(bool)

    def accept(self, tokens: list[int]) -> None:
        """Advance over ``tokens``."""
        if not self._matcher.consume_tokens(tokens):
            raise RuntimeError(f"llguidance refused tokens it allowed: {self._matcher.get_error()}")

    @property
    def done(self) -> bool:
        """Whether the answer is complete (nothing but the end may follow)."""
        return bool(self._matcher.is_stopped())
