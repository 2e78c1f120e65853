"""``riko.Memory``: the one door to a scope's evidence, candidates, Wiki, Resident and recall."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import polars as pl

from .clock import Clock, as_clock, to_ms, utc
from .config import RikoConfig, load_config
from .contracts import EvidenceRef
from .errors import ScopeError
from .scope import MemoryScope
from .ingest.pipeline import IngestReport
from .warehouse import Warehouse

__all__ = ["Memory"]


class Memory:
    """The memory of one scope (owner + stable preset) under a root directory.

    Open it with :func:`riko.open`. Read methods return polars DataFrames; every mutation is
    audited. Use it as a context manager, or call :meth:`close`, to release the writer lock.

    >>> with riko.open("demo", preset="companion") as mem:      # doctest: +SKIP
    ...     mem.ingest("exports/")
    ...     mem.sessions()
    """

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        *,
        owner: str = "local",
        preset: str | None = None,
        config: RikoConfig | Mapping[str, Any] | None = None,
        clock: Clock | Callable[[], datetime] | None = None,
        read_only: bool = False,
    ) -> None:
        if preset is None or not str(preset).strip():
            raise ScopeError(
                "memory scope requires a stable agent preset: pass preset=... "
                "(there is no global default)"
            )
        self.root = Path(root).absolute()
        self.config = load_config(self.root, overrides=config)
        self.scope = MemoryScope(owner, preset)
        self.clock = as_clock(clock)
        self.read_only = read_only
        self.warehouse_dir = self.root / "warehouse" / self.scope.storage_key
        self.wiki_dir = self.root / "wiki" / self.scope.owner / self.scope.preset
        self._wh = Warehouse(self.warehouse_dir, self.scope, self.clock, read_only=read_only)
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------------
    def close(self) -> None:
        """Flush and release the database and the writer lock (idempotent)."""
        if not self._closed:
            self._closed = True
            self._wh.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        return f"<riko.Memory scope={self.scope.key!r} root={str(self.root)!r} {mode}>"

    @property
    def warehouse(self) -> Warehouse:
        """The scope's DuckDB warehouse (for research queries; every table has ``scope_key``)."""
        return self._wh

    # -- L0 evidence ----------------------------------------------------------------------------
    def ingest(
        self,
        paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
        preset: str | None = None,
        progress: bool = True,
    ) -> IngestReport:
        """Read exported session logs (files or directories) into L0 evidence.

        Idempotent: re-ingesting adds nothing; a grown log adds only its new events. A log of
        another preset is refused unless ``preset=`` assigns it to this scope explicitly.
        """
        from .ingest.pipeline import ingest_paths

        return ingest_paths(
            self._wh, self.scope, paths, clock=self.clock, preset=preset, progress=progress,
            max_event_chars=self.config.max_event_chars, classifier=self._capture_classifier(),
        )

    def capture(self, event: Mapping[str, Any]) -> EvidenceRef:
        """Append one live session event as L0 evidence; durable before it returns."""
        from .ingest.capture import capture_event

        return capture_event(
            self._wh, self.scope, event, clock=self.clock,
            max_event_chars=self.config.max_event_chars, classifier=self._capture_classifier(),
        )

    def _capture_classifier(self) -> Callable[[str], str] | None:
        if not self.config.evidence_classification_enabled:
            return None
        from .sensitivity import classify_text, safe_classify

        return lambda text: safe_classify(classify_text, text, "normal")

    def sessions(self) -> pl.DataFrame:
        """Sessions with persisted evidence, newest first."""
        return self._wh.frame(
            "SELECT session_id, preset, format, created_at, event_count, user_event_count, "
            "first_seq, last_seq, project_key, source_path, updated_at FROM sessions "
            "WHERE scope_key = ? ORDER BY created_at DESC NULLS LAST, session_id",
            [self.scope.key],
        )

    def evidence(self, session_id: str | None = None, *, user_only: bool = False) -> pl.DataFrame:
        """L0 lines (one row per stored event) of one session or of the whole scope."""
        sql = (
            "SELECT session_id, seq, time, type, role, source_kind, is_user, text, truncated, "
            "sensitivity, content_hash FROM evidence WHERE scope_key = ?"
        )
        params: list[Any] = [self.scope.key]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        if user_only:
            sql += " AND is_user"
        return self._wh.frame(sql + " ORDER BY session_id, seq", params)

    def audits(self, kind: str | None = None) -> pl.DataFrame:
        """The append-only audit log of this scope, oldest first."""
        sql = "SELECT id, recorded_at, kind, authority, target, detail FROM audits WHERE scope_key = ?"
        params: list[Any] = [self.scope.key]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        return self._wh.frame(sql + " ORDER BY id", params)

    def export_evidence(self, directory: str | os.PathLike[str], *, format: str = "parquet") -> Path:
        """Export L0 evidence: Parquet partitioned by session, or riko L0 JSONL (re-ingestable)."""
        from .ingest.export import export_evidence

        return export_evidence(self._wh, self.scope, Path(directory), format=format)
