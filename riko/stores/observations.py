"""The ``observations`` table: inferred patterns with their anchors (JSON lists decoded on read)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import polars as pl

from .base import Store

__all__ = ["ObservationRows"]

_COLUMNS = ("id", "text", "anchors", "contradictions", "confidence", "status", "sensitivity",
            "sensitivity_history", "epistemic_status", "session_ids", "valid_from", "valid_to",
            "created_at", "updated_at")
_LISTS = ("anchors", "contradictions", "session_ids", "sensitivity_history")


class ObservationRows(Store):
    """Observation rows of one scope, oldest first; the rules live in :mod:`riko.observations`."""

    table = "observations"
    order = "created_at, id"

    def records(self, observation_id: str | None = None) -> list[dict[str, Any]]:
        """Every observation (or the one with this id) as dicts with the JSON lists decoded."""
        where, params = ("AND id = ?", [observation_id]) if observation_id is not None else ("", [])
        cur = self.wh.con.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM observations WHERE scope_key = ? {where} ORDER BY created_at, id",
            [self.scope_key, *params])
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
        for row in rows:
            for name in _LISTS:
                row[name] = json.loads(row[name] or "[]")
        return rows

    def recall_records(self) -> tuple[list[str], list[tuple]]:
        """(column names, rows) of every observation by id, as recall indexes them (JSON undecoded)."""
        cur = self.wh.con.execute(
            "SELECT id, text, anchors, status, sensitivity, valid_from, valid_to, epistemic_status, session_ids "
            "FROM observations WHERE scope_key = ? ORDER BY id", [self.scope_key])
        return [d[0] for d in cur.description], cur.fetchall()

    def rows(self, status: str | None = None) -> pl.DataFrame:  # type: ignore[override]
        """The listing: observations (optionally of one status) with anchor and session counts."""
        sql = (
            "SELECT id, status, text, confidence, sensitivity, epistemic_status, anchors, contradictions, "
            "session_ids, CAST(json_array_length(coalesce(anchors, '[]')) AS INTEGER) AS anchor_count, "
            "CAST(json_array_length(coalesce(session_ids, '[]')) AS INTEGER) AS session_count, "
            "valid_from, valid_to, created_at, updated_at FROM observations WHERE scope_key = ?"
        )
        params: list[Any] = [self.scope_key]
        if status is not None:
            sql += " AND status = ?"
            params.append(status)
        return self.wh.frame(sql + " ORDER BY created_at, id", params)

    def update_evidence(self, observation_id: str, *, text: str, anchors: str, confidence: float, sensitivity: str,
                        sensitivity_history: str, session_ids: str, now: datetime | None) -> None:
        """A repeat proposal widened the observation's anchors (JSON lists already merged)."""
        self.wh.con.execute(
            "UPDATE observations SET text = ?, anchors = ?, confidence = ?, sensitivity = ?, sensitivity_history = ?, "
            "session_ids = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
            [text, anchors, confidence, sensitivity, sensitivity_history, session_ids, now, self.scope_key,
             observation_id])

    def set_status(self, observation_id: str, status: str, now: datetime | None, *, close: bool = False) -> None:
        """Change the status (``close`` also ends the validity at ``now``)."""
        self.wh.con.execute(
            "UPDATE observations SET status = ?, updated_at = ?" + (", valid_to = ?" if close else "")
            + " WHERE scope_key = ? AND id = ?",
            [status, now, *([now] if close else []), self.scope_key, observation_id])

    def scrub(self, observation_id: str, anchors: str, session_ids: str, contradictions: str,
              now: datetime | None) -> None:
        """Keep an observation with mixed support, without a purged session's anchors."""
        self.wh.con.execute("UPDATE observations SET anchors = ?, session_ids = ?, contradictions = ?, updated_at = ? "
                            "WHERE scope_key = ? AND id = ?",
                            [anchors, session_ids, contradictions, now, self.scope_key, observation_id])

    def set_contradictions(self, observation_id: str, contradictions: str, now: datetime | None) -> None:
        self.wh.con.execute("UPDATE observations SET contradictions = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                            [contradictions, now, self.scope_key, observation_id])
