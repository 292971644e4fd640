"""From settings to judges: one :class:`JudgeSpec` per (provider, chat model)."""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from ragas_boot.chat.judge import (
    DEFAULT_MAX_PROMPT_TOKENS,
    JudgeModel,
    JudgeSpec,
    LangChainModelSpec,
    LocalModelSpec,
    ProviderLimits,
    TlsFiles,
)
from ragas_boot.chat.langchain_judge import LangChainJudge, check_chat_class, provider_name_of
from ragas_boot.chat.local import (
    BUNDLED_MODEL_ID,
    LOCAL_API_KEY,
    UNSTARTED_BASE_URL,
    LocalJudge,
    LocalModelPool,
    require_local_runtime,
    resolve_model_path,
)
from ragas_boot.chat.openai_calls import check_tls_files
from ragas_boot.chat.openai_judge import OpenAICompatibleJudge, api_base_url
from ragas_boot.config.settings import (
    GIGACHAT_AUTH_URL,
    GIGACHAT_BASE_URL,
    ChatModelSettings,
    ExternalStarterSettings,
    GigaChatSettings,
    HedgingSettings,
    LocalChatModelSettings,
    OpenAICompatibleProviderSettings,
    ProvidersSettings,
    RagasSettings,
    RateLimitSettings,
    StructuredOutputMode,
    Transport,
)
from ragas_boot.errors import ConfigError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "DEFAULT_PROVIDER_NAME",
    "GIGACHAT_CLASS",
    "GIGACHAT_PROVIDER_NAME",
    "LOCAL_PROVIDER_NAME",
    "UniqueIds",
    "build_judges",
    "gigachat_arguments",
    "judge_specs",
    "provider_limits",
    "registered_judges",
    "resolve_limits",
    "starter_limits",
]

#: Provider name of the judges declared under ``default-provider`` (Java's bucket key).
DEFAULT_PROVIDER_NAME = "default"
#: Provider name of the embedded local judges (``providers.local``).
LOCAL_PROVIDER_NAME = "local"

#: Provider name (and ``external-starters`` key) of the judges of ``spring.ai.gigachat``.
GIGACHAT_PROVIDER_NAME = "gigachat"
#: The LangChain class GigaChat judges run on (the ``[gigachat]`` extra).
GIGACHAT_CLASS = "langchain_gigachat.GigaChat"
#: The GigaChat starter's model when ``chat.options.model`` is unset.
GIGACHAT_DEFAULT_MODEL = "GigaChat"

_PREFIX = "spring.ai.ragas.providers"
_GIGACHAT = "spring.ai.gigachat"
_GIGACHAT_NOT_CHAT = (f"{_GIGACHAT}.embedding", f"{_GIGACHAT}.image")
#: Modes only a LangChain chat class can do.
_LANGCHAIN_ONLY = frozenset({StructuredOutputMode.NATIVE})


class UniqueIds:
    """Where each id of one kind was declared; declaring one twice is a start-up error.

    Args:
        what: the kind of id, for the message (``judge``, ``embedding model``).
    """

    def __init__(self, what: str) -> None:
        self._what = what
        self._declared_at: dict[str, str] = {}

    def claim(self, id: str, key: str) -> None:
        """Record that ``id`` is declared at the YAML ``key``.

        Raises:
            ConfigError: ``id`` was declared before (names both keys; hints at ``alias``).
        """
        if id in self._declared_at:
            raise ConfigError(
                f"{self._what} id '{id}' is declared twice (also at {self._declared_at[id]})",
                key=key,
                hint="Give one of them an 'alias' so results can tell them apart",
            )
        self._declared_at[id] = key


def resolve_limits(
    providers: ProvidersSettings,
    name: str,
    rate_limit: RateLimitSettings | None,
    *,
    max_concurrency: int | None = None,
    timeout: timedelta | None = None,
    hedging: HedgingSettings | None = None,
) -> ProviderLimits:
    """A provider's limits: its own settings, else the global ``rate-limit.default-*`` ones."""
    hedge = hedging or HedgingSettings()
    hedge_on = hedge.enabled if hedge.enabled is not None else providers.hedging.enabled
    hedge_after = hedge.delay if hedge.delay is not None else providers.hedging.delay
    defaults = providers.rate_limit
    own = rate_limit or RateLimitSettings()
    rps = own.rps if own.rps is not None else defaults.default_rps
    shared = own.shared if own.shared is not None else defaults.default_shared
    shared_file = None
    if shared:
        # One file per machine by default: every process that shares a provider's limit must
        # name the same file, whatever its working directory.
        shared_file = Path(
            own.shared_file
            or defaults.shared_file
            or Path(tempfile.gettempdir()) / "ragas-boot-rate-limits.sqlite3"
        ).expanduser()
    return ProviderLimits(
        provider=name,
        rps=rps if rps and rps > 0 else None,
        strategy=own.strategy or defaults.default_strategy,
        wait_timeout=own.timeout if own.timeout is not None else defaults.default_timeout,
        max_concurrency=max_concurrency or providers.max_concurrency,
        call_timeout=timeout or providers.timeout,
        failure_threshold=providers.circuit_breaker.failure_threshold,
        open_for=providers.circuit_breaker.open_for,
        shared_file=shared_file,
        hedge=bool(hedge_on),
        hedge_after=hedge_after,
    )


def provider_limits(
    providers: ProvidersSettings, provider: OpenAICompatibleProviderSettings
) -> ProviderLimits:
    """The limits of an openai-compatible provider (its judges and embedding models)."""
    return resolve_limits(
        providers,
        provider.name,
        provider.rate_limit,
        max_concurrency=provider.max_concurrency,
        timeout=provider.timeout,
        hedging=provider.hedging,
    )


def provider_tls(provider: OpenAICompatibleProviderSettings, key: str) -> TlsFiles:
    """The provider's ``ca-bundle``, ``client-cert`` and ``client-key`` (``key``: the
    provider's YAML key, for errors).

    Raises:
        ConfigError: a file is missing or is not PEM (named by its key), whatever the
            ``base-url``'s scheme: the files are loaded now, not on the first call, and a
            garbage file beside an ``http://`` URL is a mistake too, found before it turns
            ``https://``.
    """
    tls = TlsFiles(
        ca_bundle=provider.ca_bundle,
        client_cert=provider.client_cert,
        client_key=provider.client_key,
    )
    check_tls_files(
        tls,
        owner=f"provider '{provider.name}'",
        ca_key=f"{key}.ca-bundle",
        cert_key=f"{key}.client-cert",
    )
    return tls


def _spec(
    providers: ProvidersSettings,
    model: ChatModelSettings,
    *,
    provider: str,
    base_url: str,
    api_key: object,
    completions_path: str,
    limits: ProviderLimits,
    structured_output: object,
    headers: dict[str, SecretStr],
    max_tokens: int | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    local: LocalModelSpec | None = None,
    langchain: LangChainModelSpec | None = None,
    json_object_schema: bool = True,
    transport: Transport | None = None,
    tls: TlsFiles | None = None,
    max_prompt_tokens: int | None = None,
) -> JudgeSpec:
    defaults = providers.default_options
    options = model.options
    if max_tokens is None:
        max_tokens = defaults.max_tokens
    answer_cap = options.max_tokens if options.max_tokens is not None else max_tokens
    prompt_cap = model.max_prompt_tokens or max_prompt_tokens or providers.max_prompt_tokens
    if prompt_cap is None and local is not None:
        # The model's own context is known: a prompt beyond it cannot be read at all.
        prompt_cap = local.n_ctx
    if temperature is None:
        temperature = defaults.temperature
    if top_p is None:
        top_p = defaults.top_p
    return JudgeSpec(
        id=model.judge_id,
        model=model.id,
        provider=provider,
        base_url=base_url,
        api_key=api_key,  # type: ignore[arg-type]
        completions_path=completions_path,
        temperature=options.temperature if options.temperature is not None else temperature,
        max_tokens=answer_cap,
        top_p=options.top_p if options.top_p is not None else top_p,
        structured_output=structured_output or providers.structured_output,  # type: ignore[arg-type]
        limits=limits,
        headers=headers,
        local=local,
        max_answer_chars=providers.max_answer_chars,
        langchain=langchain,
        json_object_schema=json_object_schema,
        transport=transport or providers.transport,
        price=model.price,
        tls=tls or TlsFiles(),
        max_prompt_tokens=prompt_cap or DEFAULT_MAX_PROMPT_TOKENS,
    )


def _openai_mode(mode: StructuredOutputMode | None, key: str) -> StructuredOutputMode | None:
    if mode in _LANGCHAIN_ONLY:
        raise ConfigError(
            f"structured-output '{mode.value}' needs a LangChain chat class",
            key=key,
            hint="Use prompt, json_object, json_schema or function_calling",
        )
    return mode


def _langchain_specs(settings: RagasSettings) -> list[tuple[JudgeSpec, str]]:
    """The judges of ``providers.langchain``: any LangChain chat class, one per chat model."""
    providers = settings.providers
    taken = {p.name for p in providers.openai_compatible} | {LOCAL_PROVIDER_NAME}
    specs: list[tuple[JudgeSpec, str]] = []
    for p_index, provider in enumerate(providers.langchain):
        p_key = f"{_PREFIX}.langchain[{p_index}]"
        if provider.name in taken:
            # Judges share rate limits and concurrency by provider name.
            raise ConfigError(
                f"provider name '{provider.name}' is already used by another provider",
                key=f"{p_key}.name",
                hint="Provider names must be unique across openai-compatible, langchain and local",
            )
        taken.add(provider.name)
        check_chat_class(provider.class_path, key=f"{p_key}.class")
        arguments = {key.replace("-", "_"): value for key, value in provider.arguments.items()}
        model_argument = provider.model_argument.replace("-", "_")
        langchain = LangChainModelSpec(
            class_path=provider.class_path,
            arguments=tuple(arguments.items()),
            model_argument=model_argument,
        )
        secrets = [value for value in arguments.values() if isinstance(value, SecretStr)]
        base_url = next(
            (
                str(arguments[name])
                for name in ("base_url", "api_base", "anthropic_api_url", "host")
                if arguments.get(name)
            ),
            "",
        )
        limits = resolve_limits(
            providers,
            provider.name,
            provider.rate_limit,
            max_concurrency=provider.max_concurrency,
            timeout=provider.timeout,
        )
        for m_index, model in enumerate(provider.chat_models):
            spec = _spec(
                providers,
                model,
                provider=provider.name,
                base_url=base_url,
                api_key=secrets[0] if secrets else SecretStr(""),
                completions_path="",
                limits=limits,
                structured_output=provider.structured_output or StructuredOutputMode.NATIVE,
                headers={},
                langchain=langchain,
            )
            specs.append((spec, f"{p_key}.chat-models[{m_index}]"))
    return specs


def _starter(providers: ProvidersSettings, name: str) -> ExternalStarterSettings | None:
    """``external-starters.<name>``: the exact key, else case-insensitively (as Java)."""
    starters = providers.external_starters
    if name in starters:
        return starters[name]
    lowered = {key.lower(): value for key, value in starters.items()}
    return lowered.get(name.lower())


def starter_limits(providers: ProvidersSettings, name: str) -> ProviderLimits:
    """The limits of a provider whose models come from a starter's bean (GigaChat, a
    registered chat model): ``external-starters.<name>``'s own, else the global defaults.

    Its judges and embedding models take these, so they share one rate limit and concurrency.
    """
    starter = _starter(providers, name)
    return resolve_limits(
        providers,
        name,
        starter.rate_limit if starter else None,
        max_concurrency=starter.max_concurrency if starter else None,
        timeout=starter.timeout if starter else None,
    )


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


def _gigachat_specs(settings: RagasSettings) -> list[tuple[JudgeSpec, str]]:
    """The judges of ``spring.ai.gigachat``, through langchain-gigachat.

    As the Java library does with the GigaChat starter's bean: only with ``auto-detect-beans``
    (its default) and a GigaChat connection configured; one judge per
    ``external-starters.gigachat.chat-models`` entry, else one on ``chat.options.model``.
    """
    providers = settings.providers
    gigachat = settings.gigachat
    starter = _starter(providers, GIGACHAT_PROVIDER_NAME)
    starter_key = f"{_PREFIX}.external-starters.{GIGACHAT_PROVIDER_NAME}"
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
            key=f"{_PREFIX}.openai-compatible",
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
    return [
        (
            _spec(
                providers,
                model,
                provider=GIGACHAT_PROVIDER_NAME,
                base_url=arguments["base_url"],
                api_key=arguments["credentials"],
                completions_path="/chat/completions",
                limits=limits,
                structured_output=structured,
                headers={},
                max_tokens=_first(options.max_tokens, chat.max_tokens),
                temperature=_first(options.temperature, chat.temperature),
                top_p=_first(options.top_p, chat.top_p),
                langchain=langchain,
            ),
            key,
        )
        for model, key in zip(models, keys, strict=True)
    ]


def registered_judges(
    settings: RagasSettings,
    chat_models: Mapping[str, BaseChatModel],
    *,
    taken: Sequence[str] = (),
) -> list[JudgeModel]:
    """Judges on chat model instances registered in code (Java: auto-detected beans).

    Each judge's provider is named after its class (``ChatAnthropic`` → ``anthropic``, see
    :func:`~ragas_boot.chat.langchain_judge.provider_name_of`); ``external-starters.<that
    name>`` gives its rate limit, concurrency, timeout and structured output (default
    ``native``), and ``enabled: false`` there leaves it out.

    Raises:
        ConfigError: a judge id is taken, or a value is not a LangChain chat model.
    """
    from langchain_core.language_models import BaseChatModel

    providers = settings.providers
    judges: list[JudgeModel] = []
    seen = set(taken)
    for judge_id, model in chat_models.items():
        if not isinstance(model, BaseChatModel):
            raise ConfigError(
                f"chat model '{judge_id}' is a {type(model).__name__}, not a LangChain "
                "BaseChatModel"
            )
        if judge_id in seen:
            raise ConfigError(
                f"judge id '{judge_id}' of a registered chat model is already declared",
                hint="Register it under another id",
            )
        seen.add(judge_id)
        name = provider_name_of(model)
        starter = _starter(providers, name)
        if starter is not None and not starter.enabled:
            continue
        limits = starter_limits(providers, name)
        model_id = str(
            getattr(model, "model", None) or getattr(model, "model_name", None) or judge_id
        )
        spec = JudgeSpec(
            id=judge_id,
            model=model_id,
            provider=name,
            base_url="",
            api_key=SecretStr(""),
            completions_path="",
            structured_output=(starter.structured_output if starter else None)
            or StructuredOutputMode.NATIVE,
            limits=limits,
        )
        judges.append(LangChainJudge(spec=spec, model=model))
    return judges


def _local_specs(settings: RagasSettings) -> list[tuple[JudgeSpec, str]]:
    """The judges of ``providers.local`` with the YAML key of each (checks the extra)."""
    providers = settings.providers
    local = providers.local
    prefix = f"{_PREFIX}.local"
    if any(p.name == LOCAL_PROVIDER_NAME for p in providers.openai_compatible):
        # Judges share rate limits and concurrency by provider name.
        raise ConfigError(
            f"an openai-compatible provider is named '{LOCAL_PROVIDER_NAME}', the name of the "
            "embedded local provider",
            key=f"{_PREFIX}.openai-compatible",
            hint="Rename it, or disable providers.local",
        )
    origins = settings.source.origins
    models = local.chat_models
    keys = [f"{prefix}.chat-models[{index}]" for index in range(len(models))]
    if not models:
        default_id = Path(local.model_path).stem.lower() if local.model_path else BUNDLED_MODEL_ID
        models = [LocalChatModelSettings(id=default_id)]
        keys = [f"{prefix}.chat-models"]
    limits = resolve_limits(
        providers,
        LOCAL_PROVIDER_NAME,
        local.rate_limit,
        max_concurrency=local.max_concurrency,
        timeout=local.timeout,
    )
    paths: dict[str | None, Path] = {}
    specs: list[tuple[JudgeSpec, str]] = []
    for model, key in zip(models, keys, strict=True):
        configured = model.model_path if model.model_path is not None else local.model_path
        if configured not in paths:
            if configured is None:
                require_local_runtime()  # before naming the model package, the bigger install
            path_key = (
                f"{key}.model-path" if model.model_path is not None else f"{prefix}.model-path"
            )
            paths[configured] = resolve_model_path(
                configured, key=path_key, file=origins.get(path_key)
            )
        model_spec = LocalModelSpec(
            model_path=paths[configured],
            n_ctx=local.n_ctx,
            n_threads=local.n_threads,
            seed=local.seed,
            chat_format=local.chat_format,
            max_string_length=local.max_string_length,
            max_array_items=local.max_array_items,
            decoder=local.decoder.value,
            stop_loops=local.stop_loops,
        )
        spec = _spec(
            providers,
            model,
            provider=LOCAL_PROVIDER_NAME,
            base_url=UNSTARTED_BASE_URL,
            api_key=SecretStr(LOCAL_API_KEY),
            completions_path="/v1/chat/completions",
            limits=limits,
            structured_output=_openai_mode(local.structured_output, f"{prefix}.structured-output"),
            headers={},
            max_tokens=local.max_tokens,
            local=model_spec,
        )
        specs.append((spec, key))
    require_local_runtime()  # a model-path typo is reported first: it needs no install to fix
    return specs


def judge_specs(settings: RagasSettings) -> list[JudgeSpec]:
    """Every judge the settings declare, in YAML order.

    The embedded ``local`` provider's judges (when ``providers.local.enabled``) come after
    the openai-compatible ones; an enabled local provider with no ``chat-models`` has one
    judge, ``smollm2-135m`` on the bundled model (or the GGUF's file name on another).

    Raises:
        ConfigError: the same judge id twice (give one an ``alias``), a ``completions-path``
            the OpenAI client cannot reach, ``default-provider`` models without
            ``spring.ai.openai.base-url`` / ``api-key``, or a local ``model-path`` that does
            not exist.
        MissingExtraError: the local provider is enabled without the ``[local]`` extra.
    """
    providers = settings.providers
    specs: list[JudgeSpec] = []
    ids = UniqueIds("judge")
    if providers.openai_compatible or providers.default_provider.models:
        _openai_mode(providers.structured_output, f"{_PREFIX}.structured-output")

    def add(spec: JudgeSpec, key: str) -> None:
        ids.claim(spec.id, key)
        specs.append(spec)

    for p_index, provider in enumerate(providers.openai_compatible):
        p_key = f"{_PREFIX}.openai-compatible[{p_index}]"
        try:
            api_base_url(provider.base_url, provider.completions_path)
        except ValueError as error:
            raise ConfigError(str(error), key=f"{p_key}.completions-path") from None
        limits = provider_limits(providers, provider)
        tls = provider_tls(provider, p_key)
        for m_index, model in enumerate(provider.chat_models):
            add(
                _spec(
                    providers,
                    model,
                    provider=provider.name,
                    base_url=provider.base_url,
                    api_key=provider.api_key,
                    completions_path=provider.completions_path,
                    limits=limits,
                    structured_output=_openai_mode(
                        provider.structured_output, f"{p_key}.structured-output"
                    ),
                    headers=provider.headers,
                    json_object_schema=provider.json_object_schema,
                    transport=provider.transport,
                    tls=tls,
                    max_prompt_tokens=provider.max_prompt_tokens,
                ),
                f"{p_key}.chat-models[{m_index}]",
            )

    default = providers.default_provider
    if default.enabled and default.models:
        openai = settings.openai
        if not openai.base_url or openai.api_key is None:
            missing = "base-url" if not openai.base_url else "api-key"
            raise ConfigError(
                "default-provider has models but spring.ai.openai has no " + missing,
                key=f"spring.ai.openai.{missing}",
                hint="Set it, or declare the models under openai-compatible",
            )
        limits = resolve_limits(providers, DEFAULT_PROVIDER_NAME, default.rate_limit)
        path = settings.openai.chat.completions_path or "/v1/chat/completions"
        for m_index, model in enumerate(default.models):
            add(
                _spec(
                    providers,
                    model,
                    provider=DEFAULT_PROVIDER_NAME,
                    base_url=openai.base_url,
                    api_key=openai.api_key,
                    completions_path=path,
                    limits=limits,
                    structured_output=None,
                    headers={},
                ),
                f"{_PREFIX}.default-provider.models[{m_index}]",
            )

    for spec, key in _langchain_specs(settings):
        add(spec, key)
    for spec, key in _gigachat_specs(settings):
        add(spec, key)

    if providers.local.enabled:
        for spec, key in _local_specs(settings):
            add(spec, key)
    return specs


def build_judges(
    specs: Sequence[JudgeSpec], *, local_models: LocalModelPool | None = None
) -> list[JudgeModel]:
    """One judge per spec; no network traffic happens and no model is loaded here.

    A spec with ``local`` set becomes a :class:`~ragas_boot.chat.local.LocalJudge` on the
    ``local_models`` server of its model (started on the judge's first use); one with
    ``langchain`` set a :class:`~ragas_boot.chat.langchain_judge.LangChainJudge`; every other
    spec an :class:`OpenAICompatibleJudge`.

    Raises:
        ValueError: local specs without a ``local_models`` pool to own their servers.
        MissingExtraError: local specs without the ``[local]`` extra.
    """
    judges: list[JudgeModel] = []
    for spec in specs:
        if spec.langchain is not None:
            judges.append(LangChainJudge(spec=spec))
            continue
        if spec.local is None:
            judges.append(OpenAICompatibleJudge(spec=spec))
            continue
        if local_models is None:
            raise ValueError(
                f"judge '{spec.id}' runs on the embedded local model: pass "
                "local_models=LocalModelPool() (and close it) to own its server"
            )
        judges.append(LocalJudge(spec=spec, server=local_models.server(spec.local, spec.model)))
    return judges
