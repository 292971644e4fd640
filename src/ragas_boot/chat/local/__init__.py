"""The embedded ``local`` provider: a GGUF model run by llama.cpp in process.

- :mod:`~ragas_boot.chat.local.judge`: :class:`LocalJudge` (in process, no HTTP);
- :mod:`~ragas_boot.chat.local.server`: :class:`LocalModelServer` (one loaded model, served
  over HTTP only where an endpoint is needed) and :class:`LocalModelPool`;
- :mod:`~ragas_boot.chat.local.runtime`: the extra and the bundled model, checked without
  importing llama.cpp;
- :mod:`~ragas_boot.chat.local.plan`: what the model makes of a request or a judge call;
- :mod:`~ragas_boot.chat.local.worker`: the model's one thread and the order it takes calls in;
- :mod:`~ragas_boot.chat.local.engine`: the loaded model and its decoding loop;
- :mod:`~ragas_boot.chat.local.decoders`: llguidance's and llama.cpp's grammar decoders;
- :mod:`~ragas_boot.chat.local.http`: the model's endpoint on 127.0.0.1.

Internal: nothing is exported here; :mod:`ragas_boot.chat` is the public face.
"""

__all__: list[str] = []
