"""L0 ingest: stream session logs into the warehouse, idempotently and one file per transaction.

A file already read is skipped by (size, mtime, prefix hash); a file that grew is resumed at
the end of its last complete frame or line; every event at or below a session's stored
watermark is already present and is not stored twice.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import orjson
import polars as pl
import pyarrow as pa

from ..clock import Clock, from_ms
from ..errors import IngestError, PresetMismatchError, ScopeError
from ..migrations import RECORD_SCHEMA_VERSION
from ..scope import MemoryScope
from ..warehouse import Warehouse, naive_utc
from .readers import LogEvent, LogReader, iter_log_files

__all__ = ["IngestReport", "ingest_paths", "evidence_row_batch", "content_hash", "ISSUE_COLUMNS"]

BATCH_ROWS = 50_000
ISSUE_COLUMNS = ("path", "line", "offset", "kind", "message")

_EVIDENCE_COLUMNS = (
    "scope_key", "schema_version", "session_id", "seq", "time", "type", "role", "source_kind",
    "is_user", "text", "data", "content_hash", "truncated", "sensitivity", "sensitivity_origin",
    "correction_invalidated", "line", "ingested_at",
)


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
class IngestReport:
    """What one ingest did: files read, sessions touched, events stored, what was skipped and why."""

    files: int = 0
    files_unchanged: int = 0
    files_resumed: int = 0
    sessions: int = 0
    events: int = 0
    duplicates: int = 0
    truncated: int = 0
    refused: list[dict[str, str]] = field(default_factory=list)
    issue_rows: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def issues(self) -> pl.DataFrame:
        """Malformed lines, seq gaps, torn frames… as a DataFrame (path, line, offset, kind, message)."""
        schema = {"path": pl.Utf8, "line": pl.Int64, "offset": pl.Int64, "kind": pl.Utf8, "message": pl.Utf8}
        return pl.DataFrame(self.issue_rows, schema=schema)

    errors = issues  # the name used by the public surface

    @property
    def skipped(self) -> int:
        return len(self.issue_rows) + self.duplicates

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files, "files_unchanged": self.files_unchanged,
            "files_resumed": self.files_resumed, "sessions": self.sessions, "events": self.events,
            "duplicates": self.duplicates, "truncated": self.truncated, "refused": self.refused,
            "issues": self.issue_rows, "seconds": round(self.seconds, 3),
        }

    def __repr__(self) -> str:
        return (
            f"IngestReport(files={self.files}, unchanged={self.files_unchanged}, sessions={self.sessions}, "
            f"events={self.events}, duplicates={self.duplicates}, truncated={self.truncated}, "
            f"issues={len(self.issue_rows)}, refused={len(self.refused)}, seconds={self.seconds:.2f})"
        )

    def _repr_markdown_(self) -> str:
        rows = "\n".join(f"| {k} | {v} |" for k, v in self.to_dict().items() if k not in ("issues", "refused"))
        out = f"**IngestReport**\n\n| field | value |\n|---|---|\n{rows}\n"
        if self.issue_rows:
            out += f"\n{len(self.issue_rows)} issue(s); see `.issues`.\n"
        return out


class _Batch:
    """Column lists for evidence rows, flushed to DuckDB as one Arrow table."""

    def __init__(self, scope_key: str, now_ms: int) -> None:
        self.scope_key = scope_key
        self.now_ms = now_ms
        self.cols: dict[str, list[Any]] = {c: [] for c in _EVIDENCE_COLUMNS[2:]}
        del self.cols["ingested_at"]

    def __len__(self) -> int:
        return len(self.cols["seq"])

    def add(self, ev: LogEvent, data_json: bytes, digest: str, sensitivity: str | None, origin: str | None) -> None:
        c = self.cols
        c["session_id"].append(ev.session_id)
        c["seq"].append(ev.seq)
        c["time"].append(ev.time_ms)
        c["type"].append(ev.type)
        c["role"].append(ev.role)
        c["source_kind"].append(ev.source_kind)
        c["is_user"].append(is_user_evidence(ev))
        c["text"].append(ev.text)
        c["data"].append(data_json.decode())
        c["content_hash"].append(digest)
        c["truncated"].append(ev.truncated)
        c["sensitivity"].append(sensitivity)
        c["sensitivity_origin"].append(origin)
        c["correction_invalidated"].append(False)
        c["line"].append(ev.line)

    def to_arrow(self) -> pa.Table:
        n = len(self)
        c = self.cols
        return pa.table(
            {
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
                "correction_invalidated": pa.array(c["correction_invalidated"], pa.bool_()),
                "line": pa.array(c["line"], pa.int64()),
                "ingested_at": pa.array([self.now_ms] * n, pa.timestamp("ms")),
            }
        )

    def clear(self) -> None:
        for v in self.cols.values():
            v.clear()


def evidence_row_batch(scope_key: str, now_ms: int) -> _Batch:
    return _Batch(scope_key, now_ms)


@dataclass
class _SessionStats:
    meta: Any
    first_seq: int | None = None
    last_seq: int = -1
    events: int = 0
    user_events: int = 0
    text_bytes: int = 0
    source_path: str = ""


def _file_id(path: Path) -> str:
    return "file:" + hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]


def _prefix_hash(path: Path, length: int) -> str:
    h = hashlib.sha256()
    remaining = length
    with open(path, "rb") as f:
        while remaining > 0:
            chunk = f.read(min(remaining, 1 << 20))
            if not chunk:
                break
            h.update(chunk)
            remaining -= len(chunk)
    return h.hexdigest()


Classifier = Callable[[str], str]


def ingest_paths(
    wh: Warehouse,
    scope: MemoryScope,
    paths: str | Path | Iterable[str | Path],
    *,
    clock: Clock,
    preset: str | None = None,
    progress: bool = True,
    max_event_chars: int = 16000,
    classifier: Classifier | None = None,
) -> IngestReport:
    """Ingest session logs (files or directories) into ``wh``; see :class:`IngestReport`."""
    wh.require_writable()
    if preset is not None and preset != scope.preset:
        raise ScopeError(
            f"preset={preset!r} does not match this memory's scope {scope.key!r}; open a memory "
            f"with preset={preset!r} to ingest logs of that preset"
        )
    started = time.perf_counter()
    if isinstance(paths, (str, Path)):
        paths = [paths]
    explicit_files = {Path(p).resolve() for p in paths if Path(p).is_file()}
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise IngestError("no such file or directory", missing[0])
    files = list(iter_log_files(paths))
    report = IngestReport()
    watermarks = {
        sid: (int(last) if last is not None else -1)
        for sid, last in wh.fetchall("SELECT session_id, last_seq FROM sessions WHERE scope_key = ?", [scope.key])
    }
    bar = None
    if progress and len(files) > 1:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(files), unit="file", desc="ingest", leave=False)
    touched: set[str] = set()
    try:
        for path in files:
            try:
                _ingest_file(
                    wh, scope, path, clock=clock, explicit_preset=preset, watermarks=watermarks,
                    report=report, touched=touched, max_event_chars=max_event_chars, classifier=classifier,
                )
            except PresetMismatchError as exc:
                if path.resolve() in explicit_files:
                    raise
                report.refused.append({"path": str(path), "reason": str(exc)})
            report.files += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix(events=report.events, issues=len(report.issue_rows))
    finally:
        if bar is not None:
            bar.close()
    report.sessions = len(touched)
    report.seconds = time.perf_counter() - started
    return report


def _check_preset(path: Path, reader: LogReader, scope: MemoryScope, explicit: str | None) -> None:
    header_preset = reader.header.preset if reader.header is not None else None
    if explicit is not None:
        return
    if header_preset is None:
        raise PresetMismatchError(
            f"log has no agentPreset (format {reader.format}); assign it explicitly with "
            f"preset={scope.preset!r} (CLI: --preset {scope.preset})",
            path,
        )
    if header_preset != scope.preset:
        raise PresetMismatchError(
            f"log belongs to preset {header_preset!r}, not to this memory's scope {scope.key!r}; "
            f"nothing was written. Ingest it into a memory opened with preset={header_preset!r}, "
            f"or pass preset={scope.preset!r} to assign it here on purpose",
            path,
        )


def _ingest_file(
    wh: Warehouse,
    scope: MemoryScope,
    path: Path,
    *,
    clock: Clock,
    explicit_preset: str | None,
    watermarks: dict[str, int],
    report: IngestReport,
    touched: set[str],
    max_event_chars: int,
    classifier: Classifier | None,
) -> None:
    stat = path.stat()
    source_id = _file_id(path)
    prev = wh.fetchone(
        "SELECT size, mtime_ns, bytes_consumed, lines_consumed, prefix_hash FROM sources "
        "WHERE scope_key = ? AND id = ?",
        [scope.key, source_id],
    )
    start_offset = start_line = 0
    if prev is not None:
        size, mtime_ns, consumed, lines, phash = prev
        if size == stat.st_size and mtime_ns == stat.st_mtime_ns and consumed == stat.st_size:
            report.files_unchanged += 1
            return
        if consumed and consumed <= stat.st_size and phash == _prefix_hash(path, consumed):
            if consumed == stat.st_size:
                report.files_unchanged += 1
                return
            start_offset, start_line = int(consumed), int(lines or 0)
            report.files_resumed += 1

    reader = LogReader(path, start_offset=start_offset, start_line=start_line, max_text_chars=max_event_chars)
    _check_preset(path, reader, scope, explicit_preset)

    now = clock.now()
    batch = _Batch(scope.key, int(now.timestamp() * 1000))
    stats: dict[str, _SessionStats] = {}
    dumps = orjson.dumps
    sort_keys = orjson.OPT_SORT_KEYS
    with wh.transaction() as con:
        for ev in reader.events():
            mark = watermarks.get(ev.session_id, -1)
            if ev.seq <= mark:
                report.duplicates += 1
                continue
            watermarks[ev.session_id] = ev.seq
            data_json = dumps(ev.data, option=sort_keys)
            sensitivity = origin = None
            user = is_user_evidence(ev)
            if classifier is not None and user and ev.text:
                sensitivity, origin = classifier(ev.text), "deterministic_rule"
            batch.add(ev, data_json, content_hash(ev.type, data_json), sensitivity, origin)
            st = stats.get(ev.session_id)
            if st is None:
                st = stats[ev.session_id] = _SessionStats(meta=reader.sessions.get(ev.session_id))
            if st.first_seq is None:
                st.first_seq = ev.seq
            st.last_seq = ev.seq
            st.events += 1
            st.user_events += user
            st.text_bytes += len(ev.text)
            report.truncated += ev.truncated
            if len(batch) >= BATCH_ROWS:
                wh.insert_arrow("evidence", batch.to_arrow())
                report.events += len(batch)
                batch.clear()
        if len(batch):
            wh.insert_arrow("evidence", batch.to_arrow())
            report.events += len(batch)
            batch.clear()
        for sid, st in stats.items():
            _upsert_session(wh, scope, sid, st, reader, path, now)
            touched.add(sid)
        consumed = reader.bytes_consumed
        wh.upsert(
            "sources",
            {
                "id": source_id, "kind": "file", "session_id": reader.header.session_id if reader.header else None,
                "path": str(path.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                "bytes_consumed": consumed, "lines_consumed": reader.lines_consumed,
                "prefix_hash": _prefix_hash(path, consumed), "content_hash": None,
                "ingest_status": "ingested", "updated_at": naive_utc(now),
            },
            key=("id",),
        )
        for issue in reader.issues:
            report.issue_rows.append(
                {"path": issue.path, "line": issue.line, "offset": issue.offset, "kind": issue.kind, "message": issue.message}
            )
        new_events = sum(st.events for st in stats.values())
        if new_events or reader.issues:
            wh.audit(
                "evidence-ingested", "ingest", str(path),
                {"events": new_events, "sessions": sorted(stats), "issues": len(reader.issues), "format": reader.format},
            )


def _upsert_session(wh: Warehouse, scope: MemoryScope, sid: str, st: _SessionStats, reader: LogReader, path: Path, now: Any) -> None:
    row = wh.fetchone(
        "SELECT first_seq, event_count, user_event_count, text_bytes FROM sessions WHERE scope_key = ? AND session_id = ?",
        [scope.key, sid],
    )
    meta = st.meta or reader.header
    if row is None:
        created = from_ms(meta.created_ms) if meta is not None and meta.created_ms else None
        wh.insert_rows(
            "sessions",
            [{
                "session_id": sid, "preset": scope.preset,
                "project_key": getattr(meta, "project_key", None), "cwd": getattr(meta, "cwd", None),
                "parent_session": getattr(meta, "parent_session", None), "format": reader.format,
                "source_path": str(path), "created_at": naive_utc(created), "first_seq": st.first_seq,
                "last_seq": st.last_seq, "event_count": st.events, "user_event_count": st.user_events,
                "text_bytes": st.text_bytes, "updated_at": naive_utc(now),
            }],
        )
    else:
        wh.con.execute(
            "UPDATE sessions SET last_seq = ?, event_count = event_count + ?, user_event_count = user_event_count + ?, "
            "text_bytes = text_bytes + ?, first_seq = least(first_seq, ?), updated_at = ? "
            "WHERE scope_key = ? AND session_id = ?",
            [st.last_seq, st.events, st.user_events, st.text_bytes, st.first_seq, naive_utc(now), scope.key, sid],
        )
