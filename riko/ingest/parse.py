"""Turning a log's events into evidence rows: the part of ingest that can run in another process.

``parse_events`` streams one reader's events into Arrow batches (skipping what a session's
watermark says is already stored); ``parse_file_to_spill`` does the same in a worker process
and spills the batches to Arrow IPC files for the writing process to insert.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import orjson
import pyarrow as pa

from ..stores.migrations import RECORD_SCHEMA_VERSION
from .keep import KEPT_TOOL_TYPES, Keeper
from .readers import LogEvent, LogIssue, LogReader, SessionMeta
from ..sensitivity.rules import classify_text, safe_classify

__all__ = ["BATCH_ROWS", "PARALLEL_MIN_BYTES", "SessionStats", "ParsedFile", "content_hash", "is_user_evidence",
           "parse_events", "parse_file_to_spill"]

BATCH_ROWS = 50_000
#: Below this many unread bytes (compressed) in a multi-file ingest, worker processes cost more than they save.
PARALLEL_MIN_BYTES = 4 << 20


def content_hash(event_type: str, data_json: bytes) -> str:
    """Hash of one L0 line's meaning (type + projected data), for duplicate detection."""
    h = hashlib.blake2b(digest_size=16)
    h.update(event_type.encode())
    h.update(b"\0")
    h.update(data_json)
    return h.hexdigest()


def is_user_evidence(ev: LogEvent) -> bool:
    """Only a user message typed by the user is user evidence; plugin injections never are."""
    return ev.type == "user/message" and ev.source_kind == "user"


@dataclass
class SessionStats:
    """What one file added to one session."""

    meta: SessionMeta | None
    first_seq: int | None = None
    last_seq: int = -1
    events: int = 0
    user_events: int = 0
    text_bytes: int = 0


@dataclass
class ParsedFile:
    """Everything about one read of a file except its rows (those went to ``emit``)."""

    path: str
    format: str
    header: SessionMeta | None
    issues: list[LogIssue]
    bytes_consumed: int
    lines_consumed: int
    stats: dict[str, SessionStats] = field(default_factory=dict)
    events: int = 0
    duplicates: int = 0
    truncated: int = 0


class _Batch:
    """Column lists for evidence rows, flushed as one Arrow table."""

    _COLUMNS = ("session_id", "seq", "time", "type", "role", "source_kind", "is_user", "text", "data",
                "content_hash", "truncated", "sensitivity", "sensitivity_origin", "line")

    def __init__(self, scope_key: str, now_ms: int) -> None:
        self.scope_key = scope_key
        self.now_ms = now_ms
        self.cols: dict[str, list[Any]] = {c: [] for c in self._COLUMNS}

    def __len__(self) -> int:
        return len(self.cols["seq"])

    def add(self, ev: LogEvent, user: bool, data_json: bytes, sensitivity: str | None, origin: str | None) -> None:
        c = self.cols
        c["session_id"].append(ev.session_id)
        c["seq"].append(ev.seq)
        c["time"].append(ev.time_ms)
        c["type"].append(ev.type)
        c["role"].append(ev.role)
        c["source_kind"].append(ev.source_kind)
        c["is_user"].append(user)
        c["text"].append(ev.text)
        c["data"].append(data_json.decode())
        c["content_hash"].append(content_hash(ev.type, data_json))
        c["truncated"].append(ev.truncated)
        c["sensitivity"].append(sensitivity)
        c["sensitivity_origin"].append(origin)
        c["line"].append(ev.line)

    def take(self) -> pa.Table:
        n = len(self)
        c = self.cols
        table = pa.table({
            "scope_key": pa.array([self.scope_key] * n, pa.string()),
            "schema_version": pa.array([RECORD_SCHEMA_VERSION] * n, pa.int32()),
            "session_id": pa.array(c["session_id"], pa.string()),
            "seq": pa.array(c["seq"], pa.int64()),
            "time": pa.array(c["time"], pa.timestamp("ms")),
            "type": pa.array(c["type"], pa.string()),
            "role": pa.array(c["role"], pa.string()),
            "source_kind": pa.array(c["source_kind"], pa.string()),
            "is_user": pa.array(c["is_user"], pa.bool_()),
            "text": pa.array(c["text"], pa.string()),
            "data": pa.array(c["data"], pa.string()),
            "content_hash": pa.array(c["content_hash"], pa.string()),
            "truncated": pa.array(c["truncated"], pa.bool_()),
            "sensitivity": pa.array(c["sensitivity"], pa.string()),
            "sensitivity_origin": pa.array(c["sensitivity_origin"], pa.string()),
            "correction_invalidated": pa.array([False] * n, pa.bool_()),
            "line": pa.array(c["line"], pa.int64()),
            "ingested_at": pa.array([self.now_ms] * n, pa.timestamp("ms")),
        })
        for v in c.values():
            v.clear()
        return table


def parse_events(
    reader: LogReader,
    *,
    scope_key: str,
    now_ms: int,
    watermarks: dict[str, int],
    classify: bool,
    emit: Callable[[pa.Table], None],
) -> ParsedFile:
    """Stream ``reader``'s new events to ``emit`` in bounded Arrow batches (``watermarks`` advance)."""
    classifier = None
    if classify:

        classifier = lambda text: safe_classify(classify_text, text, "normal")  # noqa: E731
    out = ParsedFile(str(reader.path), reader.format, reader.header, reader.issues, 0, 0)
    batch = _Batch(scope_key, now_ms)
    stats = out.stats
    dumps, sort_keys = orjson.dumps, orjson.OPT_SORT_KEYS
    keeper = Keeper()  # assistant and kept tool lines are recall evidence: classified like user lines
    for ev in reader.events():
        if ev.seq <= watermarks.get(ev.session_id, -1):
            out.duplicates += 1
            continue
        watermarks[ev.session_id] = ev.seq
        user = is_user_evidence(ev)
        sensitivity = origin = None
        if classifier is not None and ev.text:
            if user:
                sensitivity, origin = classifier(ev.text), "deterministic_rule"
            elif ev.type in KEPT_TOOL_TYPES and ev.source_kind != "plugin":
                unit = keeper.event_unit(ev.type, False, ev.role, ev.text, ev.data)
                if unit is not None:
                    sensitivity, origin = classifier(unit.text), "deterministic_rule"
        batch.add(ev, user, dumps(ev.data, option=sort_keys), sensitivity, origin)
        st = stats.get(ev.session_id)
        if st is None:
            st = stats[ev.session_id] = SessionStats(meta=reader.sessions.get(ev.session_id))
        if st.first_seq is None:
            st.first_seq = ev.seq
        st.last_seq = ev.seq
        st.events += 1
        st.user_events += user
        st.text_bytes += len(ev.text)
        out.truncated += ev.truncated
        if len(batch) >= BATCH_ROWS:
            out.events += len(batch)
            emit(batch.take())
    if len(batch):
        out.events += len(batch)
        emit(batch.take())
    for sid, st in stats.items():
        if st.meta is None:
            st.meta = reader.sessions.get(sid)
    out.header = reader.header
    out.issues = list(reader.issues)
    out.bytes_consumed = reader.bytes_consumed
    out.lines_consumed = reader.lines_consumed
    return out


def parse_file_to_spill(
    path: str, start_offset: int, start_line: int, max_text_chars: int, scope_key: str, now_ms: int,
    watermarks: dict[str, int], classify: bool, spill_prefix: str,
) -> tuple[ParsedFile, list[str]]:
    """Worker-process entry: parse one file, spill its batches to Arrow IPC files, return them."""
    reader = LogReader(path, start_offset=start_offset, start_line=start_line, max_text_chars=max_text_chars)
    files: list[str] = []

    def emit(table: pa.Table) -> None:
        target = f"{spill_prefix}-{len(files)}.arrow"
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        with pa.OSFile(target, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        files.append(target)

    parsed = parse_events(reader, scope_key=scope_key, now_ms=now_ms, watermarks=dict(watermarks),
                          classify=classify, emit=emit)
    return parsed, files
