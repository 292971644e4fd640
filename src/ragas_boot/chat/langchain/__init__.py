"""Judges on any LangChain chat class: a ``langchain`` provider, GigaChat, an instance.

- :mod:`~ragas_boot.chat.langchain.judge`: :class:`LangChainJudge`;
- :mod:`~ragas_boot.chat.langchain.models`: the chat class found, built and released;
- :mod:`~ragas_boot.chat.langchain.errors`: any client's error as a judge error.

Internal: nothing is exported here; :mod:`ragas_boot.chat` is the public face.
"""

__all__: list[str] = []
