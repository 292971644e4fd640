"""Example 01: several providers from one YAML, five judges, three metrics on one sample.

Run from the repository root::

    .venv/bin/python examples/01_config_and_judges/run.py

With no ``JUDGE_BASE_URL`` set, the judges are served by ragas-boot's local OpenAI-compatible
test server with scripted answers (real HTTP, no key, no network). To use real providers, set
``JUDGE_BASE_URL`` (unset it for OpenRouter's default), ``OPENROUTER_API_KEY`` and
``GROQ_API_KEY`` and run it again.
"""

from __future__ import annotations

import os
import sys
from contextlib import ExitStack
from pathlib import Path

from ragas_boot import (
    AIMessage,
    HumanMessage,
    Sample,
    ToolCall,
    ToolMessage,
    create_container,
    load_settings,
)
from ragas_boot.testing import FakeOpenAIServer, asks_for

HERE = Path(__file__).parent

SAMPLE = Sample(
    id="refund-12345",
    user_input_messages=[
        HumanMessage("My order 12345 never arrived. I want my money back."),
        AIMessage("Let me check the order.", [ToolCall("get_order_status", {"order_id": "12345"})]),
        ToolMessage('{"status": "lost", "amount": 5500, "currency": "RUB"}'),
        AIMessage(
            "The parcel was lost. I am refunding 5500 RUB.",
            [ToolCall("process_refund", {"order_id": "12345", "amount": 5500})],
        ),
        ToolMessage('{"refund_id": "R-77", "eta_days": 3}'),
        AIMessage("Done: refund R-77 of 5500 RUB, on your card within 3 days."),
    ],
    reference="The customer gets a refund of 5500 RUB for the lost order with a timeline",
    reference_topics=["order status", "refunds", "delivery problems"],
    reference_tool_calls=[
        ToolCall("get_order_status", {"order_id": "12345"}),
        ToolCall("process_refund", {"order_id": "12345", "amount": 5500}),
    ],
)


def scripted_judges(server: FakeOpenAIServer) -> None:
    """Answers a careful judge panel would give; gpt-4o-mini is a little harsher on topics."""
    server.when(
        asks_for("goal_achieved"),
        {"goal_achieved": True, "reason": "The refund was issued with an amount and a timeline."},
    )
    server.when(
        asks_for("classifications"),
        lambda request: {
            "classifications": [
                {
                    "topic": "lost order",
                    "on_topic": True,
                    "matched_reference_topic": "delivery problems",
                    "reason": "A parcel that never arrived.",
                },
                {
                    "topic": "refund processing",
                    "on_topic": request.model != "openai/gpt-4o-mini",
                    "matched_reference_topic": "refunds",
                    "reason": "Money back for the order.",
                },
            ]
        },
    )
    server.when(asks_for("topics"), {"topics": ["lost order", "refund processing"]})


def main() -> int:
    with ExitStack() as stack:
        if "JUDGE_BASE_URL" not in os.environ:
            server = stack.enter_context(FakeOpenAIServer())
            server.set_latency(None, 0.15)
            scripted_judges(server)
            environ = {
                **os.environ,
                "JUDGE_BASE_URL": server.base_url,
                "GROQ_BASE_URL": server.base_url,
                "OPENROUTER_API_KEY": os.environ.get("OPENROUTER_API_KEY", "demo-key"),
                "GROQ_API_KEY": os.environ.get("GROQ_API_KEY", "demo-key"),
            }
            print(f"judges served by the local test server at {server.base_url}\n")
        else:
            environ = dict(os.environ)
        settings = load_settings(HERE / "application.yaml", environ=environ)
        container = stack.enter_context(create_container(settings))

        print(f"{'judge':30} {'provider':10} {'rps':>5} {'mode':12} endpoint")
        for judge in container.judges():
            spec = judge.spec
            rps = f"{spec.limits.rps:g}" if spec.limits.rps else "-"
            print(
                f"{judge.id:30} {judge.provider:10} {rps:>5} "
                f"{spec.structured_output.value:12} {judge.endpoint}"
            )
        print()

        for bean in ("tool_call_accuracy", "agent_goal_accuracy", "topic_adherence"):
            metric = getattr(container, bean)()
            result = metric.evaluate(SAMPLE)
            per_judge = ", ".join(f"{j}={s:.2f}" for j, s in result.model_scores.items())
            print(f"{result.metric:26} score={result.score:.3f}  [{result.mode}]")
            print(f"{'':26} {per_judge or 'no judges (computed)'}")
            print(f"{'':26} {result.explanation}")
            if result.exclusions:
                for exclusion in result.exclusions:
                    print(f"{'':26} excluded {exclusion.judge_id}: {exclusion.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
