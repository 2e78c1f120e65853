"""The door's light half: what a face (CLI, HTTP server, MCP server) needs besides an open
:class:`riko.Memory`, so no face imports a stage or a store (``tests/test_faces.py``).

These are checks a face runs before a scope is opened, or without opening it at all (``riko wiki
check`` is a pre-commit hook and must not load the warehouse), and the reading of a value
``Memory`` returned. Each imports its stage only when called, so ``import riko.door`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .scope import MemoryScope

if TYPE_CHECKING:
    import networkx as nx

    from .errors import WikiFormatError

__all__ = ["parse_shard", "check_wiki", "broken_links"]


def parse_shard(value: str | Sequence[int] | None) -> tuple[int, int] | None:
    """``"I/N"`` → ``(I, N)`` as ``Memory.dream(shard=...)`` reads it; :class:`~riko.errors.ConfigError` otherwise."""
    from .dream.jobs import parse_shard as parse

    return parse(value)


def check_wiki(root: str | Path, scope: MemoryScope) -> tuple[list["WikiFormatError"], str | None]:
    """Validate a scope's page files without opening its warehouse: the format errors, and a note
    when the stored page ids could not be read (no warehouse yet, or another process holds it)."""
    from .wiki.check import check_files, stored_page_ids

    root = Path(root)
    known, note = stored_page_ids(root, scope)
    return check_files(root / "wiki" / scope.owner / scope.preset, known), note


def broken_links(graph: "nx.DiGraph") -> list[tuple[str, str]]:
    """(source page id, missing title) for every link of ``Memory.graph()`` that resolves to no page."""
    from .graph import broken_links as broken

    return broken(graph)
