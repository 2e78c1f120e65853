"""The ``pages`` index of the canonical Wiki files and their earlier ``page_versions``.

The Markdown files are the authority (:mod:`riko.wiki.canon` writes them); these rows are their
index, lineage and file hashes.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from .base import Store
from .migrations import RECORD_SCHEMA_VERSION

__all__ = ["PageStore", "PAGE_COLUMNS", "ROW_COLUMNS", "peek_page_paths"]

#: Every stored column of a page row.
ROW_COLUMNS = (
    "id", "type", "title", "description", "body", "status", "consent", "locked", "sensitivity",
    "sensitivity_history", "version", "tags", "sources", "confidence", "kind", "category",
    "observed_at", "recorded_at", "valid_from", "valid_to", "supersedes", "superseded_by",
    "supersede_reason", "usage_policy", "path", "file_hash", "source_candidates", "extra", "updated_at",
)

#: The stored columns a Page is made of, in the order of Page's fields.
PAGE_COLUMNS = (
    "id", "type", "title", "description", "body", "status", "consent", "locked", "sensitivity", "version",
    "tags", "sources", "confidence", "kind", "category", "observed_at", "recorded_at", "valid_from", "valid_to",
    "supersedes", "superseded_by", "usage_policy", "extra",
)


class PageStore(Store):
    """Page rows of one scope (by id), their file paths and hashes, and their versions."""

    table = "pages"
    order = "type, title"
    columns = ("id", "type", "title", "description", "status", "sensitivity", "version", "usage_policy",
               "valid_from", "valid_to", "supersedes", "superseded_by", "path", "updated_at")

    def row(self, page_id: str) -> dict[str, Any] | None:
        """Every column of one page row, or None."""
        cur = self.wh.con.execute(f"SELECT {', '.join(ROW_COLUMNS)} FROM pages WHERE scope_key = ? AND id = ?",
                                  [self.scope_key, page_id])
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
        return dict(zip(names, rows[0])) if rows else None

    def write(self, row: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Store a page row (every ``ROW_COLUMNS`` key): an insert when there is no ``old`` row,
        else an update of the columns that differ from ``old`` (the row as stored now)."""
        held = self.wh.held_writes(self.table)
        if old is None:
            if held is not None:
                held.insert(row)
            else:
                self.wh.insert_rows(self.table, [row])
            return
        names = [n for n in ROW_COLUMNS if n != "id" and (row[n] != old[n] or type(row[n]) is not type(old[n]))]
        if held is not None:  # written with the transaction's other page rows, before anything reads them
            held.update(row["id"], {"schema_version": RECORD_SCHEMA_VERSION, **{n: row[n] for n in names}})
            return
        self.wh.con.execute(
            f"UPDATE pages SET {', '.join(['schema_version = ?', *(f'{n} = ?' for n in names)])} "
            "WHERE scope_key = ? AND id = ?",
            [RECORD_SCHEMA_VERSION, *(row[n] for n in names), self.scope_key, row["id"]])

    def all_rows(self) -> list[dict[str, Any]]:
        """Every column of every page row of the scope (forgotten ones too), by id."""
        cur = self.wh.con.execute(f"SELECT {', '.join(ROW_COLUMNS)} FROM pages WHERE scope_key = ? ORDER BY id",
                                  [self.scope_key])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def page_tuples(self, *, include_forgotten: bool = False) -> list[tuple]:
        """``PAGE_COLUMNS`` of every page, by id (the Resident refresh reads them all)."""
        where = "" if include_forgotten else "AND status <> 'forgotten'"
        return self.wh.fetchall(
            f"SELECT {', '.join(PAGE_COLUMNS)} FROM pages WHERE scope_key = ? {where} ORDER BY id", [self.scope_key])

    def versions(self, page_id: str) -> pl.DataFrame:
        return self.wh.frame(
            "SELECT version, authority, recorded_at, text FROM page_versions WHERE scope_key = ? AND page_id = ? "
            "ORDER BY version", [self.scope_key, page_id])

    def held_pages(self) -> list[tuple[str, str | None]]:
        """(id, description) of every forgotten page and every confirmed suppressed one."""
        return self.wh.fetchall(
            "SELECT id, description FROM pages WHERE scope_key = ? AND (status = 'forgotten' OR "
            "(status = 'confirmed' AND usage_policy = 'suppressed')) ORDER BY id", [self.scope_key])

    def version_texts(self, page_ids: list[str]) -> list[tuple[str, str]]:
        """(page id, stored text) of every earlier version of ``page_ids``."""
        if not page_ids:
            return []
        return self.wh.fetchall(
            "SELECT page_id, text FROM page_versions WHERE scope_key = ? AND list_contains(?::VARCHAR[], page_id) "
            "ORDER BY page_id, version", [self.scope_key, page_ids])

    def add_version(self, page_id: str, version: int, text: str, authority: str, recorded_at: datetime | None) -> None:
        row = {"page_id": page_id, "version": version, "text": text, "authority": authority, "recorded_at": recorded_at}
        held = self.wh.held_writes("page_versions", key=None)
        if held is not None:
            held.insert(row)
        else:
            self.wh.insert_rows("page_versions", [row])

    # -- purge ------------------------------------------------------------------------------------
    def tombstone(self, page_id: str, title: str, now: datetime | None) -> None:
        """Keep only the id of a page derived from a purged session: text, file and lineage go."""
        self.wh.con.execute(
            "UPDATE pages SET status = 'forgotten', title = ?, description = '', body = '', tags = '[]', sources = '[]', "
            "kind = NULL, category = NULL, sensitivity_history = '[]', supersede_reason = NULL, path = NULL, "
            "file_hash = NULL, source_candidates = '[]', extra = '{}', version = version + 1, updated_at = ? "
            "WHERE scope_key = ? AND id = ?", [title, now, self.scope_key, page_id])

    def set_sources(self, page_id: str, sources: str, now: datetime | None) -> None:
        self.wh.con.execute("UPDATE pages SET sources = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                            [sources, now, self.scope_key, page_id])

    def drop_version(self, page_id: str, version: int) -> None:
        self.wh.con.execute("DELETE FROM page_versions WHERE scope_key = ? AND page_id = ? AND version = ?",
                            [self.scope_key, page_id, version])

    def rewrite_version(self, page_id: str, version: int, text: str) -> None:
        self.wh.con.execute("UPDATE page_versions SET text = ? WHERE scope_key = ? AND page_id = ? AND version = ?",
                            [text, self.scope_key, page_id, version])

    # -- files ------------------------------------------------------------------------------------
    def hash_at(self, rel: str) -> str | None:
        """The file hash stored for the page file at ``rel`` (None: no page lives there)."""
        row = self.wh.fetchone("SELECT file_hash FROM pages WHERE scope_key = ? AND path = ?", [self.scope_key, rel])
        return row[0] if row else None

    def path_of(self, page_id: str) -> str | None:
        row = self.wh.fetchone("SELECT path FROM pages WHERE scope_key = ? AND id = ?", [self.scope_key, page_id])
        return row[0] if row else None

    def path_taken(self, rel: str, page_id: str) -> bool:
        """Whether a page other than ``page_id`` holds the file path ``rel``."""
        return self.wh.fetchone("SELECT 1 FROM pages WHERE scope_key = ? AND path = ? AND id <> ? LIMIT 1",
                                [self.scope_key, rel, page_id]) is not None

    def files(self) -> list[tuple[str, str, str]]:
        """(path, id, file_hash) of every page that has a file."""
        return self.wh.fetchall("SELECT path, id, file_hash FROM pages WHERE scope_key = ? AND path IS NOT NULL",
                                [self.scope_key])

    def statuses(self) -> list[tuple[str, str, str | None]]:
        """(id, status, path) of every page."""
        return self.wh.fetchall("SELECT id, status, path FROM pages WHERE scope_key = ?", [self.scope_key])

    def record_file(self, page_id: str, rel: str, digest: str) -> None:
        self.wh.con.execute("UPDATE pages SET path = ?, file_hash = ? WHERE scope_key = ? AND id = ?",
                            [rel, digest, self.scope_key, page_id])

    # -- what other stages read -------------------------------------------------------------------
    def temporally_closed_ids(self) -> set[str]:
        """Pages replaced in time (their validity window, not the forward link, decides)."""
        return {r[0] for r in self.wh.fetchall(
            "SELECT id FROM pages WHERE scope_key = ? AND supersede_reason = 'temporal' AND valid_to IS NOT NULL",
            [self.scope_key])}

    def recent_confirmed(self, limit: int) -> list[tuple[str, str, str | None]]:
        """(id, title, description) of the newest confirmed, consented, unsuppressed pages."""
        return self.wh.fetchall(
            "SELECT id, title, description FROM pages WHERE scope_key = ? AND status = 'confirmed' AND consent "
            "AND usage_policy <> 'suppressed' ORDER BY recorded_at DESC NULLS LAST, id LIMIT ?",
            [self.scope_key, limit])

    def signature(self) -> tuple | None:
        """(count, hash) over what decides a page's use in recall: a cheap change signature."""
        return self.wh.fetchone(
            "SELECT count(*), coalesce(sum(hash(id || version::VARCHAR || status || usage_policy || sensitivity "
            "|| consent::VARCHAR || coalesce(valid_from::VARCHAR, '') || coalesce(valid_to::VARCHAR, '') "
            "|| coalesce(superseded_by, '') || coalesce(supersede_reason, ''))), 0) FROM pages WHERE scope_key = ?",
            [self.scope_key])

    def forgotten_times(self) -> dict[str, datetime | None]:
        """page id → when a forgotten page was forgotten (its last write)."""
        return dict(self.wh.fetchall("SELECT id, updated_at FROM pages WHERE scope_key = ? AND status = 'forgotten'",
                                     [self.scope_key]))

    def supersede_reasons(self) -> dict[str, str | None]:
        """page id → why it was superseded (None when it was not)."""
        return dict(self.wh.fetchall("SELECT id, supersede_reason FROM pages WHERE scope_key = ?", [self.scope_key]))

    def confirmed_sensitivity(self, page_id: str) -> tuple[str] | None:
        """(sensitivity,) of a confirmed, consented page, or None."""
        return self.wh.fetchone(
            "SELECT sensitivity FROM pages WHERE scope_key = ? AND id = ? AND status = 'confirmed' AND consent",
            [self.scope_key, page_id])

    def confirmed_titles(self, limit: int) -> tuple[str, ...]:
        return tuple(r[0] for r in self.wh.fetchall(
            "SELECT DISTINCT title FROM pages WHERE scope_key = ? AND status = 'confirmed' ORDER BY title LIMIT ?",
            [self.scope_key, limit]))


def peek_page_paths(db: Path, scope_key: str) -> tuple[dict[str, str] | None, str | None]:
    """The stored page-file path → id map read from database file ``db`` without the writer lock
    (for a check that must not wait): ``(None, note)`` when another process holds the file."""
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return None, "the warehouse is in use by another process, so page ids were not compared with it"
    try:
        rows = con.execute("SELECT path, id FROM pages WHERE scope_key = ? AND path IS NOT NULL", [scope_key]).fetchall()
    except duckdb.Error:
        return None, None
    finally:
        con.close()
    return {r[0]: r[1] for r in rows}, None
