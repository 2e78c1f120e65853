"""The per-scope DuckDB warehouse: one database file shared by processes in turns, scoped SQL.

Every row carries ``scope_key`` and ``schema_version``; every query written here filters by
scope in SQL. Bulk writes go through Arrow tables (row-by-row inserts are ~1,000x slower).
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import threading
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, overload

import duckdb

from ..clock import Clock, utc
from ..errors import ClosedError, InvalidArgumentError, ReadOnlyError, RikoError, RikoLockedError, StorageError
from .. import faults
from .locks import FileLock
from .migrations import RECORD_SCHEMA_VERSION, SCOPED_TABLES, migrate
from ..private_files import private_dir, private_file
from ..scope import MemoryScope, missing_memory, require_memory

__all__ = ["Warehouse", "Turn", "naive_utc", "dumps", "missing_memory", "require_memory", "storage_error"]


#: errno values that mean the disk, not the request, is at fault
_STORAGE_ERRNOS = frozenset({28, 5, 122, 30, 27})  # ENOSPC, EIO, EDQUOT, EROFS, EFBIG


_DISK_WORDS = ("No space left on device", "Could not write file", "Input/output error", "Disk quota exceeded")


def storage_error(exc: BaseException) -> StorageError | None:
    """A failed disk write (an OSError of the disk, a DuckDB I/O error) as riko's typed error, else None."""
    if isinstance(exc, RikoError):
        return None
    if isinstance(exc, OSError) and exc.errno in _STORAGE_ERRNOS:
        return StorageError.from_os(exc)
    # DuckDB reports a full disk at commit as a TransactionException ("Failed to commit: Could not
    # write file ... No space left on device"), elsewhere as an IOException
    if isinstance(exc, (duckdb.IOException, duckdb.FatalException)) or (
            isinstance(exc, duckdb.Error) and any(s in str(exc) for s in _DISK_WORDS)):
        return StorageError(f"the warehouse could not write ({str(exc).splitlines()[0]}); the transaction was not "
                            "kept and earlier records are intact; free space or fix the disk, then run it again")
    return None


@overload
def naive_utc(value: datetime) -> datetime: ...
@overload
def naive_utc(value: None) -> None: ...
@overload
def naive_utc(value: datetime | None) -> datetime | None: ...
def naive_utc(value: datetime | None) -> datetime | None:
    """DuckDB TIMESTAMP columns hold naive UTC; convert an aware datetime for storage."""
    if value is None:
        return None
    return utc(value).replace(tzinfo=None)


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON for the VARCHAR JSON columns (stable for hashing and diffs)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


class _SharedFile:
    """This process's handle on one DuckDB file: the connection while held, the lock, the guard.

    Every Warehouse of the file in this process shares it. A unit of work holds ``guard`` (so
    threads take turns on the one connection) and the cross-process :class:`FileLock`; when
    the last unit ends the file stays open for ``idle_release_s`` unless another process asked
    for it, then it is closed and the lock dropped.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = FileLock(path.parent)
        self.guard = threading.RLock()
        self.idle = threading.Condition(self.guard)
        self.con: duckdb.DuckDBPyConnection | None = None
        self.mode: str | None = None
        self.depth = 0
        self.owner: int | None = None
        self.tx_depth = 0
        self.hooks: list[tuple[Callable[[], None], Callable[[bool], None]]] = []
        self.next_audit_id: int | None = None
        self.audits_removed = False  # audit rows were deleted: the newest id is read from the table
        #: audit rows of the open transaction not yet inserted: (id, kind, authority, target, detail, recorded_at)
        self.pending_audits: list[tuple[Any, ...]] = []
        self.audits_hooked = False
        #: writes the open transaction holds back, by table (see :meth:`Warehouse.held_writes`)
        self.held: dict[str, HeldWrites] = {}
        self.held_hooked = False
        self.migrated = False
        self.fold_on_close = False  # the next close folds the log into the file (after a compaction)
        self.refs = 0
        self.idle_since = 0.0
        self.linger_s = 0.0
        self.reaper: threading.Thread | None = None
        self.claims: set[str] = set()  # work items a caller of this process has claimed (see Warehouse.claim)
        self.claims_guard = threading.Lock()

    def open(self, mode: str, activity: str, timeout_s: float) -> None:
        """Have the file open in ``mode`` (a read-write connection serves reads too)."""
        if self.con is not None and (self.mode == "write" or mode == "read"):
            self.lock.record(activity)
            return
        if self.con is not None:
            self.close()
        deadline = time.monotonic() + timeout_s
        self.lock.acquire(mode, activity, timeout_s)
        try:
            self.con = self._connect(mode == "read", deadline, activity)
            self.mode = mode
            self.next_audit_id = None  # another process may have written while the file was not ours
            if mode == "write" and not self.migrated:
                migrate(self.con)
                self.migrated = True
        except BaseException:
            self.close()
            raise

    def _connect(self, read_only: bool, deadline: float, activity: str) -> duckdb.DuckDBPyConnection:
        private_dir(self.path.parent)
        while True:
            try:
                con = duckdb.connect(str(self.path), read_only=read_only)
                if not read_only:
                    private_file(self.path)  # raw conversation: the owner's alone
                return con
            except duckdb.IOException as exc:
                text = str(exc)
                if "lock" not in text.lower():
                    raise RikoError(f"cannot open warehouse {self.path}: {text}") from exc
                # a process outside this protocol (or one still closing) has the file
                if time.monotonic() >= deadline:
                    raise RikoLockedError(self.lock.path, _pid_from_duckdb_message(text),
                                          activity="an open DuckDB connection", wanted=activity) from None
                time.sleep(0.01)

    def close(self) -> None:
        con, mode, self.con, self.mode = self.con, self.mode, None, None
        try:
            if con is not None:
                if mode == "write" and not self.fold_on_close and self._wal_bytes() < _CHECKPOINT_WAL_BYTES:
                    # a small log is cheaper to replay on the next open than to fold in now
                    con.execute("PRAGMA disable_checkpoint_on_shutdown")
                con.close()
                self.fold_on_close = False
        finally:
            self.lock.release()

    def _wal_bytes(self) -> int:
        try:
            return os.stat(self.path.with_name(self.path.name + ".wal")).st_size
        except OSError:
            return 0

    def settle(self, linger_s: float) -> None:
        """The last unit ended: let go now if asked or configured, else after ``linger_s`` idle."""
        if linger_s <= 0 or self.refs <= 0 or self.lock.wanted():
            self.close()
            return
        self.idle_since, self.linger_s = time.monotonic(), linger_s
        if self.reaper is None:
            self.reaper = threading.Thread(target=self._reap, name=f"riko-idle-{self.path.parent.name}", daemon=True)
            self.reaper.start()
        else:
            self.idle.notify()

    def _reap(self) -> None:
        """Close the file once it has been idle long enough, or as soon as another process asks."""
        with self.idle:
            while self.con is not None:
                left = self.idle_since + self.linger_s - time.monotonic()
                if left <= 0 or self.lock.wanted():
                    self.close()
                    break
                self.idle.wait(min(left, _WANT_CHECK_S))
            self.reaper = None


_WANT_CHECK_S = 0.025
_EXIT_WAIT_S = 5.0
#: Closing folds the write-ahead log into the file only once it has grown past this.
_CHECKPOINT_WAL_BYTES = 64 << 10
_FILES: dict[str, _SharedFile] = {}
_FILES_GUARD = threading.Lock()


@atexit.register
def _close_all() -> None:
    """At exit, while the idle threads still run, close every file this process has open
    (after that, a daemon thread frozen holding a guard could stall a late ``close()``)."""
    with _FILES_GUARD:
        handles = list(_FILES.values())
    for handle in handles:
        if handle.guard.acquire(timeout=_EXIT_WAIT_S):
            try:
                if handle.depth == 0 and handle.con is not None:
                    handle.close()
                handle.refs = 0
            finally:
                handle.guard.release()


def _shared(path: Path) -> _SharedFile:
    key = os.path.realpath(path)
    with _FILES_GUARD:
        handle = _FILES.get(key)
        if handle is None:
            handle = _FILES[key] = _SharedFile(Path(key))
        handle.refs += 1
        return handle


class Warehouse:
    """One scope's DuckDB database under ``<root>/warehouse/<storage-key>/riko.duckdb``.

    The file is taken per unit of work (:meth:`unit`; every method here is one) and let go
    when idle, so several processes share a scope: see ``docs/concurrency.md``.
    """

    def __init__(self, directory: Path, scope: MemoryScope, clock: Clock, *, read_only: bool = False,
                 lock_timeout_s: float = 30.0, idle_release_s: float = 0.5) -> None:
        self.directory = Path(directory)
        self.scope = scope
        self.clock = clock
        self.read_only = read_only
        self.path = self.directory / "riko.duckdb"
        self.lock_timeout_s = lock_timeout_s
        self.idle_release_s = idle_release_s
        if read_only and not self.path.exists():
            raise missing_memory(scope, self.directory)
        private_dir(self.directory)
        self._file: _SharedFile | None = _shared(self.path)
        self._released: _SharedFile | None = None
        self.lock = self._file.lock
        with self.unit("open"):
            pass  # creates and migrates the file, or proves it can be read

    # -- units of work ------------------------------------------------------------------------
    @contextmanager
    def unit(self, activity: str = "query") -> Iterator[duckdb.DuckDBPyConnection]:
        """Hold the file (and this process's turn on it) for a unit of work; re-entrant."""
        con = self._enter(activity)
        try:
            yield con
        finally:
            self._exit()

    def turn(self, activity: str) -> "Turn":
        """A re-entrant lock object whose holding is a unit of work (``with wh.turn("dream"):``)."""
        return Turn(self, activity)

    def _enter(self, activity: str) -> duckdb.DuckDBPyConnection:
        f = self._handle()
        f.guard.acquire()
        try:
            if f.depth == 0:
                f.open("read" if self.read_only else "write", activity, self.lock_timeout_s)
                f.owner = threading.get_ident()
            elif not self.read_only and f.mode == "read":
                raise RikoError(f"cannot write scope {self.scope.key} inside a read-only unit of work")
            assert f.con is not None
        except BaseException:
            f.guard.release()
            raise
        f.depth += 1
        if f.held:
            return _HeldAwareConnection(f.con, self)  # type: ignore[return-value]
        return f.con

    def _exit(self) -> None:
        f = self._file or self._released  # a unit may end after close() dropped the claim
        assert f is not None
        try:
            f.depth -= 1
            if f.depth == 0:
                f.owner = None
                if f.con is not None:
                    f.settle(self.idle_release_s)
        finally:
            f.guard.release()

    def _handle(self) -> _SharedFile:
        if self._file is None:
            raise ClosedError()
        return self._file

    @property
    def con(self) -> Any:
        """The connection inside a unit of work; outside one, a view that runs each call as its own."""
        f = self._handle()
        if f.depth and f.owner == threading.get_ident() and f.con is not None:
            return _HeldAwareConnection(f.con, self) if f.held else f.con
        return _UnitConnection(self)

    @property
    def held(self) -> bool:
        """Whether this process has the file open right now."""
        return self._file is not None and self._file.con is not None

    @property
    def in_transaction(self) -> bool:
        """Whether a write transaction is open on the file (in this process)."""
        return self._tx_depth > 0

    @property
    def _tx_depth(self) -> int:
        return self._file.tx_depth if self._file is not None else 0

    def other_handles(self) -> int:
        """How many other Warehouses of this process share the file."""
        return max(0, self._handle().refs - 1)

    @contextmanager
    def file_closed(self) -> Iterator[None]:
        """Inside a unit of work: close the database file but keep the lock (to replace the file)."""
        f = self._handle()
        if not (f.depth and f.owner == threading.get_ident()) or f.mode != "write":
            raise RikoError("file_closed() needs a write unit of work of this thread")
        self.flush_held()
        con, f.con = f.con, None
        assert con is not None
        con.close()
        try:
            yield
        finally:
            f.con = duckdb.connect(str(self.path))
            f.next_audit_id = None
            f.fold_on_close = True  # no write after the swap may linger in a separate log file

    def claim(self, item: str, *, claim: bool = True) -> bool:
        """Claim ``item`` for this process's Memories of the scope (False when already claimed),
        or release it (``claim=False``)."""
        f = self._handle() if claim else (self._file or self._released)
        assert f is not None
        with f.claims_guard:
            if not claim:
                f.claims.discard(item)
                return True
            if item in f.claims:
                return False
            f.claims.add(item)
            return True

    def reserve_audit_ids(self, n: int) -> int:
        """The first of ``n`` consecutive audit ids taken for rows written by the caller (in a unit)."""
        with self.unit("write"):
            f = self._handle()
            if f.next_audit_id is None:
                f.next_audit_id, f.audits_removed = self._max_audit_id() + 1, False
            first = f.next_audit_id
            f.next_audit_id += n
            return first

    def close(self) -> None:
        """Drop this warehouse's claim; the file closes when no Warehouse of it is left here."""
        f, self._file = self._file, None
        if f is None:
            return
        self._released = f
        if sys.is_finalizing():
            return  # the exit handler closed the file; the idle threads may be frozen by now
        with f.guard:
            with _FILES_GUARD:
                f.refs -= 1
                last = f.refs <= 0
                if last:
                    _FILES.pop(str(f.path), None)
            if last and f.depth == 0:
                f.close()

    # -- writing ------------------------------------------------------------------------------
    def require_writable(self) -> None:
        if self.read_only:
            raise ReadOnlyError(
                f"memory for scope {self.scope.key} was opened read-only; reopen with read_only=False to write"
            )

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A write transaction (re-entrant: inner blocks join the outer one)."""
        self.require_writable()
        with self.unit("write") as con:
            f = self._handle()
            if f.tx_depth:
                f.tx_depth += 1
                try:
                    yield con
                finally:
                    f.tx_depth -= 1
                return
            con.execute("BEGIN TRANSACTION")
            f.tx_depth = 1
            audit_mark = f.next_audit_id
            try:
                yield con
                for before_commit, _ in list(f.hooks):
                    before_commit()
                if faults.ARMED:
                    try:
                        faults.hit("duckdb.commit")
                    except OSError as exc:  # as DuckDB's own failed commit would be: this file's
                        raise StorageError.from_os(exc, self.path) from exc
            except BaseException:
                f.tx_depth = 0
                try:
                    con.execute("ROLLBACK")
                except duckdb.Error:
                    pass  # the error that ended the transaction is the one worth raising
                finally:
                    f.next_audit_id = audit_mark
                    self._end_hooks(False)
                raise
            f.tx_depth = 0
            try:
                con.execute("COMMIT")
            except BaseException:
                f.next_audit_id = audit_mark
                self._end_hooks(False)
                raise
            self._end_hooks(True)

    def on_transaction_end(self, before_commit: Callable[[], None], after: Callable[[bool], None]) -> None:
        """Join the open transaction: ``before_commit()`` runs inside it, ``after(committed)`` once it ends.

        This is how files written beside the database commit or roll back with it.
        """
        f = self._handle()
        if not f.tx_depth:
            raise RikoError("on_transaction_end needs an open warehouse transaction")
        f.hooks.append((before_commit, after))

    def _end_hooks(self, committed: bool) -> None:
        f = self._handle()
        hooks, f.hooks = f.hooks, []
        for _, after in hooks:
            after(committed)

    def held_writes(self, table: str, key: str | None = "id") -> "HeldWrites | None":
        """The open transaction's held writes of ``table`` (rows by ``key``, or appended rows when
        ``key`` is None), or None when this thread has no transaction open (then write at once).

        Writes held here reach the table in a few bulk statements, in their order per table,
        before any statement that names the table runs on this connection and before the
        commit; a rollback drops them. A store holds back only writes no error is expected from
        (an update by key, an insert of a new key), so the statement that fails is the same one.
        """
        f = self._handle()
        if not f.tx_depth or f.owner != threading.get_ident() or f.con is None:
            return None
        held = f.held.get(table)
        if held is None:
            if table not in SCOPED_TABLES:
                raise InvalidArgumentError(f"unknown table {table!r}")
            held = f.held[table] = HeldWrites(self, table, key)
            if not f.held_hooked:
                f.held_hooked = True
                self.on_transaction_end(self.flush_held, self._held_ended)
        return held

    def held_updates(self, table: str) -> dict[Any, dict[str, Any]] | None:
        """The column updates by key the open transaction holds for ``table`` (read-only), or
        None when it holds other writes of it too (then read the table as it is)."""
        f = self._file
        held = f.held.get(table) if f is not None and f.owner == threading.get_ident() else None
        if held is None:
            return {}
        return None if held.rows or held.appended else held.updates

    def fetchall_unheld(self, table: str, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """:meth:`fetchall` reading ``table`` without its held updates, which the caller applies
        itself (see :meth:`held_updates`); other tables the query names are read as written."""
        with self.unit("read"):
            f = self._handle()
            for other in [t for t in f.held if t != table and t in sql]:
                held = f.held.pop(other, None)
                if held is not None:
                    held.flush()
            if "audits" in sql:
                self._before_audit_read()
            assert f.con is not None
            return f.con.execute(sql, list(params)).fetchall()

    def flush_held(self, text: str | None = None) -> None:
        """Write the held writes of every table ``text`` names (of every table when None)."""
        f = self._file
        if f is None or not f.held:
            return
        for table in [t for t in f.held if text is None or t in text]:
            held = f.held.pop(table, None)  # a flush before it may have written it already
            if held is not None:
                held.flush()

    def _held_ended(self, committed: bool) -> None:
        f = self._file or self._released
        if f is not None:
            f.held, f.held_hooked = {}, False

    def insert_arrow(self, table: str, data: Any) -> None:
        """Bulk insert an Arrow table or polars DataFrame whose columns match ``table`` by name."""
        if table not in SCOPED_TABLES:
            raise InvalidArgumentError(f"unknown table {table!r}")
        cols = ", ".join(data.column_names if hasattr(data, "column_names") else data.columns)
        sql = f"INSERT INTO {table} ({cols}) SELECT {cols} FROM _riko_batch"
        with self.unit("write") as con:
            # held writes the statement names go first: flushed inside the registration, theirs would replace it
            self.flush_held(sql)
            with self.registered("_riko_batch", data):
                con.execute(sql)

    @contextmanager
    def registered(self, name: str, data: Any) -> Iterator[None]:
        """``data`` visible to SQL as ``name`` for the block (inside one unit of work).

        When a statement fails, the transaction is aborted and unregistering fails too; that
        second error must not hide the first, which says what was wrong.
        """
        with self.unit("query") as con:
            con.register(name, data)
            try:
                yield
            except BaseException:
                try:
                    con.unregister(name)
                except duckdb.Error:
                    pass
                raise
            con.unregister(name)

    def insert_rows(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        """Insert a few dict rows (scope_key and schema_version added); for small writes only."""
        if not rows:
            return
        if table not in SCOPED_TABLES:
            raise InvalidArgumentError(f"unknown table {table!r}")
        cols = ["scope_key", "schema_version", *rows[0].keys()]
        marks = ", ".join("?" for _ in cols)
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})"
        with self.unit("write") as con:
            for row in rows:
                con.execute(sql, [self.scope.key, RECORD_SCHEMA_VERSION, *row.values()])

    def insert_many(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        """:meth:`insert_rows` for many rows of the same keys, in one Arrow insert."""
        if len(rows) < 2:
            self.insert_rows(table, rows)
            return
        import pyarrow as pa

        data = pa.Table.from_pylist([{"scope_key": self.scope.key, "schema_version": RECORD_SCHEMA_VERSION, **row}
                                     for row in rows])
        self.insert_arrow(table, data)

    def upsert(self, table: str, row: dict[str, Any], key: Sequence[str]) -> None:
        """Replace the row with the same key columns (within this scope) by ``row``."""
        where = "".join(f" AND {k} = ?" for k in key)
        with self.unit("write") as con:
            con.execute(f"DELETE FROM {table} WHERE scope_key = ?{where}", [self.scope.key, *(row[k] for k in key)])
            self.insert_rows(table, [row])

    def audit(self, kind: str, authority: str, target: str | None = None, detail: Any = None) -> int:
        """Append one audit row (audit rows are never updated; only purge scrubs them).

        Inside a transaction the row is inserted with the others of the transaction just before
        it commits (or whenever a query reads the audits first), under the id it gets now.
        """
        self.require_writable()
        with self.unit("write") as con:
            f = self._handle()
            if f.next_audit_id is None:
                f.next_audit_id, f.audits_removed = self._max_audit_id() + 1, False
            ident = f.next_audit_id
            f.next_audit_id += 1
            row = (ident, kind, authority, target, dumps(detail) if detail is not None else None,
                   naive_utc(self.clock.now()))
            if f.tx_depth:
                if not f.audits_hooked:
                    f.audits_hooked = True
                    self.on_transaction_end(self.flush_audits, self._audits_ended)
                f.pending_audits.append(row)
                return ident
            con.execute(
                "INSERT INTO audits (scope_key, schema_version, id, kind, authority, target, detail, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [self.scope.key, RECORD_SCHEMA_VERSION, *row])
            return ident

    def flush_audits(self) -> None:
        """Insert the audit rows the open transaction holds back (before anything reads the audits)."""
        f = self._handle()
        if not f.pending_audits:
            return
        import pyarrow as pa

        rows, f.pending_audits = f.pending_audits, []
        n = len(rows)
        self.insert_arrow("audits", pa.table({
            "scope_key": pa.array([self.scope.key] * n, pa.string()),
            "schema_version": pa.array([RECORD_SCHEMA_VERSION] * n, pa.int32()),
            "id": pa.array([r[0] for r in rows], pa.int64()),
            "kind": pa.array([r[1] for r in rows], pa.string()),
            "authority": pa.array([r[2] for r in rows], pa.string()),
            "target": pa.array([r[3] for r in rows], pa.string()),
            "detail": pa.array([r[4] for r in rows], pa.string()),
            "recorded_at": pa.array([r[5] for r in rows], pa.timestamp("us")),
        }))

    def _audits_ended(self, committed: bool) -> None:
        f = self._file or self._released
        if f is not None:
            f.pending_audits, f.audits_hooked = [], False

    def audit_many(self, rows: Sequence[tuple[str, str, str | None, str | None]]) -> None:
        """Append ``(kind, authority, target, detail json)`` audit rows with consecutive ids: what
        as many :meth:`audit` calls would write, in one insert."""
        if not rows:
            return
        self.require_writable()
        with self.transaction():
            f = self._handle()
            first = self.reserve_audit_ids(len(rows))
            now = naive_utc(self.clock.now())
            if not f.audits_hooked:
                f.audits_hooked = True
                self.on_transaction_end(self.flush_audits, self._audits_ended)
            f.pending_audits.extend((first + i, *row, now) for i, row in enumerate(rows))

    def newest_audit_id(self) -> int | None:
        """The newest audit id as this process numbers them while it holds the file (the ids
        of a transaction's held-back audit rows included), or None when it does not know it yet.
        Every audit row is numbered here, and a transaction that rolls back gives its ids back, so
        another thread waits for the open unit of work (as a query of the audits would): it must
        not read ids a transaction of another thread has not committed."""
        f = self._file
        if f is None:
            return None
        with f.guard:
            if f.con is None or f.mode != "write" or f.next_audit_id is None or f.audits_removed:
                return None
            return f.next_audit_id - 1

    def audits_deleted(self) -> None:
        """Audit rows were deleted (an undone apply, a purge): :meth:`newest_audit_id` stops answering."""
        self._handle().audits_removed = True

    def _max_audit_id(self) -> int:
        row = self.fetchone("SELECT coalesce(max(id), 0) FROM audits", [])
        return int(row[0]) if row else 0

    # -- reading ------------------------------------------------------------------------------
    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        if "audits" in sql:
            self._before_audit_read()
        with self.unit("read") as con:
            return con.execute(sql, list(params)).fetchall()

    def fetchone(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        rows = self.fetchall(sql, params)
        return rows[0] if rows else None

    def frame(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run a (scoped) query and return a polars DataFrame."""
        import polars as pl

        if "audits" in sql:
            self._before_audit_read()
        with self.unit("read") as con:
            rel = con.sql(sql, params=list(params))
            fetch = getattr(rel, "to_arrow_table", None) or rel.arrow
            return pl.from_arrow(fetch())

    def _before_audit_read(self) -> None:
        f = self._file
        if f is not None and f.pending_audits and f.owner == threading.get_ident():
            self.flush_audits()

    def count(self, table: str) -> int:
        row = self.fetchone(f"SELECT count(*) FROM {table} WHERE scope_key = ?", [self.scope.key])
        return int(row[0]) if row else 0


class _HeldAwareConnection:
    """The connection while writes are held back: a statement naming a table with held writes
    first writes them, so every read and write sees what the transaction did, in order."""

    __slots__ = ("_con", "_wh")

    def __init__(self, con: duckdb.DuckDBPyConnection, wh: "Warehouse") -> None:
        self._con, self._wh = con, wh

    def _named(self, args: tuple[Any, ...]) -> None:
        for arg in args:
            if isinstance(arg, str):
                self._wh.flush_held(arg)

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._wh.flush_held(sql)
        return self._con.execute(sql, *args, **kwargs)

    def executemany(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self._wh.flush_held(sql)
        return self._con.executemany(sql, *args, **kwargs)

    def sql(self, query: str, *args: Any, **kwargs: Any) -> Any:
        self._wh.flush_held(query)
        return self._con.sql(query, *args, **kwargs)

    def register(self, name: str, data: Any) -> Any:
        return self._con.register(name, data)

    def unregister(self, name: str) -> Any:
        return self._con.unregister(name)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._con, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self._wh.flush_held()  # a call this wrapper cannot read: everything held goes first
            return attr(*args, **kwargs)

        return call


class HeldWrites:
    """Writes of one table held back by the open transaction: new rows and column updates by
    key (an update of a held new row changes that row), or appended rows (``key`` None).

    :meth:`flush` writes them in one insert and one ``UPDATE … FROM`` per set of columns; the
    table ends as the statements one by one would leave it. Values Arrow cannot type the way
    the parameters would be bound (an aware datetime, mixed types) are written one by one.
    """

    def __init__(self, wh: Warehouse, table: str, key: str | None) -> None:
        self.wh, self.table, self.key = wh, table, key
        self.rows: dict[Any, dict[str, Any]] = {}
        self.appended: list[dict[str, Any]] = []
        self.updates: dict[Any, dict[str, Any]] = {}

    def insert(self, row: dict[str, Any]) -> None:
        """Hold the insert of ``row`` (``scope_key`` and ``schema_version`` are added)."""
        if self.key is None:
            self.appended.append(dict(row))
            return
        ident = row[self.key]
        if ident in self.rows or ident in self.updates:
            self.flush()  # the same key twice: let the table say what it says about that, in order
            self.wh.insert_rows(self.table, [row])
            return
        self.rows[ident] = dict(row)

    def update(self, ident: Any, values: dict[str, Any]) -> None:
        """Hold ``UPDATE table SET <values> WHERE key = ident`` (no row: nothing changes)."""
        held = self.rows.get(ident)
        if held is not None:  # its insert stamps scope_key and schema_version
            held.update((k, v) for k, v in values.items() if k not in ("scope_key", "schema_version"))
        else:
            self.updates.setdefault(ident, {}).update(values)

    def flush(self) -> None:
        rows, appended, updates = list(self.rows.values()), self.appended, self.updates
        self.rows, self.appended, self.updates = {}, [], {}
        inserts = rows or appended
        groups: dict[tuple[str, ...], list[tuple[Any, dict[str, Any]]]] = {}
        for ident, values in updates.items():
            groups.setdefault(tuple(values), []).append((ident, values))
        # a bulk statement costs a few single ones: a handful of rows is written one by one
        bulk_rows = len(inserts) >= _BULK_ROWS
        singles = [item for items in groups.values() if len(items) < _BULK_ROWS for item in items]
        try:
            insert_table = _arrow_rows(self.wh, inserts) if bulk_rows else None
            update_tables = [(names, _arrow_updates(self.key or "", names, items))
                             for names, items in groups.items() if len(items) >= _BULK_ROWS]
        except _Untyped:
            insert_table, update_tables, bulk_rows = None, [], False
            singles = list(updates.items())
        if insert_table is not None:
            self.wh.insert_arrow(self.table, insert_table)
        elif inserts:
            for row in inserts:
                self.wh.insert_rows(self.table, [row])
        for ident, values in singles:
            self._update_one(ident, values)
        for names, data in update_tables:
            sets = ", ".join(f"{n} = u.{n}" for n in names)
            sql = (f"UPDATE {self.table} SET {sets} FROM _riko_held u WHERE "
                   f"{self.table}.scope_key = ? AND {self.table}.{self.key} = u.{self.key}")
            # another table the statement names ("source_candidates" names candidates) is flushed
            # first: flushed inside the registration, its own bulk update would replace ours
            self.wh.flush_held(sql)
            with self.wh.registered("_riko_held", data):
                self.wh.con.execute(sql, [self.wh.scope.key])

    def _update_one(self, ident: Any, values: dict[str, Any]) -> None:
        sets = ", ".join(f"{n} = ?" for n in values)
        self.wh.con.execute(f"UPDATE {self.table} SET {sets} WHERE scope_key = ? AND {self.key} = ?",
                            [*values.values(), self.wh.scope.key, ident])


_BULK_ROWS = 4  # held rows of one shape from which one Arrow statement is cheaper than single ones


class _Untyped(Exception):
    """A held value Arrow would not type as the parameter binding does."""


def _arrow_column(values: list[Any]) -> Any:
    import pyarrow as pa

    for value in values:
        if isinstance(value, datetime) and value.tzinfo is not None:
            raise _Untyped()
    try:
        column = pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError, UnicodeError) as exc:
        raise _Untyped() from exc
    kind = column.type
    if not (pa.types.is_null(kind) or pa.types.is_string(kind) or pa.types.is_boolean(kind)
            or pa.types.is_int64(kind) or pa.types.is_float64(kind)
            or (pa.types.is_timestamp(kind) and kind.tz is None)):
        raise _Untyped()
    return column


def _arrow_rows(wh: Warehouse, rows: list[dict[str, Any]]) -> Any:
    import pyarrow as pa

    names = list(rows[0])
    if any(list(row) != names for row in rows):
        raise _Untyped()
    n = len(rows)
    return pa.table({"scope_key": pa.array([wh.scope.key] * n, pa.string()),
                     "schema_version": pa.array([RECORD_SCHEMA_VERSION] * n, pa.int32()),
                     **{name: _arrow_column([row[name] for row in rows]) for name in names}})


def _arrow_updates(key: str, names: tuple[str, ...], items: list[tuple[Any, dict[str, Any]]]) -> Any:
    import pyarrow as pa

    return pa.table({key: _arrow_column([ident for ident, _ in items]),
                     **{name: _arrow_column([values[name] for _, values in items]) for name in names}})


class Turn:
    """A unit of work as a re-entrant lock: what the Dream runner and hosts hold around a step."""

    def __init__(self, wh: Warehouse, activity: str) -> None:
        self.wh, self.activity = wh, activity

    def acquire(self) -> bool:
        self.wh._enter(self.activity)
        return True

    def release(self) -> None:
        self.wh._exit()

    def __enter__(self) -> "Turn":
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class _UnitConnection:
    """``warehouse.con`` outside a unit of work: each call runs as a unit of its own, its
    result fetched before the file may be let go."""

    def __init__(self, wh: Warehouse) -> None:
        self._wh = wh

    def execute(self, sql: str, params: Any = None) -> "_Result":
        with self._wh.unit("query") as con:
            cur = con.execute(sql, params) if params is not None else con.execute(sql)
            description = cur.description
            try:
                rows = cur.fetchall()
            except duckdb.Error:
                rows = []
            return _Result(rows, description)

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            with self._wh.unit("query") as con:
                return getattr(con, name)(*args, **kwargs)

        return call


class _Result:
    """Rows of a statement run outside a unit of work."""

    def __init__(self, rows: list[tuple], description: Any) -> None:
        self._rows = rows
        self.description = description

    def fetchall(self) -> list[tuple]:
        taken, self._rows = self._rows, []
        return taken

    def fetchone(self) -> tuple | None:
        return self._rows.pop(0) if self._rows else None

    def fetchmany(self, size: int = 1) -> list[tuple]:
        taken, self._rows = self._rows[:size], self._rows[size:]
        return taken


def _pid_from_duckdb_message(text: str) -> int | None:
    import re

    m = re.search(r"PID (\d+)", text)
    return int(m.group(1)) if m else None
