"""The one place that imports langchain_openai (its import costs about 1.6 s, so it is lazy)."""

from __future__ import annotations

import gc
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI, OpenAIEmbeddings


@cache
def chat_openai_class() -> type[ChatOpenAI]:
    """Import ``ChatOpenAI`` on first use.

    The import adds a few hundred thousand long-lived objects (langchain, openai, aiohttp,
    their pydantic models) that every later full garbage collection would walk again: about
    0.12 s of CPU each on a 2-core machine, a loop stall long enough to trip short call
    timeouts, and some 0.3 ms per judge call in a large fan-out (benchmarks/fanout.py).
    ``gc.freeze()`` moves what is alive now into the permanent generation, which collections
    skip; objects made later are collected as before.
    """
    from langchain_openai import ChatOpenAI

    gc.freeze()
    return ChatOpenAI


@cache
def openai_embeddings_class() -> type[OpenAIEmbeddings]:
    """Import ``OpenAIEmbeddings`` on first use (after ``ChatOpenAI``, for the same reason)."""
    chat_openai_class()
    from langchain_openai import OpenAIEmbeddings

    return OpenAIEmbeddings
