"""L0 ingest: stream session logs into the warehouse, idempotently and one file per transaction.

A file already read is skipped by (size, mtime, prefix hash); a file that grew is resumed at
the end of its last complete frame or line; every event at or below a session's stored
watermark is already present and is not stored twice.
"""

from __future__ import annotations

import hashlib
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

import duckdb
import polars as pl
import pyarrow as pa

from ..clock import from_ms
from ..errors import IngestError, PresetMismatchError, ScopeError
from ..progress import progress_enabled
from ..scope import MemoryScope
from ..stores.evidence import EvidenceStore
from ..stores.warehouse import Warehouse, naive_utc
from .parse import (
    PARALLEL_MIN_BYTES,
    ParsedFile,
    SessionStats,
    content_hash,
    is_user_evidence,
    parse_events,
)
from .readers import LogReader, iter_log_files

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["IngestReport", "ingest_paths", "content_hash", "is_user_evidence", "ISSUE_COLUMNS"]

ISSUE_COLUMNS = ("path", "line", "offset", "kind", "message")


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
    refused: list[dict[str, Any]] = field(default_factory=list)
    workers: int = 1
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
            "duplicates": self.duplicates, "truncated": self.truncated, "refused": self.refused, "workers": self.workers,
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


def ingest_paths(
    ctx: "ScopeContext",
    paths: str | Path | Iterable[str | Path],
    *,
    preset: str | None = None,
    progress: bool = True,
    workers: int | None = None,
) -> IngestReport:
    """Ingest session logs (files or directories) into the scope's evidence; see :class:`IngestReport`.

    Large multi-file ingests parse files in ``workers`` processes (default: up to 2) while this
    process writes; each file is still one transaction, written in file order.
    """
    wh, scope, evidence = ctx.wh, ctx.scope, ctx.stores.evidence
    max_event_chars, classify = ctx.config.max_event_chars, ctx.config.evidence_classification_enabled
    wh.require_writable()
    if preset is not None and preset != scope.preset:
        raise ScopeError(
            f"preset={preset!r} does not match this memory's scope {scope.key!r}; open a memory "
            f"with preset={preset!r} to ingest logs of that preset"
        )
    started = time.perf_counter()
    if isinstance(paths, (str, Path)):
        paths = [paths]
    paths = list(paths)
    explicit_files = {Path(p).resolve() for p in paths if Path(p).is_file()}
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise IngestError("no such file or directory", missing[0])
    files = list(iter_log_files(paths))
    report = IngestReport()
    watermarks = evidence.watermarks()
    plans = [_plan(evidence, path, report) for path in files]
    todo = [plan for plan in plans if plan is not None]
    bar = None
    if progress_enabled(progress) and len(files) > 1:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(files), unit="file", desc="ingest", leave=False)
        bar.update(len(files) - len(todo))
    now = ctx.clock.now()
    run = _Context(wh, evidence, scope, now, watermarks, report, set(), explicit_files, preset, max_event_chars,
                   classify)
    count = workers if workers is not None else min(2, os.cpu_count() or 1)
    parallel = count > 1 and len(todo) > 1 and sum(p.size - p.start_offset for p in todo) >= PARALLEL_MIN_BYTES
    try:
        if parallel:
            report.workers = count
            _ingest_parallel(run, todo, count, bar)
        else:
            for plan in todo:
                _ingest_serial(run, plan)
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(events=report.events, issues=len(report.issue_rows))
    finally:
        if bar is not None:
            bar.close()
    report.files = len(files)
    report.sessions = len(run.touched)
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class _Plan:
    """One file to read: where to start, and what it was when we looked."""

    path: Path
    source_id: str
    size: int
    mtime_ns: int
    start_offset: int
    start_line: int


@dataclass
class _Context:
    wh: Warehouse
    evidence: EvidenceStore
    scope: MemoryScope
    now: Any
    watermarks: dict[str, int]
    report: IngestReport
    touched: set[str]
    explicit_files: set[Path]
    explicit_preset: str | None
    max_event_chars: int
    classify: bool


def _plan(evidence: EvidenceStore, path: Path, report: IngestReport) -> _Plan | None:
    """Skip an unchanged file; resume a grown one at its last complete frame or line."""
    stat = path.stat()
    source_id = _file_id(path)
    prev = evidence.source_resume(source_id)
    start_offset = start_line = 0
    if prev is not None:
        size, mtime_ns, consumed, lines, phash = prev
        if size == stat.st_size and mtime_ns == stat.st_mtime_ns and consumed == stat.st_size:
            report.files_unchanged += 1
            return None
        if consumed and consumed <= stat.st_size and phash == _prefix_hash(path, consumed):
            if consumed == stat.st_size:
                report.files_unchanged += 1
                return None
            start_offset, start_line = int(consumed), int(lines or 0)
            report.files_resumed += 1
    return _Plan(path, source_id, stat.st_size, stat.st_mtime_ns, start_offset, start_line)


def _refused(ctx: _Context, plan: _Plan, exc: PresetMismatchError) -> None:
    if plan.path.resolve() in ctx.explicit_files:
        raise exc
    ctx.report.refused.append({"path": str(plan.path), "reason": str(exc), "message": exc.message(),
                               "remedy": exc.remedy, "remedy_fields": dict(exc.remedy_fields)})


def _ingest_serial(ctx: _Context, plan: _Plan) -> None:
    """Read and write one file in this process, streaming batches straight into the transaction."""
    reader = LogReader(plan.path, start_offset=plan.start_offset, start_line=plan.start_line,
                       max_text_chars=ctx.max_event_chars)
    try:
        _check_preset(plan.path, reader.format, reader.header, ctx.scope, ctx.explicit_preset)
    except PresetMismatchError as exc:
        _refused(ctx, plan, exc)
        return
    with _stored_alone(ctx, plan):
        with ctx.wh.transaction():
            def emit(table: pa.Table) -> None:
                ctx.wh.insert_arrow("evidence", table)

            parsed = parse_events(reader, scope_key=ctx.scope.key, now_ms=int(ctx.now.timestamp() * 1000),
                                  watermarks=ctx.watermarks, classify=ctx.classify, emit=emit)
            _finish(ctx, plan, parsed)


@contextmanager
def _stored_alone(ctx: _Context, plan: _Plan) -> Iterator[None]:
    """One file's transaction: when the warehouse refuses it, nothing of the file is kept, the
    real cause becomes an issue row, and the next file of the folder is read as usual."""
    watermarks, touched = dict(ctx.watermarks), set(ctx.touched)
    counts = (ctx.report.events, ctx.report.duplicates, ctx.report.truncated, len(ctx.report.issue_rows))
    try:
        yield
    except duckdb.Error as exc:
        ctx.watermarks.clear()
        ctx.watermarks.update(watermarks)
        ctx.touched.intersection_update(touched)
        r = ctx.report
        r.events, r.duplicates, r.truncated = counts[:3]
        del r.issue_rows[counts[3]:]
        r.issue_rows.append({"path": str(plan.path), "line": None, "offset": None, "kind": "store-error",
                             "message": f"nothing of this file was stored: {type(exc).__name__}: {exc}"})


def _ingest_parallel(ctx: _Context, todo: list[_Plan], workers: int, bar: Any) -> None:
    """Parse files in worker subprocesses (to Arrow IPC spill files); write them here, in order.

    Workers are plain ``python -m riko.ingest.worker`` processes, so the caller's script is never
    re-imported; file ``i`` goes to worker ``i % workers``, which handles its files in order.
    """
    import json
    import pickle
    import shutil
    import subprocess
    import sys
    import tempfile

    spill = Path(tempfile.mkdtemp(prefix="riko-ingest-", dir=ctx.wh.directory))
    snapshot = dict(ctx.watermarks)
    common = {"max_text_chars": ctx.max_event_chars, "scope_key": ctx.scope.key,
              "now_ms": int(ctx.now.timestamp() * 1000), "watermarks": snapshot, "classify": ctx.classify}
    procs = []
    try:
        for w in range(workers):
            tasks = [{"path": str(p.path), "start_offset": p.start_offset, "start_line": p.start_line,
                      "spill_prefix": str(spill / f"f{i}")} for i, p in enumerate(todo) if i % workers == w]
            task_file = spill / f"tasks-{w}.json"
            task_file.write_text(json.dumps({**common, "tasks": tasks}), encoding="utf-8")
            procs.append(subprocess.Popen([sys.executable, "-m", "riko.ingest.worker", str(task_file)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        for i, plan in enumerate(todo):
            result_file = spill / f"f{i}.result"
            proc = procs[i % workers]
            while not result_file.exists():
                if proc.poll() is not None and not result_file.exists():
                    break
                time.sleep(0.002)
            result = pickle.loads(result_file.read_bytes()) if result_file.exists() else {"error": "worker exited"}
            if isinstance(result, dict):  # the worker could not read it: read it here, with full error reporting
                _ingest_serial(ctx, plan)
            else:
                parsed, spill_files = result
                try:
                    _write_spilled(ctx, plan, parsed, spill_files, snapshot)
                finally:
                    for f in spill_files:
                        Path(f).unlink(missing_ok=True)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(events=ctx.report.events, issues=len(ctx.report.issue_rows))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()
        shutil.rmtree(spill, ignore_errors=True)


def _write_spilled(ctx: _Context, plan: _Plan, parsed: ParsedFile, spill_files: list[str], snapshot: dict[str, int]) -> None:
    try:
        _check_preset(plan.path, parsed.format, parsed.header, ctx.scope, ctx.explicit_preset)
    except PresetMismatchError as exc:
        _refused(ctx, plan, exc)
        return
    if any(ctx.watermarks.get(sid, -1) != snapshot.get(sid, -1) for sid in parsed.stats):
        # an earlier file of this run moved one of these sessions: read this one again here,
        # against the current watermarks, so nothing is stored twice
        _ingest_serial(ctx, plan)
        return
    with _stored_alone(ctx, plan), ctx.wh.transaction():
        for f in spill_files:
            with pa.memory_map(f) as source:
                ctx.wh.insert_arrow("evidence", pa.ipc.open_file(source).read_all())
        for sid, st in parsed.stats.items():
            ctx.watermarks[sid] = st.last_seq
        _finish(ctx, plan, parsed)


def _finish(ctx: _Context, plan: _Plan, parsed: ParsedFile) -> None:
    """Sessions, the file's resume point, issues and the audit row (inside the file's transaction)."""
    wh, report, path = ctx.wh, ctx.report, plan.path
    report.events += parsed.events
    report.duplicates += parsed.duplicates
    report.truncated += parsed.truncated
    for sid, st in parsed.stats.items():
        _upsert_session(wh, ctx.evidence, ctx.scope, sid, st, parsed, path, ctx.now)
        ctx.touched.add(sid)
    wh.upsert(
        "sources",
        {
            "id": plan.source_id, "kind": "file", "session_id": parsed.header.session_id if parsed.header else None,
            "path": str(path.resolve()), "size": plan.size, "mtime_ns": plan.mtime_ns,
            "bytes_consumed": parsed.bytes_consumed, "lines_consumed": parsed.lines_consumed,
            "prefix_hash": _prefix_hash(path, parsed.bytes_consumed), "content_hash": None,
            "ingest_status": "ingested", "updated_at": naive_utc(ctx.now),
        },
        key=("id",),
    )
    for issue in parsed.issues:
        report.issue_rows.append(
            {"path": issue.path, "line": issue.line, "offset": issue.offset, "kind": issue.kind, "message": issue.message}
        )
    if parsed.events or parsed.issues:
        wh.audit(
            "evidence-ingested", "ingest", str(path),
            {"events": parsed.events, "sessions": sorted(parsed.stats), "issues": len(parsed.issues), "format": parsed.format},
        )


def _check_preset(path: Path, fmt: str, header: Any, scope: MemoryScope, explicit: str | None) -> None:
    if explicit is not None:
        return
    header_preset = header.preset if header is not None else None
    if header_preset is None:
        raise PresetMismatchError(f"log has no agentPreset (format {fmt})", path).with_remedy(
            "assign", preset=scope.preset)
    if header_preset != scope.preset:
        raise PresetMismatchError(
            f"log belongs to preset {header_preset!r}, not to this memory's scope {scope.key!r}; "
            "nothing was written",
            path,
        ).with_remedy("other-preset", other=header_preset, preset=scope.preset)


def _upsert_session(wh: Warehouse, evidence: EvidenceStore, scope: MemoryScope, sid: str, st: SessionStats,
                    reader: ParsedFile, path: Path, now: Any) -> None:
    row = evidence.session_counts(sid)
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
        evidence.grow_session(sid, last_seq=st.last_seq, events=st.events, user_events=st.user_events,
                              text_bytes=st.text_bytes, first_seq=st.first_seq, now=naive_utc(now))
