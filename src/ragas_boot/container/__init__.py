"""The dependency-injector containers and ``create_container``.

This package is the only importer of ``dependency_injector``.
"""

from ragas_boot.container.application import RagasContainer, create_container
from ragas_boot.container.containers import (
    CORE_BEANS,
    ApplicationContainer,
    ChatContainer,
    CoreContainer,
    ExecutionContainer,
    bean_names,
)
from ragas_boot.container.loading import load_settings

__all__ = [
    "CORE_BEANS",
    "ApplicationContainer",
    "ChatContainer",
    "CoreContainer",
    "ExecutionContainer",
    "RagasContainer",
    "bean_names",
    "create_container",
    "load_settings",
]
