"""What keeps a record out of prompts besides its own row: active suppressions and contested pages."""

from __future__ import annotations

from .warehouse import Warehouse

__all__ = ["contested_page_ids", "suppressed_ids"]


def suppressed_ids(wh: Warehouse) -> set[str]:
    """Ids of every record under an active suppression (pages, observations, evidence lines)."""
    return {r[0] for r in wh.fetchall("SELECT target_id FROM suppressions WHERE scope_key = ? AND active",
                                      [wh.scope.key])}


def contested_page_ids(wh: Warehouse) -> set[str]:
    """Pages whose current truth a contested conflict overlay holds open."""
    return {r[0] for r in wh.fetchall("SELECT page_id FROM conflicts WHERE scope_key = ? AND state = 'contested'",
                                      [wh.scope.key])}
