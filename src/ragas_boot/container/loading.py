"""``load_settings``: the configuration read with every registered metric's section model.

The config layer knows nothing of metrics. Here, above both, the registry's section models are
handed to it as an argument, so that each ``spring.ai.ragas.metrics.<bean-name>`` section (of a
built-in metric, an entry point's, a ``register_metric`` call's, with its named criteria) is
validated while the file is read, its errors naming the key and the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ragas_boot.config import loader
from ragas_boot.config.settings import RagasSettings
from ragas_boot.metrics.registry import METRICS

__all__ = ["load_settings"]


def load_settings(
    path: str | os.PathLike[str] | None = None,
    profiles: Sequence[str] | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> RagasSettings:
    """Load, merge and validate the configuration, each metric's section by its config.

    Spring Boot's rules apply (see :func:`ragas_boot.config.load_settings`): ``---`` documents
    and ``application-{profile}.yaml`` files, maps merged and lists replaced, relaxed key
    names, ``${VAR:default}`` placeholders, environment variables over YAML. The section of
    every registered metric is checked against its config model, as it is registered when
    this is called (``register_metric`` calls made before it count).

    Args:
        path: the YAML file, or a directory holding ``application.yaml``. Default: the
            ``RAGAS_CONFIG`` variable, else ``./application.yaml``, else ``./application.yml``.
        profiles: active profiles (a list, or one comma-separated string). Default: the
            ``SPRING_PROFILES_ACTIVE`` variable, else ``spring.profiles.active`` in the file,
            else ``spring.profiles.default``, else ``default``.
        environ: the environment to read. Default: ``os.environ``.

    Returns:
        The settings, with ``settings.source`` telling where they came from.

    Raises:
        ConfigError: no file was found, a file is unreadable or not valid YAML, a placeholder
            has no value, keys are unknown or invalid (a metric's keys included, with a "did
            you mean" hint), or a metric section names no registered metric.
    """
    return loader.load_settings(
        path, profiles, environ=environ, metric_sections=METRICS.section_models()
    )
