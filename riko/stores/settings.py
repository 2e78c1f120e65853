"""The ``settings`` row of a scope: the Dream settings saved for it (JSON, by snake_case name)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from .warehouse import dumps
from .base import Store

__all__ = ["SettingsStore"]


class SettingsStore(Store):
    """One row per scope; reading a scope that saved nothing gives ``{}``."""

    table = "settings"
    key = ()

    def dream(self) -> dict[str, Any]:
        row = self.wh.fetchone("SELECT dream_settings FROM settings WHERE scope_key = ?", [self.scope_key])
        return json.loads(row[0]) if row and row[0] else {}

    def save_dream(self, settings: dict[str, Any], now: datetime | None) -> None:
        self.wh.upsert("settings", {"dream_settings": dumps(settings), "updated_at": now}, key=())
