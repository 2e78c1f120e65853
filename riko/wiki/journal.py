"""Page files that commit or roll back with the warehouse transaction that wrote them.

A transaction stages its file writes; just before the warehouse commits, the earlier bytes of
every staged file go to a journal beside the database (one durable write for the whole
transaction), then the files are written. A process killed before the commit leaves the
journal behind; the next writer asks the warehouse which bytes each journalled path should
hold (its ``file_hash``, or no file) and puts back the earlier bytes wherever the commit did
not happen. A failed commit puts them back at once.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import RikoError
from ..stores.jobs import JobStore
from ..stores.warehouse import Warehouse, naive_utc
from .files import fsync_dir, write_atomic

__all__ = ["JOURNAL_NAME", "RESIDENT_STALE", "FileJournal", "recover_journal", "resident_stale"]

log = logging.getLogger(__name__)

JOURNAL_NAME = "canon-journal.json"
RESIDENT_STALE = "resident-stale"  # a jobs row: pages changed since the Resident was last written


class FileJournal:
    """Staged writes, and undo records, of the files under ``base`` that the open warehouse
    transaction changes."""

    def __init__(self, wh: Warehouse, base: Path, jobs: JobStore) -> None:
        """``jobs`` is the scope's job store (the Resident-stale mark lives there)."""
        self.wh, self.jobs = wh, jobs
        self.base = Path(base)
        self.path = wh.directory / JOURNAL_NAME
        self._staged: dict[Path, str | None] = {}    # text to write at commit; None: remove the file
        self._before: dict[Path, bytes | None] = {}  # earlier bytes of every journalled file
        self._changed: list[Path] = []               # files this transaction may have changed on disk
        self._joined = False
        self._stale_marked = False

    def stage(self, path: Path, text: str | None) -> None:
        """Write ``text`` at ``path`` (None: remove the file) when the open transaction commits."""
        if not self._joined:
            self._joined = True
            self.wh.on_transaction_end(self.flush, self._end)
        self._staged[Path(path)] = text

    def text_at(self, path: Path) -> str | None:
        """What ``path`` holds as this transaction sees it (staged text, else the file), None when absent."""
        path = Path(path)
        if path in self._staged:
            return self._staged[path]
        try:
            return path.read_bytes().decode("utf-8", errors="surrogateescape")
        except FileNotFoundError:
            return None

    def exists(self, path: Path) -> bool:
        path = Path(path)
        if path in self._staged:
            return self._staged[path] is not None
        return path.exists()

    def flush(self) -> None:
        """Journal the earlier bytes of every staged file durably, then write the files (called just
        before the commit, and by readers of the files that need them on disk)."""
        if not self._staged:
            return
        staged, self._staged = self._staged, {}
        for path in staged:
            if path not in self._before:
                self._before[path] = path.read_bytes() if path.exists() else None
        write_atomic(self.path, json.dumps({"files": [
            {"path": p.relative_to(self.base).as_posix(),
             "before": None if data is None else base64.b64encode(data).decode("ascii")}
            for p, data in self._before.items()]}))
        folders: dict[Path, None] = {}
        for path, text in staged.items():
            self._changed.append(path)
            if text is None:
                path.unlink(missing_ok=True)
            else:
                write_atomic(path, text, sync_dir=False)
                folders[path.parent] = None
        for folder in folders:  # each rename durable before the commit that names the file
            fsync_dir(folder)

    def mark_resident_stale(self) -> None:
        """Say, inside the transaction, that the Resident must be recompiled from these pages.

        The mark commits with the pages and goes when the Resident is written, so a process
        killed in between leaves it for the next open to act on.
        """
        if self._stale_marked:
            return
        self._stale_marked = True
        self.wh.on_transaction_end(lambda: None, self._unmark)
        now = naive_utc(self.wh.clock.now())
        self.wh.upsert("jobs", {
            "id": RESIDENT_STALE, "kind": RESIDENT_STALE, "session_id": None, "cursor": None, "status": "queued",
            "attempts": 0, "last_error": None, "result": None, "lease_owner": None, "lease_expires_at": None,
            "created_at": now, "updated_at": now}, key=("id",))

    def clear_resident_stale(self) -> None:
        """Drop the mark once the Resident reflects the pages (inside the caller's transaction)."""
        self.jobs.delete(RESIDENT_STALE)
        self._stale_marked = False

    def _unmark(self, committed: bool) -> None:
        self._stale_marked = False

    def _end(self, committed: bool) -> None:
        journalled = bool(self._before)
        try:
            if not committed:
                _restore({p: self._before[p] for p in dict.fromkeys(self._changed)})
        finally:
            self._staged, self._before, self._changed, self._joined = {}, {}, [], False
            if journalled:
                self.path.unlink(missing_ok=True)


def _restore(before: dict[Path, bytes | None]) -> None:
    for path, data in reversed(list(before.items())):
        if data is None:
            path.unlink(missing_ok=True)
        elif not _holds(path, data):
            _write_bytes(path, data)


def _holds(path: Path, data: bytes) -> bool:
    """Whether ``path`` already holds exactly ``data`` (nothing to put back)."""
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _write_bytes(path: Path, data: bytes) -> None:
    """Put ``data`` back at ``path`` all at once (a page file may hold bytes that are not UTF-8)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def recover_journal(wh: Warehouse, base: Path, expected: Callable[[str], str | None]) -> list[str]:
    """Put back the files of a transaction that died before its commit; returns their paths.

    ``expected(rel)`` is the SHA-256 the warehouse holds for the file at ``rel`` (None: no
    file belongs there). A file that already matches it was committed and stays.
    """
    path = wh.directory / JOURNAL_NAME
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        files = {f["path"]: None if f["before"] is None else base64.b64decode(f["before"]) for f in data["files"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise RikoError(f"{path}: the page-file journal cannot be read ({exc}); move it aside to open "
                        "this scope, then check the page files with riko wiki check") from None
    undo: dict[Path, bytes | None] = {}
    for rel, before in files.items():
        full = Path(base) / rel
        now = hashlib.sha256(full.read_bytes()).hexdigest() if full.exists() else None
        if now != expected(rel):  # the warehouse never saw these bytes: the commit did not happen
            undo[full] = before
    _restore(undo)
    restored = sorted(p.relative_to(base).as_posix() for p in undo)
    if restored:
        more = f" and {len(restored) - 3} more" if len(restored) > 3 else ""
        log.warning("rolled back %d page file(s) of an interrupted transaction: %s%s",
                    len(restored), ", ".join(restored[:3]), more)
    path.unlink()
    return restored


def resident_stale(jobs: JobStore) -> bool:
    """True when pages changed after the Resident was last compiled (a process died in between);
    ``jobs`` is the scope's job store (``ctx.stores.jobs``)."""
    return jobs.exists(RESIDENT_STALE)
