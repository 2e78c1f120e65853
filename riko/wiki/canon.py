"""The canonical Wiki store: page files on disk (the authority) indexed in the ``pages`` table.

Every write renders the page file atomically and updates its row, its earlier version and an
audit row in one warehouse transaction; when that transaction fails, the files it touched are
put back. ``sync`` notices what people changed in the files.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson
import polars as pl

from ..clock import Clock
from .corrections import claim_changed, retire_evidence
from ..errors import NotFoundError, StateError, WikiFormatError
from .journal import FileJournal
from ..scope import MemoryScope
from ..stores.bundle import Stores
from ..stores.pages import PAGE_COLUMNS as _PAGE_COLUMNS
from ..stores.warehouse import Warehouse, dumps, naive_utc
from . import (
    RESIDENT_FILE,
    Page,
    parse_page,
    render_page,
    slugify,
)
from .check import check_files
from .check import duplicate_errors as _duplicate_errors
from .check import id_changed as _id_changed
from .check import moved_pages
from .files import page_files, read_bytes
from .page import TYPE_FOLDERS, extra_from_json, extra_to_json
from .aliases import invalidate_entity_aliases

__all__ = ["Canon", "SyncReport", "file_hash", "check_files"]

def _texts(text: str | None) -> list[str]:
    """A JSON list-of-text column (tags, sources); the empty list most rows hold is not parsed."""
    if not text or text == "[]":
        return []
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # text orjson refuses, such as an escaped lone surrogate
        return json.loads(text)


def _page_of(
    id: str, type: str, title: str, description: str | None, body: str | None, status: str, consent: Any,
    locked: Any, sensitivity: str, version: Any, tags: str | None, sources: str | None, confidence: float | None,
    kind: str | None, category: str | None, observed_at: datetime | None, recorded_at: datetime | None,
    valid_from: datetime | None, valid_to: datetime | None, supersedes: str | None, superseded_by: str | None,
    usage_policy: str, extra: str | None,
) -> Page:
    """A Page from its stored columns (``_PAGE_COLUMNS``); Page makes the naive UTC timestamps aware."""
    return Page(
        id=id, type=type, title=title, description=description or "", body=body or "", status=status,
        consent=bool(consent), locked=bool(locked), sensitivity=sensitivity, version=int(version),
        tags=_texts(tags), sources=_texts(sources), confidence=confidence, kind=kind, category=category,
        observed_at=observed_at, recorded_at=recorded_at, valid_from=valid_from, valid_to=valid_to,
        supersedes=supersedes, superseded_by=superseded_by, usage_policy=usage_policy,
        extra=extra_from_json(json.loads(extra)) if extra and extra != "{}" else {},
    )


def file_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogateescape")).hexdigest()


def _text(data: bytes) -> str:
    """A page file's text; undecodable bytes are kept as surrogate escapes for parse_page to report."""
    return data.decode("utf-8", errors="surrogateescape")


def _comparable(page: Page) -> Page:
    """``page`` with its extra keys as stored (JSON), so a row and a file compare fairly."""
    return page.replace(extra=extra_from_json(json.loads(dumps(extra_to_json(page.extra)))))


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


_DESCRIPTION_ENTRY = re.compile(r"^description[ \t]*:.*\n(?:[ \t]+.*\n|[ \t]*\n(?=[ \t]))*", re.MULTILINE)


def _body_is_the_memory(old: Page, new: Page, text: str, path: Path) -> tuple[str, Page] | None:
    """When a hand edit changes the body and leaves a description that only repeated the old
    memory text (the page had no body, or the description is its body in one line), the body is
    the memory now: ``text`` without its ``description:`` entry (every other byte kept) and the
    page it reads as. None when the description is the person's own gist, or was edited too."""
    if not old.description or new.description != old.description or not new.body or new.body == old.body:
        return None
    lines = [line for line in old.body.splitlines() if line.strip()]
    if old.body and _fold(old.description) not in (_fold(old.body), _fold(lines[0] if lines else "")):
        return None
    head_end = text.find("\n---", 3)
    if head_end < 0:
        return None
    entries = list(_DESCRIPTION_ENTRY.finditer(text, 0, head_end + 1))
    if len(entries) != 1:
        return None
    trimmed = text[:entries[0].start()] + text[entries[0].end():]
    try:
        page = parse_page(trimmed, path)
    except WikiFormatError:
        return None
    # only the description may differ from what the person saved
    return (trimmed, page) if page == new.replace(description="", version=page.version) else None


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

    def summary(self) -> str:
        """One line for a person: what the sync applied and refused."""
        return (f"wiki sync: {len(self.added)} added, {len(self.edited)} edited, {len(self.deleted)} deleted, "
                f"{self.unchanged} unchanged, {len(self.errors)} refused")

    def __repr__(self) -> str:
        return (f"SyncReport(added={len(self.added)}, edited={len(self.edited)}, deleted={len(self.deleted)}, "
                f"unchanged={self.unchanged}, errors={len(self.errors)})")


@dataclass(frozen=True)
class _FileState:
    """One page id as found on disk: its file and, when it must be applied, the parsed page."""

    path: Path | None
    text: str | None
    page: Page | None  # None: unchanged since riko last read it, or present but not applicable


_UNCHANGED = _FileState(None, None, None)  # the file is what riko last wrote or read


class _Memo:
    """Every page row of the scope (``ROW_COLUMNS``, typed as the warehouse returns them), its
    Page and the paths in use, for one batch of the writer."""

    def __init__(self, rows: Iterable[dict[str, Any]]) -> None:
        self.rows: dict[str, dict[str, Any]] = {}
        self.pages: dict[str, Page] = {}
        self.paths: dict[str, set[str]] = {}
        self._sorted = True
        for row in rows:
            self.put(row)
        self._sorted = True

    def put(self, row: dict[str, Any]) -> None:
        row = {**row, "version": int(row["version"]), "consent": bool(row["consent"]), "locked": bool(row["locked"]),
               "confidence": None if row["confidence"] is None else float(row["confidence"])}
        pid = row["id"]
        old = self.rows.get(pid)
        if old is None:
            self._sorted = False
        elif old["path"] is not None:
            self.paths.get(old["path"], set()).discard(pid)
        self.rows[pid] = row
        if row["path"] is not None:
            self.paths.setdefault(row["path"], set()).add(pid)
        self.pages[pid] = _page_of(*(row[name] for name in _PAGE_COLUMNS))

    def sort(self) -> None:
        """Pages in id order, as the warehouse lists them."""
        if not self._sorted:
            self.pages = dict(sorted(self.pages.items()))
            self._sorted = True

class Canon:
    """Canonical pages of one scope: ``wiki/<owner>/<preset>/<folder>/<slug>.md`` + ``pages`` rows."""

    def __init__(self, wh: Warehouse, scope: MemoryScope, wiki_dir: Path, clock: Clock, stores: Stores) -> None:
        self.wh = wh
        self.scope = scope
        self.dir = wiki_dir
        self.clock = clock
        #: the scope's stores (built by Memory); Memory builds the canon before its context, and
        #: the Review, the Resident and the context it hands them to hold this same bundle
        self.stores = stores
        self._files = FileJournal(wh, wiki_dir, self.stores.jobs)
        self.store = self.stores.pages
        self._batch_owner: int | None = None    # the thread whose batch() is open
        self._batch_guard = threading.Lock()
        self._memo: _Memo | None = None  # every page row, while a batch is open
        self._memo_hooked = False

    # -- transactions spanning the warehouse and the files ------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A warehouse transaction whose page-file writes commit or roll back with it.

        The files are written at the commit, after their earlier bytes are journalled on disk,
        so even a killed process is undone by the next open (:func:`riko.wiki.journal.recover_journal`).
        """
        with self.wh.transaction():
            yield

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Inside the block, on this thread, :meth:`pages`, :meth:`get` and :meth:`exists` answer
        from memory: every page read once, kept current by :meth:`save`, dropped when a transaction
        rolls back. For one unit of work of the writer, while no one else can change the pages."""
        me = threading.get_ident()
        with self._batch_guard:
            mine = self._batch_owner is None
            if mine:
                self._batch_owner = me
        try:
            yield
        finally:
            if mine:
                with self._batch_guard:
                    self._batch_owner, self._memo = None, None

    def _memo_pages(self) -> dict[str, Page] | None:
        """The pages of the open batch of this thread by id (read on first use), or None."""
        memo = self._open_memo()
        return memo.pages if memo is not None else None

    def _open_memo(self) -> "_Memo | None":
        if self._batch_owner != threading.get_ident():
            return None
        if self._memo is None:
            self._memo = _Memo(self.store.all_rows())
            self._hook_memo()  # it may hold rows of the open transaction
        self._memo.sort()
        return self._memo

    def _stored_row(self, page_id: str) -> dict[str, Any] | None:
        """Every column of a page row (as :meth:`PageStore.row` reads it), from the batch's memo when open."""
        memo = self._open_memo()
        return memo.rows.get(page_id) if memo is not None else self.store.row(page_id)

    def _path_taken(self, rel: str, page_id: str) -> bool:
        memo = self._open_memo()
        if memo is None:
            return self.store.path_taken(rel, page_id)
        return bool(memo.paths.get(rel, set()) - {page_id})

    def _remember_saved(self, row: dict[str, Any]) -> None:
        """Keep the memo current with a row just written (a rollback drops the memo)."""
        if self._memo is None or self._batch_owner != threading.get_ident():
            return
        self._hook_memo()
        self._memo.put(row)

    def _hook_memo(self) -> None:
        """Drop the memo if the open transaction (whose rows it may hold) rolls back."""
        if not self._memo_hooked and self.wh.in_transaction:
            self._memo_hooked = True
            self.wh.on_transaction_end(lambda: None, self._memo_ended)

    def _memo_ended(self, committed: bool) -> None:
        self._memo_hooked = False
        if not committed:
            self._memo = None

    def resident_written(self) -> None:
        """The Resident now reflects the pages (called inside the transaction that stored it)."""
        self._files.clear_resident_stale()

    def expected_hash(self, rel: str) -> str | None:
        """The SHA-256 the ``pages`` table holds for the file at ``rel`` (None: no page lives there)."""
        return self.store.hash_at(rel)

    # -- reading ------------------------------------------------------------------------------
    @staticmethod
    def _page(row: dict[str, Any]) -> Page:
        return _page_of(*(row[name] for name in _PAGE_COLUMNS))

    def pages(self, *, include_forgotten: bool = False) -> list[Page]:
        memo = self._memo_pages()
        if memo is not None:
            return [p for p in memo.values() if include_forgotten or p.status != "forgotten"]
        # tuples straight into Page: the Resident refresh reads every page of the scope
        return [_page_of(*row) for row in self.store.page_tuples(include_forgotten=include_forgotten)]

    def get(self, page_id: str) -> Page:
        memo = self._memo_pages()
        if memo is not None:
            page = memo.get(page_id)
            if page is None:
                raise NotFoundError("page", page_id, listing="pages")
            return page
        row = self.store.row(page_id)
        if row is None:
            raise NotFoundError("page", page_id, listing="pages")
        return self._page(row)

    def exists(self, page_id: str) -> bool:
        memo = self._memo_pages()
        if memo is not None:
            return page_id in memo
        return self.store.exists(page_id)

    def row(self, page_id: str) -> dict[str, Any]:
        row = self.store.row(page_id)
        if row is None:
            raise NotFoundError("page", page_id)
        return row

    def frame(self) -> pl.DataFrame:
        return self.store.rows()

    def versions(self, page_id: str) -> pl.DataFrame:
        return self.store.versions(page_id)

    def path_for(self, page: Page, current: str | None = None) -> Path:
        """Where ``page`` lives: its ``current`` file when that is in the type's folder, else a
        fresh unique ``<folder>/<slug>.md``."""
        if current is None:
            current = self.store.path_of(page.id)
        return self._path_for(page, current)

    def _path_for(self, page: Page, current: str | None) -> Path:
        folder = TYPE_FOLDERS[page.type]
        if current and Path(current).parts[0] == folder:
            return self.dir / current
        base = slugify(page.title)
        n = 1
        while True:
            rel = f"{folder}/{base}.md" if n == 1 else f"{folder}/{base}-{n}.md"
            if not self._path_taken(rel, page.id) and (rel == current or not self._files.exists(self.dir / rel)):
                return self.dir / rel
            n += 1

    def _check_disk(self, page_id: str, rel: str, expected: str | None) -> None:
        """Refuse to overwrite or remove a file people changed since riko last read it."""
        path = self.dir / rel
        text = self._files.text_at(path)
        actual = file_hash(text) if text is not None else None
        if actual != expected:
            state = "was deleted" if actual is None else "was edited (or broken)"
            raise StateError(f"page file {path} {state} since riko last read it, so page {page_id} "
                             "cannot be changed yet").with_remedy("sync")

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
        on_disk: tuple[str, str] | None = None,
        verify_disk: bool = True,
    ) -> Page:
        """Write ``page`` (file + row), keep ``previous`` as an earlier version, audit it.

        ``on_disk=(rel, text)`` says the page's file currently is ``rel`` holding ``text`` (a file
        a person wrote or moved); otherwise the file must still be what riko last wrote or read.
        ``write_file=False`` records the file as it is instead of rendering it; ``verify_disk=False``
        skips the check that the file is unchanged (for a file people deleted). The file itself
        is written when the transaction commits (:class:`riko.wiki.journal.FileJournal`).
        """
        now = self.clock.now()
        with self.transaction():
            self._files.mark_resident_stale()
            old = self._stored_row(page.id)
            where = on_disk[0] if on_disk else (old["path"] if old else None)
            expected = file_hash(on_disk[1]) if on_disk else (old["file_hash"] if old else None)
            if previous is not None:
                self.store.add_version(previous.id, previous.version, render_page(previous), authority, naive_utc(now))
            rel, digest = where, expected
            if write_file:
                if where and verify_disk:
                    self._check_disk(page.id, where, expected)
                if page.status == "forgotten":
                    rel = digest = None
                    if where:
                        self._files.stage(self.dir / where, None)
                else:
                    path = self._path_for(page, where)
                    body = render_page(page)
                    if where and (self.dir / where) != path:
                        self._files.stage(self.dir / where, None)
                    self._files.stage(path, body)
                    rel, digest = path.relative_to(self.dir).as_posix(), file_hash(body)
            history = sensitivity_history
            if history is None:
                history = json.loads(old["sensitivity_history"] or "[]") if old else []
            cands = list(source_candidates) or (json.loads(old["source_candidates"] or "[]") if old else [])
            reason = supersede_reason if supersede_reason is not None else (old["supersede_reason"] if old else None)
            row = self._row(page, rel, digest, reason, cands, history, now)
            self.store.write(row, old)
            self._remember_saved(row)
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
            "path": rel, "file_hash": digest, "source_candidates": dumps(cands), "extra": dumps(extra_to_json(page.extra)),
            "updated_at": naive_utc(now),
        }

    # -- files edited by people ---------------------------------------------------------------
    def scan(self) -> tuple[dict[str, _FileState], list[WikiFormatError], int]:
        """Read every page file: id → its state on disk, the errors, and how many are unchanged.

        A file whose id is invalid, duplicated or changed maps to a state without a page, so
        the page keeps its last valid version (it is neither applied nor treated as deleted).
        A file whose bytes hash to the stored ``file_hash`` is unchanged and is not parsed.
        """
        self._files.flush()  # pages this transaction wrote are read from disk like the rest
        known = {r[0]: (r[1], r[2]) for r in self.store.files()}
        found: dict[str, _FileState] = {}
        errors: list[WikiFormatError] = []
        unchanged = 0
        by_id: dict[str, list[str]] = {}  # page id → the relative paths of its files
        contents: dict[str, bytes] = {}
        parsed: dict[str, Page] = {}
        if not self.dir.exists():
            return found, errors, 0
        for rel, full in page_files(self.dir):
            data = contents[rel] = read_bytes(full)
            entry = known.get(rel)
            # the bytes hashed are the text file_hash() hashes (surrogate escapes round-trip)
            if entry is not None and entry[1] == hashlib.sha256(data).hexdigest():
                unchanged += 1
                by_id.setdefault(entry[0], []).append(rel)
                continue
            path, text = Path(full), _text(data)
            try:
                page = parse_page(text, path)
            except WikiFormatError as exc:
                errors.append(exc)
                if entry is not None:
                    found[entry[0]] = _FileState(path, text, None)
                continue
            if entry is not None and entry[0] != page.id:
                errors.append(_id_changed(entry[0], page.id, path, text))
                found[entry[0]] = _FileState(path, text, None)
                continue
            by_id.setdefault(page.id, []).append(rel)
            parsed[rel] = page
        shared = {pid: [(self.dir / rel, _text(contents[rel])) for rel in rels]
                  for pid, rels in by_id.items() if len(rels) > 1}
        errors.extend(_duplicate_errors(shared))
        for pid, rels in by_id.items():
            if pid in found:  # its own file is broken; a second file with the id changes nothing
                continue
            if len(rels) > 1:
                found[pid] = _FileState(None, None, None)
                continue
            parsed_page = parsed.get(rels[0])
            found[pid] = _UNCHANGED if parsed_page is None else _FileState(
                self.dir / rels[0], _text(contents[rels[0]]), parsed_page)
        # a stored page whose file was moved out of the type folders is kept, not deleted
        for pid, error in moved_pages(self.dir, {entry[0] for entry in known.values()}, set(found)):
            errors.append(error)
            found[pid] = _FileState(None, None, None)
        return found, sorted(errors, key=lambda e: (str(e.path), e.line or 0)), unchanged

    def sync(self) -> SyncReport:
        """Apply what people changed in the page files; malformed files are reported, never rewritten."""
        report = SyncReport()
        found, errors, report.unchanged = self.scan()
        report.errors = errors
        # only the pages whose files changed or vanished are read in full
        stored = {r[0]: (r[1], r[2]) for r in self.store.statuses()}
        for pid, state in found.items():
            if state.page is None or state.path is None or state.text is None:
                continue  # unchanged, or not applicable (kept at its last valid version)
            page, text = state.page, state.text
            rel = state.path.relative_to(self.dir).as_posix()
            if pid not in stored:
                self.save(page, authority="management", audit_kind="page-created-externally",
                          detail={"path": rel}, write_file=False, on_disk=(rel, text))
                report.added.append(pid)
                continue
            old_row = self.row(pid)
            old = self._page(old_row)
            if _comparable(page.replace(version=old.version)) == _comparable(old):
                self._record_file(pid, rel, text)  # formatting only: nothing semantic changed
                report.unchanged += 1
                continue
            # the warehouse counts versions; the person's file keeps every byte they saved, its
            # ``version:`` line included, until riko itself next writes the page
            new = page.replace(version=old.version + 1)
            detail: dict[str, Any] = {"path": rel, "previous_version": old.version}
            follows = _body_is_the_memory(old, new, text, state.path)
            if follows is not None:  # the person typed the memory in the body: a stale copy goes
                text, new, detail["description_dropped"] = follows[0], follows[1].replace(version=new.version), True
            changed = claim_changed(f"{old.description}\n{old.body}".strip(), f"{new.description}\n{new.body}".strip())
            history = None
            if new.sensitivity != old.sensitivity:
                history = json.loads(old_row["sensitivity_history"] or "[]")
                history.append({"from": old.sensitivity, "to": new.sensitivity, "authority": "management",
                                "at": self.clock.now().isoformat(), "via": "file"})
            with self.transaction():
                if follows is not None:
                    self._files.stage(state.path, text)
                if changed:  # the raw lines behind the old claim stop surfacing as current
                    detail["invalidated_evidence"] = retire_evidence(self.stores.evidence, old.sources)
                self.save(new, authority="management", audit_kind="page-edited-externally", previous=old,
                          detail=detail, on_disk=(rel, text), sensitivity_history=history,
                          write_file=new.status == "forgotten")  # a forgotten page's file goes, as a forget's does
                if history is not None:
                    self.wh.audit("memory-sensitivity-changed", "management", pid,
                                  {"from": old.sensitivity, "to": new.sensitivity, "via": "file"})
            report.edited.append(pid)
        for pid, (status, path) in stored.items():
            if pid in found or status == "forgotten" or not path:
                continue
            old = self.get(pid)
            with self.transaction():
                self.save(old.replace(status="forgotten", version=old.version + 1), authority="management",
                          audit_kind="page-deleted-externally", previous=old, verify_disk=False,
                          detail={"path": path, "raw_session_retained": True})
                self.release_forgotten(pid)
            report.deleted.append(pid)
        return report

    def release_forgotten(self, page_id: str) -> int:
        """After a page is forgotten: its contested overlays close, their candidates become plain
        pending ones, and its aliases are invalidated. Returns the number of aliases invalidated."""

        now = naive_utc(self.clock.now())
        with self.transaction():
            self.stores.candidates.release_page(page_id, now)
            self.stores.overlay.resolve_for_page(page_id, "page-forgotten", now)
            return invalidate_entity_aliases(self.wh, self.scope, self.clock, page_id)

    def _record_file(self, pid: str, rel: str, text: str) -> None:
        with self.transaction():
            self.store.record_file(pid, rel, file_hash(text))

    def check(self) -> list[WikiFormatError]:
        """Validate every page file and change nothing (for pre-commit hooks)."""
        return check_files(self.dir, self.stored_ids())

    def stored_ids(self) -> dict[str, str]:
        """Relative page-file path → the page id stored for it."""
        return {r[0]: r[1] for r in self.store.files()}

    def resident_path(self) -> Path:
        return self.dir / RESIDENT_FILE
