"""Validate a scope's page files without the warehouse: what ``riko wiki check`` runs.

It imports only the page parser, so a pre-commit hook starts fast.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..errors import WikiFormatError
from .files import scan_pages
from .page import parse_page

__all__ = ["check_files", "duplicate_errors", "id_changed", "key_line", "stored_page_ids"]


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
