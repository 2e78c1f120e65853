"""The cross-process lock on one scope's DuckDB file: shared to read, exclusive to write.

DuckDB lets one read-write process, or several read-only ones, have a file open. Every process
takes this ``flock`` before opening the file and drops it after closing, with a bounded wait.
The holder's pid, what it is doing and since when are written into the lock file so that a
wait that runs out can say who is in the way. A waiter takes the slot ``writer.want``; a
holder that sees another process's wish lets go at the end of its current unit of work.

Nothing here trusts a pid alone (pids are reused, records get damaged): a waiter holds an
``flock`` on its ``writer.want`` for as long as it waits, so a slot whose lock nobody holds is
stale, whatever it says, and the next process removes it. The slot's record is complete before
it appears under its name (it is linked into place), and a holder named in an error message is
one whose pid and process start time both still match.
"""

from __future__ import annotations

import fcntl
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import RikoLockedError
from ..private_files import FILE_MODE, private_dir

__all__ = ["FileLock", "Holder"]

_POLL_S = 0.005
_POLL_MAX_S = 0.02
_RECORD_BYTES = 160


def process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or None if unknown.

    Together with the pid it names one process: a pid reused after a restart or a crash starts
    at another time.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    fields = stat[stat.rfind(b")") + 2:].split()
    return fields[19].decode() if len(fields) > 19 else None


_OWN_START = process_start(os.getpid())


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) a scope's lock, as recorded in the lock file."""

    pid: int | None
    activity: str | None
    since: str | None
    start: str | None = None  # the process start time recorded beside the pid

    @classmethod
    def parse(cls, text: str) -> "Holder":
        parts = text.strip().split("\t")
        try:
            pid: int | None = int(parts[0]) if parts and parts[0] else None
        except ValueError:
            pid = None
        activity = parts[1] if len(parts) > 1 and parts[1] else None
        since = parts[2] if len(parts) > 2 and parts[2] else None
        start = parts[3] if len(parts) > 3 and parts[3] else None
        return cls(pid if pid and pid > 0 else None, activity, since, start)

    def alive(self) -> bool:
        """Whether the recorded process still runs: its pid exists and started when recorded."""
        return self.pid is not None and self.start is not None and process_start(self.pid) == self.start

    def proven(self) -> "Holder":
        """This record if its process is provably the one still running, else an anonymous holder."""
        return self if self.alive() else Holder(None, None, None)


class FileLock:
    """``flock`` on ``<dir>/writer.lock`` taken per unit of work, with a bounded wait."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / "writer.lock"
        self.want_path = Path(directory) / "writer.want"
        self._fd: int | None = None
        self._want_fd: int | None = None  # our slot in writer.want, flocked while we wait
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
                    holder = self.holder(fd).proven()
                    if holder.pid is None:  # the file may be free while a live waiter goes first
                        holder = self.waiter()
                    raise RikoLockedError(self.path, holder.pid, activity=holder.activity, since=holder.since,
                                          waited_s=time.monotonic() - start, wanted=activity)
                time.sleep(delay)
                delay = min(delay * 1.5, _POLL_MAX_S)
        except BaseException:
            self._clear_wish()
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
        line = (f"{os.getpid()}\t{_clean(activity)[:80]}\t{since}\t{_OWN_START or ''}".encode()
                .ljust(_RECORD_BYTES)[:_RECORD_BYTES - 1] + b"\n")
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
        """Whether a live waiter other than this process holds the slot; a stale slot is removed.

        A slot is live only while its waiter holds its ``flock``: an empty, unreadable or foreign
        ``writer.want`` (a waiter killed before it finished, a full disk, a pid reused by another
        program) holds none, so it goes at once instead of blocking everyone.
        """
        if self._want_fd is not None and self._slot_is(self._want_fd):
            return False
        try:
            fd = os.open(self.want_path, os.O_RDONLY)
        except OSError:
            return False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True  # its waiter is alive and waiting
            except OSError:
                return False
            # we hold the dead slot's lock, so no other process removes it meanwhile; unlink it
            # only if it is still the file under the slot's name
            if self._slot_is(fd):
                try:
                    self.want_path.unlink()
                except OSError:
                    pass
            return False
        finally:
            os.close(fd)

    def _slot_is(self, fd: int) -> bool:
        try:
            mine, there = os.fstat(fd), os.stat(self.want_path)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)

    def waiter(self) -> Holder:
        """The live waiter named in ``writer.want`` (pid and start time proven), else an anonymous one."""
        if not self._wished_by_other():
            return Holder(None, None, None)
        try:
            text = self.want_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return Holder(None, None, None)
        parts = text.strip().split("\t")
        waiting = Holder.parse("\t".join([parts[0], "waiting to go first", "", *(parts[1:2] or [""])]))
        return waiting.proven()

    def _wish(self) -> None:
        """Take the waiter's slot when it is free (an existing wish of another process stays).

        The record (pid and process start time) is written and locked in a file with no name,
        then linked into place, so the slot never shows half a record and is never unlocked
        while this process waits.
        """
        if self._want_fd is not None:
            if self._slot_is(self._want_fd):
                return
            os.close(self._want_fd)  # someone judged our slot stale (we were stopped); take a new one
            self._want_fd = None
        fd = _publish(self.want_path, f"{os.getpid()}\t{_OWN_START or ''}\n".encode())
        if fd is not None:  # None: the slot is taken (or cannot be made); wait without it
            self._want_fd = fd

    def _clear_wish(self) -> None:
        fd, self._want_fd = self._want_fd, None
        if fd is None:
            return
        try:
            if self._slot_is(fd):
                self.want_path.unlink()  # while still locked: nobody sees our slot as stale
        except OSError:
            pass
        finally:
            os.close(fd)


def _clean(text: str) -> str:
    """An activity label that cannot break the tab-separated record."""
    return " ".join(text.replace("\t", " ").split())


def _publish(path: Path, record: bytes) -> int | None:
    """Put a complete, locked ``record`` at ``path`` unless a file is there; the locked fd, or None.

    The record is written and locked before the file gets its name: unnamed (``O_TMPFILE``, then
    linked through ``/proc/self/fd``) where the system allows, else a temporary name linked
    into place, so no reader ever sees a half-written or unlocked slot.
    """
    if sys.platform.startswith("linux") and hasattr(os, "O_TMPFILE"):
        try:
            fd = os.open(path.parent, os.O_TMPFILE | os.O_RDWR, FILE_MODE)
        except OSError:
            fd = -1  # a filesystem without O_TMPFILE
        if fd >= 0:
            try:
                os.write(fd, record)
                fcntl.flock(fd, fcntl.LOCK_EX)
                fds = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
                try:  # linkat(AT_SYMLINK_FOLLOW): gives the open, unnamed file its name
                    os.link(str(fd), path, src_dir_fd=fds, follow_symlinks=True)
                finally:
                    os.close(fds)
                return fd
            except FileExistsError:
                os.close(fd)
                return None
            except OSError:
                os.close(fd)  # no /proc or no linkat here: use a named temporary file
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError:
        return None
    try:
        os.write(fd, record)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.link(temp, path)
        return fd
    except OSError:
        os.close(fd)
        return None
    finally:
        Path(temp).unlink(missing_ok=True)
