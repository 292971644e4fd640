"""One judge call at a time, through each client a judge can use: client CPU per call.

The judge server (``_workload.JudgeServer``, no latency) runs in a child process, so the CPU
measured is the client's. Each variant makes the same chat call: the raw ``openai.AsyncOpenAI``
on its aiohttp transport, langchain-openai's ``ChatOpenAI.ainvoke`` and its ``_agenerate``
(LangChain without its callbacks and run bookkeeping), then the ``langchain`` and ``direct``
judges (``OpenAICompatibleJudge.ainvoke_structured``, answer parsed and validated). Variants
alternate in two rounds after a warm-up.

    .venv/bin/python benchmarks/transport_calls.py [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from _workload import JudgeServer, cpu_seconds
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.config.settings import Transport

PROMPT = "Was the user's goal achieved? " * 40


class Verdict(BaseModel):
    goal_achieved: bool
    reason: str


async def measure(base_url: str, calls: int) -> None:
    import openai
    from langchain_core.messages import HumanMessage

    spec = OpenAICompatibleSpec(
        id="judge-1",
        model="judge-1",
        provider="bench",
        base_url=base_url,
        api_key=SecretStr("sk-bench"),
        limits=ProviderLimits(provider="bench", call_timeout=timedelta(seconds=30)),
        transport=Transport.LANGCHAIN,
    )
    langchain_judge = OpenAICompatibleJudge(spec=spec)
    direct_judge = OpenAICompatibleJudge(spec=dataclasses.replace(spec, transport=Transport.DIRECT))
    llm = langchain_judge._models.get()  # the judge's own ChatOpenAI for this loop
    raw = openai.AsyncOpenAI(
        base_url=base_url + "/v1",
        api_key="sk-bench",
        max_retries=0,
        http_client=openai.DefaultAioHttpClient(),
    )
    messages = [HumanMessage(content=PROMPT)]
    variants: dict[str, Callable[[], Awaitable[Any]]] = {
        "raw AsyncOpenAI, aiohttp": lambda: raw.chat.completions.create(
            model="judge-1",
            messages=[{"role": "user", "content": PROMPT}],
            temperature=0.0,
            max_tokens=1000,
            top_p=1.0,
        ),
        "ChatOpenAI.ainvoke": lambda: llm.ainvoke([HumanMessage(content=PROMPT)]),
        "ChatOpenAI._agenerate": lambda: llm._agenerate(messages),
        "judge, transport langchain": lambda: langchain_judge.ainvoke_structured(PROMPT, Verdict),
        "judge, transport direct": lambda: direct_judge.ainvoke_structured(PROMPT, Verdict),
    }
    try:
        for call in variants.values():
            for _ in range(20):
                await call()
        for round_ in (1, 2):
            print(f"round {round_}: client CPU per call, {calls} calls one at a time")
            for name, call in variants.items():
                started = cpu_seconds()
                for _ in range(calls):
                    await call()
                print(f"  {name:28s} {1e6 * (cpu_seconds() - started) / calls:7.0f} µs")
    finally:
        await langchain_judge.aclose()
        await direct_judge.aclose()
        await raw.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per variant and round")
    options = parser.parse_args()
    with JudgeServer(latency_ms=0) as server:
        asyncio.run(measure(server.base_url, options.calls))


if __name__ == "__main__":
    main()
