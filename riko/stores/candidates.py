"""The ``candidates`` table: L1 proposals and every status change review makes to them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

import polars as pl

from .base import Store, marks

__all__ = ["CandidateStore"]

_LISTING = ("id, status, type, title, description, body, tags, confidence, sensitivity, source, "
            "source_sessions, evidence, conflict_page_id, page_id, created_at, updated_at")


class CandidateStore(Store):
    """Candidates of one scope: listing, merge-by-fingerprint, accept / reject / reopen."""

    table = "candidates"
    order = "created_at, id"

    def rows(self, status: str | None = None) -> pl.DataFrame:  # type: ignore[override]
        """Candidates by status: ``pending`` (with ``pending_conflict``), one status, or all (None)."""
        sql = f"SELECT {_LISTING} FROM candidates WHERE scope_key = ?"
        params: list[Any] = [self.scope_key]
        if status == "pending":
            sql += " AND status IN ('pending', 'pending_conflict')"
        elif status is not None:
            sql += " AND status = ?"
            params.append(status)
        return self.wh.frame(sql + " ORDER BY created_at, id", params)

    def records(self, status: Literal["pending"] | None = None) -> list[dict[str, Any]]:
        """The scope's candidates with all their columns, oldest first: every one, or only the
        ``pending`` ones (with ``pending_conflict``)."""
        where = " AND status IN ('pending', 'pending_conflict')" if status == "pending" else ""
        cur = self.wh.con.execute(f"SELECT * FROM candidates WHERE scope_key = ?{where} ORDER BY created_at, id",
                                  [self.scope_key])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    def get_many(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Whole rows (as :meth:`get` returns them) of the candidates with these ids, by id."""
        if not ids:
            return {}
        cur = self.wh.con.execute(f"SELECT * FROM candidates WHERE scope_key = ? AND id IN ({marks(ids)})",
                                  [self.scope_key, *ids])
        names = [d[0] for d in cur.description]
        return {row["id"]: row for row in (dict(zip(names, r)) for r in cur.fetchall())}

    def pending_of(self, fingerprint: str) -> tuple | None:
        """(id, tags, source_sessions, evidence, confidence, sensitivity) of the open candidate
        with this fingerprint, or None."""
        return self.wh.fetchone(
            "SELECT id, tags, source_sessions, evidence, confidence, sensitivity FROM candidates "
            "WHERE scope_key = ? AND fingerprint = ? AND status IN ('pending', 'pending_conflict')",
            [self.scope_key, fingerprint])

    def pending_ids(self, fingerprint: str, category: str) -> list[str]:
        """Ids of the plain pending candidates with this fingerprint and category."""
        held = self.wh.held_updates(self.table)
        if held and not any("fingerprint" in v or "category" in v for v in held.values()):
            # the status changes the transaction holds, applied here instead of written first
            rows = self.wh.fetchall_unheld(
                self.table, "SELECT id, status FROM candidates WHERE scope_key = ? AND fingerprint = ? AND category = ?",
                [self.scope_key, fingerprint, category])
            return [cid for cid, status in rows if held.get(cid, {}).get("status", status) == "pending"]
        return [r[0] for r in self.wh.fetchall(
            "SELECT id FROM candidates WHERE scope_key = ? AND fingerprint = ? AND status = 'pending' AND category = ?",
            [self.scope_key, fingerprint, category])]

    def pending_statements(self) -> list[tuple]:
        """(id, fingerprint, type, statement, tags, source_sessions, evidence, confidence, sensitivity) of
        every plain pending candidate of the scope that is not an entity, oldest first (those of one
        batch share a creation time: by fingerprint then, never by id, which hashes the clock); the
        statement is its description (the speaker's words, or riko's wording of them), else its title."""
        return self.wh.fetchall(
            "SELECT id, fingerprint, type, coalesce(nullif(description, ''), title), tags, source_sessions, evidence,"
            " confidence, sensitivity "
            "FROM candidates WHERE scope_key = ? AND status = 'pending' AND coalesce(category, '') <> 'entity' "
            "ORDER BY created_at, fingerprint, id", [self.scope_key])

    def count_fingerprint(self, fingerprint: str) -> int:
        """How many candidates ever had this fingerprint (seeds a fresh candidate id)."""
        row = self.wh.fetchone("SELECT count(*) FROM candidates WHERE scope_key = ? AND fingerprint = ?",
                               [self.scope_key, fingerprint])
        return int(row[0]) if row else 0

    def by_fingerprints(self, fingerprints: list[str]) -> list[tuple]:
        """(fingerprint, id, tags, source_sessions, evidence, confidence, sensitivity, status,
        created_at) of every candidate with one of ``fingerprints``, oldest first."""
        found: list[tuple] = []
        for start in range(0, len(fingerprints), 500):
            chunk = fingerprints[start : start + 500]
            found += self.wh.fetchall(
                "SELECT fingerprint, id, tags, source_sessions, evidence, confidence, sensitivity, status, created_at "
                f"FROM candidates WHERE scope_key = ? AND fingerprint IN ({marks(chunk)}) ORDER BY created_at, id",
                [self.scope_key, *chunk])
        return found  # a fingerprint lies in one chunk, so its rows stay in order

    def merge(self, candidate_id: str, *, tags: str, source_sessions: str, evidence: str,
              confidence: float | None, sensitivity: str, now: datetime | None) -> None:
        """Fold a repeat proposal into an open candidate (JSON lists already united)."""
        self.wh.con.execute(
            "UPDATE candidates SET tags = ?, source_sessions = ?, evidence = ?, confidence = ?, sensitivity = ?, "
            "updated_at = ? WHERE scope_key = ? AND id = ?",
            [tags, source_sessions, evidence, confidence, sensitivity, now, self.scope_key, candidate_id])

    def merge_many(self, update: Any, now: datetime | None) -> None:
        """:meth:`merge` for an Arrow table of (id, tags, source_sessions, evidence, confidence, sensitivity)."""
        with self.wh.registered("_riko_merge", update):
            self.wh.con.execute(
                "UPDATE candidates SET tags = u.tags, source_sessions = u.source_sessions, evidence = u.evidence, "
                "confidence = u.confidence, sensitivity = u.sensitivity, updated_at = ? FROM _riko_merge u "
                "WHERE candidates.scope_key = ? AND candidates.id = u.id", [now, self.scope_key])

    def accept(self, candidate_id: str, page_id: str, now: datetime | None) -> None:
        """The candidate became (or joined) canonical page ``page_id``."""
        held = self.wh.held_writes(self.table)
        if held is not None:  # with the transaction's other status changes, before anything reads them
            held.update(candidate_id, {"status": "accepted", "page_id": page_id, "updated_at": now})
            return
        self.wh.con.execute(
            "UPDATE candidates SET status = 'accepted', page_id = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
            [page_id, now, self.scope_key, candidate_id])

    def contest(self, candidate_id: str, page_id: str, now: datetime | None) -> None:
        """The candidate contests page ``page_id``: it waits for review as ``pending_conflict``."""
        held = self.wh.held_writes(self.table)
        if held is not None:
            held.update(candidate_id, {"status": "pending_conflict", "conflict_page_id": page_id, "updated_at": now})
            return
        self.wh.con.execute("UPDATE candidates SET status = 'pending_conflict', conflict_page_id = ?, updated_at = ? "
                            "WHERE scope_key = ? AND id = ?", [page_id, now, self.scope_key, candidate_id])

    def reject(self, candidate_id: str, now: datetime | None) -> None:
        self.wh.con.execute("UPDATE candidates SET status = 'rejected', updated_at = ? WHERE scope_key = ? AND id = ?",
                            [now, self.scope_key, candidate_id])

    def reopen(self, candidate_id: str) -> None:
        """A contested candidate becomes plain pending (management accepts it beside the old page)."""
        self.wh.con.execute("UPDATE candidates SET status = 'pending' WHERE scope_key = ? AND id = ?",
                            [self.scope_key, candidate_id])

    def scrub(self, candidate_id: str, evidence: str, source_sessions: str, now: datetime | None) -> None:
        """Keep a candidate with mixed support, without a purged session's references."""
        self.wh.con.execute("UPDATE candidates SET evidence = ?, source_sessions = ?, updated_at = ? "
                            "WHERE scope_key = ? AND id = ?", [evidence, source_sessions, now, self.scope_key, candidate_id])

    def unconflict(self, candidate_id: str, now: datetime | None) -> None:
        """The page a candidate contradicted is gone: it is an ordinary proposal again."""
        self.wh.con.execute("UPDATE candidates SET conflict_page_id = NULL, status = CASE WHEN status = 'pending_conflict' "
                            "THEN 'pending' ELSE status END, updated_at = ? WHERE scope_key = ? AND id = ?",
                            [now, self.scope_key, candidate_id])

    def release_page(self, page_id: str, now: datetime | None) -> None:
        """Candidates contesting ``page_id`` (now forgotten) become plain pending ones."""
        self.wh.con.execute(
            "UPDATE candidates SET status = 'pending', conflict_page_id = NULL, updated_at = ? WHERE scope_key = ? "
            "AND status = 'pending_conflict' AND conflict_page_id = ?", [now, self.scope_key, page_id])
