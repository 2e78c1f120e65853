"""The ``projections`` table: cached safe-usage projections of records (derived, rebuildable)."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from .base import Store

__all__ = ["ProjectionStore"]


class ProjectionStore(Store):
    """Projection rows of one scope, by record id."""

    table = "projections"
    key = ("record_id",)
    order = "record_id"

    def tuples(self) -> list[tuple]:
        """(record_id, disclosure, allowed_effects, topic_tags, summary, generated_from_version) of every row."""
        return self.wh.fetchall(
            "SELECT record_id, disclosure, allowed_effects, topic_tags, summary, generated_from_version "
            "FROM projections WHERE scope_key = ?", [self.scope_key])

    def delete(self, record_ids: Sequence[str]) -> None:
        doomed = pa.table({"record_id": pa.array(list(record_ids), pa.string())})
        with self.wh.registered("_riko_doomed", doomed):
            self.wh.con.execute(
                "DELETE FROM projections WHERE scope_key = ? AND record_id IN (SELECT record_id FROM _riko_doomed)",
                [self.scope_key])
