"""The one place that imports langchain_openai (its import costs about 1.6 s, so it is lazy)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI


@cache
def chat_openai_class() -> type[ChatOpenAI]:
    """Import ``ChatOpenAI`` on first use."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI
