"""Dream on its own inside ``riko serve``: after the debounce once new evidence arrived, and
as an interval sweep — never two Dreams of one profile at once.

``debounce_ms`` after a profile's evidence last moved (a new session or a later line), its
Dream runs over the sessions that moved; every ``dream_interval_ms`` a sweep runs Dream over
every session past its cursor (Dream skips the ones that did not move). A Dream queued or
running already (``POST /dream``, the CLI in another process holds the scope's lock) makes
the scheduler wait for the next tick. Failures land in the Dream state the UI shows.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["DreamScheduler"]


@dataclass
class _Profile:
    swept_at: float  # the scheduler's clock when it first saw the profile, then at each sweep
    marks: dict[str, int] = field(default_factory=dict)  # session -> last seq seen
    dreamed: dict[str, int] = field(default_factory=dict)  # session -> last seq a Dream started from
    moved_at: float | None = None


class DreamScheduler:
    """A daemon thread over the server's open profiles (see the module doc)."""

    def __init__(self, scopes: Any, debounce_ms: int, interval_ms: int, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.scopes = scopes
        self.debounce_s = max(0, int(debounce_ms)) / 1000.0
        self.interval_s = max(1, int(interval_ms)) / 1000.0
        self.tick_s = min(1.0, max(0.05, self.debounce_s / 4 or 0.05))
        self._clock = clock
        self._profiles: dict[str, _Profile] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs: list[tuple[str, str, list[str] | None]] = []  # (profile, why, sessions), for inspection

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="riko-dream-scheduler", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.wait(self.tick_s):
            for profile in self.scopes.open_profiles():
                try:
                    self.tick(profile)
                except Exception:  # a closed or failing profile: the next tick tries again
                    pass

    def tick(self, profile: str) -> str | None:
        """Look at one profile once; run its Dream when due. Returns why it ran, else None."""
        now = self._clock()
        state = self._profiles.setdefault(profile, _Profile(swept_at=now))
        marks = self.scopes.call(profile, lambda mem: mem.evidence_watermarks(), create=False)
        if marks != state.marks:
            state.marks, state.moved_at = dict(marks), now
        moved = [sid for sid, seq in marks.items() if state.dreamed.get(sid, -1) < seq]
        if moved and state.moved_at is not None and now - state.moved_at >= self.debounce_s:
            return self._run(profile, state, "debounce", sorted(moved), now)
        if now - state.swept_at >= self.interval_s:
            return self._run(profile, state, "interval", None, now)
        return None

    def _run(self, profile: str, state: _Profile, why: str, sessions: list[str] | None, now: float) -> str | None:
        if not self.scopes.call(profile, lambda mem: mem.queue_dream(), create=False):
            return None  # one is queued or running: never two at once
        started_from = dict(state.marks)
        try:
            self.scopes.call(profile, lambda mem: mem.dream(sessions=sessions, progress=False), exclusive=False,
                             create=False)
        except Exception:
            pass  # recorded in the profile's Dream state
        state.dreamed.update(started_from)
        state.swept_at = now
        self.runs.append((profile, why, sessions))
        return why
