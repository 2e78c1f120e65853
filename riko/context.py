"""The typed context of one open scope, built once by :class:`riko.Memory` and handed to stages.

Stages (ingest, Dream, recall, purge, observations, tools) receive a :class:`ScopeContext`
instead of the facade: the scope, its configuration and clock, warehouse access, the canon,
review and Resident stores, and the per-scope state that must not be a module global (the
recall cache, the Dream lock, the Dream run state). Nothing here imports :mod:`riko.memory`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .canon import Canon
from .clock import Clock
from .config import RikoConfig
from .dream.state import DreamState
from .resident_store import ResidentStore
from .review import Review
from .scope import MemoryScope
from .warehouse import Turn, Warehouse

__all__ = ["ScopeContext"]


@dataclass
class ScopeContext:
    """One open scope: what every stage may use, and the per-scope caches and locks."""

    scope: MemoryScope
    root: Path
    config: RikoConfig
    clock: Clock
    wh: Warehouse
    canon: Canon
    review: Review
    resident: ResidentStore
    wiki_dir: Path
    warehouse_dir: Path
    read_only: bool
    dream_state: DreamState = field(default_factory=DreamState)
    #: the recall cache (:class:`riko.recall.index_cache.RecallCache`), built on first recall
    recall_cache: Any = None
    recall_cache_guard: threading.Lock = field(default_factory=threading.Lock)

    @property
    def warehouse(self) -> Warehouse:
        return self.wh

    @property
    def dream_lock(self) -> Turn:
        """The lock every Dream read and write goes under: a unit of work on the scope's file."""
        return self.wh.turn("dream")

    def dream_settings(self) -> dict[str, Any]:
        """The Dream settings in force: config defaults under the scope's saved settings."""
        from .settings import DREAM_SETTINGS, saved_dream_settings

        return {**{name: getattr(self.config, name) for name in DREAM_SETTINGS}, **saved_dream_settings(self.wh)}

    def __hash__(self) -> int:  # identity: one context per open Memory
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other
