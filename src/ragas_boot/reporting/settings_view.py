"""The resolved configuration as YAML, secrets masked, each value marked with where it came from.

Used by ``ragas-boot config show``. Keys are the YAML (kebab-case, ``spring.ai...``) ones; a
value read from a file or the environment carries a comment naming its origin (``file``,
``file#profile`` or ``env:NAME``, from ``settings.source.origins``); a value without one is a
default.
"""

from __future__ import annotations

from typing import Any

import yaml

from ragas_boot.config.settings import ROOT_PREFIXES, RagasSettings
from ragas_boot.config.urls import mask_url
from ragas_boot.reporting.redaction import MASK

__all__ = ["render_settings_yaml", "settings_tree"]


def settings_tree(settings: RagasSettings) -> dict[str, Any]:
    """The settings as a nested mapping of YAML keys, secrets masked."""
    tree: dict[str, Any] = {}
    for field, prefix in ROOT_PREFIXES.items():
        section = getattr(settings, field).model_dump(mode="json", by_alias=True, exclude_none=True)
        node = tree
        for part in prefix.split("."):
            node = node.setdefault(part, {})
        node.update(_mask_headers(section))
    return tree


def _mask_headers(value: Any) -> Any:
    """Header values and credentials inside base URLs masked (the keys are already)."""
    if isinstance(value, dict):
        masked: dict[str, Any] = {}
        for key, item in value.items():
            if key == "headers" and isinstance(item, dict):
                masked[key] = dict.fromkeys(item, MASK)
            elif key in ("base-url", "url") and isinstance(item, str):
                masked[key] = mask_url(item)
            else:
                masked[key] = _mask_headers(item)
        return masked
    if isinstance(value, list):
        return [_mask_headers(item) for item in value]
    return value


def _scalar(value: Any) -> str:
    text: str = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1 << 30)
    text = text.strip()
    return text.removesuffix("\n...").strip()


class _Emitter:
    def __init__(self, origins: dict[str, str]) -> None:
        self.origins = origins
        self.lines: list[str] = []

    def _comment(self, path: str) -> str:
        origin = self.origins.get(path) or self.origins.get(f"{path}[0]")
        return f"  # {origin}" if origin else ""

    def mapping(self, value: dict[str, Any], path: str, indent: int) -> None:
        pad = " " * indent
        for key, item in value.items():
            item_path = f"{path}.{key}" if path else key
            if isinstance(item, dict) and item:
                self.lines.append(f"{pad}{key}:")
                self.mapping(item, item_path, indent + 2)
            elif isinstance(item, list) and any(isinstance(x, dict | list) for x in item):
                self.lines.append(f"{pad}{key}:")
                self.sequence(item, item_path, indent + 2)
            else:
                self.lines.append(f"{pad}{key}: {_scalar(item)}{self._comment(item_path)}")

    def sequence(self, value: list[Any], path: str, indent: int) -> None:
        pad = " " * indent
        for index, item in enumerate(value):
            item_path = f"{path}[{index}]"
            if isinstance(item, dict) and item:
                start = len(self.lines)
                self.mapping(item, item_path, indent + 2)
                self.lines[start] = f"{pad}- {self.lines[start].lstrip()}"
            else:
                self.lines.append(f"{pad}- {_scalar(item)}{self._comment(item_path)}")


def render_settings_yaml(settings: RagasSettings) -> str:
    """The resolved configuration as commented YAML (see the module docstring)."""
    source = settings.source
    header = [
        "# ragas-boot configuration, resolved",
        f"# files: {', '.join(source.files) or 'none'}",
        f"# active profiles: {', '.join(source.active_profiles) or 'none'}",
    ]
    if source.unsupported_keys:
        header.append(f"# not supported, ignored: {', '.join(source.unsupported_keys)}")
    header.append("# a value with no comment is a default; secrets are masked")
    emitter = _Emitter(dict(source.origins))
    emitter.mapping(settings_tree(settings), "", 0)
    return "\n".join(header + emitter.lines) + "\n"
