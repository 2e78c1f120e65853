"""One cheap read that says whether anything recall indexes moved since it last looked."""

from __future__ import annotations

from typing import Any

from .warehouse import Warehouse

__all__ = ["recall_probe"]


def recall_probe(wh: Warehouse) -> tuple[int, int, int, Any]:
    """(newest audit id, evidence count, newest evidence rowid, observation signature) of the scope."""
    key = wh.scope.key
    row = wh.fetchone(
        "SELECT (SELECT coalesce(max(id), 0) FROM audits WHERE scope_key = ?), "
        "(SELECT count(*) FROM evidence WHERE scope_key = ?), "
        "(SELECT coalesce(max(rowid), -1) FROM evidence WHERE scope_key = ?), "
        "(SELECT count(*) || ':' || coalesce(sum(hash(id || status || coalesce(sensitivity, '') || text "
        "|| coalesce(valid_from::VARCHAR, '') || coalesce(valid_to::VARCHAR, ''))), 0) "
        "FROM observations WHERE scope_key = ?)",
        [key, key, key, key],
    )
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2]), row[3]
