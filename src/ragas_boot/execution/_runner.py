"""What the judges' and the embedding models' executors share: policy, loop, gates, closing."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod

from ragas_boot.config.settings import RetrySettings
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.limits import ProviderGates
from ragas_boot.execution.retry import RetryPolicy

__all__ = ["PortalRunner"]


class PortalRunner(ABC):
    """Runs model calls on one portal under one retry policy and shared provider gates.

    Args:
        retry: the ``spring.ai.retry`` settings (or a ready policy).
        output_retries: re-asks after an invalid answer, counted apart from transport retries.
        portal: the loop that owns the I/O; a private one (closed by :meth:`aclose`) when not
            given.
        gates: per-provider admission shared with other runners; a private set when not given.
        portal_name: the private portal's thread name.
    """

    def __init__(
        self,
        *,
        retry: RetrySettings | RetryPolicy | None,
        output_retries: int,
        portal: LoopPortal | None,
        gates: ProviderGates | None,
        portal_name: str,
    ) -> None:
        if output_retries < 0:
            raise ValueError("output_retries must be >= 0")
        if isinstance(retry, RetryPolicy):
            self._retry = retry
        else:
            self._retry = RetryPolicy(settings=retry or RetrySettings())
        self._output_retries = output_retries
        self._owns_portal = portal is None
        self._portal = portal or LoopPortal(name=portal_name)
        self._owns_gates = gates is None
        self._gates = gates if gates is not None else ProviderGates()

    @property
    def portal(self) -> LoopPortal:
        """The loop that owns the I/O."""
        return self._portal

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry policy in force."""
        return self._retry

    @abstractmethod
    async def _close_clients(self) -> None:
        """Close the models' HTTP clients (on the portal's loop)."""

    async def aclose(self) -> None:
        """Close the models' HTTP clients (and the private portal, if any)."""
        if not self._portal.closed:
            await self._portal.run(self._close_clients())
        if self._owns_gates:
            self._gates.close()
        if self._owns_portal:
            await asyncio.to_thread(self._portal.close)

    def close(self) -> None:
        """Sync twin of :meth:`aclose`."""
        if not self._portal.closed:
            self._portal.call(self._close_clients())
        if self._owns_gates:
            self._gates.close()
        if self._owns_portal:
            self._portal.close()
