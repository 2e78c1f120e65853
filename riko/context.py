"""The typed context of one open scope, built once by :class:`riko.Memory` and handed to stages.

Stages (ingest, Dream, recall, purge, observations, tools) receive a :class:`ScopeContext`
instead of the facade: the scope, its configuration and clock, warehouse access, a frozen
bundle of the scope's stores, the change signal every durable write announces itself on,
and the per-scope state that must not be a module global (the recall cache, the Dream lock,
the Dream run state). Nothing here imports :mod:`riko.memory` or a stage: the canon, review
and Resident objects are built by ``Memory`` and only named here for the type checker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .clock import Clock
from .config import RikoConfig
from .scope import MemoryScope
from .settings import DREAM_SETTINGS, saved_dream_settings
from .stores.bundle import Stores
from .stores.warehouse import Turn, Warehouse

if TYPE_CHECKING:
    from .wiki.canon import Canon
    from .resident.store import ResidentStore
    from .review.machine import Review

__all__ = ["ScopeContext", "ChangeSignal", "DreamState"]


class ChangeSignal:
    """What a durable write announces, and who listens: ``changed()`` after canon moved (pages,
    candidates, overlays), ``changed("evidence")`` after raw lines were stored.

    Listeners run in the order they subscribed. A ``deferred`` listener (the dense refresh)
    waits while a :meth:`batch` is open and runs once when the outermost batch ends. Inside
    :meth:`coalesced` every announcement waits, and each kind is announced once at its end.
    """

    def __init__(self) -> None:
        self._listeners: list[tuple[frozenset[str] | None, bool, Callable[[], Any]]] = []
        self._depth = 0
        self._held: list[str] | None = None

    def subscribe(self, listener: Callable[[], Any], *, kinds: set[str] | None = None, deferred: bool = False) -> None:
        """Call ``listener()`` on every change of one of ``kinds`` (every kind when None)."""
        self._listeners.append((frozenset(kinds) if kinds is not None else None, deferred, listener))

    def __call__(self, kind: str = "canon") -> None:
        if self._held is not None:
            self._held.append(kind)
            return
        for kinds, deferred, listener in list(self._listeners):
            if (kinds is None or kind in kinds) and not (deferred and self._depth):
                listener()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group many writes (a Dream run, an auto-confirm pass): deferred listeners run once at the end."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth:
                for _, deferred, listener in list(self._listeners):
                    if deferred:
                        listener()

    @contextmanager
    def coalesced(self) -> Iterator[None]:
        """Hold every change announced inside the block and announce each kind once when it ends
        (a Dream batch recompiles the Resident once, however many pages and conflicts it moved).

        A block that raises announces nothing: its transactions rolled back, or it stopped on a
        storage fault whose owed work the next run completes and announces; a Resident read
        still sees a moved revision and recompiles."""
        if self._held is not None:  # an outer block announces
            yield
            return
        self._held = []
        try:
            yield
        except BaseException:
            self._held = None
            raise
        kinds, self._held = self._held, None
        for kind in dict.fromkeys(kinds):
            self(kind)


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


@dataclass
class ScopeContext:
    """One open scope: what every stage may use, and the per-scope caches and locks."""

    scope: MemoryScope
    root: Path
    config: RikoConfig
    clock: Clock
    wh: Warehouse
    canon: "Canon"
    review: "Review"
    resident: "ResidentStore"
    wiki_dir: Path
    warehouse_dir: Path
    read_only: bool
    stores: Stores = field(default=None)  # type: ignore[assignment]  # built from ``wh`` when not given
    changed: ChangeSignal = field(default_factory=ChangeSignal)
    dream_state: DreamState = field(default_factory=DreamState)
    #: the recall cache (:class:`riko.recall.index_cache.RecallCache`), built on first recall
    recall_cache: Any = None
    recall_cache_guard: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.stores is None:
            self.stores = Stores.of(self.wh)

    @property
    def warehouse(self) -> Warehouse:
        return self.wh

    @property
    def dream_lock(self) -> Turn:
        """The lock every Dream read and write goes under: a unit of work on the scope's file."""
        return self.wh.turn("dream")

    def dream_settings(self) -> dict[str, Any]:
        """The Dream settings in force: config defaults under the scope's saved settings."""
        return {**{name: getattr(self.config, name) for name in DREAM_SETTINGS}, **saved_dream_settings(self.stores.settings)}

    def __hash__(self) -> int:  # identity: one context per open Memory
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other
