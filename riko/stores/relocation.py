"""Moving a scope's warehouse from the directory name older roots used to its own.

Older roots named ``warehouse/<dir>`` with the seed's path-safe rule alone, under which
``iso.x`` and ``iso--x`` shared one database, one lock and one exports folder. Every row
carries its ``scope_key``, so the old database says which scopes it holds: a directory only
this scope used is renamed; a shared one is copied and each copy keeps only its scope's rows.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import duckdb

from .migrations import SCOPED_TABLES
from ..scope import MemoryScope
from .locks import FileLock

__all__ = ["warehouse_dir"]

log = logging.getLogger(__name__)
_LOCK_WAIT_S = 30.0  # the other processes of the old directory let go when idle


def warehouse_dir(root: Path, scope: MemoryScope, *, read_only: bool) -> Path:
    """The scope's warehouse directory, migrated from its legacy name first when there is one.

    A read-only memory never migrates: it reads the legacy directory until a writer moves it.
    """
    base = Path(root) / "warehouse"
    new, old = base / scope.storage_key, base / scope.legacy_storage_key
    if new == old or new.exists() or not (old / "riko.duckdb").exists():
        return new
    if read_only:
        try:
            return old if scope.key in _scope_keys(old / "riko.duckdb", read_only=True) else new
        except duckdb.Error:  # a writer holds it: opening it says so in riko's own words
            return old
    lock = FileLock(old)
    lock.acquire("write", "storage-migration", _LOCK_WAIT_S)
    try:
        keys = _scope_keys(old / "riko.duckdb", read_only=False)
        if scope.key not in keys:
            return new
        if keys == {scope.key}:
            os.rename(old, new)
            _move_exports(Path(root), scope)
        else:
            _split(old, new, scope)
        log.warning("moved the warehouse of scope %s from %s to %s", scope.key, old.name, new.name)
    finally:
        lock.release()
    return new


def _scope_keys(db: Path, *, read_only: bool) -> set[str]:
    con = duckdb.connect(str(db), read_only=read_only)
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        keys: set[str] = set()
        for table in SCOPED_TABLES:
            if table in tables:
                keys.update(r[0] for r in con.execute(f"SELECT DISTINCT scope_key FROM {table}").fetchall())
        return keys
    finally:
        con.close()


def _split(old: Path, new: Path, scope: MemoryScope) -> None:
    """Copy a shared directory for ``scope``; each side then holds only its own scopes' rows."""
    staging = new.with_name(new.name + ".migrating")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(old, staging, ignore=shutil.ignore_patterns("writer.lock"))
    for directory, keep in ((staging, True), (old, False)):
        con = duckdb.connect(str(directory / "riko.duckdb"))
        try:
            con.execute("BEGIN TRANSACTION")
            for table in SCOPED_TABLES:
                op = "<>" if keep else "="
                con.execute(f"DELETE FROM {table} WHERE scope_key {op} ?", [scope.key])
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        finally:
            con.close()
        if keep:
            os.rename(staging, new)


def _move_exports(root: Path, scope: MemoryScope) -> None:
    exports = root / "exports"
    old, new = exports / scope.legacy_storage_key, exports / scope.storage_key
    if old.is_dir() and not new.exists():
        os.rename(old, new)
