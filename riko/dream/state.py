"""What one process knows about the Dream runs of a scope it has open: queued, running, idle."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

__all__ = ["DreamState"]


class DreamState:
    """The run state of one Memory's Dreams (``Memory.dream_status()``; the review page shows it)."""

    def __init__(self) -> None:
        self.state = "idle"  # idle | queued | running
        self.queued_at: datetime | None = None
        self.started_at: datetime | None = None
        self.finished_at: datetime | None = None
        self.last_error: str | None = None
        self.last_report: Any = None
        self._guard = threading.Lock()

    def queue(self, now: datetime) -> bool:
        """Mark a run queued; False when one is already queued or running."""
        with self._guard:
            if self.state != "idle":
                return False
            self.state, self.queued_at = "queued", now
            return True

    def start(self, now: datetime) -> None:
        with self._guard:
            self.state, self.started_at = "running", now

    def finish(self, now: datetime, report: Any = None, error: str | None = None) -> None:
        with self._guard:
            self.state, self.finished_at = "idle", now
            self.last_report, self.last_error = report, error

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "queued_at": self.queued_at, "started_at": self.started_at,
                "last_run_at": self.finished_at, "last_error": self.last_error, "last_report": self.last_report}
