"""What a process killed mid-write leaves behind, put right when a scope is opened for writing."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import TYPE_CHECKING

from .journal import recover_journal

if TYPE_CHECKING:
    from .canon import Canon

__all__ = ["leftover_temp_files", "recover_open"]

log = logging.getLogger(__name__)

# write_atomic's temporary names: ".<file>.<pid>.<8 random>.tmp" (older ones lack the pid)
_TEMP_RE = re.compile(r"\.[^/]+\.(?:md|json)\.(?:\d+\.)?[a-z0-9_]{8}\.tmp")


def leftover_temp_files(*directories: Path) -> list[Path]:
    """Temporary files of interrupted atomic writes under ``directories``."""
    found: list[Path] = []
    for directory in directories:
        if directory.is_dir():
            found.extend(p for p in directory.rglob(".*.tmp") if p.is_file() and _TEMP_RE.fullmatch(p.name))
    return sorted(found)


def recover_open(canon: Canon) -> None:
    """Roll back page files of a transaction that died before its commit; remove stale temp files.

    Runs under the writer lock, so no live process is writing here: every temp file is a dead
    process's leftover (it may hold memory text, so it must not outlive a purge).
    """
    recover_journal(canon.wh, canon.dir, canon.expected_hash)
    stale = leftover_temp_files(canon.dir, canon.wh.directory)
    for path in stale:
        path.unlink(missing_ok=True)
    if stale:
        log.warning("removed %d temporary file(s) left by an interrupted write", len(stale))
