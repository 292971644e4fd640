"""The dependency-injector containers and ``create_container``.

This package is the only importer of ``dependency_injector``.
"""

from ragas_boot.container.application import RagasContainer, create_container
from ragas_boot.container.containers import (
    BEAN_NAMES,
    ApplicationContainer,
    ChatContainer,
    CoreContainer,
    ExecutionContainer,
    MetricsContainer,
)

__all__ = [
    "BEAN_NAMES",
    "ApplicationContainer",
    "ChatContainer",
    "CoreContainer",
    "ExecutionContainer",
    "MetricsContainer",
    "RagasContainer",
    "create_container",
]
