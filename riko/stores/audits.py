"""The append-only ``audits`` log and the ``purges`` journal view."""

from __future__ import annotations

from typing import Any

import polars as pl

from ..warehouse import Warehouse

__all__ = ["audited_targets", "audits_frame", "purges_frame", "last_audit_id", "last_detail"]


def audits_frame(wh: Warehouse, kind: str | None = None) -> pl.DataFrame:
    """The audit log of the scope, oldest first (optionally one kind)."""
    sql = "SELECT id, recorded_at, kind, authority, target, detail FROM audits WHERE scope_key = ?"
    params: list[Any] = [wh.scope.key]
    if kind is not None:
        sql += " AND kind = ?"
        params.append(kind)
    return wh.frame(sql + " ORDER BY id", params)


def purges_frame(wh: Warehouse, *, impact: bool = False) -> pl.DataFrame:
    """The purge journal (sanitized: ids, statuses and times; ``impact`` adds the counts summary)."""
    cols = "id, session_id, status, impact, error" if impact else "id, session_id, status, error"
    return wh.frame(f"SELECT {cols}, created_at, updated_at FROM purges WHERE scope_key = ? ORDER BY created_at, id",
                    [wh.scope.key])


def last_audit_id(wh: Warehouse) -> int:
    """The newest audit id of the scope (0 before the first): every audited change moves it."""
    row = wh.fetchone("SELECT coalesce(max(id), 0) FROM audits WHERE scope_key = ?", [wh.scope.key])
    return int(row[0]) if row else 0


def audited_targets(wh: Warehouse, kind: str) -> set[tuple[str, str]]:
    """``(target, detail)`` of every audit of ``kind`` in the scope."""
    return {(str(t), str(d)) for t, d in wh.fetchall(
        "SELECT target, coalesce(detail, '') FROM audits WHERE scope_key = ? AND kind = ?", [wh.scope.key, kind])}


def last_detail(wh: Warehouse, target: str, kind: str) -> str | None:
    """The detail JSON of the newest audit of ``kind`` about ``target`` (None: there is none)."""
    row = wh.fetchone("SELECT detail FROM audits WHERE scope_key = ? AND target = ? AND kind = ? "
                      "ORDER BY id DESC LIMIT 1", [wh.scope.key, target, kind])
    return row[0] if row else None
