"""The append-only ``audits`` log and the ``purges`` journal view."""

from __future__ import annotations

from typing import Any

import polars as pl

from .warehouse import Warehouse

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
    known = wh.newest_audit_id()
    if known is not None:
        return known
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


def scrub_audits(wh: Warehouse, *, details: list[int], targets: list[int], detail: str, target: str) -> None:
    """Overwrite the ``detail`` of audit rows ``details`` and the ``target`` of rows ``targets``
    (the only change an audit row ever sees: a purge removing what it said)."""
    wh.flush_audits()  # rows the open transaction holds back
    if details:
        wh.con.execute("UPDATE audits SET detail = ? WHERE scope_key = ? AND list_contains(?, id)",
                       [detail, wh.scope.key, details])
    if targets:
        wh.con.execute("UPDATE audits SET target = ? WHERE scope_key = ? AND list_contains(?, id)",
                       [target, wh.scope.key, targets])


class PurgeJournal:
    """The ``purges`` journal of one scope: one sanitized row per purge operation."""

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh

    def started(self, operation_id: str) -> tuple | None:
        """(created_at, impact) of an operation's row, or None."""
        return self.wh.fetchone("SELECT created_at, impact FROM purges WHERE scope_key = ? AND id = ?",
                                [self.wh.scope.key, operation_id])

    def record(self, row: dict[str, Any]) -> None:
        self.wh.upsert("purges", row, key=("id",))

    def unfinished(self) -> list[tuple[str, str]]:
        """(id, session_id) of every started or failed operation, oldest first."""
        return self.wh.fetchall("SELECT id, session_id FROM purges WHERE scope_key = ? AND status IN ('started', 'failed') "
                                "ORDER BY created_at, id", [self.wh.scope.key])
