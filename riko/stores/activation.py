"""The ``activation`` table read as injection history: when each record last reached a prompt."""

from __future__ import annotations

from datetime import datetime

from ..clock import utc
from .warehouse import Warehouse

__all__ = ["last_injected"]


def last_injected(wh: Warehouse) -> dict[str, datetime]:
    """Record id -> the time recall last injected it (records never injected are absent)."""
    return {
        record_id: utc(when) for record_id, when in wh.fetchall(
            "SELECT record_id, last_recalled_at FROM activation WHERE scope_key = ? AND recall_count > 0 "
            "AND last_recalled_at IS NOT NULL", [wh.scope.key])
    }
