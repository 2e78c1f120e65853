"""The ``sessions`` and ``evidence`` record families as polars frames."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from .migrations import RECORD_SCHEMA_VERSION
from .warehouse import Warehouse

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

    # -- sessions and sources ---------------------------------------------------------------------
    def session_last_seq(self, session_id: str) -> tuple[int | None] | None:
        """(last_seq,) of a stored session, or None when the session has no row yet."""
        return self.wh.fetchone("SELECT last_seq FROM sessions WHERE scope_key = ? AND session_id = ?",
                                [self.scope_key, session_id])

    def watermarks(self) -> dict[str, int]:
        """session id → its last stored seq (-1 when none)."""
        return {sid: (int(last) if last is not None else -1) for sid, last in self.wh.fetchall(
            "SELECT session_id, last_seq FROM sessions WHERE scope_key = ?", [self.scope_key])}

    def session_counts(self, session_id: str) -> tuple | None:
        """(first_seq, event_count, user_event_count, text_bytes) of a session, or None."""
        return self.wh.fetchone(
            "SELECT first_seq, event_count, user_event_count, text_bytes FROM sessions "
            "WHERE scope_key = ? AND session_id = ?", [self.scope_key, session_id])

    def add_session(self, row: dict[str, Any]) -> None:
        self.wh.insert_rows("sessions", [row])

    def grow_session(self, session_id: str, *, last_seq: int, events: int, user_events: int, text_bytes: int,
                     first_seq: int | None, now: Any) -> None:
        """Count lines appended to a stored session (``first_seq`` only ever moves down)."""
        if first_seq is None:
            self.wh.con.execute(
                "UPDATE sessions SET last_seq = ?, event_count = event_count + ?, user_event_count = user_event_count + ?, "
                "text_bytes = text_bytes + ?, updated_at = ? WHERE scope_key = ? AND session_id = ?",
                [last_seq, events, user_events, text_bytes, now, self.scope_key, session_id])
            return
        self.wh.con.execute(
            "UPDATE sessions SET last_seq = ?, event_count = event_count + ?, user_event_count = user_event_count + ?, "
            "text_bytes = text_bytes + ?, first_seq = least(first_seq, ?), updated_at = ? "
            "WHERE scope_key = ? AND session_id = ?",
            [last_seq, events, user_events, text_bytes, first_seq, now, self.scope_key, session_id])

    def source_resume(self, source_id: str) -> tuple | None:
        """(size, mtime_ns, bytes_consumed, lines_consumed, prefix_hash) of an ingested file, or None."""
        return self.wh.fetchone(
            "SELECT size, mtime_ns, bytes_consumed, lines_consumed, prefix_hash FROM sources "
            "WHERE scope_key = ? AND id = ?", [self.scope_key, source_id])

    # -- lines ------------------------------------------------------------------------------------
    def append_line(self, session_id: str, seq: int, time_ms: int, etype: str, role: str | None,
                    source_kind: str | None, is_user: bool, text: str, data: str, content_hash: str,
                    truncated: bool, sensitivity: str | None, origin: str | None, now: Any) -> None:
        """Store one captured line (its time given in epoch milliseconds)."""
        self.wh.con.execute(
            "INSERT INTO evidence (scope_key, schema_version, session_id, seq, time, type, role, source_kind, is_user, "
            "text, data, content_hash, truncated, sensitivity, sensitivity_origin, correction_invalidated, line, "
            "ingested_at) VALUES (?, ?, ?, ?, make_timestamp(CAST(? AS BIGINT) * 1000), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, false, NULL, ?)",
            [self.scope_key, RECORD_SCHEMA_VERSION, session_id, seq, time_ms, etype, role, source_kind, is_user, text,
             data, content_hash, truncated, sensitivity, origin, now])

    def export_cursor(self) -> Any:
        """A cursor over (session_id, seq, time, type, data) of every line, in session order."""
        return self.wh.con.execute(
            "SELECT session_id, seq, time, type, data FROM evidence WHERE scope_key = ? ORDER BY session_id, seq",
            [self.scope_key])

    def export_parquet(self, out: Path) -> None:
        """Write every line under ``out`` as Parquet partitioned by session (zstd)."""
        # scope keys are validated to a safe alphabet, so the literal cannot break the SQL
        self.wh.con.execute(
            "COPY (SELECT session_id, seq, time, type, role, source_kind, is_user, text, data, "
            "content_hash, truncated, sensitivity, schema_version FROM evidence "
            f"WHERE scope_key = '{self.scope_key}' ORDER BY session_id, seq) "
            f"TO '{out.as_posix()}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (session_id), OVERWRITE_OR_IGNORE)"
        )

    def latest_user_line(self, session_id: str) -> tuple[int, str | None] | None:
        """(seq, text) of the newest user line of a session, or None."""
        return self.wh.fetchone("SELECT seq, text FROM evidence WHERE scope_key = ? AND session_id = ? AND is_user "
                                "ORDER BY seq DESC LIMIT 1", [self.scope_key, session_id])

    def user_line_text(self, session_id: str, seq: int) -> tuple[str | None] | None:
        """(text,) of a stored user line, or None."""
        return self.wh.fetchone("SELECT text FROM evidence WHERE scope_key = ? AND session_id = ? AND seq = ? AND is_user",
                                [self.scope_key, session_id, seq])

    def user_lines(self, session_ids: Sequence[str], *, inside: bool) -> Any:
        """A cursor over (session_id, seq, text) of valid user lines inside (or outside) ``session_ids``,
        in session order (neither invalidated by a correction nor governed)."""
        sql = ("SELECT session_id, seq, text FROM evidence WHERE scope_key = ? AND is_user "
               "AND NOT correction_invalidated AND governed IS NULL AND text IS NOT NULL")
        if session_ids:
            sql += f" AND session_id {'IN' if inside else 'NOT IN'} ({', '.join('?' for _ in session_ids)})"
        return self.wh.con.execute(sql + " ORDER BY session_id, seq", [self.scope_key, *session_ids])

    def user_line_index(self) -> Any:
        """A cursor over (session_id, seq, text, time) of every valid user line of the scope, in
        session order (the lines :meth:`user_lines` reads, with their stored time)."""
        return self.wh.con.execute(
            "SELECT session_id, seq, text, time FROM evidence WHERE scope_key = ? AND is_user "
            "AND NOT correction_invalidated AND governed IS NULL AND text IS NOT NULL ORDER BY session_id, seq",
            [self.scope_key])

    def line_sensitivity(self, session_id: str, seq: int) -> tuple[str | None, str | None] | None:
        """(sensitivity, origin) of one line, or None when there is no such line."""
        return self.wh.fetchone("SELECT sensitivity, sensitivity_origin FROM evidence WHERE scope_key = ? "
                                "AND session_id = ? AND seq = ?", [self.scope_key, session_id, seq])

    def set_sensitivity(self, session_id: str, seq: int, level: str, origin: str) -> None:
        self.wh.con.execute("UPDATE evidence SET sensitivity = ?, sensitivity_origin = ? WHERE scope_key = ? "
                            "AND session_id = ? AND seq = ?", [level, origin, self.scope_key, session_id, seq])

    # -- what purge reads -------------------------------------------------------------------------
    def session_texts(self, session_id: str) -> list[tuple[str]]:
        """(text,) of the session's user and assistant lines."""
        return self.wh.fetchall(
            "SELECT text FROM evidence WHERE scope_key = ? AND session_id = ? "
            "AND (is_user OR role = 'assistant') AND text IS NOT NULL", [self.scope_key, session_id])

    def prose_since(self, rowid: int) -> list[tuple[int, str, str]]:
        """(rowid, role, text) of the scope's user and assistant lines stored after ``rowid``, in
        storage order (role ``user`` for a user line): the scope's words read a second time only
        as far as they are new."""
        return [(int(r[0]), r[1], r[2]) for r in self.wh.fetchall(
            "SELECT rowid, CASE WHEN is_user THEN 'user' ELSE role END, text FROM evidence WHERE scope_key = ? "
            "AND rowid > ? AND (is_user OR role = 'assistant') AND text IS NOT NULL ORDER BY rowid",
            [self.scope_key, rowid])]

    def count_upto(self, rowid: int) -> int:
        """How many of the scope's lines are stored at or before ``rowid`` (fewer than before: some were purged)."""
        row = self.wh.fetchone("SELECT count(*) FROM evidence WHERE scope_key = ? AND rowid <= ?",
                               [self.scope_key, rowid])
        return int(row[0]) if row else 0

    def own_hashes(self, session_id: str) -> set[str]:
        """Content hashes of the session's lines that no other session of the scope shares."""
        return {r[0] for r in self.wh.fetchall(
            "SELECT DISTINCT content_hash FROM evidence WHERE scope_key = ? AND session_id = ? AND content_hash NOT IN "
            "(SELECT content_hash FROM evidence WHERE scope_key = ? AND session_id <> ?)",
            [self.scope_key, session_id, self.scope_key, session_id])}

    def other_sessions_batches(self, session_id: str, batch_rows: int) -> Any:
        """An Arrow batch reader over (text, data) of every other session's lines."""
        rel = self.wh.con.sql("SELECT text, data FROM evidence WHERE scope_key = ? AND session_id <> ?",
                              params=[self.scope_key, session_id])
        return rel.to_arrow_reader(batch_rows) if hasattr(rel, "to_arrow_reader") else rel.fetch_arrow_reader(batch_rows)

    def purge(self, session_id: str, now: Any) -> None:
        """Remove a session's lines and row; sessions it parented forget it."""
        con = self.wh.con
        con.execute("DELETE FROM evidence WHERE scope_key = ? AND session_id = ?", [self.scope_key, session_id])
        con.execute("DELETE FROM sessions WHERE scope_key = ? AND session_id = ?", [self.scope_key, session_id])
        con.execute("UPDATE sessions SET parent_session = NULL, updated_at = ? WHERE scope_key = ? AND parent_session = ?",
                    [now, self.scope_key, session_id])

    # -- what recall reads ------------------------------------------------------------------------
    def count_after(self, rowid: int) -> int:
        """How many lines were stored after ``rowid`` (recall reads only the new ones)."""
        row = self.wh.fetchone("SELECT count(*) FROM evidence WHERE scope_key = ? AND rowid > ?",
                               [self.scope_key, rowid])
        return int(row[0]) if row else 0

    def recall_lines(self, after_rowid: int, tool_types: Sequence[str]) -> list[tuple]:
        """The recallable lines stored after ``after_rowid``, in storage order: (session_id, seq,
        time ms, text, sensitivity, sensitivity origin, invalidated, is_user, type, role, tool
        name, call id). User lines, and kept tool lines that no plugin injected."""
        types = ", ".join(f"'{t}'" for t in tool_types)
        rows = self.wh.con.execute(
            "SELECT session_id, seq, epoch_ms(time), text, sensitivity, sensitivity_origin, correction_invalidated, "
            "is_user, type, role FROM evidence "
            f"WHERE scope_key = ? AND rowid > ? AND (is_user OR (type IN ({types}) "
            "AND coalesce(source_kind, '') <> 'plugin')) AND text IS NOT NULL AND length(trim(text)) > 0 "
            "ORDER BY rowid",
            [self.scope_key, after_rowid],
        ).fetchall()
        # Tool names and call ids live in the JSON data: read them for tool rows only.
        calls = {(sid, seq): (name, call_id) for sid, seq, name, call_id in self.wh.con.execute(
            "SELECT session_id, seq, CASE WHEN type = 'tool/call' THEN json_extract_string(data, '$.name') END, "
            "CASE WHEN type = 'tool/call' THEN json_extract_string(data, '$.callId') "
            "ELSE coalesce(json_extract_string(data, '$.message.source.callId'), "
            "json_extract_string(data, '$.message.content[0].toolCallId')) END "
            "FROM evidence WHERE scope_key = ? AND rowid > ? AND type IN ('tool/call', 'tool/result')",
            [self.scope_key, after_rowid],
        ).fetchall()}
        if not calls:
            return [(*row, None, None) for row in rows]
        return [(*row, *calls.get((row[0], row[1]), (None, None))) for row in rows]

    def marked_lines(self) -> list[tuple]:
        """(session_id, seq, sensitivity, origin, invalidated) of every line with a sensitivity
        marker or invalidated by a correction."""
        return self.wh.con.execute(
            "SELECT session_id, seq, sensitivity, sensitivity_origin, correction_invalidated FROM evidence "
            "WHERE scope_key = ? AND (sensitivity IS NOT NULL OR correction_invalidated)",
            [self.scope_key],
        ).fetchall()

    def invalidate(self, session_id: str, seq: int) -> None:
        """Mark one line as behind a corrected claim: kept, but no longer offered as current."""
        self.wh.con.execute("UPDATE evidence SET correction_invalidated = true WHERE scope_key = ? AND session_id = ? "
                            "AND seq = ?", [self.scope_key, session_id, seq])

    # -- governed lines ---------------------------------------------------------------------------
    def govern(self, refs: Sequence[tuple[str, int]], hold: str, weaker: Sequence[str] = ()) -> None:
        """Mark the lines ``refs`` (session id, seq) as governed by ``hold``, over no mark or a
        ``weaker`` one (a stronger mark a line already has is kept)."""
        if not refs:
            return
        sel = pa.table({"session_id": pa.array([r[0] for r in refs], pa.string()),
                        "seq": pa.array([int(r[1]) for r in refs], pa.int64())})
        keep = f" OR e.governed IN ({', '.join('?' for _ in weaker)})" if weaker else ""
        with self.wh.registered("_riko_governed", sel):
            self.wh.con.execute(
                "UPDATE evidence e SET governed = ? FROM _riko_governed g WHERE e.scope_key = ? "
                f"AND e.session_id = g.session_id AND e.seq = g.seq AND (e.governed IS NULL{keep})",
                [hold, self.scope_key, *weaker])

    def release_governed(self, hold: str) -> None:
        """Clear every ``hold`` mark (a lifted suppression); the marks are re-applied from what still holds."""
        self.wh.con.execute("UPDATE evidence SET governed = NULL WHERE scope_key = ? AND governed = ?",
                            [self.scope_key, hold])

    def governed_lines(self) -> list[tuple]:
        """(session_id, seq, text, governed) of every governed user line of the scope."""
        return self.wh.fetchall("SELECT session_id, seq, text, governed FROM evidence WHERE scope_key = ? AND is_user "
                                "AND governed IS NOT NULL AND text IS NOT NULL", [self.scope_key])

    def transcript_rows(self, selection: Any, budget: int | None) -> list[tuple]:
        """(session_id, seq, role, text, time) of the user and assistant lines Dream reads.

        ``selection`` is an Arrow table of (session_id, after, upto): the lines past each
        cursor up to ``upto``, the newest roughly ``budget`` characters of each session (every
        line when ``budget`` is None), in order. Plugin-sourced, invalidated and governed lines
        are left out.
        """
        # characters of the newer lines, each with a little room for its rendering; 0 when unbounded
        newer = "0" if budget is None else ("coalesce(sum(length(e.text) + 12) OVER (PARTITION BY e.session_id "
                                            "ORDER BY e.seq DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)")
        with self.wh.registered("_riko_dream_sel", selection):
            return self.wh.con.execute(
                "SELECT session_id, seq, role, text, time FROM ("
                " SELECT e.session_id, e.seq, CASE WHEN e.is_user THEN 'user' ELSE 'assistant' END AS role, e.text,"
                f"  e.time, {newer} AS newer"
                " FROM evidence e JOIN _riko_dream_sel s ON e.session_id = s.session_id"
                " WHERE e.scope_key = ? AND e.seq > s.after AND e.seq <= s.upto AND NOT e.correction_invalidated"
                "  AND e.governed IS NULL"
                "  AND e.text IS NOT NULL AND length(trim(e.text)) > 0"
                "  AND (e.is_user OR (e.type = 'assistant/message' AND e.role = 'assistant'))"
                ") WHERE newer < ? ORDER BY session_id, seq",
                [self.scope_key, 1 if budget is None else budget],
            ).fetchall()

    def newest_user_lines(self, session_id: str, limit: int, *, others: bool = False) -> list[tuple]:
        """(session_id, seq, text) of the newest non-empty, ungoverned user lines of ``session_id`` (or,
        with ``others``, of every other session of the scope, newest first by time)."""
        if not others:
            return self.wh.fetchall(
                "SELECT session_id, seq, text FROM evidence WHERE scope_key = ? AND session_id = ? AND is_user "
                "AND governed IS NULL "
                "AND text IS NOT NULL AND length(trim(text)) > 0 ORDER BY seq DESC LIMIT ?",
                [self.scope_key, session_id, limit])
        return self.wh.fetchall(
            "SELECT session_id, seq, text FROM evidence WHERE scope_key = ? AND session_id <> ? AND is_user "
            "AND governed IS NULL "
            "AND text IS NOT NULL AND length(trim(text)) > 0 ORDER BY time DESC NULLS LAST, session_id, seq DESC "
            "LIMIT ?", [self.scope_key, session_id, limit])
