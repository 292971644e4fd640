"""import_extra(): an optional dependency imported when first needed, or the pip command.

The table, Hugging Face and trace readers and writers need pandas, pyarrow, datasets and the
OpenTelemetry packages, which most users of a YAML dataset never install and which cost
seconds to import; so they are extras (``[tables]``, ``[hf]``, ``[traces]``), imported here
on first use, and a missing one is a :class:`~ragas_boot.errors.MissingExtraError` whose
message is the exact command to run.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ragas_boot.errors import MissingExtraError

__all__ = ["import_extra"]


def import_extra(module: str, *, feature: str, extra: str, package: str) -> ModuleType:
    """Import ``module`` of an optional extra.

    Args:
        module: the module to import (``pyarrow.parquet``).
        feature: what needs it, for the message (``reading Parquet``).
        extra: the ragas-boot extra that installs it (``tables``).
        package: the distribution that provides it (``pyarrow``).

    Raises:
        MissingExtraError: it is not installed; the message says
            ``pip install 'ragas-boot[EXTRA]'``.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        if error.name is not None and module.split(".")[0] != error.name.split(".")[0]:
            raise  # installed, but broken inside: not a missing extra
        raise MissingExtraError(feature, extra, package) from None
