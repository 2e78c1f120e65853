"""Validate a scope's page files without the warehouse: what ``riko wiki check`` runs.

It imports only the page parser, so a pre-commit hook starts fast.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import WikiFormatError
from .files import read_bytes, scan_pages, stray_page_files
from .page import TYPE_FOLDERS, parse_page

__all__ = ["check_files", "duplicate_errors", "id_changed", "key_line", "moved_out", "moved_pages", "stored_page_ids"]


def key_line(text: str, key: str) -> int:
    """The 1-based line of ``key:`` in a file's frontmatter (1 when it cannot be found)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return 1


def duplicate_errors(by_id: dict[str, list[tuple[Path, str]]]) -> list[WikiFormatError]:
    errors = []
    for pid, files in by_id.items():
        if len(files) < 2:
            continue
        for path, text in files:
            others = ", ".join(str(p) for p, _ in files if p != path)
            errors.append(WikiFormatError(
                f"duplicate page id {pid!r}: also used by {others}; give one of them a new id "
                "(neither file is applied until then)", path, key_line(text, "id"), "id"))
    return errors


def id_changed(stored: str, page_id: str, path: Path, text: str) -> WikiFormatError:
    """The error for a file whose ``id`` was changed from the one riko stored for it."""
    return WikiFormatError(
        f"id changed from {stored!r} to {page_id!r}; a page's id never changes: put back "
        f"'id: {stored}', or save the new page as a new file", path, key_line(text, "id"), "id")


def moved_out(page_id: str, page_type: str, path: Path, text: str) -> WikiFormatError:
    """The error for a stored page whose file now lies outside the seven type folders."""
    folder = TYPE_FOLDERS.get(page_type, "the type folders")
    return WikiFormatError(
        f"page {page_id} was moved out of the type folders, where riko does not read page files; "
        f"move it back under {folder}/ — until then the page keeps its last version (it is not deleted)",
        path, key_line(text, "id"), "id")


def moved_pages(wiki_dir: Path, stored: set[str], present: set[str]) -> list[tuple[str, WikiFormatError]]:
    """``(page id, error)`` for each file outside the type folders that holds a page riko stores
    (``stored``) and no longer finds inside them (``present``): a page file moved away. Other
    Markdown files there (notes, a README) are not pages and are left alone."""
    out: list[tuple[str, WikiFormatError]] = []
    for _, full in stray_page_files(Path(wiki_dir)):
        text = read_bytes(full).decode("utf-8", errors="surrogateescape")
        try:
            page = parse_page(text, full)
        except WikiFormatError:
            continue  # not a readable page: nothing riko would apply from it
        if page.id in stored and page.id not in present:
            out.append((page.id, moved_out(page.id, page.type, Path(full), text)))
    return out


def check_files(wiki_dir: Path, known: dict[str, str] | None = None) -> list[WikiFormatError]:
    """Validate every page file under a scope's Wiki folder; reads only, needs no warehouse.

    ``known`` maps a relative path to the page id stored for it (:func:`stored_page_ids`), so
    a hand-changed id is reported here just as ``sync`` would refuse it.
    """
    errors: list[WikiFormatError] = []
    by_id: dict[str, list[tuple[Path, str]]] = {}
    if not Path(wiki_dir).exists():
        return errors
    for path, text in scan_pages(Path(wiki_dir)):
        try:
            page = parse_page(text, path)
        except WikiFormatError as exc:
            errors.append(exc)
            continue
        stored = (known or {}).get(Path(path).relative_to(wiki_dir).as_posix())
        if stored is not None and stored != page.id:
            errors.append(id_changed(stored, page.id, Path(path), text))
            continue
        by_id.setdefault(page.id, []).append((path, text))
    errors.extend(duplicate_errors(by_id))
    if known:
        present = set(by_id) | {pid for path, pid in known.items() if (Path(wiki_dir) / path).exists()}
        errors.extend(error for _, error in moved_pages(Path(wiki_dir), set(known.values()), present))
    return sorted(errors, key=lambda e: (str(e.path), e.line or 0))


def stored_page_ids(root: Path, scope: Any) -> tuple[dict[str, str] | None, str | None]:
    """The stored path → id map of a scope, read without taking the writer lock.

    Returns ``(None, note)`` when there is no warehouse yet, or another process holds it.
    The database is only opened when it exists, so a check of a bare Wiki stays light.
    """
    from ..stores.relocation import warehouse_dir

    db = warehouse_dir(root, scope, read_only=True) / "riko.duckdb"
    if not db.exists():
        return None, None
    from ..stores.pages import peek_page_paths

    return peek_page_paths(db, scope.key)
