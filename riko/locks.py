"""The cross-process lock on one scope's DuckDB file: shared to read, exclusive to write.

DuckDB lets one read-write process, or several read-only ones, have a file open. Every process
takes this ``flock`` before opening the file and drops it after closing, with a bounded wait.
The holder's pid, what it is doing and since when are written into the lock file so that a
wait that runs out can say who is in the way. A waiter leaves its pid in ``writer.want``; a
holder that sees another process's wish lets go at the end of its current unit of work.
"""

from __future__ import annotations

import fcntl
import os
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .errors import RikoLockedError
from .private_files import FILE_MODE, private_dir

__all__ = ["FileLock", "Holder"]

_POLL_S = 0.005
_POLL_MAX_S = 0.02
_RECORD_BYTES = 160


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) a scope's lock, as recorded in the lock file."""

    pid: int | None
    activity: str | None
    since: str | None

    @classmethod
    def parse(cls, text: str) -> "Holder":
        parts = text.strip().split("\t")
        try:
            pid: int | None = int(parts[0]) if parts and parts[0] else None
        except ValueError:
            pid = None
        activity = parts[1] if len(parts) > 1 and parts[1] else None
        since = parts[2] if len(parts) > 2 and parts[2] else None
        return cls(pid, activity, since)


class FileLock:
    """``flock`` on ``<dir>/writer.lock`` taken per unit of work, with a bounded wait."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / "writer.lock"
        self.want_path = Path(directory) / "writer.want"
        self._fd: int | None = None
        self.mode: str | None = None  # "read" | "write" while held
        self._activity: str | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, mode: str, activity: str, timeout_s: float) -> None:
        """Take the lock (``mode`` read = shared, write = exclusive), waiting at most ``timeout_s``."""
        private_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        flag = fcntl.LOCK_SH if mode == "read" else fcntl.LOCK_EX
        start = time.monotonic()
        delay = _POLL_S
        got = False
        try:
            while True:
                # one waiter at a time is named in writer.want and goes first: the holder lets go
                # for it, and nobody else (the holder included) takes the file before it does
                if not self._wished_by_other():
                    got = self._try(fd, flag)
                    if got:
                        break
                    self._wish()
                if time.monotonic() - start >= timeout_s:
                    self._clear_wish()
                    holder = self.holder(fd)
                    raise RikoLockedError(self.path, holder.pid, activity=holder.activity, since=holder.since,
                                          waited_s=time.monotonic() - start, wanted=activity)
                time.sleep(delay)
                delay = min(delay * 1.5, _POLL_MAX_S)
        except BaseException:
            os.close(fd)
            raise
        self._fd, self.mode = fd, mode
        self._clear_wish()
        self._activity = None
        self.record(activity)

    @staticmethod
    def _try(fd: int, flag: int) -> bool:
        try:
            fcntl.flock(fd, flag | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def record(self, activity: str) -> None:
        """Write the holder line (pid, activity, since) when the activity changed."""
        if self._fd is None or activity == self._activity:
            return
        self._activity = activity
        since = datetime.now(timezone.utc).isoformat(timespec="seconds")
        # one fixed-width write (no truncate): a reader never sees a half-cleared line
        line = f"{os.getpid()}\t{activity[:80]}\t{since}".encode().ljust(_RECORD_BYTES)[:_RECORD_BYTES - 1] + b"\n"
        try:
            os.pwrite(self._fd, line, 0)
        except OSError:
            pass  # the record only improves an error message; the lock itself is what counts

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd, self.mode = self._fd, None, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def holder(self, fd: int | None = None) -> Holder:
        """The holder line currently in the lock file."""
        own = fd is None
        try:
            if own:
                fd = os.open(self.path, os.O_RDONLY)
            assert fd is not None
            text = os.pread(fd, _RECORD_BYTES, 0).decode("utf-8", "replace")
        except OSError:
            return Holder(None, None, None)
        finally:
            if own and fd is not None:
                os.close(fd)
        return Holder.parse(text)

    # -- asking the holder to let go ---------------------------------------------------------
    def wanted(self) -> bool:
        """Whether another process is waiting for this file."""
        return self._wished_by_other()

    def _wished_by_other(self) -> bool:
        try:
            text = self.want_path.read_text(encoding="utf-8").strip()
        except OSError:
            return False
        if not text or text == str(os.getpid()):
            return False
        try:
            os.kill(int(text), 0)
        except (ValueError, ProcessLookupError):
            self.want_path.unlink(missing_ok=True)  # a waiter that died does not keep asking
            return False
        except PermissionError:
            pass
        return True

    def _wish(self) -> None:
        """Take the waiter's slot when it is free (an existing wish of another process stays)."""
        try:
            fd = os.open(self.want_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            return
        except OSError:
            return
        try:
            os.write(fd, str(os.getpid()).encode())
        finally:
            os.close(fd)

    def _clear_wish(self) -> None:
        try:
            if self.want_path.read_text(encoding="utf-8").strip() == str(os.getpid()):
                self.want_path.unlink()
        except OSError:
            pass
