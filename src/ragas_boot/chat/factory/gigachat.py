"""The specs of ``spring.ai.gigachat``: its judges and its embedding model, through
langchain-gigachat, on one connection (credentials, scope, TLS) as the Java starter has it."""

from __future__ import annotations

import base64
from typing import Any, Final

from pydantic import SecretStr

from ragas_boot.chat.embeddings.gigachat import GIGACHAT_EMBEDDINGS_CLASS
from ragas_boot.chat.factory.providers import (
    GIGACHAT_PROVIDER_NAME,
    PREFIX,
    find_starter,
    judge_fields,
    only_openai_compatible,
    starter_limits,
)
from ragas_boot.chat.langchain.models import check_chat_class
from ragas_boot.chat.openai.tls import check_tls_files
from ragas_boot.chat.specs import EmbeddingSpec, LangChainModelSpec, LangChainSpec, TlsFiles
from ragas_boot.config.settings import (
    GIGACHAT_AUTH_URL,
    GIGACHAT_BASE_URL,
    ChatModelSettings,
    GigaChatSettings,
    RagasSettings,
    StructuredOutputMode,
)
from ragas_boot.errors import ConfigError

__all__ = [
    "GIGACHAT_CLASS",
    "gigachat_arguments",
    "gigachat_embedding_spec",
    "gigachat_judge_specs",
]

#: The LangChain class GigaChat judges run on (the ``[gigachat]`` extra).
GIGACHAT_CLASS: Final = "langchain_gigachat.GigaChat"
#: The GigaChat starter's model when ``chat.options.model`` is unset.
GIGACHAT_DEFAULT_MODEL: Final = "GigaChat"
_GIGACHAT: Final = "spring.ai.gigachat"
_GIGACHAT_NOT_CHAT: Final = (f"{_GIGACHAT}.embedding", f"{_GIGACHAT}.image")
#: Arguments of the chat class that the embeddings class does not take.
_GIGACHAT_CHAT_ONLY: Final = frozenset({"profanity_check", "repetition_penalty"})
_EMBEDDINGS_SUFFIX: Final = "/embeddings"


def _file_path(resource: str | None) -> str | None:
    """A Spring resource (``file:/path``) as a file path."""
    if resource is None:
        return None
    return resource.removeprefix("file:")


def gigachat_arguments(gigachat: GigaChatSettings) -> dict[str, Any]:
    """The ``langchain_gigachat`` arguments of the ``spring.ai.gigachat`` keys.

    The connection, credentials and scope: the chat judges (``GigaChat``) and the embedding
    model (``GigaChatEmbeddings``) take the same ones, so one configuration serves both.
    """
    auth = gigachat.auth
    bearer = auth.bearer
    credentials: SecretStr | None = None
    if bearer.api_key is not None and bearer.api_key.get_secret_value():
        credentials = bearer.api_key
    else:
        client_id = bearer.client_id or gigachat.client_id
        secret = bearer.client_secret or gigachat.client_secret
        if client_id and secret is not None and secret.get_secret_value():
            # The authorization key is base64 of client-id:client-secret (as the starter).
            pair = f"{client_id}:{secret.get_secret_value()}".encode()
            credentials = SecretStr(base64.b64encode(pair).decode("ascii"))
    # As a provider's ca-bundle: a file that cannot be loaded fails now, even with unsafe-ssl.
    check_tls_files(
        TlsFiles(
            ca_bundle=_file_path(auth.ca_certs),
            client_cert=_file_path(auth.certs.client_certificate),
            client_key=_file_path(auth.certs.client_key),
        ),
        owner=_GIGACHAT,
        ca_key=f"{_GIGACHAT}.auth.ca-certs",
        cert_key=f"{_GIGACHAT}.auth.certs.client-certificate",
    )
    unsafe = auth.unsafe_ssl if auth.unsafe_ssl is not None else gigachat.unsafe_ssl
    options = gigachat.chat.options
    arguments: dict[str, Any] = {
        "base_url": (gigachat.base_url or GIGACHAT_BASE_URL).rstrip("/"),
        "auth_url": bearer.url or gigachat.auth_url or GIGACHAT_AUTH_URL,
        "credentials": credentials,
        "scope": auth.scope or gigachat.scope or "GIGACHAT_API_PERS",
        "verify_ssl_certs": not unsafe,
        "ca_bundle_file": _file_path(auth.ca_certs),
        "cert_file": _file_path(auth.certs.client_certificate),
        "key_file": _file_path(auth.certs.client_key),
        "profanity_check": _first(options.profanity_check, gigachat.chat.profanity_check),
        "repetition_penalty": _first(options.repetition_penalty, gigachat.chat.repetition_penalty),
    }
    return {name: value for name, value in arguments.items() if value is not None}


def _first(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)


def gigachat_judge_specs(settings: RagasSettings) -> list[tuple[LangChainSpec, str]]:
    """The judges of ``spring.ai.gigachat``, through langchain-gigachat.

    As the Java library does with the GigaChat starter's bean: only with ``auto-detect-beans``
    (its default) and a GigaChat connection configured; one judge per
    ``external-starters.gigachat.chat-models`` entry, else one on ``chat.options.model``.
    """
    providers = settings.providers
    gigachat = settings.gigachat
    starter = find_starter(providers, GIGACHAT_PROVIDER_NAME)
    starter_key = f"{PREFIX}.external-starters.{GIGACHAT_PROVIDER_NAME}"
    listed = bool(starter and starter.chat_models)
    if not providers.auto_detect_beans or (starter is not None and not starter.enabled):
        return []
    # A section that only configures GigaChat embeddings asks for no judge.
    present = any(
        key.startswith(_GIGACHAT + ".") and not key.startswith(_GIGACHAT_NOT_CHAT)
        for key in settings.source.origins
    )
    if not (gigachat.configured or listed or present):
        return []
    if not gigachat.configured:
        raise ConfigError(
            "GigaChat judges need credentials",
            key=f"{_GIGACHAT}.auth.bearer.api-key",
            hint="Set it (the authorization key), or auth.bearer.client-id and client-secret",
        )
    if any(p.name == GIGACHAT_PROVIDER_NAME for p in providers.openai_compatible) or any(
        p.name == GIGACHAT_PROVIDER_NAME for p in providers.langchain
    ):
        raise ConfigError(
            f"a provider is named '{GIGACHAT_PROVIDER_NAME}', the name of the judges of "
            f"{_GIGACHAT}",
            key=f"{PREFIX}.openai-compatible",
            hint="Rename it",
        )
    check_chat_class(GIGACHAT_CLASS, key=_GIGACHAT, extra="gigachat")
    options = gigachat.chat.options
    chat = gigachat.chat
    if listed and starter is not None:
        models = list(starter.chat_models)
        keys = [f"{starter_key}.chat-models[{index}]" for index in range(len(models))]
    else:
        model_id = options.model or chat.model or GIGACHAT_DEFAULT_MODEL
        models = [ChatModelSettings(id=model_id)]
        keys = [f"{_GIGACHAT}.chat.options.model"]
    limits = starter_limits(providers, GIGACHAT_PROVIDER_NAME)
    arguments = gigachat_arguments(gigachat)
    langchain = LangChainModelSpec(
        class_path=GIGACHAT_CLASS, arguments=tuple(arguments.items()), extra="gigachat"
    )
    structured = (starter.structured_output if starter else None) or StructuredOutputMode.NATIVE
    for model, key in zip(models, keys, strict=True):
        only_openai_compatible(model, key)
    return [
        (
            LangChainSpec(
                **judge_fields(
                    providers,
                    model,
                    provider=GIGACHAT_PROVIDER_NAME,
                    limits=limits,
                    structured_output=structured,
                    max_tokens=_first(options.max_tokens, chat.max_tokens),
                    temperature=_first(options.temperature, chat.temperature),
                    top_p=_first(options.top_p, chat.top_p),
                    base_url=arguments["base_url"],
                ),
                base_url=arguments["base_url"],
                api_key=arguments["credentials"],
                langchain=langchain,
            ),
            key,
        )
        for model, key in zip(models, keys, strict=True)
    ]


def gigachat_embedding_spec(settings: RagasSettings) -> tuple[EmbeddingSpec, str] | None:
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
