"""A data root's default preset: the ``preset`` line of ``<root>/riko.toml``.

``riko init --preset P`` records it so later commands on that root need no ``--preset``.
It is per root, never global: a root without one still fails closed.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

from .errors import ConfigError
from .scope import MemoryScope

__all__ = ["ROOT_PRESET_KEY", "read_root_preset", "record_root_preset"]

ROOT_PRESET_KEY = "preset"
_CONFIG_FILE = "riko.toml"
_LINE = re.compile(r"^preset\s*=.*$", re.MULTILINE)


def read_root_preset(root: str | os.PathLike[str]) -> str | None:
    """The preset recorded in ``<root>/riko.toml``, or ``None`` when there is none."""
    path = Path(root) / _CONFIG_FILE
    if not path.is_file():
        return None
    try:
        with path.open("rb") as fh:
            value = tomllib.load(fh).get(ROOT_PRESET_KEY)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_CONFIG_FILE, f"{_CONFIG_FILE}: cannot parse {path}: {exc}") from None
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(ROOT_PRESET_KEY, f"{ROOT_PRESET_KEY} in {path} must be a non-empty preset name")
    return value


def record_root_preset(root: str | os.PathLike[str], preset: str) -> Path:
    """Write ``preset = "<preset>"`` as the first line of ``<root>/riko.toml``, keeping the rest."""
    MemoryScope("local", preset)  # the same validation a scope applies
    path = Path(root) / _CONFIG_FILE
    line = f"{ROOT_PRESET_KEY} = {json.dumps(preset, ensure_ascii=False)}"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if _LINE.search(text):
        text = _LINE.sub(line, text, count=1)
    else:
        # a top-level key must come before any [table], so it goes first
        text = line + "\n" + text
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path
