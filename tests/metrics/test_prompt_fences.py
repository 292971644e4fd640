"""Every sample field reaches a judge inside a ``<data>`` block, in every prompt of every metric.

Each registered metric is run (en and ru, single-turn and conversation samples, each mode
that reads other fields) on a sample holding a marker in every field, against the test server,
and every prompt the judges receive is checked: a marker outside a ``<data>`` block is sample
text the prompt-injection guard missed. The prompts seen must cover every shipped template in
both languages, so a new template is checked as soon as a metric uses it.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragas_boot import (
    AIMessage,
    HumanMessage,
    Sample,
    ToolCall,
    ToolMessage,
    create_container,
    load_settings,
)
from ragas_boot.metrics import METRICS
from ragas_boot.metrics.prompting import load_prompt, prompt_placeholders
from ragas_boot.testing import FakeOpenAIServer
from ragas_boot.testing.rag_judge import SentenceJudge
from ragas_boot.testing.server import ChatRequest

MARK = "MARK"
# A rubric is grading instructions like a criterion's definition (configuration, not material
# to judge), whether the config or the dataset holds it: it stays outside the blocks.
RUBRICS = {"score1_description": "wrong", "score5_description": "right"}
SINGLE_TURN = Sample(
    user_input=f"{MARK}-user-input: where is Paris?",
    response=f"{MARK}-response. Paris is in France.",
    reference=f"{MARK}-reference. Paris is in France.",
    retrieved_contexts=[f"{MARK}-context-1. Paris is in France.", f"{MARK}-context-2."],
    reference_contexts=[f"{MARK}-reference-context."],
    reference_topics=[f"{MARK}-topic"],
    reference_tool_calls=[ToolCall("search", {"q": f"{MARK}-expected-argument"})],
    rubrics=RUBRICS,
)
CONVERSATION = SINGLE_TURN.model_copy(
    update={
        "user_input_messages": [
            HumanMessage(content=f"{MARK}-human: where is Paris?"),
            AIMessage(
                content=f"{MARK}-assistant",
                tool_calls=[ToolCall("search", {"q": f"{MARK}-argument"})],
            ),
            ToolMessage(content=f"{MARK}-tool-output"),
            AIMessage(content=f"{MARK}-answer. Paris is in France."),
        ]
    }
)
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "aspect_critic": [{"definition": "Is it right?"}],
    "simple_criteria_score": [{"definition": "How right is it?"}],
    "rubrics_score": [{}, {"rubrics": RUBRICS}],
    "answer_accuracy": [{"use_dual_judge": True}],
    "agent_goal_accuracy": [{"mode": "with_reference"}, {"mode": "without_reference"}],
    "context_precision": [
        {"evaluation_strategy": "reference_based"},
        {"evaluation_strategy": "response_based"},
    ],
}
_BLOCK = re.compile(r'<data name="[a-z_]+">\n.*?\n</data>', re.DOTALL)
_SCHEMA_FOLLOWS = "\n\nYour response should be in JSON format.\n"
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def rich_instance(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """An answer that follows ``schema`` with something in every field (so every later step
    of a metric runs): one item per list, the first of each choice, text in each string."""
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return rich_instance(root.get("$defs", {})[name], root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [item for item in schema[key] if item.get("type") != "null"]
            return rich_instance(options[0], root)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {
            name: rich_instance(item, root) for name, item in schema.get("properties", {}).items()
        }
    if kind == "array":
        items = [rich_instance(item, root) for item in schema.get("prefixItems", [])]
        wanted = max(schema.get("minItems", 1), len(items))
        while len(items) < wanted:
            items.append(rich_instance(schema.get("items", {"type": "string"}), root))
        return items
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    return "judged."


def answer(request: ChatRequest) -> Any:
    """The sentence judge's answer where it fits the schema (its statements carry the
    markers on into the next step's prompt), else an answer with something in every field."""
    reply = SentenceJudge()(request)
    schema = request.json_schema
    if schema is not None and not set(schema.get("required", [])) <= set(reply):
        return rich_instance(schema)
    return reply


def template_of(prompt: str, language: str) -> str | None:
    """The shipped template ``prompt`` was rendered from: its fixed text, in order."""
    for name in prompt_placeholders():
        parts = _PLACEHOLDER.split(load_prompt(name, language))
        pattern = "(?:.*?)".join(re.escape(part) for part in parts)
        if re.search(pattern, prompt, re.DOTALL):
            return name
    return None


@pytest.fixture
def container(tmp_path: Path, openai_server: FakeOpenAIServer) -> Iterator[Any]:
    path = tmp_path / "application.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            spring.ai.ragas.providers:
              openai-compatible:
                - name: p
                  base-url: {openai_server.base_url}
                  api-key: sk-test-fences
                  chat-models: [{{ id: judge-a }}]
                  embedding-models: [{{ id: emb-a }}]
            """
        ),
        encoding="utf-8",
    )
    openai_server.respond(None, answer)
    with create_container(load_settings(path)) as made:
        yield made


@pytest.mark.parametrize("language", ["en", "ru"])
def test_every_marker_in_every_prompt_of_every_metric_sits_in_a_data_block(
    container: Any, openai_server: FakeOpenAIServer, language: str
) -> None:
    seen: set[str] = set()
    for bean_name, cls in METRICS.items():
        if not cls.__module__.startswith("ragas_boot.metrics."):
            continue  # a test's own metric, registered by another test
        metric = container.metric(bean_name)
        for sample in (SINGLE_TURN, CONVERSATION):
            if not cls.can_read(sample):
                continue
            for config in CONFIGS.get(bean_name, [{}]):
                openai_server.reset()
                openai_server.respond(None, answer)
                metric.evaluate(sample, {**config, "language": language})
                for recorded in openai_server.requests:
                    # In prompt mode the answer's JSON Schema follows the template; a schema
                    # that pins topics or statements repeats them (not the template's doing).
                    prompt = recorded.request.prompt.split(_SCHEMA_FOLLOWS)[0]
                    outside = _BLOCK.sub("", prompt)
                    assert MARK not in outside, (
                        f"{bean_name} ({language}, {config}) puts sample text outside a <data> "
                        f"block:\n{prompt}"
                    )
                    name = template_of(prompt, language)
                    assert name is not None, f"{bean_name}: no shipped template:\n{prompt}"
                    seen.add(name)
    assert sorted(set(prompt_placeholders()) - seen) == []
