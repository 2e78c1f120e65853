"""The storage side of a purge: snapshots to restore, the database rewrite, the owned files.

DuckDB keeps deleted strings in freed blocks (CHECKPOINT and VACUUM do not overwrite them),
so after a purge the database is copied into a fresh file (``COPY FROM DATABASE``) that
replaces the old one: only live rows survive the copy.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator


from ..errors import PurgeError
from ..stores.audits import last_audit_id
from ..stores.tables import compact_into, delete_audits_after, replace_rows, select_rows
from ..wiki import write_atomic
from .plan import EXPORTS_DIR, Plan

if TYPE_CHECKING:
    from ..context import ScopeContext
    from ..stores.warehouse import Warehouse

__all__ = ["Snapshot", "take_snapshot", "restore_snapshot", "compact_database", "owned_files", "work_dir",
           "other_handles"]

WORK_DIR = "purge"


def work_dir(ctx: "ScopeContext", operation_id: str | None = None) -> Path:
    """Where an unfinished purge keeps its needles (removed when the journal completes)."""
    base = ctx.warehouse_dir / WORK_DIR
    return base if operation_id is None else base / operation_id


@dataclass
class Snapshot:
    """Rows and file bytes as they were before the apply, enough to put every change back."""

    rows: list[tuple[str, str, list[Any], Any]] = field(default_factory=list)  # table, where, params, arrow
    audit_mark: int = 0
    files: dict[Path, bytes | None] = field(default_factory=dict)
    trees: dict[Path, dict[str, bytes] | None] = field(default_factory=dict)


def _read_tree(path: Path) -> dict[str, bytes] | None:
    if not path.exists():
        return None
    if path.is_file():
        return {"": path.read_bytes()}
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file() and not p.is_symlink()}


def take_snapshot(ctx: "ScopeContext", plan: Plan) -> Snapshot:
    """Copy every row and file ``plan`` may change."""
    wh = ctx.wh
    selections: list[tuple[str, str, list[Any]]] = [
        ("evidence", "session_id = ?", [plan.session_id]),
        ("sessions", "list_contains(?::VARCHAR[], session_id)", [[plan.session_id, *plan.child_sessions]]),
        ("sources", "list_contains(?::VARCHAR[], id)", [list(plan.sources)]),
        ("jobs", "list_contains(?::VARCHAR[], id)", [list(plan.jobs)]),
        ("pages", "list_contains(?::VARCHAR[], id)", [list(plan.pages_removed) + list(plan.pages_scrubbed)]),
        ("page_versions", "list_contains(?::VARCHAR[], page_id)",
         [sorted({p for p, _ in plan.versions_removed} | {p for p, _ in plan.versions_rewritten})]),
        ("candidates", "list_contains(?::VARCHAR[], id)",
         [list(plan.candidates_removed) + list(plan.candidates_scrubbed) + list(plan.candidates_unconflicted)]),
        ("observations", "list_contains(?::VARCHAR[], id)", [list(plan.observations_removed) + list(plan.observations_scrubbed)]),
        ("suppressions", "list_contains(?::VARCHAR[], id)", [list(plan.suppressions)]),
        ("activation", "list_contains(?::VARCHAR[], record_id)", [list(plan.activation)]),
        ("projections", "list_contains(?::VARCHAR[], record_id)", [list(plan.projections)]),
        ("conflicts", "list_contains(?::VARCHAR[], id)", [list(plan.conflicts)]),
        ("vectors", "list_contains(?::VARCHAR[], doc_id)", [list(plan.vectors)]),
        ("provider_cache", "list_contains(?::VARCHAR[], request_hash)", [list(plan.provider_cache)]),
        ("audits", "list_contains(?::BIGINT[], id)", [list(plan.audits)]),
        # rebuilt or rewritten whole by the apply
        ("aliases", "true", []),
        ("index_meta", "true", []),
        ("profiles", "true", []),
    ]
    snap = Snapshot()
    for table, where, params in selections:
        snap.rows.append((table, where, params, select_rows(wh, table, where, params)))
    snap.audit_mark = last_audit_id(wh)
    for rel in plan.page_files.values():
        path = ctx.wiki_dir / rel
        snap.files[path] = path.read_bytes() if path.is_file() else None
    resident = ctx.canon.resident_path()
    snap.files[resident] = resident.read_bytes() if resident.is_file() else None
    for path in [*plan.export_paths, *([plan.dense_dir] if plan.dense_dir is not None else [])]:
        snap.trees[path] = _read_tree(path)
    return snap


def restore_snapshot(ctx: "ScopeContext", snap: Snapshot) -> None:
    """Put back every snapshotted row and file (rows the apply appended are removed)."""
    wh = ctx.wh
    with wh.transaction():
        for table, where, params, rows in snap.rows:
            replace_rows(wh, table, where, params, rows)
        delete_audits_after(wh, snap.audit_mark)
    for path, data in snap.files.items():
        if data is None:
            path.unlink(missing_ok=True)
            continue
        try:
            write_atomic(path, data.decode("utf-8"))
        except UnicodeDecodeError:
            path.write_bytes(data)
    for path, tree in snap.trees.items():
        _remove(path)
        if tree is None:
            continue
        if "" in tree:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(tree[""])
            continue
        for rel, data in tree.items():
            target = path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


# -- the database rewrite ----------------------------------------------------------------------
def other_handles(wh: "Warehouse") -> int:
    """How many other handles of this process share the warehouse's database file."""
    return wh.other_handles()


def compact_database(wh: "Warehouse") -> None:
    """Rewrite the database into a fresh file so no freed block keeps purged text.

    The scope's lock stays held throughout; the database file is replaced under it.
    """
    if other_handles(wh):
        raise PurgeError("other handles of this scope are open in this process; close them and retry the purge")
    with wh.unit("purge") as con:  # no write may run on the connection while it is swapped
        fresh = wh.directory / "riko.compact.duckdb"
        compact_into(wh, con, fresh)
        with wh.file_closed():
            os.replace(fresh, wh.path)
            wal = wh.path.with_name(wh.path.name + ".wal")
            wal.unlink(missing_ok=True)
            _fsync_dir(wh.directory)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# -- the files a scope owns -------------------------------------------------------------------
def owned_files(ctx: "ScopeContext") -> Iterator[Path]:
    """Every file of this scope's storage domain: warehouse (database, dense index), Wiki pages
    and RESIDENT.md, evidence exports under ``<root>/exports/<storage-key>/``.

    The purge working folder and git metadata are not part of it.
    """
    skip = work_dir(ctx)
    for base in (ctx.warehouse_dir, ctx.wiki_dir, ctx.root / EXPORTS_DIR / ctx.scope.storage_key):
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            if path.is_relative_to(skip) or ".git" in path.relative_to(base).parts:
                continue
            yield path
