"""The shape every store shares: one table of one scope, the scope in every query, DataFrames out.

Modelled on sqlite-utils' ``Table``: a small set of verbs (:meth:`Store.rows`, :meth:`Store.get`,
:meth:`Store.insert`, :meth:`Store.upsert`, :meth:`Store.count`) plus the named operations of
the record family, so no caller writes SQL against the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import polars as pl

from .warehouse import Warehouse

__all__ = ["Store", "marks"]


def marks(values: Sequence[Any]) -> str:
    """``?, ?, ?`` for an ``IN (...)`` list of ``values``."""
    return ", ".join("?" for _ in values)


class Store:
    """One record family's table in one scope's warehouse."""

    table: ClassVar[str]
    #: the key columns of a row inside the scope (``upsert`` replaces by them)
    key: ClassVar[tuple[str, ...]] = ("id",)
    #: the columns :meth:`rows` returns, and its order
    columns: ClassVar[tuple[str, ...]] = ()
    order: ClassVar[str] = "id"

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh

    @property
    def scope_key(self) -> str:
        return self.wh.scope.key

    def rows(self) -> pl.DataFrame:
        """Every row of the scope as a DataFrame (the family's listing columns)."""
        cols = ", ".join(self.columns) if self.columns else "*"
        return self.wh.frame(f"SELECT {cols} FROM {self.table} WHERE scope_key = ? ORDER BY {self.order}",
                             [self.scope_key])

    def get(self, *key: Any) -> dict[str, Any] | None:
        """The whole row with this key, or None."""
        where = "".join(f" AND {k} = ?" for k in self.key)
        cur = self.wh.con.execute(f"SELECT * FROM {self.table} WHERE scope_key = ?{where}", [self.scope_key, *key])
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
        return dict(zip(names, rows[0])) if rows else None

    def exists(self, *key: Any) -> bool:
        where = "".join(f" AND {k} = ?" for k in self.key)
        return self.wh.fetchone(f"SELECT 1 FROM {self.table} WHERE scope_key = ?{where}", [self.scope_key, *key]) is not None

    def insert(self, *rows: dict[str, Any]) -> None:
        """Insert dict rows (``scope_key`` and ``schema_version`` are added)."""
        self.wh.insert_rows(self.table, list(rows))

    def insert_arrow(self, data: Any) -> None:
        """Bulk insert an Arrow table or DataFrame whose columns match the table by name."""
        self.wh.insert_arrow(self.table, data)

    def upsert(self, row: dict[str, Any]) -> None:
        """Replace the row with the same key (within the scope) by ``row``."""
        self.wh.upsert(self.table, row, key=self.key)

    def count(self) -> int:
        return self.wh.count(self.table)
