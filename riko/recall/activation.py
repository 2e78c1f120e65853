"""Activation counts: how often recall injected each record, written to the store in batches.

Activation only breaks ties and orders the Resident; it never changes what is true. So a
recall counts in memory at once, and the store takes the accumulated counts in one
statement at most once a second (and whenever the counts are flushed), which keeps a disk
commit off the per-turn path.
"""

from __future__ import annotations

import math
import time
from datetime import datetime
from typing import Any, Iterable

__all__ = ["ActivationBuffer", "FLUSH_INTERVAL_S", "activation_score"]

#: Longest time recall counts wait in memory before the next recall writes them.
FLUSH_INTERVAL_S = 1.0


def activation_score(recall_count: int) -> float:
    """The stored activation of a record recalled ``recall_count`` times: ``ln(1 + count)``."""
    return math.log1p(recall_count)


class ActivationBuffer:
    """Recall counts not yet in the ``activation`` table, with the time of each last recall."""

    def __init__(self) -> None:
        self.pending: dict[str, tuple[int, datetime | None]] = {}
        self.flushed_at = -math.inf

    def __len__(self) -> int:
        return len(self.pending)

    def add(self, doc_ids: Iterable[str], when: datetime | None) -> None:
        for doc_id in doc_ids:
            count, _ = self.pending.get(doc_id, (0, None))
            self.pending[doc_id] = (count + 1, when)

    def due(self) -> bool:
        """True when the last write is at least :data:`FLUSH_INTERVAL_S` old."""
        return bool(self.pending) and time.monotonic() - self.flushed_at >= FLUSH_INTERVAL_S

    def write(self, wh: Any, scope_key: str) -> None:
        """Add the pending counts to the store in one statement; on failure they stay pending."""
        if not self.pending:
            return
        from ..migrations import RECORD_SCHEMA_VERSION

        pending, self.pending = self.pending, {}
        params: list[Any] = []
        for doc_id, (count, when) in pending.items():
            params += [scope_key, RECORD_SCHEMA_VERSION, doc_id, count, activation_score(count), when]
        values = ", ".join("(?, ?, ?, ?, ?, ?)" for _ in pending)
        try:
            with wh.transaction():
                wh.con.execute(
                    "INSERT INTO activation (scope_key, schema_version, record_id, recall_count, score, last_recalled_at) "
                    f"VALUES {values} ON CONFLICT (scope_key, record_id) DO UPDATE SET "
                    "recall_count = activation.recall_count + excluded.recall_count, "
                    "score = ln(1 + activation.recall_count + excluded.recall_count), "
                    "last_recalled_at = excluded.last_recalled_at",
                    params,
                )
        except BaseException:
            for doc_id, (count, when) in pending.items():
                later, latest = self.pending.get(doc_id, (0, None))
                self.pending[doc_id] = (count + later, latest or when)
            raise
        finally:
            self.flushed_at = time.monotonic()
