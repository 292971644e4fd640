"""The persistent response cache: a judge's valid answers on disk, keyed by what it would send.

A judge call is looked up before anything is sent, by a key hashed from everything that
changes the answer: the provider's endpoint (or, for the embedded local judge, the model file
and its sampling settings; for a LangChain class, the class and its non-secret arguments), the
model id, temperature, max tokens, top-p, the structured-output mode, the prompt and the
output schema (with the format block a schema-in-prompt mode appends). API keys, header
values and credentials in the base URL are left out; only a SHA-256 of the rest is stored.
Only answers that were parsed and validated are stored, and a stored answer is validated
again when read, so a hit is exactly what a fresh valid call would have returned. The key
sits above the transport: any judge whose :class:`~ragas_boot.chat.judge.JudgeSpec`
describes it is cached, however it sends.

Storage is diskcache (SQLite: safe with several processes and threads at once), imported only
when the cache is first used, so a run with the cache off never imports it.

The threat: a cache folder is data that others may have written. CI jobs share it, restore it
from other branches' caches, unpack it from artifacts. diskcache's default ``Disk`` pickles
values (and any key that is not a string) and unpickles whatever a row says is a pickle, so
whoever can write the folder would run code in the next run that reads it. Entries are
therefore JSON text, through :class:`_JsonDisk`, which never unpickles a value or a key and
reads or removes no value file outside the folder's own ``xx/yy/<hex>.val`` names: anything
else found in a row (a pickle, an older ragas-boot's pickled entry, bytes, a file elsewhere) is
a *corrupt entry*: a miss, counted and warned about once (:attr:`ResponseCache.corruption`),
and replaced by the fresh answer. JSON keeps a cache from running code, not from lying: a
folder written by someone untrusted can still hold wrong answers, so restore caches only from
jobs you trust, or turn the cache off there.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import logging
import re
import shutil
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, SecretStr

from ragas_boot._home import HOME_ENV, ragas_boot_home
from ragas_boot.chat.judge import JudgeAnswer, JudgeModel, TokenUsage
from ragas_boot.chat.specs import JudgeSpec, LangChainSpec, LocalSpec, OpenAICompatibleSpec
from ragas_boot.chat.structured import format_instructions, output_schema, schema_name
from ragas_boot.config.settings import CacheSettings
from ragas_boot.config.urls import mask_url
from ragas_boot.errors import CacheError, JudgeOutputError

if TYPE_CHECKING:
    from diskcache import Cache, Disk

__all__ = [
    "CACHE_FORMAT",
    "HOME_VARIABLE",
    "CacheEntry",
    "CacheStats",
    "ResponseCache",
    "default_cache_dir",
    "is_cacheable",
    "on_this_machine",
    "request_key",
    "resolve_cache_dir",
    "turn_key",
]

log = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)

#: Raised when what goes into a key or an entry changes, so old entries are never misread.
CACHE_FORMAT = 1

#: Environment variable naming ragas-boot's home folder (the cache is ``$RAGAS_BOOT_HOME/cache``).
HOME_VARIABLE = HOME_ENV

_INSTALL_HINT = "the response cache needs diskcache: pip install 'ragas-boot[cache]'"

#: diskcache's files in a cache folder: the SQLite database (with its -wal/-shm companions)
#: and the two-hex-digit folders that hold large values.
_DATABASE = "cache.db"
_VALUE_FOLDER = re.compile(r"[0-9a-f]{2}")
#: The name diskcache gives a value file (``Disk.filename``): the only ones read or removed.
_VALUE_FILE = re.compile(r"[0-9a-f]{2}[/\\][0-9a-f]{2}[/\\][0-9a-f]{28}\.val")


class _Unreadable:
    """What :class:`_JsonDisk` gives for a row that is not ragas-boot's JSON."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unreadable cache row>"


_UNREADABLE = _Unreadable()
_ABSENT = object()


def _json_disk() -> type[Disk]:
    """diskcache's ``Disk`` for entries as JSON text, made on first use (diskcache is
    imported lazily). Not diskcache's ``JSONDisk``: that one still unpickles a row marked as a
    pickle (its ``get`` and ``fetch`` call ``Disk``'s first)."""
    from diskcache import Disk

    # Keyed by the Disk class itself: diskcache imported afresh (pytester's in-process runs
    # restore sys.modules) checks against its new Disk, which an older subclass would fail.
    return _json_disk_of(Disk)


@functools.cache
def _json_disk_of(base: type[Disk]) -> type[Disk]:
    from diskcache.core import MODE_RAW, MODE_TEXT, UNKNOWN

    class JsonDisk(base):  # type: ignore[misc]
        def put(self, key: Any) -> Any:
            if type(key) is not str:  # anything else would be pickled
                raise TypeError(f"response cache keys are strings, not {type(key).__name__}")
            return super().put(key)

        def get(self, key: Any, raw: bool) -> Any:
            # raw = 0 marks a pickled key: never loaded.
            return key if raw and type(key) is str else _UNREADABLE

        def store(self, value: Any, read: bool, key: Any = UNKNOWN) -> Any:
            if read or not isinstance(value, dict):
                raise TypeError("response cache entries are JSON objects")
            return super().store(json.dumps(value, ensure_ascii=False), False, key=key)

        def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
            if read:
                raise TypeError("response cache entries are read whole")
            if mode == MODE_RAW and type(value) is str:
                text = value
            elif mode == MODE_TEXT and filename is not None and _VALUE_FILE.fullmatch(filename):
                try:
                    text = super().fetch(mode, filename, value, read)
                except UnicodeDecodeError:
                    return _UNREADABLE
            else:  # a pickle, bytes, a number, a file elsewhere
                return _UNREADABLE
            try:
                return json.loads(text)
            except ValueError:
                return _UNREADABLE

        def remove(self, file_path: str) -> None:
            if _VALUE_FILE.fullmatch(file_path):  # a row pointing elsewhere deletes nothing
                super().remove(file_path)

    return JsonDisk


def default_cache_dir() -> Path:
    """``$RAGAS_BOOT_HOME/cache`` when the variable is set, else ``.ragas-boot/cache`` in the
    working directory."""
    return ragas_boot_home() / "cache"


def resolve_cache_dir(directory: str | Path | None) -> Path:
    """The cache folder: ``directory`` (a relative one from the working directory), else
    :func:`default_cache_dir`."""
    if directory is None or str(directory) == "":
        return default_cache_dir()
    return Path(directory).expanduser().absolute()


def _is_loopback_url(value: object) -> bool:
    if not isinstance(value, str) or "://" not in value:
        return False
    try:
        host = urlsplit(value).hostname
    except ValueError:
        return False
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def on_this_machine(spec: JudgeSpec) -> bool:
    """Whether the judge runs on this machine: the embedded local provider, a base URL at a
    loopback address (a test server, a llama.cpp or Ollama you started), or a LangChain class
    given such a URL."""
    if isinstance(spec, LocalSpec) or _is_loopback_url(spec.base_url):
        return True
    chat_class = spec.langchain if isinstance(spec, LangChainSpec) else None
    arguments = chat_class.arguments if chat_class is not None else ()
    return any(_is_loopback_url(value) for _, value in arguments)


def is_cacheable(spec: JudgeSpec, *, any_temperature: bool = False, loopback: bool = False) -> bool:
    """Whether a judge's answers may be cached.

    A judge qualifies when its spec says everything its answer depends on (a configured
    endpoint, local model or LangChain class: a chat model instance given in code does not),
    its temperature is 0 or its calls are seeded (or ``any_temperature`` lets sampled answers
    be cached too), and it is not on this machine (or ``loopback`` says to cache those too).
    A seeded call (a model role's: the simulated user, a simulated tool, the generator) is
    cached at any temperature: its seed is part of the key, so a replay answers each seed's
    call as it was first answered, and another seed is another entry. Judges on this machine
    are asked every time by default: their calls cost no money, and a scripted test server
    must answer each call itself.
    """
    described = (
        bool(spec.base_url)
        or isinstance(spec, LocalSpec)
        or (isinstance(spec, LangChainSpec) and spec.langchain is not None)
    )
    sampled = spec.temperature != 0 and spec.seed is None
    if not described or (sampled and not any_temperature):
        return False
    return loopback or not on_this_machine(spec)


def _model_file(path: Path) -> dict[str, Any]:
    try:
        stat = path.stat()
    except OSError:
        return {"path": str(path)}
    return {"path": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _target(spec: JudgeSpec) -> dict[str, Any]:
    """Who answers: the parts of the spec that pick the model and how it is reached."""
    if isinstance(spec, LocalSpec):
        local = spec.local
        # The local server's port changes every run; the model file and sampling do not.
        return {
            "local": _model_file(local.model_path),
            "n_ctx": local.n_ctx,
            "seed": local.seed,
            "chat_format": local.chat_format,
            "max_string_length": local.max_string_length,
            "max_array_items": local.max_array_items,
            "decoder": local.decoder,
            "stop_loops": local.stop_loops,
        }
    if isinstance(spec, LangChainSpec) and spec.langchain is not None:
        arguments = {
            name: value
            for name, value in spec.langchain.arguments
            if not isinstance(value, SecretStr)
        }
        return {
            "class": spec.langchain.class_path,
            "arguments": arguments,
            "url": mask_url(spec.base_url),
        }
    # Credentials in the URL (user-info, ?key=) are secrets like the API key: not hashed in.
    # A chat model given in code has no path (its key is never stored: nothing describes it).
    path = "" if isinstance(spec, LangChainSpec) else OpenAICompatibleSpec.of(spec).completions_path
    return {"url": mask_url(spec.base_url).rstrip("/"), "path": path}


def request_key(spec: JudgeSpec, prompt: str, output_model: type[BaseModel]) -> str:
    """The cache key of one structured call: a SHA-256 of everything that changes the answer.

    The API key and header values never enter it (header names do); neither does the judge's
    id or alias, so two aliases of one model share answers. A seeded spec's seed does.
    """
    # What only OpenAI-compatible judges set: the others hash in the defaults they always had.
    openai = spec if isinstance(spec, OpenAICompatibleSpec) else None
    material = {
        "format": CACHE_FORMAT,
        "target": _target(spec),
        "model": spec.model,
        "temperature": spec.temperature,
        "max_tokens": spec.max_tokens,
        "top_p": spec.top_p,
        "structured_output": spec.structured_output.value,
        "json_object_schema": openai.json_object_schema if openai is not None else True,
        "headers": sorted(openai.headers) if openai is not None else [],
        "prompt": prompt,
        "schema": output_schema(output_model),
        "schema_name": schema_name(output_model),
        "schema_doc": output_model.__doc__,
        "format_block": format_instructions(output_model),
    }
    if spec.seed is not None:  # absent otherwise: unseeded judges keep their existing keys
        material["seed"] = spec.seed
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def turn_key(spec: JudgeSpec, request: Mapping[str, Any]) -> str:
    """The cache key of one turn of the built-in agent: a SHA-256 of who answers (as for a
    judge call) and the whole request it sends (messages, tools, options)."""
    material = {
        "format": CACHE_FORMAT,
        "kind": "agent_turn",
        "target": _target(spec),
        "headers": sorted(spec.headers) if isinstance(spec, OpenAICompatibleSpec) else [],
        "request": request,
    }
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One stored answer.

    Attributes:
        raw_text: the judge's valid answer, as received (already scrubbed of secrets).
        usage: tokens the original call used: what each hit saves.
        model: the model id that answered.
        created: when it was stored (seconds since the epoch).
    """

    raw_text: str
    usage: TokenUsage
    model: str
    created: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": CACHE_FORMAT,
            "raw_text": self.raw_text,
            "usage": self.usage.model_dump(),
            "model": self.model,
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, data: Any) -> CacheEntry | None:
        if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT:
            return None
        try:
            return cls(
                raw_text=str(data["raw_text"]),
                usage=TokenUsage.model_validate(data["usage"]),
                model=str(data["model"]),
                created=float(data["created"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


class CacheStats(BaseModel):
    """What a cache folder holds (``ragas-boot cache stats``)."""

    directory: str = Field(description="The cache folder.")
    entries: int = Field(description="Answers stored and not expired.")
    size_bytes: int = Field(description="Size of the cache on disk.")
    tokens: int = Field(
        description="Tokens the stored answers cost when first asked (what one hit on each saves)."
    )
    models: dict[str, int] = Field(description="Entries per model id.")
    corrupt: int = Field(
        default=0,
        description="Entries that are not ragas-boot's JSON (an older ragas-boot's pickles, "
        "altered files): never read, misses in every run.",
    )


class ResponseCache:
    """Valid judge answers on disk, shared by every process that opens the same folder.

    Cache errors (a full disk, a locked or broken file, diskcache not installed) never fail a
    judge call: they are logged once and the call goes to the judge as if there were no cache.
    They are not silent either: :attr:`problem` says why the cache is off (the CLI shows it in
    the run's summary), :meth:`stats` raises :class:`~ragas_boot.errors.CacheError`, and
    :meth:`clear` removes the unusable files so that the next run starts a fresh cache.

    Args:
        directory: the cache folder (made on first use).
        ttl: how long an answer stays valid; ``None`` = until cleared.
        any_temperature: cache judges whose temperature is above 0 too.
        loopback: cache judges on this machine too (see :func:`on_this_machine`).
    """

    def __init__(
        self,
        *,
        directory: str | Path,
        ttl: timedelta | None = None,
        any_temperature: bool = False,
        loopback: bool = False,
    ) -> None:
        self._directory = Path(directory)
        self._loopback = loopback
        self._ttl = ttl.total_seconds() if ttl else None
        self._any_temperature = any_temperature
        self._cache: Cache | None = None
        self._lock = threading.Lock()
        self._broken = False
        self._problem: str | None = None
        self._corrupt = 0

    @classmethod
    def from_settings(cls, settings: CacheSettings) -> ResponseCache | None:
        """The cache the settings ask for; ``None`` when ``enabled: false``."""
        if not settings.enabled:
            return None
        return cls(
            directory=resolve_cache_dir(settings.dir),
            ttl=settings.ttl,
            any_temperature=settings.any_temperature,
            loopback=settings.loopback,
        )

    def __repr__(self) -> str:
        return f"ResponseCache(directory={str(self._directory)!r}, ttl={self._ttl!r})"

    @property
    def directory(self) -> Path:
        """The cache folder."""
        return self._directory

    @property
    def problem(self) -> str | None:
        """Why the cache was switched off for this process (its files could not be opened,
        read or written), with what to do; None while it works or before first use. A missing
        ``diskcache`` is not a problem of the files: it is logged with its pip command."""
        return self._problem

    @property
    def corrupt_entries(self) -> int:
        """Entries this process found that are not ragas-boot's JSON (each was a miss)."""
        return self._corrupt

    @property
    def corruption(self) -> str | None:
        """What to say about the corrupt entries found (see the module's docstring); None
        while there were none."""
        if not self._corrupt:
            return None
        one = self._corrupt == 1
        return (
            f"response cache at {self._directory} holds {self._corrupt} "
            f"{'entry that is' if one else 'entries that are'} not ragas-boot's JSON "
            "(written by an older ragas-boot, or altered): read as misses, never loaded; run "
            "`ragas-boot cache clear` to remove them"
        )

    def _found_corrupt(self) -> None:
        with self._lock:
            self._corrupt += 1
            first = self._corrupt == 1
        if first:
            log.warning("%s", self.corruption)

    def check(self) -> str | None:
        """Open the cache now (if it is not open) and return :attr:`problem`."""
        self._open()
        return self._problem

    def applies_to(self, judge: JudgeModel) -> bool:
        """Whether this judge's answers are looked up and stored (see :func:`is_cacheable`)."""
        return is_cacheable(
            judge.spec, any_temperature=self._any_temperature, loopback=self._loopback
        )

    def _open(self) -> Cache | None:
        if self._cache is not None or self._broken:
            return self._cache
        with self._lock:
            if self._cache is None and not self._broken:
                try:
                    from diskcache import Cache
                except ImportError:
                    # On by default, so a missing extra must not fail a run: say how to fix it.
                    self._broken = True
                    log.warning(
                        "%s (or set spring.ai.ragas.cache.enabled: false); judges are asked "
                        "directly",
                        _INSTALL_HINT,
                    )
                    return None
                try:
                    self._cache = Cache(str(self._directory), disk=_json_disk())
                except Exception as error:
                    self._give_up(error)
        return self._cache

    def _give_up(self, error: BaseException) -> None:
        if not self._broken:
            self._broken = True
            self._problem = (
                f"response cache at {self._directory} is unusable ({type(error).__name__}: "
                f"{error}); run `ragas-boot cache clear` to remove it"
            )
            log.warning("%s; judges are asked directly", self._problem)

    def lookup(self, key: str) -> CacheEntry | None:
        """The entry stored under ``key``, if any (and not expired)."""
        cache = self._open()
        if cache is None:
            return None
        try:
            data = cache.get(key, default=_ABSENT)
        except Exception as error:
            self._give_up(error)
            return None
        if data is _ABSENT:
            return None
        entry = CacheEntry.from_dict(data)
        if entry is None:
            self._found_corrupt()
        return entry

    def would_answer(self, judge: JudgeModel, prompt: str, output_model: type[BaseModel]) -> bool:
        """Whether the cache holds an answer for this call (nothing is sent): for estimates.

        Like a real lookup, the stored answer must still validate as ``output_model``.
        """
        if not self.applies_to(judge):
            return False
        return self.answer(judge, prompt, output_model) is not None

    def answer(
        self, judge: JudgeModel, prompt: str, output_model: type[OutputT]
    ) -> tuple[JudgeAnswer[OutputT], TokenUsage] | None:
        """The stored answer to this call, validated again, and the tokens it saves; or None.

        A stored answer that no longer validates (the model's rules changed, not its schema)
        is a miss.
        """
        from ragas_boot.chat.structured import parse_structured

        entry = self.lookup(request_key(judge.spec, prompt, output_model))
        if entry is None:
            return None
        try:
            value = parse_structured(entry.raw_text, output_model, judge_id=judge.id)
        except JudgeOutputError:
            return None
        answer = JudgeAnswer(
            value=value, raw_text=entry.raw_text, usage=TokenUsage(), latency_s=0.0
        )
        return answer, entry.usage

    def store(
        self,
        judge: JudgeModel,
        prompt: str,
        output_model: type[BaseModel],
        answer: JudgeAnswer[Any],
    ) -> None:
        """Keep a valid answer (the caller only stores answers that parsed and validated)."""
        cache = self._open()
        if cache is None:
            return
        entry = CacheEntry(
            raw_text=answer.raw_text,
            usage=answer.usage,
            model=judge.spec.model,
            created=time.time(),
        )
        try:
            cache.set(
                request_key(judge.spec, prompt, output_model), entry.to_dict(), expire=self._ttl
            )
        except Exception as error:
            self._give_up(error)

    def turn_answer(self, spec: JudgeSpec, request: Mapping[str, Any]) -> str | None:
        """The stored answer (the raw chat completion) of the built-in agent's turn that
        would send ``request`` with ``spec``; None when the cache does not cover the model
        (:func:`is_cacheable`) or holds nothing."""
        if not is_cacheable(spec, any_temperature=self._any_temperature, loopback=self._loopback):
            return None
        entry = self.lookup(turn_key(spec, request))
        return entry.raw_text if entry is not None else None

    def keep_turn(
        self, spec: JudgeSpec, request: Mapping[str, Any], content: str, usage: TokenUsage
    ) -> None:
        """Store the answer of an agent's turn (a chat completion that was read whole)."""
        if not is_cacheable(spec, any_temperature=self._any_temperature, loopback=self._loopback):
            return
        cache = self._open()
        if cache is None:
            return
        entry = CacheEntry(raw_text=content, usage=usage, model=spec.model, created=time.time())
        try:
            cache.set(turn_key(spec, request), entry.to_dict(), expire=self._ttl)
        except Exception as error:
            self._give_up(error)

    def entries(self) -> Iterator[CacheEntry]:
        """Every stored, unexpired entry (corrupt ones left out: see :meth:`stats`)."""
        return (entry for entry in self._scan() if entry is not None)

    def _scan(self) -> Iterator[CacheEntry | None]:
        """Every unexpired row: its entry, or ``None`` when it is not ragas-boot's JSON."""
        cache = self._open()
        if cache is None:
            return
        for key in cache.iterkeys():
            if key is _UNREADABLE:
                yield None
                continue
            data = cache.get(key, default=_ABSENT)
            if data is not _ABSENT:  # else expired
                yield CacheEntry.from_dict(data)

    def stats(self) -> CacheStats:
        """Entries, size on disk, entries per model, and corrupt entries (never read).

        Raises:
            CacheError: the cache's files are unusable (see :attr:`problem`).
        """
        cache = self._open()
        if self._problem is not None:
            raise CacheError(self._problem)
        models: dict[str, int] = {}
        saved = 0
        corrupt = 0
        for entry in self._scan():
            if entry is None:
                corrupt += 1
                continue
            models[entry.model] = models.get(entry.model, 0) + 1
            saved += entry.usage.total_tokens
        return CacheStats(
            directory=str(self._directory),
            entries=sum(models.values()),
            size_bytes=int(cache.volume()) if cache is not None else 0,
            tokens=saved,
            models=dict(sorted(models.items())),
            corrupt=corrupt,
        )

    def clear(self, *, expired_only: bool = False) -> int:
        """Remove every entry (or only expired ones); return how many were removed.

        Unusable files (see :attr:`problem`) cannot be read entry by entry: use
        :meth:`discard`, which removes them.
        """
        cache = self._open()
        if cache is None:
            return 0
        return int(cache.expire() if expired_only else cache.clear())

    def discard(self) -> list[Path]:
        """Remove the cache's own files (diskcache's database and its value folders), whatever
        state they are in, and return them; other files in the folder are left alone. The
        next use starts an empty cache."""
        self.close()
        removed: list[Path] = []
        if not self._directory.is_dir():
            return removed
        for path in sorted(self._directory.iterdir()):
            if path.name.startswith(_DATABASE) and path.is_file():
                path.unlink()
                removed.append(path)
            elif _VALUE_FOLDER.fullmatch(path.name) and path.is_dir():
                shutil.rmtree(path)
                removed.append(path)
        with self._lock:
            self._broken = False
            self._problem = None
        return removed

    def close(self) -> None:
        """Close the SQLite connections (the cache reopens on next use)."""
        with self._lock:
            cache, self._cache = self._cache, None
        if cache is not None:
            cache.close()
