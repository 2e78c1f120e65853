"""The per-scope DuckDB warehouse: one database file, one writer at a time, scoped SQL.

Every row carries ``scope_key`` and ``schema_version``; every query written here filters by
scope in SQL. Bulk writes go through Arrow tables (row-by-row inserts are ~1,000x slower).
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import duckdb

from .clock import Clock, utc
from .errors import ClosedError, InvalidArgumentError, MissingScopeError, ReadOnlyError, RikoError, RikoLockedError
from .migrations import RECORD_SCHEMA_VERSION, SCOPED_TABLES, migrate
from .private_files import FILE_MODE, private_dir, private_file
from .scope import MemoryScope

__all__ = ["Warehouse", "WriterLock", "naive_utc", "dumps", "missing_memory", "require_memory"]


def naive_utc(value: datetime | None) -> datetime | None:
    """DuckDB TIMESTAMP columns hold naive UTC; convert an aware datetime for storage."""
    if value is None:
        return None
    return utc(value).replace(tzinfo=None)


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON for the VARCHAR JSON columns (stable for hashing and diffs)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


class WriterLock:
    """An advisory ``flock`` on ``writer.lock`` naming the holder's pid; released on close."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        private_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = self.holder_pid(fd)
            os.close(fd)
            raise RikoLockedError(self.path, pid) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        os.fsync(fd)
        self._fd = fd

    @staticmethod
    def holder_pid(fd: int) -> int | None:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            text = os.read(fd, 64).decode().strip()
            return int(text) if text else None
        except (OSError, ValueError):
            return None

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


# A process holds at most one DuckDB connection per database file; read-only memories in the
# same process share the writer's connection through a cursor.
_OPEN: dict[str, tuple[duckdb.DuckDBPyConnection, int]] = {}
_OPEN_GUARD = threading.Lock()


def missing_memory(scope: MemoryScope, directory: Path) -> RikoError:
    """The error for a scope that has no warehouse yet (reads never create one)."""
    return MissingScopeError(f"no memory for scope {scope.key} at {directory}").with_remedy(
        "create", preset=scope.preset)


def require_memory(root: str | os.PathLike[str], scope: MemoryScope) -> None:
    """Raise :func:`missing_memory` unless ``scope`` already has a warehouse under ``root``."""
    directory = Path(root).absolute() / "warehouse" / scope.storage_key
    if not (directory / "riko.duckdb").exists():
        raise missing_memory(scope, directory)


class _ClosedConnection:
    """Stands in for the connection after ``close()``: any use raises a clear :class:`ClosedError`."""

    def __getattr__(self, name: str) -> Any:
        raise ClosedError()


class Warehouse:
    """One scope's DuckDB database under ``<root>/warehouse/<storage-key>/riko.duckdb``."""

    def __init__(self, directory: Path, scope: MemoryScope, clock: Clock, *, read_only: bool = False) -> None:
        self.directory = Path(directory)
        self.scope = scope
        self.clock = clock
        self.read_only = read_only
        self.path = self.directory / "riko.duckdb"
        self.lock = WriterLock(self.directory / "writer.lock")
        self._tx_depth = 0
        self._write_guard = threading.RLock()
        self._hooks: list[tuple[Callable[[], None], Callable[[bool], None]]] = []
        if read_only:
            if not self.path.exists():
                raise missing_memory(scope, self.directory)
            self.con = self._connect(read_only=True)
        else:
            self.lock.acquire()
            try:
                self.con = self._connect(read_only=False)
                migrate(self.con)
            except BaseException:
                self.lock.release()
                raise
        self._next_audit_id = self._max_audit_id() + 1

    # -- connection ---------------------------------------------------------------------------
    def _connect(self, *, read_only: bool) -> duckdb.DuckDBPyConnection:
        key = str(self.path.resolve()) if self.path.exists() else str(self.path.absolute())
        with _OPEN_GUARD:
            shared = _OPEN.get(key)
            if shared is not None:
                con, refs = shared
                _OPEN[key] = (con, refs + 1)
                self._key = key
                return con.cursor()
            private_dir(self.directory)
            try:
                con = duckdb.connect(str(self.path), read_only=read_only)
            except duckdb.IOException as exc:
                text = str(exc)
                if "lock" in text.lower():
                    pid = _pid_from_duckdb_message(text)
                    raise RikoLockedError(self.path, pid) from None
                raise RikoError(f"cannot open warehouse {self.path}: {text}") from exc
            if not read_only:
                private_file(self.path)  # raw conversation: the owner's alone
            _OPEN[key] = (con, 1)
            self._key = key
            return con.cursor()

    def close(self) -> None:
        con = getattr(self, "con", None)
        if con is None or isinstance(con, _ClosedConnection):
            return
        try:
            con.close()
        finally:
            self.con = _ClosedConnection()  # type: ignore[assignment]
            with _OPEN_GUARD:
                shared = _OPEN.get(self._key)
                if shared is not None:
                    base, refs = shared
                    if refs <= 1:
                        _OPEN.pop(self._key, None)
                        base.close()
                    else:
                        _OPEN[self._key] = (base, refs - 1)
            self.lock.release()

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
        with self._write_guard:
            if self._tx_depth:
                self._tx_depth += 1
                try:
                    yield self.con
                finally:
                    self._tx_depth -= 1
                return
            self.con.execute("BEGIN TRANSACTION")
            self._tx_depth = 1
            audit_mark = self._next_audit_id
            try:
                yield self.con
                for before_commit, _ in list(self._hooks):
                    before_commit()
            except BaseException:
                self._tx_depth = 0
                try:
                    self.con.execute("ROLLBACK")
                except duckdb.Error:
                    pass  # the error that ended the transaction is the one worth raising
                finally:
                    self._next_audit_id = audit_mark
                    self._end_hooks(False)
                raise
            self._tx_depth = 0
            try:
                self.con.execute("COMMIT")
            except BaseException:
                self._next_audit_id = audit_mark
                self._end_hooks(False)
                raise
            self._end_hooks(True)

    def on_transaction_end(self, before_commit: Callable[[], None], after: Callable[[bool], None]) -> None:
        """Join the open transaction: ``before_commit()`` runs inside it, ``after(committed)`` once it ends.

        This is how files written beside the database commit or roll back with it.
        """
        if not self._tx_depth:
            raise RikoError("on_transaction_end needs an open warehouse transaction")
        self._hooks.append((before_commit, after))

    def _end_hooks(self, committed: bool) -> None:
        hooks, self._hooks = self._hooks, []
        for _, after in hooks:
            after(committed)

    def insert_arrow(self, table: str, data: Any) -> None:
        """Bulk insert an Arrow table or polars DataFrame whose columns match ``table`` by name."""
        if table not in SCOPED_TABLES:
            raise InvalidArgumentError(f"unknown table {table!r}")
        cols = ", ".join(data.column_names if hasattr(data, "column_names") else data.columns)
        with self.registered("_riko_batch", data):
            self.con.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM _riko_batch")

    @contextmanager
    def registered(self, name: str, data: Any) -> Iterator[None]:
        """``data`` visible to SQL as ``name`` for the block.

        When a statement fails, the transaction is aborted and unregistering fails too; that
        second error must not hide the first, which says what was wrong.
        """
        self.con.register(name, data)
        try:
            yield
        except BaseException:
            try:
                self.con.unregister(name)
            except duckdb.Error:
                pass
            raise
        self.con.unregister(name)

    def insert_rows(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        """Insert a few dict rows (scope_key and schema_version added); for small writes only."""
        if not rows:
            return
        if table not in SCOPED_TABLES:
            raise InvalidArgumentError(f"unknown table {table!r}")
        cols = ["scope_key", "schema_version", *rows[0].keys()]
        marks = ", ".join("?" for _ in cols)
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})"
        for row in rows:
            self.con.execute(sql, [self.scope.key, RECORD_SCHEMA_VERSION, *row.values()])

    def upsert(self, table: str, row: dict[str, Any], key: Sequence[str]) -> None:
        """Replace the row with the same key columns (within this scope) by ``row``."""
        where = "".join(f" AND {k} = ?" for k in key)
        self.con.execute(f"DELETE FROM {table} WHERE scope_key = ?{where}", [self.scope.key, *(row[k] for k in key)])
        self.insert_rows(table, [row])

    def audit(self, kind: str, authority: str, target: str | None = None, detail: Any = None) -> int:
        """Append one audit row (audit rows are never updated; only purge scrubs them)."""
        self.require_writable()
        with self._write_guard:
            ident = self._next_audit_id
            self._next_audit_id += 1
            self.con.execute(
                "INSERT INTO audits (scope_key, schema_version, id, kind, authority, target, detail, recorded_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    self.scope.key, RECORD_SCHEMA_VERSION, ident, kind, authority, target,
                    dumps(detail) if detail is not None else None, naive_utc(self.clock.now()),
                ],
            )
            return ident

    def _max_audit_id(self) -> int:
        row = self.fetchone("SELECT coalesce(max(id), 0) FROM audits WHERE scope_key = ?", [self.scope.key])
        return int(row[0]) if row else 0

    # -- reading ------------------------------------------------------------------------------
    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self.con.execute(sql, list(params)).fetchall()

    def fetchone(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        rows = self.con.execute(sql, list(params)).fetchall()
        return rows[0] if rows else None

    def frame(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run a (scoped) query and return a polars DataFrame."""
        import polars as pl

        rel = self.con.sql(sql, params=list(params))
        fetch = getattr(rel, "to_arrow_table", None) or getattr(rel, "arrow")
        return pl.from_arrow(fetch())

    def count(self, table: str) -> int:
        row = self.fetchone(f"SELECT count(*) FROM {table} WHERE scope_key = ?", [self.scope.key])
        return int(row[0]) if row else 0


def _pid_from_duckdb_message(text: str) -> int | None:
    import re

    m = re.search(r"PID (\d+)", text)
    return int(m.group(1)) if m else None
