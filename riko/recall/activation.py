"""Activation counts: how often recall injected each record, written to the store in batches.

Activation only breaks ties and orders the Resident; it never changes what is true. So a
recall counts in memory at once, and the store takes the accumulated counts in one
statement at most once a second (and whenever the counts are flushed). The recall that finds
a write due hands the counts to a writer thread, which keeps the disk commit off the per-turn
path (it cost more CPU than the recall itself).
"""

from __future__ import annotations

import math
import threading
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
    """Recall counts not yet in the ``activation`` table, with the time of each last recall.

    Thread-safe: counts are added by recalls and taken by the writer thread.
    """

    def __init__(self) -> None:
        self.pending: dict[str, tuple[int, datetime | None]] = {}
        self.flushed_at = -math.inf
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.pending)

    def add(self, doc_ids: Iterable[str], when: datetime | None) -> None:
        with self._lock:
            for doc_id in doc_ids:
                count, _ = self.pending.get(doc_id, (0, None))
                self.pending[doc_id] = (count + 1, when)

    def due(self) -> bool:
        """True when the last write began at least :data:`FLUSH_INTERVAL_S` ago."""
        return bool(self.pending) and time.monotonic() - self.flushed_at >= FLUSH_INTERVAL_S

    def take(self) -> dict[str, tuple[int, datetime | None]]:
        """The pending counts, now no longer pending (a write of them begins)."""
        with self._lock:
            pending, self.pending = self.pending, {}
            self.flushed_at = time.monotonic()
            return pending

    def restore(self, counts: dict[str, tuple[int, datetime | None]]) -> None:
        """Put back counts whose write failed, beside any counted since."""
        with self._lock:
            for doc_id, (count, when) in counts.items():
                later, latest = self.pending.get(doc_id, (0, None))
                self.pending[doc_id] = (count + later, latest or when)

    def write(self, overlay: Any, counts: dict[str, tuple[int, datetime | None]] | None = None) -> None:
        """Add ``counts`` (default: every pending count) to ``overlay`` (the scope's
        :class:`~riko.stores.overlay.OverlayStore`) in one statement; on failure they are pending again."""
        batch = self.take() if counts is None else counts
        if not batch:
            return
        try:
            with overlay.wh.transaction():
                overlay.add_recalls(batch)
        except BaseException:
            self.restore(batch)
            raise
