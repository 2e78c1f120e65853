"""The ``vectors`` table: provider-neutral rows of the dense generation's documents."""

from __future__ import annotations

from collections.abc import Sequence

from .base import Store

__all__ = ["VectorStore"]


class VectorStore(Store):
    """Vector metadata rows of one scope (the vectors themselves live in generation files)."""

    table = "vectors"
    key = ("doc_id",)
    order = "doc_id"

    def degraded_reason(self, index: str) -> str | None:
        """The ``degraded_reason`` last recorded in ``index_meta`` for ``index`` (None: none or no row)."""
        row = self.wh.fetchone("SELECT degraded_reason FROM index_meta WHERE scope_key = ? AND name = ?",
                               [self.scope_key, index])
        return None if row is None else row[0]

    def delete(self, doc_ids: Sequence[str] | None = None) -> None:
        """Remove the rows of ``doc_ids`` (every row of the scope when None)."""
        if doc_ids is None:
            self.wh.con.execute("DELETE FROM vectors WHERE scope_key = ?", [self.scope_key])
        else:
            self.wh.con.execute("DELETE FROM vectors WHERE scope_key = ? AND list_contains(?::VARCHAR[], doc_id)",
                                [self.scope_key, list(doc_ids)])
