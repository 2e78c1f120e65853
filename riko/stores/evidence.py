"""The ``sessions`` and ``evidence`` record families as polars frames."""

from __future__ import annotations

from typing import Any

import polars as pl

from ..warehouse import Warehouse

__all__ = ["sessions_frame", "evidence_frame"]


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
