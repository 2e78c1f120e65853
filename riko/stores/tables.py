"""Whole-scope operations over every table by name: what purge, its verification and its
rollback need (the family stores hold the row-level rules).

``where`` arguments are boolean SQL expressions over the table's own columns with ``?``
parameters; every statement here adds the scope filter itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from .migrations import SCOPED_TABLES
from .warehouse import Warehouse

__all__ = ["text_columns", "mentioning", "select_rows", "replace_rows", "delete_ids", "delete_audits_after",
           "count_matching", "column_counts", "text_frame", "index_names", "mark_index_degraded", "compact_into",
           "ScopeTables"]


def _table(name: str) -> str:
    if name not in SCOPED_TABLES:
        raise ValueError(f"unknown table {name!r}")
    return name


def text_columns(wh: Warehouse, table: str) -> list[str]:
    """The VARCHAR columns of ``table`` (``scope_key`` excluded): where text can hide."""
    rows = wh.fetchall(
        "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND schema_name = 'main' AND table_name = ? AND data_type = 'VARCHAR' ORDER BY column_index", [table])
    return [r[0] for r in rows if r[0] != "scope_key"]


def mentioning(wh: Warehouse, table: str, extra: str = "false", params: Sequence[Any] = ()) -> pl.DataFrame:
    """Every row of ``table`` in the scope with a boolean ``_riko_extra`` column: ``extra`` of the row."""
    if table == "audits":
        wh.flush_audits()  # rows the open transaction holds back
    return wh.frame(f"SELECT *, ({extra}) AS _riko_extra FROM {_table(table)} WHERE scope_key = ?",
                    [*params, wh.scope.key])


def select_rows(wh: Warehouse, table: str, where: str, params: Sequence[Any]) -> Any:
    """The rows of ``table`` matching ``where``, as an Arrow table (for a snapshot)."""
    if table == "audits":
        wh.flush_audits()  # rows the open transaction holds back
    rel = wh.con.sql(f"SELECT * FROM {_table(table)} WHERE scope_key = ? AND ({where})",
                     params=[wh.scope.key, *params])
    return rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.arrow()


def replace_rows(wh: Warehouse, table: str, where: str, params: Sequence[Any], rows: Any) -> None:
    """Put ``rows`` (a snapshot) back in place of what now matches ``where``."""
    if table == "audits":
        wh.flush_audits()  # rows the open transaction holds back
        wh.audits_deleted()
    wh.con.execute(f"DELETE FROM {_table(table)} WHERE scope_key = ? AND ({where})", [wh.scope.key, *params])
    if rows.num_rows:
        wh.insert_arrow(table, rows)


def delete_ids(wh: Warehouse, table: str, column: str, ids: Sequence[Any]) -> None:
    """Remove the rows of ``table`` whose ``column`` is one of ``ids``."""
    if table == "audits":
        wh.flush_audits()  # rows the open transaction holds back
        wh.audits_deleted()
    if ids:
        wh.con.execute(f"DELETE FROM {_table(table)} WHERE scope_key = ? AND list_contains(?, {column})",
                       [wh.scope.key, list(ids)])


def delete_audits_after(wh: Warehouse, mark: int) -> None:
    """Remove the audit rows appended after id ``mark`` (an apply that is being undone wrote them)."""
    wh.flush_audits()  # rows the open transaction holds back
    wh.audits_deleted()
    wh.con.execute("DELETE FROM audits WHERE scope_key = ? AND id > ?", [wh.scope.key, mark])


def count_matching(wh: Warehouse, table: str, where: str, params: Sequence[Any]) -> int:
    row = wh.fetchone(f"SELECT count(*) FROM {_table(table)} WHERE scope_key = ? AND ({where})",
                      [wh.scope.key, *params])
    return int(row[0]) if row else 0


def column_counts(wh: Warehouse, table: str, conditions: Sequence[str], params: Sequence[Any]) -> tuple:
    """One count per boolean expression of ``conditions`` over the scope's rows of ``table``."""
    sums = ", ".join(f"count(*) FILTER (WHERE {c})" for c in conditions)
    return wh.fetchone(f"SELECT {sums} FROM {_table(table)} WHERE scope_key = ?", [*params, wh.scope.key]) or ()


def text_frame(wh: Warehouse, table: str, columns: Sequence[str]) -> pl.DataFrame:
    return wh.frame(f"SELECT {', '.join(columns)} FROM {_table(table)} WHERE scope_key = ?", [wh.scope.key])


def index_names(wh: Warehouse) -> list[str]:
    return [r[0] for r in wh.fetchall("SELECT name FROM index_meta WHERE scope_key = ?", [wh.scope.key])]


def mark_index_degraded(wh: Warehouse, reason: str, now: Any) -> None:
    wh.con.execute("UPDATE index_meta SET degraded_reason = ?, updated_at = ? WHERE scope_key = ?",
                   [reason, now, wh.scope.key])


def compact_into(wh: Warehouse, con: Any, fresh: Path) -> None:
    """Copy the whole database into the new file ``fresh`` (only live rows survive a copy);
    on failure ``fresh`` is removed. The caller then swaps the files."""
    for stale in (fresh, fresh.with_name(fresh.name + ".wal")):
        stale.unlink(missing_ok=True)
    name = wh.fetchone("SELECT current_database()")[0]  # type: ignore[index]
    con.execute("CHECKPOINT")
    con.execute(f"ATTACH '{fresh.as_posix()}' AS riko_compact")
    try:
        con.execute(f'COPY FROM DATABASE "{name}" TO riko_compact')
    except BaseException:
        con.execute("DETACH riko_compact")
        fresh.unlink(missing_ok=True)
        raise
    con.execute("DETACH riko_compact")




class ScopeTables:
    """Scope-wide reads across every table, for the evaluation probes and diagnostics."""

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh

    def text_hits(self, text: str, *, skip: Sequence[str] = ()) -> dict[str, int]:
        """Row counts per table whose text columns hold ``text`` (every table of the database)."""
        con = self.wh.con
        skipped = set(skip)
        columns: dict[str, list[str]] = {}
        for table, column, kind in con.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
            if table not in skipped and kind.upper() in ("VARCHAR", "JSON", "TEXT"):
                columns.setdefault(table, []).append(column)
        hits = {}
        for table, cols in columns.items():
            where = " OR ".join(f'contains("{c}", ?)' for c in cols)
            count = con.execute(f'SELECT count(*) FROM "{table}" WHERE {where}', [text] * len(cols)).fetchall()[0][0]
            if count:
                hits[table] = int(count)
        return hits

    def derived_holders(self, text: str) -> list[str]:
        """The derived tables that still hold ``text`` in a live record: pending candidates, live
        observations, active aliases, projections and the stored Resident."""
        key = self.wh.scope.key
        queries = {
            "candidates": ("SELECT count(*) FROM candidates WHERE scope_key = ? AND status IN ('pending', "
                           "'pending_conflict') AND contains(concat_ws(' ', title, description, body), ?)", [key, text]),
            "observations": ("SELECT count(*) FROM observations WHERE scope_key = ? AND status <> 'invalidated' "
                             "AND contains(text, ?)", [key, text]),
            "aliases": ("SELECT count(*) FROM aliases WHERE scope_key = ? AND status = 'active' AND contains(alias, ?)",
                        [key, text]),
            "projections": ("SELECT count(*) FROM projections WHERE scope_key = ? "
                            "AND contains(coalesce(summary, ''), ?)", [key, text]),
            "profiles": ("SELECT count(*) FROM profiles WHERE scope_key = ? "
                         "AND contains(concat_ws(' ', resident_text, resident_blocks), ?)", [key, text]),
        }
        return [table for table, (sql, params) in queries.items() if (self.wh.fetchone(sql, params) or (0,))[0]]
