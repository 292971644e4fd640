"""The dependency-injector containers: settings in, metric beans out.

The public face: :func:`create_container` builds a :class:`RagasContainer` (one lifetime for
the judges, their HTTP clients and the I/O loop; ``with`` / ``async with`` closes it) from the
settings :func:`load_settings` reads, each metric's YAML section checked by its config;
:func:`unrunnable_metrics` lists the metrics the configuration cannot run
(:class:`UnrunnableMetric`, what ``ragas-boot config check`` prints).

The containers themselves (``containers.py``: one per layer, composed by the application
container) are built by :func:`create_container`; reach their providers through the
:class:`RagasContainer` (``container.judges()``, ``container.judges.override(...)``).

This package is the only importer of ``dependency_injector``.
"""

from ragas_boot.container.application import RagasContainer, create_container
from ragas_boot.container.loading import load_settings
from ragas_boot.container.readiness import UnrunnableMetric, unrunnable_metrics

__all__ = [
    "RagasContainer",
    "UnrunnableMetric",
    "create_container",
    "load_settings",
    "unrunnable_metrics",
]
