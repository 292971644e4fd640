"""Five small Markdown documents and the test server scripted as the generating model and a
judge: shared by the test-set generation tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ragas_boot.testing import ChatRequest

WRITER = "writer-model"
JUDGE = "judge-a"

DOCUMENTS = {
    "heat-pump.md": """# Heat pump manual

## Defrost cycle

The outdoor coil ices up below 5 °C. The heat pump then runs a defrost cycle of about ten
minutes, during which the indoor fan stops and the display shows DEF.

## Filters

Clean the indoor filter every two months with lukewarm water; let it dry before refitting.
""",
    "warranty.md": """# Warranty

The heat pump is covered for five years from installation. The warranty needs a yearly
service by a certified installer; keep the service record.

The compressor is covered for ten years when the yearly service was done.
""",
    "app.md": """# The mobile app

Pair the app with the heat pump by holding the WIFI button for five seconds. The app shows
the defrost cycle as a snowflake icon and lets you schedule quiet hours at night.
""",
    "noise.md": """# Noise

The outdoor unit makes 48 dB at one metre in normal mode and 42 dB in quiet mode. Quiet
hours lower the compressor speed, so heating is slower at night.
""",
    "отопление.md": """# Отопление зимой

При температуре ниже минус двадцати градусов тепловой насос включает резервный
электрический нагреватель мощностью три киловатта.
""",
}


def write_documents(folder: Path) -> Path:
    """The five documents under ``folder/docs``."""
    docs = folder / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, text in DOCUMENTS.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


def chunk_blocks(prompt: str) -> dict[str, str]:
    """The chunks a prompt shows, by id."""
    return dict(re.findall(r'<data name="(c\d+)">\n(.*?)\n</data>', prompt, re.S))


def first_sentence(chunk: str) -> str:
    """The chunk's first sentence that is not a heading."""
    prose = " ".join(line for line in chunk.splitlines() if not line.startswith("#"))
    return prose.split(".")[0].strip()


def good_writer(request: ChatRequest) -> dict[str, Any]:
    """A generating model that asks about the first sentence of each chunk it is shown and
    cites them all."""
    blocks = chunk_blocks(request.prompt)
    sentences = [first_sentence(text) for text in blocks.values()]
    return {
        "question": "Is it true that " + " and that ".join(sentences) + "?",
        "answer": "Yes: " + "; ".join(sentences) + ".",
        "cited_chunks": list(blocks),
    }


def yes_judge(request: ChatRequest) -> dict[str, Any]:
    """A judge that finds every case grounded."""
    return {"reason": "every fact is in the chunks", "correct": True}
