"""``load_settings``: a Spring-style ``application.yaml`` (plus profiles and environment) as
:class:`~ragas_boot.config.settings.RagasSettings`.

The steps, each in its own module:

1. find the file (argument, ``RAGAS_CONFIG``, ``./application.yaml``, ``./application.yml``);
2. read its ``---`` documents (:mod:`._documents`) and choose the active profiles;
3. apply the active documents, then ``application-{profile}.yaml`` of each profile, in order:
   maps merge, lists replace (:mod:`._tree`), keys renamed to kebab-case (:mod:`._schema`);
4. let environment variables override (:mod:`._env`);
5. resolve ``${VAR:default}`` in the consumed subtrees (:mod:`._placeholders`);
6. report the Java keys ragas-boot does not support (:mod:`._unsupported`);
7. validate, turning every problem into one :class:`~ragas_boot.errors.ConfigError`
   (:mod:`._problems`); each metric's section by the model the caller gives for it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragas_boot.config import _env, _profiles, _schema, _unsupported
from ragas_boot.config._documents import Document, read_documents
from ragas_boot.config._placeholders import Lookup, PlaceholderError, Resolver, resolve_tree
from ragas_boot.config._problems import (
    Problem,
    config_error,
    from_validation_error,
    unknown_key,
)
from ragas_boot.config._schema import MetricSections
from ragas_boot.config._tree import KeyPath, Origins, Tree, find, format_path, merge, split_key
from ragas_boot.config.settings import ROOT_PREFIXES, RagasSettings, SettingsSource
from ragas_boot.errors import ConfigError

__all__ = ["CONFIG_ENV_VAR", "DEFAULT_FILES", "PROFILES_ENV_VAR", "load_settings"]

#: Environment variable naming the configuration file when no path is given.
CONFIG_ENV_VAR = "RAGAS_CONFIG"
#: Environment variable with the active profiles (comma-separated), as in Spring.
PROFILES_ENV_VAR = "SPRING_PROFILES_ACTIVE"
#: Files looked for in the working directory (or a directory given as the path), in order.
DEFAULT_FILES = ("application.yaml", "application.yml")
#: The profile in effect when none is active and ``spring.profiles.default`` is not set.
DEFAULT_PROFILE = "default"

_ACTIVE: KeyPath = ("spring", "profiles", "active")
_DEFAULT: KeyPath = ("spring", "profiles", "default")

_log = logging.getLogger("ragas_boot.config")


def load_settings(
    path: str | os.PathLike[str] | None = None,
    profiles: Sequence[str] | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    metric_sections: MetricSections | None = None,
) -> RagasSettings:
    """Load, merge and validate the configuration.

    Spring Boot's rules apply: ``---`` documents activated by ``spring.config.activate.on-profile``;
    ``application-{profile}.yaml`` (or ``.yml``) beside the file applied after it, in profile
    order; maps merge and lists replace; dotted, nested, kebab-case, camelCase and snake_case
    keys; ``${VAR}`` / ``${VAR:default}`` placeholders; environment variables with relaxed names
    (``SPRING_AI_RETRY_BACKOFF_MULTIPLIER``) win over YAML.

    Args:
        path: the YAML file, or a directory holding ``application.yaml``. Default: the
            ``RAGAS_CONFIG`` variable, else ``./application.yaml``, else ``./application.yml``.
        profiles: active profiles (a list, or one comma-separated string). Default: the
            ``SPRING_PROFILES_ACTIVE`` variable, else ``spring.profiles.active`` in the file,
            else ``spring.profiles.default``, else ``default``. An empty value counts as not
            given.
        environ: the environment to read (placeholders, overrides, ``RAGAS_CONFIG``,
            ``SPRING_PROFILES_ACTIVE``). Default: ``os.environ``.
        metric_sections: bean name → the model of its ``spring.ai.ragas.metrics.<bean-name>``
            section (``METRICS.section_models()``): each section is validated by its model,
            its keys spelled, overridden and hinted like any other, and a section that names
            no metric is an error. Default (None): metric sections are kept as written, and
            checked when a container is built from the settings. ``ragas_boot.load_settings``
            passes every registered metric's.

    Returns:
        The settings; ``settings.source`` tells which files, profiles and variables they came
        from, and which Java keys were recognised but are not supported.

    Raises:
        ConfigError: no file was found, a file is unreadable or not valid YAML, a placeholder
            has no value, or keys are unknown or invalid. All problems found by validation are
            listed in one error; ``key`` and ``file`` are those of the first.
    """
    env: Mapping[str, str] = os.environ if environ is None else environ
    base = _locate(path, env)
    documents = read_documents(base, str(base))
    if not documents:
        # An empty file is almost always a mistake (a wrong path, a truncated copy); running
        # with no judges and exit 0 would hide it.
        raise ConfigError(
            "the configuration file is empty (no YAML document with keys)",
            file=str(base),
            hint="write at least the spring.ai.ragas section; see docs/configuration.md",
        )
    active = _active_profiles(profiles, env, documents)
    files = [str(base)]
    layers = [document for document in documents if document.applies(active)]
    for profile in active:
        profile_file = _profile_file(base, profile)
        if profile_file is not None:
            files.append(str(profile_file))
            extra = read_documents(profile_file, str(profile_file))
            layers.extend(document for document in extra if document.applies(active))
    _check_profile_keys(layers, profile_files=files[1:])
    _log.debug("configuration files %s, active profiles %s", files, active)

    top = _schema.root(metric_sections)
    tree: Tree = {}
    origins = Origins()
    for layer in layers:
        merge(tree, _schema.normalise_keys(layer.data, top), layer.label, origins)
    _raise_if(_env.apply_overrides(tree, _env.find_overrides(env, top), origins))
    _raise_if(resolve_tree(tree, Resolver(_lookup(tree, env)), origins, top))
    tree = _schema.split_lists(tree, top)

    unsupported = [format_path(key) for key in _unsupported.find_unsupported(tree)]
    try:
        reported = _unsupported.java_keys_to_report(unsupported, files, env)
    except ValueError as error:
        raise ConfigError(str(error), hint="Unset it, or set once, always or off") from None
    for key in reported:
        _log.warning(
            "%s is a Java key that ragas-boot does not support yet; it is ignored (in %s; "
            "said once for this file, %s=always to repeat, off to silence)",
            key,
            origins.of(tuple(split_key(key))) or "?",
            _unsupported.WARNINGS_ENV,
        )
    if len(reported) < len(unsupported):
        _log.debug("Java keys ragas-boot ignores (reported before): %s", unsupported)

    data, problems = _root_data(tree, origins, top, metric_sections)
    source = SettingsSource(
        files=files,
        active_profiles=list(active),
        unsupported_keys=unsupported,
        origins=origins.items_under(_schema.consumed_prefixes()),
    )
    try:
        settings = RagasSettings(**data, source=source)
    except ValidationError as error:
        problems.extend(from_validation_error(error, origins, top))
        raise config_error(problems) from None
    _raise_if(problems)
    return settings


def _raise_if(problems: list[Problem]) -> None:
    if problems:
        # ``from None``: a chained pydantic error would print every input, secrets included.
        raise config_error(problems) from None


def _locate(path: str | os.PathLike[str] | None, environ: Mapping[str, str]) -> Path:
    """The base file; never silently nothing."""
    if path is not None:
        candidate, given = Path(path), "the path given to load_settings()"
    elif environ.get(CONFIG_ENV_VAR, "").strip():
        candidate, given = Path(environ[CONFIG_ENV_VAR].strip()), f"${CONFIG_ENV_VAR}"
    else:
        tried = [Path(name) for name in DEFAULT_FILES]
        found = next((file for file in tried if file.is_file()), None)
        if found is None:
            raise ConfigError(
                "no configuration file found; tried "
                + ", ".join(str(file.absolute()) for file in tried),
                hint=f"pass a path to load_settings(), or set {CONFIG_ENV_VAR}",
            )
        return found
    tried = [candidate / name for name in DEFAULT_FILES] if candidate.is_dir() else [candidate]
    found = next((file for file in tried if file.is_file()), None)
    if found is None:
        raise ConfigError(
            f"configuration file not found (from {given}); tried "
            + ", ".join(str(file.absolute()) for file in tried),
            file=str(candidate),
        )
    return found


def _profile_file(base: Path, profile: str) -> Path | None:
    """``application-{profile}.yaml`` (or ``.yml``) beside ``base``; its own suffix first."""
    suffixes = dict.fromkeys((base.suffix, ".yaml", ".yml"))
    for suffix in suffixes:
        candidate = base.with_name(f"{base.stem}-{profile}{suffix}")
        if candidate.is_file():
            return candidate
    return None


def _active_profiles(
    argument: Sequence[str] | str | None,
    environ: Mapping[str, str],
    documents: Sequence[Document],
) -> list[str]:
    """The argument, else the environment, else the file's active, else its default profiles."""
    chosen = _profiles.names(argument if isinstance(argument, str) else list(argument or ()))
    if chosen:
        return chosen
    chosen = _profiles.names(environ.get(PROFILES_ENV_VAR))
    if chosen:
        return chosen
    resolver = Resolver(_env_lookup(environ))
    general = [document for document in documents if not document.conditional]
    for key in (_ACTIVE, _DEFAULT):
        value: Any = None
        origin = None
        for document in general:
            present, found = find(document.data, key)
            if present:
                value, origin = found, document.label
        try:
            if isinstance(value, str):
                value = resolver.resolve(value)
            chosen = _profiles.names(value)
        except PlaceholderError as error:
            raise ConfigError(
                error.message, key=format_path(key), file=origin, hint=error.hint
            ) from None
        except ValueError as error:
            raise ConfigError(str(error), key=format_path(key), file=origin) from None
        if chosen:
            return chosen
    return [DEFAULT_PROFILE]


def _check_profile_keys(layers: Sequence[Document], *, profile_files: Sequence[str]) -> None:
    """Spring rejects choosing profiles from a profile-specific document; so do we."""
    for layer in layers:
        if not layer.conditional and layer.file not in profile_files:
            continue
        for key in (_ACTIVE, _DEFAULT):
            if find(layer.data, key)[0]:
                raise ConfigError(
                    "cannot be set in a profile-specific document or file",
                    key=format_path(key),
                    file=layer.label,
                    hint="set it in a document without spring.config.activate.on-profile",
                )


def _env_lookup(environ: Mapping[str, str]) -> Lookup:
    def lookup(name: str) -> str | None:
        for variable in _env.property_variables(name):
            if variable in environ:
                return environ[variable]
        return None

    return lookup


def _lookup(tree: Tree, environ: Mapping[str, str]) -> Lookup:
    """Placeholder values: a key of the merged configuration first (as Spring), then variables."""
    from_environment = _env_lookup(environ)

    def lookup(name: str) -> str | None:
        present, value = find(tree, split_key(name))
        if present and isinstance(value, str | int | float | bool):
            return str(value).lower() if isinstance(value, bool) else str(value)
        return from_environment(name)

    return lookup


def _root_data(
    tree: Tree, origins: Origins, top: _schema.Node, metric_sections: MetricSections | None
) -> tuple[dict[str, Any], list[Problem]]:
    """The arguments of :class:`RagasSettings`, and the unknown keys of ``spring.ai.ragas``."""
    data = {}
    for name, prefix in ROOT_PREFIXES.items():
        present, value = find(tree, tuple(prefix.split(".")))
        if present and value is not None:
            data[name] = value
    problems: list[Problem] = []
    owned: KeyPath = tuple(_schema.OWNED_PREFIX.split("."))
    owned_node = _schema.node_at(top, owned)
    present, section = find(tree, owned)
    if present and isinstance(section, dict) and owned_node is not None:
        problems.extend(
            unknown_key((*owned, key), owned_node.fields, origins)
            for key in section
            if key not in owned_node.fields
        )
    elif present and section is not None:
        problems.append(
            Problem(_schema.OWNED_PREFIX, "expected a mapping of keys", origins.of(owned))
        )
    if metric_sections is not None:
        problems.extend(_metric_section_problems(tree, origins, top, metric_sections))
    return data, problems


def _metric_section_problems(
    tree: Tree, origins: Origins, top: _schema.Node, metric_sections: MetricSections
) -> list[Problem]:
    """Each metric's section validated by its model; sections that name no metric."""
    path: KeyPath = tuple(ROOT_PREFIXES["metrics"].split("."))
    present, metrics = find(tree, path)
    node = _schema.node_at(top, path)
    if not present or not isinstance(metrics, dict) or node is None:
        return []
    own = _schema.metric_section_keys()
    models = {_schema.kebab(bean): model for bean, model in metric_sections.items()}
    problems: list[Problem] = []
    for key, section in metrics.items():
        if key in own:
            continue
        model = models.get(key)
        if model is None:
            problems.append(unknown_key((*path, key), node.fields, origins))
        elif isinstance(section, dict):
            try:
                model.model_validate(section)
            except ValidationError as error:
                problems.extend(from_validation_error(error, origins, top, prefix=("metrics", key)))
    return problems
