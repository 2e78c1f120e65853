"""The ``profiles`` row of a scope: its last valid Resident snapshot."""

from __future__ import annotations

from typing import Any

from .base import Store

__all__ = ["ProfileStore"]

_SNAPSHOT = ("resident_text", "resident_blocks", "resident_version", "resident_generated_at", "max_chars",
             "source_page_ids", "omitted_page_ids", "diagnostics")


class ProfileStore(Store):
    """One row per scope holding the Resident last compiled and persisted."""

    table = "profiles"
    key = ()

    def snapshot(self) -> tuple | None:
        """(text, blocks, version, generated_at, max_chars, source ids, omitted ids, diagnostics), or None."""
        return self.wh.fetchone(f"SELECT {', '.join(_SNAPSHOT)} FROM profiles WHERE scope_key = ?", [self.scope_key])

    def save_snapshot(self, row: dict[str, Any]) -> None:
        """Replace the scope's row by ``row`` (the Resident columns and ``updated_at``)."""
        self.wh.upsert("profiles", {"dream_settings": None, **row}, key=())
