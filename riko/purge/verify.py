"""Post-purge verification: no scoped table and no owned file may still hold the session.

Tables are searched through SQL (every text column of every scoped table except ``purges``);
files by their bytes, after decompressing zstd files and decoding Parquet string columns,
and by their path. The database file is searched for content only, since the journal in
``purges`` keeps the session id by design.
"""

from __future__ import annotations

import mmap
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..migrations import SCOPED_TABLES
from .needles import Needles
from .plan import text_columns
from .storage import owned_files

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["verify_tables", "verify_files", "scan_file"]

_DATABASE_SUFFIXES = (".duckdb", ".duckdb.wal")


def verify_tables(mem: "Memory", needles: Needles) -> list[str]:
    """``table.column: N row(s)`` for every text column still mentioning the session."""
    wh, problems = mem._wh, []
    for table in SCOPED_TABLES:
        if table == "purges":
            continue
        cols = text_columns(wh, table)
        if not cols:
            continue
        sums = ", ".join(f"count(*) FILTER (WHERE {needles.sql_mentions(c)})" for c in cols)
        row = wh.fetchone(f"SELECT {sums} FROM {table} WHERE scope_key = ?", [mem.scope.key]) or ()
        problems.extend(f"{table}.{c}: {n} row(s)" for c, n in zip(cols, row, strict=True) if n)
    return problems


def _search(data: bytes | mmap.mmap, patterns: Iterable[re.Pattern[bytes]]) -> bool:
    return any(p.search(data) for p in patterns)  # type: ignore[arg-type]


def scan_file(path: Path, needles: Needles, *, references: bool = True) -> list[str]:
    """What of the session ``path`` holds: ``reference`` and/or ``content`` (empty when clean)."""
    found: list[str] = []
    checks = [("reference", needles.byte_patterns()[:1]), ("content", needles.byte_patterns(references=False))]
    if not references:
        checks = checks[1:]
    size = path.stat().st_size
    views: list[bytes | mmap.mmap] = []
    with path.open("rb") as fh:
        raw = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
        try:
            views.append(raw)
            views.extend(_decoded(path, bytes(raw[:]) if path.suffix in (".zst", ".zstd", ".parquet") else b""))
            for kind, patterns in checks:
                if any(_search(v, patterns) for v in views):
                    found.append(kind)
        finally:
            if isinstance(raw, mmap.mmap):
                raw.close()
    return found


def _decoded(path: Path, data: bytes) -> list[bytes]:
    """Decompressed or decoded views of a file whose bytes hide text from a byte search."""
    if not data:
        return []
    if path.suffix in (".zst", ".zstd"):
        import io

        import zstandard

        try:
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as reader:
                return [reader.read()]
        except zstandard.ZstdError:
            return []
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowException):
            return []
        texts = []
        for column in table.columns:
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                texts.extend(v for v in column.to_pylist() if v)
        return ["\n".join(texts).encode("utf-8")]
    return []


def verify_files(mem: "Memory", needles: Needles) -> list[str]:
    """``relative path: kinds`` for every owned file still holding the session."""
    problems = []
    token = re.compile(needles.token_pattern())
    for path in owned_files(mem):
        rel = path.relative_to(mem.root).as_posix()
        is_database = path.name.endswith(_DATABASE_SUFFIXES)
        kinds = scan_file(path, needles, references=not is_database)
        if token.search(rel):
            kinds.append("path")
        if kinds:
            problems.append(f"{rel}: {', '.join(kinds)}")
    return problems
