"""The overlay over canon: ``suppressions``, ``conflicts`` and ``activation``.

None of these change what a page says; they decide whether (and how high) it is used. The
Resident, recall and review read them only through this store.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

import polars as pl

from .migrations import RECORD_SCHEMA_VERSION
from .base import Store

__all__ = ["OverlayStore", "covering"]


def covering(page_id: str) -> str:
    """The reason an L0 line's suppression carries when it follows a hidden page."""
    return f"covers:{page_id}"


class OverlayStore(Store):
    """Suppressions, conflict overlays and activation scores of one scope."""

    table = "conflicts"
    order = "created_at, id"

    # -- suppressions ---------------------------------------------------------------------------
    def suppressed_ids(self, kind: str | None = None) -> set[str]:
        """Targets under an active suppression (of one ``kind``: page, observation, evidence)."""
        if kind is None:
            rows = self.wh.fetchall("SELECT target_id FROM suppressions WHERE scope_key = ? AND active", [self.scope_key])
        else:
            rows = self.wh.fetchall("SELECT target_id FROM suppressions WHERE scope_key = ? AND active AND target_kind = ?",
                                    [self.scope_key, kind])
        return {r[0] for r in rows}

    def suppressed_signature(self) -> list[tuple]:
        """Every active suppression target, sorted (a cheap change signature)."""
        return self.wh.fetchall("SELECT target_id FROM suppressions WHERE scope_key = ? AND active ORDER BY target_id",
                                [self.scope_key])

    def suppression_count(self, target_id: str) -> int:
        """How many suppressions ``target_id`` ever had (seeds the next suppression id)."""
        row = self.wh.fetchone("SELECT count(*) FROM suppressions WHERE scope_key = ? AND target_id = ?",
                               [self.scope_key, target_id])
        return int(row[0]) if row else 0

    def is_suppressed(self, target_id: str) -> bool:
        return self.wh.fetchone("SELECT id FROM suppressions WHERE scope_key = ? AND target_id = ? AND active",
                                [self.scope_key, target_id]) is not None

    def suppress(self, ident: str, target_id: str, kind: str, reason: str, now: datetime | None) -> None:
        self.wh.insert_rows("suppressions", [{"id": ident, "target_id": target_id, "target_kind": kind,
                                              "reason": reason, "active": True, "created_at": now,
                                              "restored_at": None, "restore_reason": None}])

    def lift(self, target_id: str, reason: str, now: datetime | None) -> None:
        """End every active suppression of ``target_id``."""
        self.wh.con.execute("UPDATE suppressions SET active = false, restored_at = ?, restore_reason = ? "
                            "WHERE scope_key = ? AND target_id = ? AND active", [now, reason, self.scope_key, target_id])

    def covered_refs(self, page_id: str) -> set[str]:
        """The L0 lines actively suppressed because they stand behind hidden ``page_id``."""
        rows = self.wh.fetchall("SELECT target_id FROM suppressions WHERE scope_key = ? AND active "
                                "AND target_kind = 'evidence' AND reason = ?", [self.scope_key, covering(page_id)])
        return {r[0] for r in rows}

    def lift_covered(self, page_id: str, reason: str, now: datetime | None) -> None:
        """End the suppressions of the L0 lines that followed ``page_id`` into hiding."""
        self.wh.con.execute("UPDATE suppressions SET active = false, restored_at = ?, restore_reason = ? "
                            "WHERE scope_key = ? AND active AND target_kind = 'evidence' AND reason = ?",
                            [now, reason, self.scope_key, covering(page_id)])

    # -- conflicts ------------------------------------------------------------------------------
    def conflicts(self, state: str | None = None) -> pl.DataFrame:
        sql = ("SELECT id, state, subject, predicate, page_id, candidate_id, resolution, created_at, resolved_at "
               "FROM conflicts WHERE scope_key = ?")
        params: list[Any] = [self.scope_key]
        if state:
            sql += " AND state = ?"
            params.append(state)
        return self.wh.frame(sql + " ORDER BY created_at, id", params)

    def rows(self) -> pl.DataFrame:
        """Every conflict overlay of the scope."""
        return self.conflicts()

    def conflict(self, conflict_id: str) -> tuple[str, str, str] | None:
        """(page_id, candidate_id, state) of one conflict, or None."""
        return self.wh.fetchone("SELECT page_id, candidate_id, state FROM conflicts WHERE scope_key = ? AND id = ?",
                                [self.scope_key, conflict_id])

    def contested_ids(self) -> set[str]:
        """Pages an open conflict contests (they leave the Resident until it is resolved)."""
        return {r[0] for r in self.contested_signature()}

    def contested_signature(self) -> list[tuple]:
        return self.wh.fetchall("SELECT page_id FROM conflicts WHERE scope_key = ? AND state = 'contested' "
                                "ORDER BY page_id", [self.scope_key])

    def open_conflict(self, row: dict[str, Any]) -> None:
        held = self.wh.held_writes("conflicts")
        if held is not None:  # inserted with the transaction's other conflicts, before anything reads them
            held.insert(row)
        else:
            self.wh.insert_rows("conflicts", [row])

    def resolve(self, conflict_id: str, resolution: str, now: datetime | None) -> None:
        self.wh.con.execute("UPDATE conflicts SET state = 'resolved', resolution = ?, resolved_at = ? "
                            "WHERE scope_key = ? AND id = ?", [resolution, now, self.scope_key, conflict_id])

    def resolve_for_candidate(self, candidate_id: str, resolution: str, now: datetime | None) -> None:
        """Resolve the open conflict a candidate opened (it was rejected)."""
        self.wh.con.execute("UPDATE conflicts SET state = 'resolved', resolution = ?, resolved_at = ? "
                            "WHERE scope_key = ? AND candidate_id = ? AND state = 'contested'",
                            [resolution, now, self.scope_key, candidate_id])

    def resolve_for_page(self, page_id: str, resolution: str, now: datetime | None) -> None:
        """Resolve the open conflicts over a page (it was forgotten)."""
        self.wh.con.execute("UPDATE conflicts SET state = 'resolved', resolution = ?, resolved_at = ? "
                            "WHERE scope_key = ? AND page_id = ? AND state = 'contested'",
                            [resolution, now, self.scope_key, page_id])

    # -- activation -----------------------------------------------------------------------------
    def activation(self) -> dict[str, float]:
        """record id → activation score."""
        return {r[0]: float(r[1]) for r in self.wh.fetchall("SELECT record_id, score FROM activation WHERE scope_key = ?",
                                                            [self.scope_key])}

    def add_recalls(self, counts: dict[str, tuple[int, datetime | None]]) -> None:
        """Add recall counts (record id → (count, last recalled)) in one statement; score = ln(1 + count).

        The rows go in as one registered frame: binding six parameters per row cost four times
        as much, and this write sits on the recall path once a second.
        """
        if not counts:
            return
        ids = list(counts)
        batch = pl.DataFrame({
            "scope_key": [self.scope_key] * len(ids),
            "schema_version": [RECORD_SCHEMA_VERSION] * len(ids),
            "record_id": ids,
            "recall_count": [counts[d][0] for d in ids],
            "score": [_score(counts[d][0]) for d in ids],
            "last_recalled_at": [counts[d][1] for d in ids],
        }, schema={"scope_key": pl.Utf8, "schema_version": pl.Int64, "record_id": pl.Utf8, "recall_count": pl.Int64,
                   "score": pl.Float64, "last_recalled_at": pl.Datetime("us")})
        with self.wh.registered("_riko_recalls", batch):
            self.wh.con.execute(
                "INSERT INTO activation (scope_key, schema_version, record_id, recall_count, score, last_recalled_at) "
                "SELECT scope_key, schema_version, record_id, recall_count, score, last_recalled_at FROM _riko_recalls "
                "ON CONFLICT (scope_key, record_id) DO UPDATE SET "
                "recall_count = activation.recall_count + excluded.recall_count, "
                "score = ln(1 + activation.recall_count + excluded.recall_count), "
                "last_recalled_at = excluded.last_recalled_at",
            )

    def overlay(self) -> tuple[set[str], set[str], dict[str, float]]:
        """(suppressed ids, contested page ids, activation) read together, for the Resident."""
        return self.suppressed_ids(), self.contested_ids(), self.activation()


def _score(count: int) -> float:
    return math.log1p(count)
