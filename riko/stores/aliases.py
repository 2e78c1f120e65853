"""The ``aliases`` table: revocable alias edges from a wording to an entity page."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .base import Store, marks

__all__ = ["AliasStore"]


class AliasStore(Store):
    """Alias edges of one scope, by id and by normalized alias."""

    table = "aliases"
    order = "alias"
    columns = ("id", "entity_id", "alias", "resolution_kind", "status", "confidence", "reason", "created_at",
               "updated_at")

    def decided(self, normalized: str) -> str | None:
        """The id of an edge a person or an explicit statement decided for this alias (or one a
        person invalidated), if any."""
        row = self.wh.fetchone(
            "SELECT id FROM aliases WHERE scope_key = ? AND normalized_alias = ? "
            "AND (resolution_kind <> 'derived_inference' OR status = 'invalidated') ORDER BY id LIMIT 1",
            [self.scope_key, normalized])
        return str(row[0]) if row else None

    def decided_many(self, normalized: Sequence[str]) -> dict[str, str]:
        """:meth:`decided` for many normalized aliases at once: normalized alias → edge id."""
        if not normalized:
            return {}
        return {str(r[0]): str(r[1]) for r in self.wh.fetchall(
            f"SELECT normalized_alias, min(id) FROM aliases WHERE scope_key = ? AND normalized_alias IN ({marks(normalized)}) "
            "AND (resolution_kind <> 'derived_inference' OR status = 'invalidated') GROUP BY normalized_alias",
            [self.scope_key, *normalized])}

    def replace_many(self, rows: Sequence[dict[str, Any]]) -> None:
        """:meth:`replace` for rows with distinct normalized aliases, in two statements."""
        if not rows:
            return
        keys = [r["normalized_alias"] for r in rows]
        ids = [r["id"] for r in rows]
        self.wh.con.execute(
            f"DELETE FROM aliases WHERE scope_key = ? AND (normalized_alias IN ({marks(keys)}) "
            f"OR id IN ({marks(ids)}))", [self.scope_key, *keys, *ids])
        self.wh.insert_many(self.table, rows)

    def replace(self, row: dict[str, Any]) -> None:
        """Write ``row``, dropping any edge with its normalized alias or its id first."""
        self.wh.con.execute("DELETE FROM aliases WHERE scope_key = ? AND (normalized_alias = ? OR id = ?)",
                            [self.scope_key, row["normalized_alias"], row["id"]])
        self.insert(row)

    def entities_among(self, entity_ids: Sequence[str]) -> set[str]:
        """Which of ``entity_ids`` (candidates, pages) have at least one edge, in one query."""
        if not entity_ids:
            return set()
        return {r[0] for r in self.wh.fetchall(
            "SELECT DISTINCT entity_id FROM aliases WHERE scope_key = ? AND list_contains(?, entity_id)",
            [self.scope_key, list(entity_ids)])}

    def repoint(self, from_id: str, to_id: str, now: datetime | None) -> list[str]:
        """Move the edges of ``from_id`` (a candidate) to ``to_id`` (the page it became); their ids."""
        ids = [r[0] for r in self.wh.fetchall("SELECT id FROM aliases WHERE scope_key = ? AND entity_id = ? ORDER BY id",
                                              [self.scope_key, from_id])]
        if ids:
            self.wh.con.execute("UPDATE aliases SET entity_id = ?, updated_at = ? WHERE scope_key = ? AND entity_id = ?",
                                [to_id, now, self.scope_key, from_id])
        return ids

    def status(self, alias_id: str) -> str | None:
        row = self.wh.fetchone("SELECT status FROM aliases WHERE scope_key = ? AND id = ?", [self.scope_key, alias_id])
        return row[0] if row else None

    def invalidate(self, alias_id: str, reason: str, now: datetime | None) -> None:
        self.wh.con.execute("UPDATE aliases SET status = 'invalidated', reason = ?, updated_at = ? "
                            "WHERE scope_key = ? AND id = ?", [reason, now, self.scope_key, alias_id])

    def live_ids_of(self, entity_id: str) -> list[str]:
        """Ids of the edges to ``entity_id`` that are not invalidated."""
        return [r[0] for r in self.wh.fetchall(
            "SELECT id FROM aliases WHERE scope_key = ? AND entity_id = ? AND status <> 'invalidated'",
            [self.scope_key, entity_id])]

    def active_aliases_of(self, entity_id: str) -> list[str]:
        """The wordings of the active edges to ``entity_id``."""
        return [r[0] for r in self.wh.fetchall(
            "SELECT alias FROM aliases WHERE scope_key = ? AND entity_id = ? AND status = 'active'",
            [self.scope_key, entity_id])]

    def resolve(self, normalized: str, now: datetime | None) -> str | None:
        """The entity an active edge valid at ``now`` points this alias at (highest confidence first)."""
        row = self.wh.fetchone(
            "SELECT entity_id FROM aliases WHERE scope_key = ? AND normalized_alias = ? AND status = 'active' "
            "AND (valid_from IS NULL OR valid_from <= ?) AND (valid_to IS NULL OR valid_to > ?) "
            "ORDER BY confidence DESC LIMIT 1", [self.scope_key, normalized, now, now])
        return row[0] if row else None

    def set_refs(self, alias_id: str, source_refs: str, now: datetime | None) -> None:
        self.wh.con.execute("UPDATE aliases SET source_refs = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                            [source_refs, now, self.scope_key, alias_id])

    def derived(self) -> dict[str, tuple[str, str, float]]:
        """The derived edges :meth:`drop_derived` would remove: id → (entity id, alias, confidence)."""
        rows = self.wh.fetchall("SELECT id, entity_id, alias, confidence FROM aliases WHERE scope_key = ? "
                                "AND resolution_kind = 'derived_inference' AND status <> 'invalidated'",
                                [self.scope_key])
        return {r[0]: (r[1], r[2], float(r[3])) for r in rows}

    def drop_derived(self) -> None:
        """Remove every derived edge a person did not invalidate (they are rebuilt from canon)."""
        self.wh.con.execute("DELETE FROM aliases WHERE scope_key = ? AND resolution_kind = 'derived_inference' "
                            "AND status <> 'invalidated'", [self.scope_key])
