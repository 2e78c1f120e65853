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

from ..stores.overlay import OverlayStore

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
        pending, self.pending = self.pending, {}
        try:
            with wh.transaction():
                OverlayStore(wh).add_recalls(pending)
        except BaseException:
            for doc_id, (count, when) in pending.items():
                later, latest = self.pending.get(doc_id, (0, None))
                self.pending[doc_id] = (count + later, latest or when)
            raise
        finally:
            self.flushed_at = time.monotonic()
