"""The ``sessions`` and ``evidence`` record families as polars frames."""

from __future__ import annotations

from typing import Any

import polars as pl

from ..warehouse import Warehouse

__all__ = ["sessions_frame", "evidence_frame", "EvidenceStore"]


def sessions_frame(wh: Warehouse) -> pl.DataFrame:
    """Sessions with persisted evidence, newest first."""
    return wh.frame(
        "SELECT session_id, preset, format, created_at, event_count, user_event_count, "
        "first_seq, last_seq, project_key, source_path, updated_at FROM sessions "
        "WHERE scope_key = ? ORDER BY created_at DESC NULLS LAST, session_id",
        [wh.scope.key],
    )


def evidence_frame(wh: Warehouse, session_id: str | None = None, *, user_only: bool = False) -> pl.DataFrame:
    """L0 lines (one row per stored event) of one session or of the whole scope."""
    sql = (
        "SELECT session_id, seq, time, type, role, source_kind, is_user, text, truncated, "
        "sensitivity, content_hash FROM evidence WHERE scope_key = ?"
    )
    params: list[Any] = [wh.scope.key]
    if session_id is not None:
        sql += " AND session_id = ?"
        params.append(session_id)
    if user_only:
        sql += " AND is_user"
    return wh.frame(sql + " ORDER BY session_id, seq", params)


class EvidenceStore:
    """L0 lines and sessions of one scope, addressed by ``(session_id, seq)``."""

    table = "evidence"

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh

    @property
    def scope_key(self) -> str:
        return self.wh.scope.key

    def rows(self, session_id: str | None = None, *, user_only: bool = False) -> pl.DataFrame:
        return evidence_frame(self.wh, session_id, user_only=user_only)

    def sessions(self) -> pl.DataFrame:
        return sessions_frame(self.wh)

    def has_session(self, session_id: str) -> bool:
        return self.wh.fetchone("SELECT 1 FROM sessions WHERE scope_key = ? AND session_id = ?",
                                [self.scope_key, session_id]) is not None

    def has_line(self, session_id: str, seq: int) -> bool:
        return self.wh.fetchone("SELECT 1 FROM evidence WHERE scope_key = ? AND session_id = ? AND seq = ?",
                                [self.scope_key, session_id, seq]) is not None

    def line_time(self, session_id: str, seq: int) -> Any:
        """The stored time of one line (naive UTC), or None."""
        row = self.wh.fetchone("SELECT time FROM evidence WHERE scope_key = ? AND session_id = ? AND seq = ?",
                               [self.scope_key, session_id, seq])
        return row[0] if row else None

    def user_line_sensitivity(self, session_id: str, seq: int) -> tuple[str | None] | None:
        """(sensitivity,) of a stored user line, or None when no user line has that address."""
        return self.wh.fetchone(
            "SELECT sensitivity FROM evidence WHERE scope_key = ? AND session_id = ? AND seq = ? AND is_user",
            [self.scope_key, session_id, seq])

    def invalidate(self, session_id: str, seq: int) -> None:
        """Mark one line as behind a corrected claim: kept, but no longer offered as current."""
        self.wh.con.execute("UPDATE evidence SET correction_invalidated = true WHERE scope_key = ? AND session_id = ? "
                            "AND seq = ?", [self.scope_key, session_id, seq])

    def transcript_rows(self, selection: Any, budget: int) -> list[tuple]:
        """(session_id, seq, role, text) of the user and assistant lines Dream reads.

        ``selection`` is an Arrow table of (session_id, after, upto): the lines past each
        cursor up to ``upto``, the newest roughly ``budget`` characters of each session, in
        order. Plugin-sourced and invalidated lines are left out.
        """
        with self.wh.registered("_riko_dream_sel", selection):
            return self.wh.con.execute(
                "SELECT session_id, seq, role, text FROM ("
                " SELECT e.session_id, e.seq, CASE WHEN e.is_user THEN 'user' ELSE 'assistant' END AS role, e.text,"
                "  coalesce(sum(length(e.text) + 12) OVER (PARTITION BY e.session_id ORDER BY e.seq DESC"
                "   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS newer"
                " FROM evidence e JOIN _riko_dream_sel s ON e.session_id = s.session_id"
                " WHERE e.scope_key = ? AND e.seq > s.after AND e.seq <= s.upto AND NOT e.correction_invalidated"
                "  AND e.text IS NOT NULL AND length(trim(e.text)) > 0"
                "  AND (e.is_user OR (e.type = 'assistant/message' AND e.role = 'assistant'))"
                ") WHERE newer < ? ORDER BY session_id, seq",
                [self.scope_key, budget],
            ).fetchall()

    def newest_user_lines(self, session_id: str, limit: int, *, others: bool = False) -> list[tuple]:
        """(session_id, seq, text) of the newest non-empty user lines of ``session_id`` (or, with
        ``others``, of every other session of the scope, newest first by time)."""
        if not others:
            return self.wh.fetchall(
                "SELECT session_id, seq, text FROM evidence WHERE scope_key = ? AND session_id = ? AND is_user "
                "AND text IS NOT NULL AND length(trim(text)) > 0 ORDER BY seq DESC LIMIT ?",
                [self.scope_key, session_id, limit])
        return self.wh.fetchall(
            "SELECT session_id, seq, text FROM evidence WHERE scope_key = ? AND session_id <> ? AND is_user "
            "AND text IS NOT NULL AND length(trim(text)) > 0 ORDER BY time DESC NULLS LAST, session_id, seq DESC "
            "LIMIT ?", [self.scope_key, session_id, limit])
