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
from typing import TYPE_CHECKING

from ..stores.migrations import SCOPED_TABLES
from .needles import Needles
from ..stores.tables import column_counts, text_columns, text_frame
from .plan import column_hits
from .storage import owned_files

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["verify_tables", "verify_files", "scan_file"]

_DATABASE_SUFFIXES = (".duckdb", ".duckdb.wal")


def verify_tables(ctx: "ScopeContext", needles: Needles) -> list[str]:
    """``table.column: N row(s)`` for every text column still mentioning the session.

    Other sessions' raw lines are their own record: there only a reference to this session
    counts (a shared line of text is theirs too and was never a needle).
    """
    wh, problems = ctx.wh, []
    for table in SCOPED_TABLES:
        if table == "purges":
            continue
        cols = text_columns(wh, table)
        if table == "evidence":
            row = column_counts(wh, "evidence", [f"session_id = ? OR {needles.sql_token(c)}" for c in cols],
                                [needles.session_id] * len(cols))
            problems.extend(f"evidence.{c}: {n} row(s)" for c, n in zip(cols, row, strict=True) if n)
            continue
        if not cols:
            continue
        frame = text_frame(wh, table, cols)
        if not column_hits(frame, cols, needles).any():
            continue
        for col in cols:  # a table with findings is searched column by column, to name them
            n = int(needles.mask(frame.get_column(col)).sum())
            if n:
                problems.append(f"{table}.{col}: {n} row(s)")
    return problems


def scan_file(path: Path, needles: Needles, *, references: bool = True) -> list[str]:
    """What of the session ``path`` holds: ``reference`` and/or ``content`` (empty when clean)."""
    found: set[str] = set()
    with path.open("rb") as fh:
        if path.stat().st_size == 0:
            return []
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as raw:
            view = memoryview(raw)
            try:
                found.update(needles.scan_bytes(view, references=references))
                if path.suffix in (".zst", ".zstd", ".parquet"):
                    for decoded in _decoded(path, bytes(view)):
                        found.update(needles.scan_bytes(decoded, references=references))
            finally:
                view.release()
    return sorted(found)


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


def verify_files(ctx: "ScopeContext", needles: Needles) -> list[str]:
    """``relative path: kinds`` for every owned file still holding the session."""
    problems = []
    token = re.compile(needles.token_pattern())
    for path in owned_files(ctx):
        rel = path.relative_to(ctx.root).as_posix()
        is_database = path.name.endswith(_DATABASE_SUFFIXES)
        kinds = scan_file(path, needles, references=not is_database)
        if token.search(rel):
            kinds.append("path")
        if kinds:
            problems.append(f"{rel}: {', '.join(kinds)}")
    return problems
