"""Evidence export: Parquet partitioned by session (for DuckDB/Spark/Trino) or riko L0 JSONL."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..errors import InvalidArgumentError
from ..clock import iso, utc
from ..private_files import private_dir, private_tree

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["export_evidence"]


def export_evidence(ctx: "ScopeContext", directory: Path, *, format: str = "parquet") -> Path:
    """Write this scope's evidence under ``directory/<storage-key>/`` and return that folder."""
    out = private_dir(directory / ctx.scope.storage_key)
    evidence = ctx.stores.evidence
    if format == "parquet":
        evidence.export_parquet(out)
        private_tree(out)
        return out
    if format != "jsonl":
        raise InvalidArgumentError(f"unknown export format {format!r}; use 'parquet' or 'jsonl'")
    cur = evidence.export_cursor()
    handle = None
    current = None
    try:
        while True:
            rows = cur.fetchmany(10_000)
            if not rows:
                break
            for session_id, seq, when, etype, data in rows:
                if session_id != current:
                    if handle is not None:
                        handle.close()
                    current = session_id
                    handle = open(out / f"{session_id}.jsonl", "wb")
                line = {
                    "schemaVersion": 1, "sessionId": session_id, "seq": seq,
                    "time": iso(utc(when)) if when is not None else None, "type": etype,
                    "data": orjson.loads(data) if data else {},
                }
                assert handle is not None  # opened for the first line of every session
                handle.write(orjson.dumps(line) + b"\n")
    finally:
        if handle is not None:
            handle.close()
        private_tree(out)
    return out
