"""The server's open memories: one :class:`riko.Memory` per profile, opened lazily, kept open.

Calls into one Memory run in a worker thread (the event loop never waits on DuckDB) under the
memory's lock, a unit of work on the scope's file: the same lock the Dream runner takes around
each of its own reads and writes, so a running Dream interleaves with requests instead of
holding the profile for its whole run. Between calls the file is let go like in any other
process (docs/concurrency.md), so the CLI and notebooks share the scope with the server.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

import anyio.to_thread

from ..clock import Clock
from ..config import RikoConfig
from ..scope import MemoryScope, require_memory

__all__ = ["Scopes"]

T = TypeVar("T")


class Scopes:
    """Profile → open Memory (``riko.open(root, owner=<owner_namespace>, preset=<profile>)``)."""

    def __init__(self, root: Path, config: RikoConfig, clock: Clock | None, *, watch: bool = False) -> None:
        self.root = root
        self.watch = watch  # sync hand edits of each open profile's page files as they happen
        self.config = config
        self.clock = clock
        self._memories: dict[str, Any] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    def _lock(self, profile: str) -> threading.RLock:
        """Guards opening and closing one profile's Memory."""
        with self._guard:
            return self._locks.setdefault(profile, threading.RLock())

    def _open(self, profile: str, create: bool = True) -> Any:
        import riko

        with self._lock(profile):
            memory = self._memories.get(profile)
            if memory is None:
                cfg = self.config
                if not create:
                    require_memory(self.root, MemoryScope(cfg.owner_namespace, profile))
                memory = riko.open(self.root, owner=cfg.owner_namespace, preset=profile,
                                   config=cfg.to_dict(), clock=self.clock, watch=self.watch)
                self._memories[profile] = memory
            return memory

    def call(self, profile: str, fn: Callable[[Any], T], *, exclusive: bool = True, create: bool = True) -> T:
        """Run ``fn(memory)`` with the profile's Memory (blocking).

        ``exclusive`` holds the scope's warehouse lock for the whole call; a Dream run passes
        False because the runner takes that lock itself around each warehouse access. Without
        ``create`` (a read), a scope with no warehouse is a 404 rather than a new scope on disk.
        """
        memory = self._open(profile, create)
        if not exclusive:
            return fn(memory)
        with memory.lock:
            return fn(memory)

    async def run(self, profile: str, fn: Callable[[Any], T], *, exclusive: bool = True, create: bool = True) -> T:
        """:meth:`call` in a worker thread."""
        return await anyio.to_thread.run_sync(lambda: self.call(profile, fn, exclusive=exclusive, create=create))

    def _close(self, profile: str) -> None:
        memory = self._memories.pop(profile, None)
        if memory is not None:
            with memory.lock:
                memory.close()

    def open_profiles(self) -> list[str]:
        return sorted(self._memories)

    def close_all(self) -> None:
        """Release every Memory and its writer lock (server shutdown)."""
        for profile in list(self._memories):
            with self._lock(profile):
                self._close(profile)
