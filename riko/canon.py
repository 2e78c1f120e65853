"""The canonical Wiki store: page files on disk (the authority) indexed in the ``pages`` table.

Every write renders the page file atomically and updates its row, its earlier version and an
audit row in one warehouse transaction. ``sync`` notices what people changed in the files.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

import polars as pl

from .clock import Clock, utc
from .errors import NotFoundError, WikiFormatError
from .scope import MemoryScope
from .warehouse import Warehouse, dumps, naive_utc
from .wiki import (
    RESIDENT_FILE,
    Page,
    parse_page,
    render_page,
    scan_pages,
    slugify,
    write_atomic,
)
from .wiki.page import TYPE_FOLDERS

__all__ = ["Canon", "SyncReport", "file_hash"]

_COLUMNS = (
    "id", "type", "title", "description", "body", "status", "consent", "locked", "sensitivity",
    "sensitivity_history", "version", "tags", "sources", "confidence", "kind", "category",
    "observed_at", "recorded_at", "valid_from", "valid_to", "supersedes", "superseded_by",
    "supersede_reason", "usage_policy", "path", "file_hash", "source_candidates", "extra", "updated_at",
)


def file_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _aware(value: datetime | None) -> datetime | None:
    return utc(value) if value is not None else None


@dataclass
class SyncReport:
    """What ``sync`` found in the page files: edits applied, files refused, pages removed."""

    added: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    errors: list[WikiFormatError] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.edited or self.deleted)

    def to_dict(self) -> dict[str, Any]:
        return {
            "added": self.added, "edited": self.edited, "deleted": self.deleted,
            "unchanged": self.unchanged,
            "errors": [{"path": str(e.path), "line": e.line, "field": e.field, "message": str(e)} for e in self.errors],
        }

    def __repr__(self) -> str:
        return (f"SyncReport(added={len(self.added)}, edited={len(self.edited)}, deleted={len(self.deleted)}, "
                f"unchanged={self.unchanged}, errors={len(self.errors)})")


class Canon:
    """Canonical pages of one scope: ``wiki/<owner>/<preset>/<folder>/<slug>.md`` + ``pages`` rows."""

    def __init__(self, wh: Warehouse, scope: MemoryScope, wiki_dir: Path, clock: Clock) -> None:
        self.wh = wh
        self.scope = scope
        self.dir = wiki_dir
        self.clock = clock

    # -- reading ------------------------------------------------------------------------------
    def _rows(self, where: str = "", params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        cur = self.wh.con.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM pages WHERE scope_key = ? {where} ORDER BY id",
            [self.scope.key, *params],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r)) for r in cur.fetchall()]

    @staticmethod
    def _page(row: dict[str, Any]) -> Page:
        return Page(
            id=row["id"], type=row["type"], title=row["title"], description=row["description"] or "",
            body=row["body"] or "", status=row["status"], consent=bool(row["consent"]),
            locked=bool(row["locked"]), sensitivity=row["sensitivity"], version=int(row["version"]),
            tags=json.loads(row["tags"] or "[]"), sources=json.loads(row["sources"] or "[]"),
            confidence=row["confidence"], kind=row["kind"], category=row["category"],
            observed_at=_aware(row["observed_at"]), recorded_at=_aware(row["recorded_at"]),
            valid_from=_aware(row["valid_from"]), valid_to=_aware(row["valid_to"]),
            supersedes=row["supersedes"], superseded_by=row["superseded_by"],
            usage_policy=row["usage_policy"], extra=json.loads(row["extra"] or "{}"),
        )

    def pages(self, *, include_forgotten: bool = False) -> list[Page]:
        where = "" if include_forgotten else "AND status <> 'forgotten'"
        return [self._page(r) for r in self._rows(where)]

    def get(self, page_id: str) -> Page:
        rows = self._rows("AND id = ?", [page_id])
        if not rows:
            raise NotFoundError("page", page_id, "list pages with mem.pages()")
        return self._page(rows[0])

    def exists(self, page_id: str) -> bool:
        return bool(self.wh.fetchone("SELECT 1 FROM pages WHERE scope_key = ? AND id = ?", [self.scope.key, page_id]))

    def row(self, page_id: str) -> dict[str, Any]:
        rows = self._rows("AND id = ?", [page_id])
        if not rows:
            raise NotFoundError("page", page_id)
        return rows[0]

    def frame(self) -> pl.DataFrame:
        return self.wh.frame(
            "SELECT id, type, title, description, status, sensitivity, version, usage_policy, valid_from, "
            "valid_to, supersedes, superseded_by, path, updated_at FROM pages WHERE scope_key = ? ORDER BY type, title",
            [self.scope.key],
        )

    def versions(self, page_id: str) -> pl.DataFrame:
        return self.wh.frame(
            "SELECT version, authority, recorded_at, text FROM page_versions WHERE scope_key = ? AND page_id = ? ORDER BY version",
            [self.scope.key, page_id],
        )

    def path_for(self, page: Page) -> Path:
        """Where ``page`` lives: its current path, else a fresh unique ``<folder>/<slug>.md``."""
        row = self.wh.fetchone("SELECT path FROM pages WHERE scope_key = ? AND id = ?", [self.scope.key, page.id])
        folder = TYPE_FOLDERS[page.type]
        if row and row[0] and Path(row[0]).parent.name == folder:
            return self.dir / row[0]
        taken = {r[0] for r in self.wh.fetchall("SELECT path FROM pages WHERE scope_key = ? AND id <> ? AND path IS NOT NULL", [self.scope.key, page.id])}
        base = slugify(page.title)
        n = 1
        while True:
            rel = f"{folder}/{base}.md" if n == 1 else f"{folder}/{base}-{n}.md"
            if rel not in taken and not ((self.dir / rel).exists() and not (row and row[0] == rel)):
                return self.dir / rel
            n += 1

    # -- writing ------------------------------------------------------------------------------
    def save(
        self,
        page: Page,
        *,
        authority: str,
        audit_kind: str,
        detail: dict[str, Any] | None = None,
        previous: Page | None = None,
        supersede_reason: str | None = None,
        source_candidates: Iterable[str] = (),
        sensitivity_history: list[dict[str, Any]] | None = None,
        write_file: bool = True,
        text: str | None = None,
    ) -> Page:
        """Write ``page`` (file + row), keep ``previous`` as an earlier version, audit it."""
        now = self.clock.now()
        with self.wh.transaction():
            old = self.row(page.id) if self.exists(page.id) else None
            if previous is not None:
                self.wh.insert_rows(
                    "page_versions",
                    [{"page_id": previous.id, "version": previous.version, "text": render_page(previous),
                      "authority": authority, "recorded_at": naive_utc(now)}],
                )
            rel: str | None = None
            digest: str | None = None
            if page.status == "forgotten":
                if old and old["path"]:
                    (self.dir / old["path"]).unlink(missing_ok=True)
            elif write_file:
                path = self.path_for(page)
                body = text if text is not None else render_page(page)
                if old and old["path"] and (self.dir / old["path"]) != path:
                    (self.dir / old["path"]).unlink(missing_ok=True)
                write_atomic(path, body)
                rel, digest = path.relative_to(self.dir).as_posix(), file_hash(body)
            else:
                rel, digest = (old["path"], old["file_hash"]) if old else (None, None)
            history = sensitivity_history
            if history is None:
                history = json.loads(old["sensitivity_history"] or "[]") if old else []
            cands = list(source_candidates) or (json.loads(old["source_candidates"] or "[]") if old else [])
            reason = supersede_reason if supersede_reason is not None else (old["supersede_reason"] if old else None)
            self.wh.upsert("pages", self._row(page, rel, digest, reason, cands, history, now), key=("id",))
            self.wh.audit(audit_kind, authority, page.id, {"version": page.version, "title": page.title, **(detail or {})})
        return page

    @staticmethod
    def _row(page: Page, rel: str | None, digest: str | None, reason: str | None, cands: list[str],
             history: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
        return {
            "id": page.id, "type": page.type, "title": page.title, "description": page.description,
            "body": page.body, "status": page.status, "consent": page.consent, "locked": page.locked,
            "sensitivity": page.sensitivity, "sensitivity_history": dumps(history), "version": page.version,
            "tags": dumps(list(page.tags)), "sources": dumps(list(page.sources)), "confidence": page.confidence,
            "kind": page.kind, "category": page.category, "observed_at": naive_utc(page.observed_at),
            "recorded_at": naive_utc(page.recorded_at), "valid_from": naive_utc(page.valid_from),
            "valid_to": naive_utc(page.valid_to), "supersedes": page.supersedes,
            "superseded_by": page.superseded_by, "supersede_reason": reason, "usage_policy": page.usage_policy,
            "path": rel, "file_hash": digest, "source_candidates": dumps(cands), "extra": dumps(page.extra),
            "updated_at": naive_utc(now),
        }

    # -- files edited by people ---------------------------------------------------------------
    def scan(self) -> tuple[dict[str, tuple[Path, str, Page]], list[WikiFormatError], int]:
        """Parse every page file; return id → (path, text, page), the errors, and unchanged count."""
        known = {r[0]: (r[1], r[2]) for r in self.wh.fetchall(
            "SELECT path, id, file_hash FROM pages WHERE scope_key = ? AND path IS NOT NULL", [self.scope.key])}
        found: dict[str, tuple[Path, str, Page]] = {}
        errors: list[WikiFormatError] = []
        unchanged = 0
        seen_paths: dict[str, Path] = {}
        if not self.dir.exists():
            return found, errors, 0
        for path, text in scan_pages(self.dir):
            rel = path.relative_to(self.dir).as_posix()
            entry = known.get(rel)
            try:
                if entry is not None and entry[1] == file_hash(text):
                    page = None
                    unchanged += 1
                    pid = entry[0]
                else:
                    page = parse_page(text, path)
                    pid = page.id
            except WikiFormatError as exc:
                errors.append(exc)
                if entry is not None:
                    found[entry[0]] = (path, text, None)  # type: ignore[assignment]  # present but invalid
                continue
            if pid in seen_paths:
                errors.append(WikiFormatError(
                    f"duplicate page id {pid!r}: also used by {seen_paths[pid]}; give one of them a new id", path, 1, "id"))
                continue
            seen_paths[pid] = path
            found[pid] = (path, text, page)  # type: ignore[assignment]
        return found, errors, unchanged

    def sync(self) -> SyncReport:
        """Apply what people changed in the page files; malformed files are reported, never rewritten."""
        report = SyncReport()
        found, errors, report.unchanged = self.scan()
        report.errors = errors
        rows = {r["id"]: r for r in self._rows()}
        now = self.clock.now()
        for pid, (path, text, page) in found.items():
            if page is None:
                continue  # unchanged, or invalid (kept at its last valid version)
            rel = path.relative_to(self.dir).as_posix()
            old_row = rows.get(pid)
            if old_row is None:
                page = page.replace(recorded_at=page.recorded_at or now)
                self.save(page, authority="management", audit_kind="page-created-externally",
                          detail={"path": rel}, write_file=False)
                self._record_file(pid, rel, text)
                report.added.append(pid)
                continue
            old = self._page(old_row)
            if page.replace(version=old.version) == old:
                self._record_file(pid, rel, text)  # formatting only: nothing semantic changed
                report.unchanged += 1
                continue
            new = page.replace(version=old.version + 1)
            self.save(new, authority="management", audit_kind="page-edited-externally", previous=old,
                      detail={"path": rel, "previous_version": old.version})
            report.edited.append(pid)
        for pid, row in rows.items():
            if pid in found or row["status"] == "forgotten" or not row["path"]:
                continue
            old = self._page(row)
            self.save(old.replace(status="forgotten"), authority="management", audit_kind="page-deleted-externally",
                      detail={"path": row["path"], "raw_session_retained": True}, previous=old)
            report.deleted.append(pid)
        return report

    def _record_file(self, pid: str, rel: str, text: str) -> None:
        with self.wh.transaction():
            self.wh.con.execute(
                "UPDATE pages SET path = ?, file_hash = ? WHERE scope_key = ? AND id = ?",
                [rel, file_hash(text), self.scope.key, pid],
            )

    def check(self) -> list[WikiFormatError]:
        """Validate every page file and change nothing (for pre-commit hooks)."""
        return self.scan()[1]

    def resident_path(self) -> Path:
        return self.dir / RESIDENT_FILE
