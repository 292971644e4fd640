"""The OpenAI-compatible transports and what only they need.

- :mod:`~ragas_boot.chat.openai.judge`: :class:`OpenAICompatibleJudge` on either transport;
- :mod:`~ragas_boot.chat.openai.direct`: the ``direct`` transport (aiohttp, requests
  serialised once per judge and output model);
- :mod:`~ragas_boot.chat.openai.chat_openai`: the ``langchain`` transport (``ChatOpenAI``);
- :mod:`~ragas_boot.chat.openai.agent`: the tool agent (a chat model with tools, run as the
  agent under test);
- :mod:`~ragas_boot.chat.openai.clients`: openai's aiohttp transport as these take it, and
  the lazy import of ``langchain_openai``;
- :mod:`~ragas_boot.chat.openai.endpoints`: base URLs, credentials, headers;
- :mod:`~ragas_boot.chat.openai.tls`, :mod:`~ragas_boot.chat.openai.proxies`,
  :mod:`~ragas_boot.chat.openai.answer_size`: TLS files, proxies, the bound on an answer.

What every transport shares (errors and the one scrub, answers, clients per loop, structured
output) is in ``chat/`` itself. A transport of OpenAI's batch API would sit here beside
``direct``. Internal: nothing is exported here; :mod:`ragas_boot.chat` is the public face.
"""

__all__: list[str] = []
