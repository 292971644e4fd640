"""A judge on any OpenAI-compatible chat-completions endpoint.

Three transports send its calls (``spec.transport``): ``direct``, an aiohttp session with
pre-serialised requests (:mod:`~ragas_boot.chat.openai.direct`, the default: about a third of
the client CPU per call); ``langchain``, langchain-openai's ``ChatOpenAI`` on openai's
aiohttp transport (:mod:`~ragas_boot.chat.openai.chat_openai`); and ``batch``, the provider's
batch API (:mod:`~ragas_boot.chat.openai.batches`), which sends the ``direct`` transport's
request bodies as lines of a batch file and reads its answers as it does. All ask for JSON
the same way, read the same answers, take the same proxies, TLS context and redirect rule,
and raise the same judge errors (:mod:`ragas_boot.chat.failures`).
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from ragas_boot.chat.answers import checked_answer, usage_of
from ragas_boot.chat.failures import await_translated, call_failure, scrub
from ragas_boot.chat.judge import JudgeAnswer, ModelIdentity
from ragas_boot.chat.openai.batches import BatchChat
from ragas_boot.chat.openai.chat_openai import LoopBoundChatModel
from ragas_boot.chat.openai.direct import DirectChat
from ragas_boot.chat.openai.endpoints import CHAT_SUFFIX, api_base_url
from ragas_boot.chat.specs import JudgeSpec, OpenAICompatibleSpec
from ragas_boot.chat.structured import REQUEST_MODES, prompt_text
from ragas_boot.config.settings import StructuredOutputMode, Transport
from ragas_boot.config.urls import append_path, mask_url
from ragas_boot.errors import JudgeError

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable

__all__ = ["OpenAICompatibleJudge"]

OutputT = TypeVar("OutputT", bound=BaseModel)


def _tool_call_arguments(message: BaseMessage) -> str | None:
    raw_calls = message.additional_kwargs.get("tool_calls") or []
    for call in raw_calls:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            return arguments
    tool_calls = getattr(message, "tool_calls", None) or []
    if tool_calls:
        return json.dumps(tool_calls[0].get("args", {}), ensure_ascii=False)
    return None


class OpenAICompatibleJudge(ModelIdentity[OpenAICompatibleSpec]):
    """One chat model of one OpenAI-compatible provider, used as a judge.

    The HTTP client is made per event loop (an HTTP client bound to one loop must never be
    used from another), lazily on the first call in that loop. ``max_retries=0``: retries are
    the executor's job, so that they follow ``spring.ai.retry`` and count against rate limits.

    Args:
        spec: the judge's settings (a plain :class:`~ragas_boot.chat.specs.JudgeSpec` is
            taken with this kind's defaults).
    """

    #: The modes ``config check --ping`` tries on this judge.
    output_modes: tuple[StructuredOutputMode, ...] = REQUEST_MODES

    def __init__(self, *, spec: JudgeSpec) -> None:
        if spec.structured_output not in self.output_modes:
            raise ValueError(
                f"judge '{spec.id}': structured output '{spec.structured_output.value}' needs a "
                "LangChain chat class; an OpenAI-compatible judge takes "
                + ", ".join(mode.value for mode in self.output_modes)
            )
        self._spec = OpenAICompatibleSpec.of(spec)
        self._api_base = api_base_url(self._spec.base_url, self._spec.completions_path)
        self._models = LoopBoundChatModel(spec=self._spec, api_base=self._api_base)
        self._direct: DirectChat | None = None
        self._batch: BatchChat | None = None
        if self._spec.transport in (Transport.DIRECT, Transport.BATCH):
            self._direct = DirectChat(spec=self._spec, api_base=self._api_base)
        if self._spec.transport is Transport.BATCH:
            assert self._direct is not None
            self._batch = BatchChat(spec=self._spec, api_base=self._api_base, direct=self._direct)

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleJudge(id={self.id!r}, provider={self.provider!r}, "
            f"model={self._spec.model!r}, url={mask_url(self._api_base)!r})"
        )

    @property
    def endpoint(self) -> str:
        """The URL chat completions are posted to (credentials in it masked)."""
        return mask_url(append_path(self._api_base, CHAT_SUFFIX))

    def prepare(self) -> None:
        """Create this loop's HTTP client now (importing langchain-openai on first use of the
        ``langchain`` transport)."""
        if self._batch is not None:
            self._batch.prepare()
        elif self._direct is not None:
            self._direct.session()
        else:
            self._models.get()

    def with_output_mode(self, mode: StructuredOutputMode) -> OpenAICompatibleJudge:
        """The same judge asking for JSON another way (its own HTTP clients: close it)."""
        return OpenAICompatibleJudge(spec=dataclasses.replace(self._spec, structured_output=mode))

    def with_spec(self, spec: OpenAICompatibleSpec) -> OpenAICompatibleJudge:
        """This judge on ``spec``, a copy of its own with other sampling options (a model
        role's temperature, seed and max tokens); its own HTTP clients: close it."""
        return OpenAICompatibleJudge(spec=spec)

    async def ainvoke_structured(
        self, prompt: str, output_model: type[OutputT]
    ) -> JudgeAnswer[OutputT]:
        """Send one prompt as a single user message; return the validated answer.

        Raises:
            JudgeHTTPError: the server answered with an error status (``retry_after`` set
                from a Retry-After header).
            JudgeTimeoutError: no answer within the call timeout.
            JudgeConnectionError: the server could not be reached or dropped the connection.
            JudgeOutputError: empty, unparseable or schema-invalid answer (raw text kept).
        """
        text = prompt_text(prompt, output_model, self._spec.structured_output)
        raw: str | None
        batched = False
        if self._batch is not None:
            started = time.perf_counter()
            reply, batched = await self._batch.complete(text, output_model)
            latency = time.perf_counter() - started
            raw, usage = reply.raw, reply.usage
        elif self._direct is not None:
            started = time.perf_counter()
            reply = await self._direct.complete(text, output_model)
            latency = time.perf_counter() - started
            raw, usage = reply.raw, reply.usage
        else:
            runnable = self._models.bound(output_model)
            started = time.perf_counter()
            message = await self._send(runnable, text)
            latency = time.perf_counter() - started
            usage = usage_of(message)
            if self._spec.structured_output is StructuredOutputMode.FUNCTION_CALLING:
                raw = _tool_call_arguments(message)
                if raw is None:
                    raw = message.content if isinstance(message.content, str) else None
            else:
                raw = message.content if isinstance(message.content, str) else None
                if raw is None and message.content:
                    raw = json.dumps(message.content, ensure_ascii=False)
        if raw is not None:
            # A provider may echo the key back (an error page, a confused model); what a judge
            # answered is kept in results and quoted in errors and logs, so it goes in scrubbed.
            raw = scrub(raw, self._spec)
        try:
            answer = checked_answer(
                raw,
                output_model,
                judge_id=self.id,
                max_chars=self._spec.max_answer_chars,
                usage=usage,
                latency_s=latency,
            )
        except JudgeError as error:
            error.batched = batched  # its usage was billed at the batch price
            raise
        return dataclasses.replace(answer, batched=True) if batched else answer

    async def _send(self, runnable: Runnable[LanguageModelInput, BaseMessage], text: str) -> Any:
        from langchain_core.messages import HumanMessage

        return await await_translated(
            runnable.ainvoke([HumanMessage(content=text)]),
            lambda error: call_failure(error, spec=self._spec),
        )

    async def aclose(self) -> None:
        """Close the HTTP clients made in the current loop (and those of loops still running)."""
        if self._batch is not None:
            await self._batch.aclose()
        if self._direct is not None:
            await self._direct.aclose()
        await self._models.aclose()
