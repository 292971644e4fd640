"""A deterministic stand-in judge for the retrieval, response and NVIDIA metrics.

:class:`SentenceJudge` answers every step of those metrics from the prompt and the schema it
is sent, by sentence matching: a text's statements (claims) are its sentences, a statement is
supported by a context when the context contains it, entities are capitalised words and
numbers, and ratings count matched sentences. It is not a language model; it makes the
metrics' arithmetic visible in offline tests and examples, with every call made over real
HTTP to :class:`~ragas_boot.testing.FakeOpenAIServer`::

    server.respond(None, SentenceJudge())
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragas_boot.testing.server import ChatRequest

__all__ = ["SentenceJudge", "prompt_sections", "sentences"]

#: Section headers of the shipped prompts (en, ru), each alone on its line.
_HEADERS = {
    "question": ("Question:", "Вопрос:"),
    "answer": ("Answer:", "Ответ:"),
    "text": ("Text:", "Текст:"),
    "context": ("Context:", "Контекст:", "Context chunk:", "Фрагмент контекста:"),
    "reference": ("Reference answer:", "Эталонный ответ:"),
    "response": ("Response:", "Ответ системы:"),
}
_ENDS = (
    "For EACH",
    "Для КАЖДОГО",
    "Rate with",
    "Оценка —",
    "Give ",
    "Дайте ",
    "Your first",
    "Your response should be in JSON",
    "The text inside <data>",
    "Текст внутри блоков <data>",
)
# The lines that open and close a data block around a placeholder's value.
_DATA_LINE = re.compile(r'^(?:<data name="[a-z_]+">|</data>)$')
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_ENTITY = re.compile(r"\b(?:[A-ZА-ЯЁ][\w-]+(?:\s+[A-ZА-ЯЁ][\w-]+)*|\d[\d.,]*)")
_WORD = re.compile(r"\w{4,}")


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split after ``.!?`` and at line breaks), stripped."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def prompt_sections(prompt: str) -> dict[str, str]:
    """Section name → text of a shipped prompt (``question``, ``context``, ``text`` ...).

    In the ru prompts "Ответ:" heads the answer in a decomposition prompt and the response in
    a rating prompt; both names are filled.
    """
    by_header = {header: name for name, headers in _HEADERS.items() for header in headers}
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in prompt.splitlines():
        stripped = line.strip()
        if _DATA_LINE.match(stripped):
            continue
        if stripped in by_header:
            current = found.setdefault(by_header[stripped], [])
            continue
        if stripped.startswith(_ENDS) or re.match(r"^\S.*\(\d+\):$", stripped):
            current = None
            continue
        if current is not None:
            current.append(line)
    sections = {name: "\n".join(lines).strip() for name, lines in found.items()}
    if "answer" in sections:
        sections.setdefault("response", sections["answer"])
    return sections


def _norm(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!?")


def _pinned(request: ChatRequest) -> tuple[list[str], list[Any]]:
    """Statements and allowed labels pinned by a verdict schema."""
    schema = request.json_schema or {}
    verdicts = schema.get("properties", {}).get("verdicts", {})
    items = verdicts.get("prefixItems", [])
    statements = [item["properties"]["statement"]["const"] for item in items]
    labels = items[0]["properties"]["verdict"]["enum"] if items else []
    return statements, labels


@dataclass
class SentenceJudge:
    """Answers the metrics' steps by sentence matching (see the module docstring).

    Args:
        supports: decides whether a context supports a statement; the default looks for the
            statement (case- and blank-insensitive, final stop ignored) in the context.
    """

    supports: Callable[[str, str], bool] | None = None

    def _supported(self, statement: str, context: str) -> bool:
        if self.supports is not None:
            return self.supports(statement, context)
        return _norm(statement) in _norm(context)

    def _share(self, statements: list[str], context: str) -> float:
        if not statements:
            return 0.0
        return sum(self._supported(s, context) for s in statements) / len(statements)

    def __call__(self, request: ChatRequest) -> dict[str, Any]:
        """The answer to one request of any of the metrics' steps."""
        parts = prompt_sections(request.prompt)
        if request.asks_for("verdicts"):
            statements, labels = _pinned(request)
            context = parts.get("context", "")
            verdicts = []
            for statement in statements:
                ok = self._supported(statement, context)
                verdicts.append(
                    {
                        "statement": statement,
                        "reason": "The context says so." if ok else "Not in the context.",
                        "verdict": labels[0] if ok else labels[-1],
                    }
                )
            return {"verdicts": verdicts}
        for field in ("statements", "claims"):
            if request.asks_for(field):
                return {field: sentences(parts.get("answer") or parts.get("text", ""))}
        if request.asks_for("entities"):
            found = _ENTITY.findall(parts.get("text", ""))
            return {"entities": list(dict.fromkeys(entity.strip(".,") for entity in found))}
        if request.asks_for("verdict"):  # context precision: is this chunk useful?
            guide = parts.get("reference") or parts.get("response", "")
            chunk = parts.get("context", "")
            useful = any(self._supported(s, chunk) for s in sentences(guide))
            return {"reason": "Useful." if useful else "Not useful.", "verdict": useful}
        if request.asks_for("rating"):
            return self._rating(request, parts)
        return {"ok": True}

    def _rating(self, request: ChatRequest, parts: dict[str, str]) -> dict[str, Any]:
        context = parts.get("context", "")
        if "reference" in parts:  # answer accuracy: reference sentences found in the response
            share = self._share(sentences(parts["reference"]), parts.get("response", ""))
        elif "question" in parts:  # context relevance: question words found in the context
            words = {w.casefold() for w in _WORD.findall(parts["question"])}
            found = {w.casefold() for w in _WORD.findall(context)}
            share = len(words & found) / len(words) if words else 0.0
            share = 1.0 if share >= 0.5 else share
        else:  # groundedness: response sentences found in the context
            share = self._share(sentences(parts.get("response", "")), context)
        rating = 2 if share == 1.0 else 1 if share > 0 else 0
        answer: dict[str, Any] = {"reason": f"{share:.0%} matched.", "rating": rating}
        if request.asks_for("agrees_with_initial"):
            answer["agrees_with_initial"] = True
        return answer
