"""The fake server's JSON Schema helpers (they live in :mod:`ragas_boot.chat.wire.schemas`)."""

from ragas_boot.chat.wire.schemas import find_schema_in_text, minimal_instance

__all__ = ["find_schema_in_text", "minimal_instance"]
