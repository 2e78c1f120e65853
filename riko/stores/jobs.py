"""The ``jobs`` table: Dream cursors and statuses, markers and leases kept as job rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import polars as pl

from .base import Store

__all__ = ["JobStore"]


class JobStore(Store):
    """Job rows of one scope, by id (a Dream job per session; markers and leases by fixed ids)."""

    table = "jobs"
    order = "updated_at DESC, session_id"
    columns = ("id", "session_id", "status", "cursor", "attempts", "last_error", "result", "lease_owner",
               "created_at", "updated_at")

    def of_kind(self, kind: str) -> pl.DataFrame:
        """Job records of one kind, most recently updated first."""
        return self.wh.frame(f"SELECT {', '.join(self.columns)} FROM jobs WHERE scope_key = ? AND kind = ? "
                             "ORDER BY updated_at DESC, session_id", [self.scope_key, kind])

    def replace(self, table: Any) -> None:
        """Replace the rows with the ids of Arrow ``table`` by its rows (inside the caller's transaction)."""
        with self.wh.registered("_riko_job_ids", table.select(["id"])):
            self.wh.con.execute("DELETE FROM jobs WHERE scope_key = ? AND id IN (SELECT id FROM _riko_job_ids)",
                                [self.scope_key])
        self.wh.insert_arrow("jobs", table)

    def delete(self, job_id: str, *, lease_owner: str | None = None) -> None:
        """Remove one job row (only while ``lease_owner`` holds it, when given)."""
        if lease_owner is None:
            self.wh.con.execute("DELETE FROM jobs WHERE scope_key = ? AND id = ?", [self.scope_key, job_id])
        else:
            self.wh.con.execute("DELETE FROM jobs WHERE scope_key = ? AND id = ? AND lease_owner = ?",
                                [self.scope_key, job_id, lease_owner])

    def result(self, job_id: str) -> str | None:
        """The ``result`` JSON of one job (None when there is no such row)."""
        row = self.wh.fetchone("SELECT result FROM jobs WHERE scope_key = ? AND id = ?", [self.scope_key, job_id])
        return row[0] if row else None

    def set_result(self, job_id: str, result: str, now: datetime | None) -> None:
        self.wh.con.execute("UPDATE jobs SET result = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                            [result, now, self.scope_key, job_id])

    def lease(self, job_id: str) -> tuple[str | None, datetime | None] | None:
        """(lease_owner, lease_expires_at) of one job row, or None."""
        return self.wh.fetchone("SELECT lease_owner, lease_expires_at FROM jobs WHERE scope_key = ? AND id = ?",
                                [self.scope_key, job_id])

    def session_cursors(self, kind: str) -> list[tuple]:
        """(session_id, last_seq, cursor, attempts, created_at) of every session, with its job of
        ``kind`` when it has one, oldest session first."""
        return self.wh.fetchall(
            "SELECT s.session_id, s.last_seq, j.cursor, j.attempts, j.created_at FROM sessions s "
            "LEFT JOIN jobs j ON j.scope_key = s.scope_key AND j.kind = ? AND j.session_id = s.session_id "
            "WHERE s.scope_key = ? ORDER BY s.created_at NULLS LAST, s.session_id",
            [kind, self.scope_key])
