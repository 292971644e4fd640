"""A judge of the embedded ``local`` provider: the model called in process, no HTTP."""

from __future__ import annotations

import dataclasses
import time
from typing import TypeVar

from pydantic import BaseModel

from ragas_boot.chat.answers import checked_answer
from ragas_boot.chat.judge import JudgeAnswer, ModelIdentity, TokenUsage
from ragas_boot.chat.local.plan import judge_plan
from ragas_boot.chat.local.server import LocalModelServer
from ragas_boot.chat.specs import LocalSpec
from ragas_boot.chat.structured import REQUEST_MODES
from ragas_boot.chat.wire.openai import WireError
from ragas_boot.config.settings import StructuredOutputMode
from ragas_boot.errors import JudgeHTTPError

__all__ = ["LocalJudge"]

OutputT = TypeVar("OutputT", bound=BaseModel)


class LocalJudge(ModelIdentity[LocalSpec]):
    """A judge of the ``local`` provider: the model called in process, no HTTP.

    Each call is planned exactly as the local server plans the request an OpenAI-compatible
    judge would send (same text, same schema, so the same answer) and generated on the
    model's one worker thread; the event loop only awaits it. The model loads in
    :meth:`prepare` (or the first call), not when the judge is built, so a container whose
    run never asks a judge never loads a model. Retries, timeouts, rate limits and output
    re-asks are the executor's, as for every judge.

    Args:
        spec: the judge's settings (``spec.local`` names the model).
        server: the model of that spec (shared with the other judges on it); it serves HTTP
            only when an endpoint is asked for (:meth:`served_spec`).
    """

    def __init__(self, *, spec: LocalSpec, server: LocalModelServer) -> None:
        if not isinstance(spec, LocalSpec):
            raise TypeError(f"a LocalJudge needs a LocalSpec, got {type(spec).__name__}")
        self._spec = spec
        self._model_file = spec.local.model_path.name
        self._server = server

    def __repr__(self) -> str:
        return f"LocalJudge(id={self.id!r}, model={self._model_file!r}, server={self._server!r})"

    @property
    def server(self) -> LocalModelServer:
        """The model this judge calls (and its optional HTTP server)."""
        return self._server

    @property
    def endpoint(self) -> str:
        """Where calls go: the model in process, or the server's URL while it serves HTTP."""
        if self._server.running:
            return self._server.url + "/chat/completions"
        return f"local {self._model_file}, in process"

    def served_spec(self) -> LocalSpec:
        """This judge's spec pointing at the model's HTTP server, started if needed: for
        clients that need an endpoint (the tool-suite agent runner; an OpenAI-compatible
        client takes it as such, never through a proxy)."""
        return dataclasses.replace(self._spec, base_url=self._server.start())

    def prepare(self) -> None:
        """Load the model if needed (outside every call's timing)."""
        self._server.load()

    #: The modes ``config check --ping`` tries on this judge.
    output_modes: tuple[StructuredOutputMode, ...] = REQUEST_MODES

    def with_output_mode(self, mode: StructuredOutputMode) -> LocalJudge:
        """The same judge, on the same model, asking for JSON another way."""
        return LocalJudge(
            spec=dataclasses.replace(self._spec, structured_output=mode), server=self._server
        )

    def with_spec(self, spec: LocalSpec) -> LocalJudge:
        """This judge on the same model with ``spec``, a copy of its own with other sampling
        options (a model role's temperature, seed and max tokens)."""
        return LocalJudge(spec=spec, server=self._server)

    async def ainvoke_structured(
        self, prompt: str, output_model: type[OutputT]
    ) -> JudgeAnswer[OutputT]:
        """Ask the local model; return the validated answer.

        Raises:
            JudgeHTTPError: the model cannot do what the call asks (400: the prompt does not
                fit ``n-ctx``, a schema with no grammar) or is stopping (503), with the
                status the local server would answer.
            JudgeOutputError: empty, unparseable or schema-invalid answer (raw text kept).
        """
        plan = judge_plan(self._spec, prompt, output_model)
        started = time.perf_counter()
        try:
            generation = await self._server.agenerate(plan)
        except WireError as error:
            raise JudgeHTTPError(
                f"HTTP {error.status}: {error.message}",
                judge_id=self.id,
                status_code=error.status,
            ) from error
        latency = time.perf_counter() - started
        usage = TokenUsage(
            input_tokens=generation.prompt_tokens,
            output_tokens=generation.completion_tokens,
            total_tokens=generation.prompt_tokens + generation.completion_tokens,
        )
        return checked_answer(
            generation.text,
            output_model,
            judge_id=self.id,
            max_chars=self._spec.max_answer_chars,
            usage=usage,
            latency_s=latency,
        )

    async def aclose(self) -> None:
        """Nothing to close: the model belongs to its pool."""
