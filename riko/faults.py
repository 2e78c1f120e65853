"""Injected I/O faults at riko's write points, for durability tests; off (and free) unless asked for.

``RIKO_FAULTS=<point>:<errno>:<n>`` makes the ``n``-th pass through ``point`` fail with that
errno (``page.write:ENOSPC:3``), and with ``<n>+`` every pass from the n-th on (a disk that stays
full: ``page.write:ENOSPC:1+``); ``RIKO_FAULTS=count:<file>`` counts the passes through every
point and writes them to ``file`` as JSON at exit. Points are ``<kind>.<step>``: kind ``page``,
``journal``, ``resident`` or ``file`` (the file being written), step ``write``, ``fsync`` or
``rename``; and ``duckdb.commit`` for a warehouse transaction's commit. Call sites test
:data:`ARMED` first, so with the variable unset a write pays one global lookup.
"""

from __future__ import annotations

import atexit
import errno as _errno
import json
import os
from collections import Counter
from pathlib import Path

__all__ = ["ARMED", "ENV", "configure", "hit", "file_kind"]

ENV = "RIKO_FAULTS"
ARMED = False
FIRED = 0  # faults raised in this process so far
_target: tuple[str, int, int, bool] | None = None  # (point, errno, n, and every pass after it)
_counts: Counter[str] = Counter()
_count_file: str | None = None


def configure(spec: str | None) -> None:
    """Arm (or, with None / "", disarm) the fault ``spec`` in this process."""
    global ARMED, FIRED, _target, _count_file
    _counts.clear()
    FIRED = 0
    _target, _count_file = None, None
    ARMED = bool(spec)
    if not spec:
        return
    if spec.startswith("count:"):
        _count_file = spec[len("count:"):]
        atexit.register(write_counts)
        return
    point, name, n = spec.rsplit(":", 2)
    _target = (point, getattr(_errno, name), int(n.rstrip("+")), n.endswith("+"))


def write_counts() -> None:
    """Write the passes counted so far to the ``count:`` file (also run at exit)."""
    if _count_file:
        Path(_count_file).write_text(json.dumps(dict(_counts)), encoding="utf-8")


def hit(point: str) -> None:
    """One pass through ``point``: raise the armed fault when this is its turn."""
    _counts[point] += 1
    if _target is not None and _target[0] == point and (
            _counts[point] == _target[2] or (_target[3] and _counts[point] > _target[2])):
        global FIRED
        FIRED += 1
        code = _target[1]
        raise OSError(code, f"{os.strerror(code)} (injected at {point})")


def file_kind(path: Path) -> str:
    """Which write point family a file belongs to: page, journal, resident or file."""
    name = path.name
    if name == "RESIDENT.md":
        return "resident"
    if name.endswith(".md"):
        return "page"
    if name == "canon-journal.json":
        return "journal"
    return "file"


configure(os.environ.get(ENV))
