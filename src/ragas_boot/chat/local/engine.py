"""One GGUF model loaded with llama.cpp, answering one :class:`ChatPlan` at a time.

Greedy answers under a JSON schema (every judge call) run in one decoding loop of our own
(``LlamaEngine._decode``), with llguidance (:class:`~ragas_boot.chat.local.decoders.GuidedDecoder`,
the default) or llama.cpp's grammar (:class:`~ragas_boot.chat.local.decoders.GreedyGrammar`)
as its decoder (:mod:`ragas_boot.chat.local.decoders`); other sampling goes through
llama-cpp-python's ``create_chat_completion``.

``llama_cpp`` and ``llguidance`` are imported here only, when a model is loaded: importing
them loads native libraries, which ``ragas-boot --help`` and runs without a local judge never
need.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import threading
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

from ragas_boot.chat.local.decoders import (
    GreedyDecoder,
    GreedyGrammar,
    GuidedDecoder,
    bound_schema,
    closed_objects,
    closing_tokens,
    looping,
    token_data_scratch,
)
from ragas_boot.chat.local.plan import ChatPlan, Generation
from ragas_boot.chat.specs import LocalModelSpec
from ragas_boot.chat.wire.openai import WireError

if TYPE_CHECKING:
    from llama_cpp.llama_grammar import LlamaGrammar

__all__ = ["ABANDON_CHECK_EVERY", "CHUNK", "LlamaEngine", "default_threads", "kept_chunks"]

log = logging.getLogger(__name__)

_T = TypeVar("_T")

_GRAMMAR_CACHE_SIZE: Final = 64
#: Prompt tokens read per llama.cpp batch, and the grain of the KV state kept between calls.
#: The prompt is always read in chunks that start at multiples of it, whatever was kept, so
#: every token is computed exactly as in a fresh context (answers do not depend on history).
CHUNK: Final = 32
#: Once this few tokens are left of ``max_tokens``, an answer is steered to close its JSON.
CLOSING_RESERVE: Final = 24
#: A generation checks whether its caller has gone every this many tokens.
ABANDON_CHECK_EVERY: Final = 8


def default_threads() -> int:
    """Half the logical CPUs (at least 1): the physical cores on most machines.

    llama.cpp's threads wait for each other at every step; with more threads than free cores
    (hyper-threads, or other processes busy) a generation slows down many times over.
    """
    return max(1, (os.cpu_count() or 2) // 2)


def chat_formatter(llm: Any) -> Callable[..., Any] | None:
    """The chat formatter ``llm.create_chat_completion`` uses, or ``None`` if it is not one
    llama-cpp-python exposes (a chat handler of its own): messages -> prompt text.

    The model's own template (the GGUF's ``tokenizer.chat_template``) is formatted with
    :class:`~llama_cpp.llama_chat_format.Jinja2ChatFormatter`, as llama-cpp-python does;
    a named format with its ``format_<name>`` function.
    """
    from llama_cpp import llama_chat_format

    name = llm.chat_format
    if name is None or llm.chat_handler is not None:
        return None
    if name.startswith("chat_template."):
        key = "tokenizer.chat_template" + ("" if name == "chat_template.default" else name[13:])
        template = llm.metadata.get(key)
        if template is None:
            return None
        eos, bos = llm.token_eos(), llm.token_bos()
        formatter: Callable[..., Any] = llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
            stop_token_ids=[eos],
        )
        return formatter
    named: Callable[..., Any] | None = getattr(
        llama_chat_format, "format_" + name.replace("-", "_").replace(".", "_"), None
    )
    return named


def _cached(
    cache: OrderedDict[str, _T],
    key: str,
    make: Callable[[], _T],
    *,
    evicted: Callable[[_T], None] | None = None,
) -> _T:
    """``cache[key]``, made by ``make`` when missing; past :data:`_GRAMMAR_CACHE_SIZE`
    entries the least recently used one goes (through ``evicted``, to free it)."""
    value = cache.get(key)
    if value is not None:
        cache.move_to_end(key)
        return value
    value = cache[key] = make()
    if len(cache) > _GRAMMAR_CACHE_SIZE:
        dropped = cache.popitem(last=False)[1]
        if evicted is not None:
            evicted(dropped)
    return value


_CONVERTER_CHAR = 'char ::= [^"\\\\]'
_JSON_STRING_CHAR = 'char ::= [^"\\\\\\x7F\\x00-\\x1F]'


def json_grammar(schema_text: str) -> str:
    """The GBNF grammar of the JSON Schema ``schema_text`` (llama-cpp-python's converter).

    The converter's string character admits raw control characters (a newline), which a JSON
    string may not hold: a model that writes one gives an answer that does not parse (and is
    not cached, so it is asked again on every run). They are excluded here.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    gbnf: str = json_schema_to_gbnf(schema_text)
    return gbnf.replace(_CONVERTER_CHAR, _JSON_STRING_CHAR)


def _no_grammar(error: Exception) -> WireError:
    """The 400 for a schema the decoder cannot turn into a grammar."""
    return WireError(
        400, f"the JSON schema cannot be turned into a grammar: {error}", param="response_format"
    )


def kept_chunks(llm: Any, tokens: Sequence[int]) -> int:
    """How many of ``tokens`` ``llm``'s KV state already holds, in whole :data:`CHUNK` s and
    leaving at least one token to read (its logits give the answer's first token)."""
    from llama_cpp import Llama

    common = int(Llama.longest_token_prefix(llm._input_ids.tolist(), tokens))
    return (min(common, len(tokens) - 1) // CHUNK) * CHUNK


@functools.cache
def _chunked_llama_class() -> type[Any]:
    """``llama_cpp.Llama`` keeping only whole :data:`CHUNK` s of the previous prompt's KV state."""
    from llama_cpp import Llama

    class ChunkedLlama(Llama):
        def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Any:
            # llama-cpp-python keeps the longest common prefix, wherever it ends; cut it back
            # to a chunk boundary so that the rest is read in the same chunks as from scratch
            # (generate() then drops the KV state past n_tokens, as eval() does).
            self.n_tokens = min(kept_chunks(self, tokens), self.n_tokens)
            return super().generate(tokens, *args, **kwargs)

    return ChunkedLlama


class LlamaEngine:
    """A loaded model; :meth:`generate` runs one generation at a time (a llama.cpp context is
    not re-entrant), the others wait on a lock.

    The context is not cleared between generations: llama-cpp-python keeps the KV state of
    the longest token prefix a prompt shares with the previous evaluation, so the chat
    template's head and a metric's fixed instructions (which come before the sample's data)
    are read once, not once per call. Only whole :data:`CHUNK` s are kept and the rest is read
    in the same chunks as from an empty context, so an answer does not depend on what ran
    before: the same request at temperature 0 gets the same answer (tests/local checks it).
    Which request runs next is the caller's choice (:class:`~ragas_boot.chat.local.worker.
    ModelWorker` takes the one sharing most with :meth:`kept_tokens`).

    Args:
        spec: the model to load.
        stopping: once set (server shutdown), waiting requests are refused with 503; a
            running generation finishes first (it is capped by its ``max_tokens``).
    """

    def __init__(self, *, spec: LocalModelSpec, stopping: threading.Event) -> None:
        threads = spec.n_threads or default_threads()
        started = time.perf_counter()
        try:
            # Any: llama-cpp-python's API is only partly annotated.
            self._llm: Any = _chunked_llama_class()(
                model_path=str(spec.model_path),
                n_ctx=spec.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                n_batch=CHUNK,
                n_ubatch=CHUNK,
                seed=spec.seed,
                chat_format=spec.chat_format,
                verbose=False,
            )
        except ValueError as error:
            raise RuntimeError(f"llama.cpp could not load {spec.model_path}: {error}") from error
        self.load_s = time.perf_counter() - started
        self.threads = threads
        self._spec = spec
        self._stopping = stopping
        self._lock = threading.Lock()
        self._grammars: OrderedDict[str, LlamaGrammar] = OrderedDict()
        self._greedy: OrderedDict[str, GreedyGrammar] = OrderedDict()
        self._scratch: Any = None
        self._formatter = chat_formatter(self._llm)
        self._guided: OrderedDict[str, GuidedDecoder] = OrderedDict()
        self._lltokenizer: Any = None
        self._closers: Any = None
        self.forced_tokens = 0
        """Answer tokens the llguidance decoder read as forced text, in batches."""
        self.loops_stopped = 0
        """Answers the llguidance decoder closed early because they repeated themselves."""
        self.decoder = spec.decoder
        log.info("loaded %s in %.2fs (%d threads)", spec.model_path.name, self.load_s, threads)

    def _grammar_text(self, schema: dict[str, Any]) -> str:
        schema = bound_schema(
            schema,
            max_string_length=self._spec.max_string_length,
            max_array_items=self._spec.max_array_items,
        )
        # Property order is kept: the grammar writes the keys in the schema's order.
        return json.dumps(schema, ensure_ascii=False)

    def _grammar(self, text: str) -> LlamaGrammar:
        """llama-cpp-python's grammar of the schema ``text`` (:meth:`_grammar_text`)."""
        from llama_cpp.llama_grammar import LlamaGrammar

        def make() -> LlamaGrammar:
            try:
                return LlamaGrammar.from_string(json_grammar(text), verbose=False)
            except Exception as error:  # the converter raises plain errors on unsupported schemas
                raise _no_grammar(error) from error

        return _cached(self._grammars, text, make)

    def _greedy_grammar(self, schema: dict[str, Any]) -> GreedyGrammar:
        text = self._grammar_text(schema)

        def make() -> GreedyGrammar:
            grammar = self._grammar(text)
            if self._scratch is None:
                self._scratch = token_data_scratch(self._llm.n_vocab())
            try:
                return GreedyGrammar(
                    vocab=self._llm._model.vocab,  # the loaded model's vocabulary
                    grammar=grammar._grammar,  # the GBNF text the converter made
                    root=grammar._root,
                    scratch=self._scratch,
                )
            except ValueError as error:
                raise _no_grammar(error) from error

        return _cached(self._greedy, text, make, evicted=GreedyGrammar.close).begin()

    def prompt_tokens(self, plan: ChatPlan) -> list[int] | None:
        """The tokens ``plan``'s messages make with the model's chat template, or ``None``
        when llama-cpp-python formats them itself (a chat handler of its own).

        Thread-safe: formatting and tokenizing only read the model.

        Raises:
            WireError: the messages do not fit the chat template (400).
        """
        formatter = self._formatter
        if formatter is None:
            return None
        try:
            formatted = formatter(messages=plan.messages)
        except Exception as error:  # jinja2 raises its own errors on unexpected messages
            raise WireError(
                400, f"the chat template cannot format the messages: {error}", param="messages"
            ) from error
        tokens: list[int] = self._llm.tokenize(
            formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
        )
        return tokens

    def kept_tokens(self, tokens: Sequence[int]) -> int:
        """How many of ``tokens`` the KV state already holds (whole :data:`CHUNK` s): the
        prompt tokens a generation of them would not read again."""
        return kept_chunks(self._llm, tokens)

    def generate(
        self,
        plan: ChatPlan,
        *,
        abandoned: Callable[[], bool] | None = None,
        tokens: list[int] | None = None,
    ) -> Generation:
        """Run ``plan``; blocks while another generation runs.

        Args:
            plan: what to generate.
            abandoned: checked when the plan's turn comes and every
                :data:`ABANDON_CHECK_EVERY` generated tokens; once it says the caller has
                gone, nothing more is generated (499).
            tokens: the plan's prompt tokens, when the caller has made them
                (:meth:`prompt_tokens`).

        Raises:
            WireError: the schema has no grammar, the prompt does not fit the context,
                the server is stopping (503) or the caller has gone (499).
        """
        with self._lock:
            if self._stopping.is_set():
                raise WireError(503, "the local model server is stopping")
            if abandoned is not None and abandoned():
                raise WireError(499, "the client closed the connection while queued")
            started = time.monotonic()
            text, finish_reason, prompt_tokens, completion_tokens = self._complete(
                plan, tokens, abandoned
            )
            finished = time.monotonic()
        return Generation(
            text=text,
            finish_reason=finish_reason,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            started=started,
            finished=finished,
        )

    def _complete(
        self,
        plan: ChatPlan,
        tokens: list[int] | None,
        abandoned: Callable[[], bool] | None,
    ) -> tuple[str, str, int, int]:
        # Greedy decoding with neutral penalties: the grammar checks the model's choice first
        # (GreedyGrammar); any other sampling keeps llama.cpp's grammar over the vocabulary.
        greedy = (
            plan.temperature == 0
            and not plan.frequency_penalty
            and not plan.presence_penalty
            and plan.schema is not None
        )
        if greedy and plan.schema is not None:
            if tokens is None:
                tokens = self.prompt_tokens(plan)
            if tokens is not None:
                decoder: GreedyDecoder = (
                    self._guided_decoder(plan.schema)
                    if self.decoder == "llguidance"
                    else self._greedy_grammar(plan.schema)
                )
                return self._decode(plan, decoder, tokens, abandoned)
        return self._chat_completion(plan, greedy=greedy)

    def _read_prompt(self, tokens: list[int]) -> None:
        """Bring the KV state to ``tokens``: keep the whole chunks it shares with them, read
        the rest in :data:`CHUNK` s (as from an empty context)."""
        if len(tokens) >= self._llm.n_ctx():
            raise WireError(
                400,
                f"Requested tokens ({len(tokens)}) exceed context window of "
                f"{self._llm.n_ctx()}; shorten the prompt or raise n-ctx",
                param="messages",
                code="context_length_exceeded",
            )
        keep = self.kept_tokens(tokens)
        self._llm.n_tokens = min(keep, self._llm.n_tokens)
        try:
            self._llm.eval(tokens[keep:])  # removes the KV state past n_tokens first
        except Exception:
            self._llm.reset()  # a half-read prompt is no prefix to keep
            raise

    def _answer_limit(self, plan: ChatPlan, tokens: list[int]) -> int:
        """How many tokens the answer may have: ``max_tokens``, within the context left."""
        room: int = self._llm.n_ctx() - len(tokens)
        if plan.max_tokens is None or plan.max_tokens <= 0:
            return room
        return min(plan.max_tokens, room)

    def _last_logits(self) -> Any:
        """The logits after the last token read (a view on llama.cpp's buffer)."""
        import llama_cpp
        import numpy as np

        pointer = llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._llm.n_vocab(),))

    def _stop_in(self, out: list[int], tokens: list[int], stops: Sequence[str]) -> int | None:
        """Where the first stop sequence begins in the answer so far, or ``None``."""
        text = self._llm.detokenize(out, prev_tokens=tokens).decode("utf-8", errors="ignore")
        hits = [text.index(stop) for stop in stops if stop in text]
        return min(hits) if hits else None

    def _answer(
        self, out: list[int], tokens: list[int], stops: Sequence[str], finish_reason: str
    ) -> tuple[str, str, int, int]:
        """(text, finish reason, prompt tokens, completion tokens), the text cut before the
        first stop sequence (as llama-cpp-python does)."""
        text = self._llm.detokenize(out, prev_tokens=tokens).decode("utf-8", errors="ignore")
        hits = [text.index(stop) for stop in stops if stop in text]
        if hits:
            return text[: min(hits)], "stop", len(tokens), len(out)
        return text, finish_reason, len(tokens), len(out)

    def _guided_decoder(self, schema: dict[str, Any]) -> GuidedDecoder:
        text = self._grammar_text(schema)
        return _cached(self._guided, text, lambda: self._make_guided(text)).begin()

    def _make_guided(self, text: str) -> GuidedDecoder:
        import llguidance
        import llguidance.llamacpp

        if self._lltokenizer is None:
            with warnings.catch_warnings():
                # llguidance reads token attributes with a llama_cpp call that llama-cpp-python
                # 0.3.36 marks deprecated (it still works; the new name is not in llguidance yet).
                warnings.filterwarnings("ignore", "llama_token_get_attr", DeprecationWarning)
                self._lltokenizer = llguidance.llamacpp.lltokenizer_from_vocab(
                    self._llm._model.vocab
                )
        try:
            grammar = llguidance.LLMatcher.grammar_from_json_schema(
                closed_objects(json.loads(text)),
                overrides={
                    "whitespace_flexible": False,
                    "item_separator": ", ",
                    "key_separator": ": ",
                },
            )
            if self._closers is None:
                self._closers = closing_tokens(self._llm)
            return GuidedDecoder(
                tokenizer=self._lltokenizer,
                grammar=grammar,
                n_vocab=self._llm.n_vocab(),
                closers=self._closers,
            )
        except ValueError as error:
            raise _no_grammar(error) from error

    def _decode(
        self,
        plan: ChatPlan,
        decoder: GreedyDecoder,
        tokens: list[int],
        abandoned: Callable[[], bool] | None,
    ) -> tuple[str, str, int, int]:
        """Greedy decoding under ``decoder``'s grammar, in a loop of our own: text it forces
        is read in one batch; a decoder that :attr:`~GreedyDecoder.steers` closes the open
        JSON as soon as it may near the end of ``max_tokens``, or once the answer loops (with
        ``stop-loops``). With :class:`GreedyGrammar`, the tokens ``create_chat_completion``
        makes with it as its logits processor, without the per-token sampler chain and
        logits copies."""
        import llama_cpp

        llm = self._llm
        vocab = llm._model.vocab
        reserve = min(CLOSING_RESERVE, (plan.max_tokens or 0) // 4) if decoder.steers else 0
        stop_loops = self._spec.stop_loops and decoder.steers
        closing = False
        limit = self._answer_limit(plan, tokens)
        self._read_prompt(tokens)
        out: list[int] = []
        finish_reason = "length"
        checked = 0
        while len(out) < limit:
            if abandoned is not None and len(out) >= checked:
                checked = len(out) + ABANDON_CHECK_EVERY
                if abandoned():
                    raise WireError(499, "the client closed the connection during generation")
            step = decoder.forced()[: limit - len(out)]
            forced = bool(step)
            if not forced:
                near_end = limit - len(out) <= reserve
                step = [decoder.choose(self._last_logits(), closing=closing or near_end)]
            end = next(
                (i for i, token in enumerate(step) if llama_cpp.llama_vocab_is_eog(vocab, token)),
                None,
            )
            step = step[:end]  # the end of generation is no part of the answer
            if step:
                decoder.accept(step)
                out.extend(step)
                if forced:
                    self.forced_tokens += len(step)
            if end is not None or decoder.done:
                finish_reason = "stop"
                break
            if stop_loops and not forced and not closing and looping(out):
                closing = True  # from here on, close what is open as soon as it may be
                self.loops_stopped += 1
            if plan.stop and self._stop_in(out, tokens, plan.stop) is not None:
                finish_reason = "stop"
                break
            if len(out) < limit:
                llm.eval(step)
        return self._answer(out, tokens, plan.stop, finish_reason)

    def _chat_completion(self, plan: ChatPlan, *, greedy: bool) -> tuple[str, str, int, int]:
        from llama_cpp import LogitsProcessorList

        grammar = None
        processors = None
        if plan.schema is not None:
            if greedy:
                processors = LogitsProcessorList([self._greedy_grammar(plan.schema)])
            else:
                grammar = self._grammar(self._grammar_text(plan.schema))
        try:
            result = self._llm.create_chat_completion(
                messages=plan.messages,
                temperature=plan.temperature,
                top_p=plan.top_p,
                max_tokens=plan.max_tokens,
                seed=self._spec.seed if plan.seed is None else plan.seed,
                stop=list(plan.stop),
                frequency_penalty=plan.frequency_penalty,
                presence_penalty=plan.presence_penalty,
                grammar=grammar,
                logits_processor=processors,
            )
        except ValueError as error:
            self._llm.reset()  # a half-read prompt is no prefix to keep
            if "context window" in str(error):
                raise WireError(
                    400,
                    f"{error}; shorten the prompt or raise n-ctx",
                    param="messages",
                    code="context_length_exceeded",
                ) from error
            raise
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        return (
            choice["message"].get("content") or "",
            choice.get("finish_reason") or "stop",
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
        )

    def close(self) -> None:
        """Free the model (waits for a running generation)."""
        with self._lock:
            for greedy in self._greedy.values():
                greedy.close()
            self._greedy.clear()
            self._llm.close()
