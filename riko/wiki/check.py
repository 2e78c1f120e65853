"""Validate a scope's page files without the warehouse: what ``riko wiki check`` runs.

It imports only the page parser, so a pre-commit hook starts fast.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import WikiFormatError
from .files import scan_pages
from .page import parse_page

__all__ = ["check_files", "duplicate_errors", "key_line"]


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


def check_files(wiki_dir: Path) -> list[WikiFormatError]:
    """Validate every page file under a scope's Wiki folder; reads only, needs no warehouse."""
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
        by_id.setdefault(page.id, []).append((path, text))
    errors.extend(duplicate_errors(by_id))
    return sorted(errors, key=lambda e: (str(e.path), e.line or 0))
