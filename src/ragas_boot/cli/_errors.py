"""Exit codes of ``ragas-boot`` and the error a bad argument value raises.

The codes are part of the command's contract (CI gates read them); the main module's docstring
says when each is returned.
"""

from __future__ import annotations

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_BUDGET",
    "EXIT_GATE_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "UsageError",
]

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_BAD_INPUT = 2
#: The run's spend cap (``--max-cost``, ``spring.ai.ragas.run.max-cost``) cut it short.
EXIT_BUDGET = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class UsageError(Exception):
    """A bad argument value; reported like a configuration error (exit code 2)."""
