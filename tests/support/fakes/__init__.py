"""Fakes of other vendors' APIs, to test ragas-boot's adapters of them over real HTTP.

They are test support, not the library's API (users test their own metrics and agents with
:class:`ragas_boot.testing.FakeOpenAIServer`), and share its server base and its
:class:`~ragas_boot.testing.Reply` scripts:

- :class:`FakeGigaChatServer`: the OAuth token exchange and GigaChat's chat completions;
- :class:`FakeAnthropicServer`: Anthropic's Messages API;
- :class:`FakeOllamaServer`: Ollama's ``/api/chat``.
"""

from support.fakes._api import ChatCall, ProviderRequest
from support.fakes.anthropic_server import FakeAnthropicServer
from support.fakes.gigachat_server import FakeGigaChatServer, gigachat_key
from support.fakes.ollama_server import FakeOllamaServer

__all__ = [
    "ChatCall",
    "FakeAnthropicServer",
    "FakeGigaChatServer",
    "FakeOllamaServer",
    "ProviderRequest",
    "gigachat_key",
]
