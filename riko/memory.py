"""``riko.Memory``: the one door to a scope's evidence, candidates, Wiki, Resident and recall."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import sys
import warnings
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import polars as pl

if TYPE_CHECKING:
    import networkx as nx

    from .dream.providers import DreamProvider
    from .dream.report import DreamReport
    from .errors import RikoError
    from .executor import LocalExecutor, RayExecutor
    from .recall.result import RecallResult
    from .wiki.page import WikiFormatError

from .clock import Clock, as_clock
from .config import RikoConfig, load_config, resolve_owner
from .contracts import EvidenceRef
from .errors import ReadOnlyError, ScopeError, StateError
from .scope import MemoryScope, ScopeWarning
from .ingest.pipeline import IngestReport
from .purge import purge_session, recover_interrupted
from .wiki.canon import Canon, SyncReport
from .resident.compile import ResidentSnapshot
from .resident.store import ResidentStore
from .review.machine import Review
from .stores.audits import audits_frame, purges_frame
from .stores.evidence import evidence_frame, sessions_frame
from .stores.warehouse import Turn, Warehouse, storage_error
from .context import ChangeSignal, ScopeContext
from .wiki import Page
from .wiki.watch import WikiWatcher
from .dream.runner import jobs_frame, run_dream
from .executor import parallel_index
from .graph import build_graph, linked, neighbourhood
from .ingest.capture import capture_event
from .ingest.export import export_evidence
from .ingest.pipeline import ingest_paths
from .observations import ObservationStore, observations_frame
from .recall.engine import recall, retrieve
from .recall.index_cache import drop_cache, finish_activation, flush_activation
from .recall import projections, vectors
from .resident.index import current_index
from .review.governance import governed_fields, overlaps, retire_superseded
from .sensitivity.evidence import mark_evidence_sensitivity, propose_evidence_sensitivity
from .sensitivity.rules import classify_text, safe_classify
from .settings import DREAM_SETTINGS, dream_changes, save_dream_settings, saved_dream_settings
from .stores.bundle import Stores
from .stores.relocation import warehouse_dir
from .wiki.aliases import aliases_frame, invalidate_alias, invalidate_entity_aliases, rebuild_aliases, resolve_alias, upsert_alias
from .wiki.journal import resident_stale
from .wiki.recovery import recover_open

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
        owner: str | None = None,
        preset: str | None = None,
        config: RikoConfig | Mapping[str, object] | None = None,
        clock: Clock | Callable[[], datetime] | None = None,
        read_only: bool = False,
        watch: bool = False,
    ) -> None:
        if preset is None or not str(preset).strip():
            raise ScopeError("memory scope requires a stable agent preset").with_remedy("preset")
        self.root = Path(root).absolute()
        # one rule for the owner (argument > environment > riko.toml > "local"), the one
        # `riko serve` applies too, so a notebook and the server on one root share one scope
        choice = resolve_owner(self.root, owner, overrides=config)
        if choice.conflict:
            warnings.warn(ScopeWarning(choice.conflict), stacklevel=3)
        self.config = load_config(self.root, overrides=config)
        if self.config.owner_namespace != choice.owner:
            self.config = self.config.replace(owner_namespace=choice.owner)
        self.scope = MemoryScope(choice.owner, preset)
        self.clock = as_clock(clock)
        self.read_only = read_only

        self.warehouse_dir = warehouse_dir(self.root, self.scope, read_only=read_only)
        self.wiki_dir = self.root / "wiki" / self.scope.owner / self.scope.preset
        self._wh = Warehouse(self.warehouse_dir, self.scope, self.clock, read_only=read_only,
                             lock_timeout_s=self.config.lock_timeout_ms / 1000,
                             idle_release_s=self.config.idle_release_ms / 1000)
        self._closed = False
        self._watcher: Any = None  # a WikiWatcher while hand edits are synced live
        # the scope's one bundle of stores: the canon, review, Resident and context all hold it
        self._canon = Canon(self._wh, self.scope, self.wiki_dir, self.clock, Stores.of(self._wh))
        self._resident = ResidentStore(self._wh, self.scope, self._canon, self.config, self.clock)
        changed = ChangeSignal()
        # every canon change recompiles the Resident first (the version moves with the text);
        # the recall stages subscribe their own listeners once the context exists
        changed.subscribe(self._resident.refresh, kinds={"canon"})
        self._review = Review(self._wh, self.scope, self._canon, self.config, self.clock, changed)
        self.last_sync: SyncReport | None = None
        self._ctx = ScopeContext(
            scope=self.scope, root=self.root, config=self.config, clock=self.clock, wh=self._wh, canon=self._canon,
            review=self._review, resident=self._resident, wiki_dir=self.wiki_dir,
            warehouse_dir=self.warehouse_dir, read_only=read_only, changed=changed,
            stores=self._canon.stores,
        )
        projections.listen(self._ctx)  # canon changes rebuild the projections table
        vectors.listen(self._ctx)  # a write batch refreshes a served dense generation once
        self._dream_state = self._ctx.dream_state
        if not read_only:
            try:
                self._recover()
            except BaseException as exc:
                self._closed = True
                self._wh.close()  # a failed open keeps no lock: the next open may succeed
                typed = storage_error(exc)
                if typed is None:
                    raise
                raise typed from exc
        if watch:
            self.watch()

    def _recover(self) -> None:
        """Finish what a dead process left in flight, then apply what people changed in the files."""

        with self._wh.unit("open"):
            recover_open(self._canon)
            # a purge that died mid-way is finished before sync could copy old page text anywhere
            recover_interrupted(self._ctx)
            self.last_sync = self._canon.sync()
            if self.last_sync.changed or resident_stale(self._ctx.stores.jobs):
                self._resident.refresh()

    # -- lifecycle ----------------------------------------------------------------------------
    def close(self) -> None:
        """Flush and let go of the scope's file (idempotent)."""
        if not self._closed:
            if self._watcher is not None:
                self._watcher.stop()
            if not self.read_only:

                finish_activation(self._ctx)  # pending recall counts are written before the file goes
            self._closed = True
            self._wh.close()

    def watch(self, on_report: Callable[[SyncReport | RikoError], None] | None = None) -> None:
        """Sync hand edits of this scope's page files as they happen, until :meth:`close`
        (``riko.open(..., watch=True)``). ``on_report`` gets each sync's report."""
        if self.read_only:
            raise ReadOnlyError("a read-only memory cannot apply page edits; open it without read_only to watch")
        def locked_sync() -> SyncReport:
            with self.lock:  # takes turns with every other call of this memory (and the server's)
                return self.sync()

        if self._watcher is None or not self._watcher.running:
            self._watcher = WikiWatcher(self.wiki_dir, locked_sync, on_report=on_report).start()

    def hold(self, activity: str = "hold") -> Turn:
        """Keep the scope's file for a block of calls (``with mem.hold(): ...``): faster for a
        burst of calls; other processes wait (up to their ``lock_timeout_ms``) until it ends."""
        return self._wh.turn(activity)

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if sys.is_finalizing():
            return  # the warehouse's exit handler already let go of the file
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        mode = "read-only" if self.read_only else "read-write"
        return f"<riko.Memory scope={self.scope.key!r} root={str(self.root)!r} {mode}>"

    @property
    def context(self) -> ScopeContext:
        """The typed scope context stages work with (stores, clock, config, caches, locks)."""
        return self._ctx

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
        workers: int | None = None,
    ) -> IngestReport:
        """Read exported session logs (files or directories) into L0 evidence.

        Idempotent: re-ingesting adds nothing; a grown log adds only its new events. A log of
        another preset is refused unless ``preset=`` assigns it to this scope explicitly.
        """

        items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        report = ingest_paths(self._ctx, [Path(p) for p in items], preset=preset, progress=progress, workers=workers)
        self._after_write()
        return report

    def capture(self, event: Mapping[str, object]) -> EvidenceRef:
        """Append one live session event as L0 evidence; durable before it returns."""

        ref = capture_event(self._ctx, event, classifier=self._capture_classifier())
        self._after_write()
        return ref

    def _capture_classifier(self) -> Callable[[str], str] | None:
        if not self.config.evidence_classification_enabled:
            return None

        return lambda text: safe_classify(classify_text, text, "normal")

    def sessions(self) -> pl.DataFrame:
        """Sessions with persisted evidence, newest first."""
        return sessions_frame(self._wh)

    def evidence(self, session_id: str | None = None, *, user_only: bool = False) -> pl.DataFrame:
        """L0 lines (one row per stored event) of one session or of the whole scope."""
        return evidence_frame(self._wh, session_id, user_only=user_only)

    def audits(self, kind: str | None = None) -> pl.DataFrame:
        """The append-only audit log of this scope, oldest first."""
        return audits_frame(self._wh, kind)

    def export_evidence(self, directory: str | os.PathLike[str], *, format: str = "parquet") -> Path:
        """Export L0 evidence: Parquet partitioned by session, or riko L0 JSONL (re-ingestable)."""

        return export_evidence(self._ctx, Path(directory), format=format)

    # -- L1 candidates ----------------------------------------------------------------------------
    def _changed(self) -> None:
        """Canon moved: the scope's change signal recompiles the Resident, rebuilds the persisted
        projections and refreshes dense."""
        self._ctx.changed()

    def persist(self) -> int:
        """Rebuild the safe-usage projections from canonical pages and observations and write
        them to the ``projections`` table (also done after every durable mutation, so the
        table never waits for a recall). Returns how many projections the table holds."""

        return projections.refresh_projections(self._ctx)

    def _after_write(self) -> None:
        """Raw evidence landed: the change signal refreshes a served dense generation."""
        self._ctx.changed("evidence")

    def _write_batch(self) -> Any:
        """Group many writes (a Dream run, an auto-confirm pass) into one dense refresh at the end."""
        return self._ctx.changed.batch()

    def candidates(self, status: str | None = "pending") -> pl.DataFrame:
        """Candidates awaiting review (``status=None`` for all; or accepted / rejected / pending_conflict)."""
        return self._review.candidates(status)

    def candidate(self, candidate_id: str) -> dict[str, object]:
        """One candidate's stored row (every column); :class:`~riko.errors.NotFoundError` for an unknown id."""
        return self._review.candidate(candidate_id)

    def propose(self, title: str, body: str = "", type: str = "concept", **fields: object) -> str | None:
        """An operator proposal (a candidate, never canon); returns its candidate id (None when it
        repeats an existing canonical page)."""
        given: dict[str, Any] = dict(fields)  # validated by Review.propose (unknown review fields are dropped)
        return self._review.propose(title=title, body=body, type=type, source="manual", **given).candidate_id

    def confirm(self, candidate_id: str, session_id: str | None = None) -> Page:
        """Confirm a candidate as a canonical page (audited).

        Without ``session_id`` this is a management confirmation. With it, the user's own word
        is the authority: the claim must appear in that session's latest raw user message.
        """
        if session_id is not None:
            return self._review.confirm(candidate_id, authority="user", session_id=session_id)
        return self._review.confirm(candidate_id, authority="management")

    def auto_confirm(self, candidate_ids: Iterable[str] | None = None, policy: str | None = None) -> list[str]:
        """Apply ``candidate_auto_confirm`` (or ``policy``) to pending candidates; returns page ids."""
        ids = list(candidate_ids) if candidate_ids is not None else self._review.candidates("pending")["id"].to_list()
        with self._write_batch():
            return self._review.auto_confirm(ids, policy or self.config.candidate_auto_confirm)

    def reject(self, candidate_id: str) -> None:
        self._review.reject(candidate_id, authority="management")

    # -- L2 canonical Wiki --------------------------------------------------------------------------
    def create_page(self, title: str, body: str = "", type: str = "concept", **fields: object) -> Page:
        """Management: a confirmed, locked canonical page written directly.

        ``supersedes`` (an id, an id prefix or a distinctive fragment of a current page) retires
        that page in favour of the new one; ``expires`` (a date, YYYY-MM-DD) ends its validity
        after that day. A near-match is never superseded by itself: see :meth:`overlaps`.
        """

        given, old = governed_fields(self._ctx, dict(fields))
        page = self._review.create_page(title, body, type=type, **given)
        if old is not None:
            retire_superseded(self._ctx, old, page.id, authority="management")
            page = self._canon.get(page.id)
        return page

    def overlaps(self, text: str, *, exclude: Iterable[str] = ()) -> list[dict[str, object]]:
        """Current pages that closely resemble ``text`` (id, title, score; best first): the
        replacement a writer may offer with ``supersedes``, never applied automatically."""

        return overlaps(self._canon.pages(), text, exclude=exclude)

    def pages(self, *, include_forgotten: bool = False) -> pl.DataFrame:
        """Canonical pages with their lineage and review columns (forgotten ones on request)."""
        df = self._canon.frame()
        return df if include_forgotten else df.filter(pl.col("status") != "forgotten")

    def page(self, page_id: str) -> Page:
        return self._canon.get(page_id)

    def page_versions(self, page_id: str) -> pl.DataFrame:
        """Earlier versions of a page (full file text each), oldest first."""
        return self._canon.versions(page_id)

    def sync(self) -> SyncReport:
        """Apply edits people made to the page files (also run on open); see :class:`SyncReport`."""
        report = self._canon.sync()
        if report.changed:
            self._resident.refresh()
        self.last_sync = report
        return report

    def wiki_check(self) -> list[WikiFormatError]:
        """Validate every page file without changing anything; returns the errors."""
        return self._canon.check()

    def graph(self, root: str | None = None, hop: int = 1) -> "nx.DiGraph":
        """The link graph: a networkx DiGraph of pages and typed ``[[links]]`` (broken ones
        flagged); with ``root``, only the pages within ``hop`` links of it either way."""

        g = build_graph(self._canon.pages())
        if root is None:
            return g
        if root not in g:
            self._canon.get(root)  # an unknown page is a NotFoundError
            return g.subgraph(()).copy()
        return g.subgraph(neighbourhood(g, [root], hop)).copy()

    def linked_pages(self, page_ids: Iterable[str], hop: int = 1) -> list[str]:
        """Pages within ``hop`` links of any of ``page_ids`` (not those themselves), nearest
        hit first and sorted within each hit."""

        return linked(build_graph(self._canon.pages()), list(page_ids), hop)

    def correct(self, page_id: str, content: str) -> Page:
        return self._review.correct(page_id, content, authority="management")

    def replace(self, page_id: str, content: str, valid_from: datetime | str) -> Page:
        return self._review.replace(page_id, content, valid_from, authority="management")

    def supersede(self, page_id: str, by: str | None = None) -> Page:
        return self._review.supersede(page_id, by=by, authority="management")

    def forget(self, page_id: str) -> dict[str, object]:
        """Remove derived memory; raw session evidence is retained (``raw_session_retained``)."""

        return self._review.forget(page_id, authority="management",
                                   invalidate_aliases=lambda pid: invalidate_entity_aliases(self._wh, self.scope, self.clock, pid))

    def suppress(self, page_id: str, reason: str = "management-suppression") -> Page:
        return self._review.suppress(page_id, reason=reason, authority="management")

    def restore(self, page_id: str, reason: str = "management-restore") -> Page:
        return self._review.restore(page_id, reason=reason, authority="management")

    def set_sensitivity(self, page_id: str, level: str, authority: str = "management") -> Page:
        return self._review.set_sensitivity(page_id, level, authority=authority)

    def mark_evidence_sensitivity(self, ref: str, level: str, authority: str = "user") -> dict[str, object]:
        """Mark one raw L0 line (``session:<id>/event:<seq>``): tighten always, relax only as user or management."""

        self.warehouse.require_writable()
        return mark_evidence_sensitivity(self._ctx, ref, level, authority=authority)

    def propose_evidence_sensitivity(self, ref: str, level: str) -> dict[str, object]:
        """A model's proposal for one L0 line (authority ``model_proposal``): it may only tighten."""

        self.warehouse.require_writable()
        return propose_evidence_sensitivity(self._ctx, ref, level)

    def conflicts(self, state: str | None = None) -> pl.DataFrame:
        return self._review.conflicts(state)

    def resolve_conflict(self, conflict_id: str, resolution: str, valid_from: datetime | str | None = None) -> Page:
        return self._review.resolve_conflict(conflict_id, resolution, valid_from=valid_from)

    # -- L3 Resident --------------------------------------------------------------------------------
    def resident(self) -> ResidentSnapshot:
        """The bounded Resident block for the next prompt (recompiled only when the Wiki moved
        or a validity interval opened or closed since the last compile); ``.index`` renders
        the index layer beside it (see :mod:`riko.resident.index`)."""

        snap = self._resident.current()
        ctx = self._ctx
        return dataclasses.replace(snap, index_source=lambda: current_index(ctx))

    # -- aliases ------------------------------------------------------------------------------------
    def aliases(self) -> pl.DataFrame:

        return aliases_frame(self._wh, self.scope)

    def add_alias(self, entity_id: str, alias: str) -> str:
        """Management: an active alias edge from ``alias`` to an entity page."""

        self._canon.get(entity_id)
        return upsert_alias(self._wh, self.scope, self.clock, entity_id, alias, resolution_kind="management")

    def invalidate_alias(self, alias_id: str, reason: str = "management") -> None:

        invalidate_alias(self._wh, self.scope, self.clock, alias_id, reason)

    def resolve_alias(self, alias: str) -> str | None:

        return resolve_alias(self._wh, self.scope, self.clock, alias)

    def rebuild_aliases(self) -> int:

        return rebuild_aliases(self._wh, self.scope, self.clock, self._canon.pages())

    # -- Dream (L0 → L1) ----------------------------------------------------------------------------
    def dream(self, sessions: Iterable[str] | None = None,
              provider: "DreamProvider | str | Sequence[str] | None" = None, workers: int | None = None,
              progress: bool = True, **options: object) -> "DreamReport":
        """Propose candidates from every session whose evidence moved past its Dream cursor.

        Never writes canon by itself; ``candidate_auto_confirm`` applies afterwards (audited).
        Options: ``shard=(i, n)``, ``use_cache``, ``replay_only``. Returns a DreamReport.
        """

        state = self._dream_state
        state.start(self.clock.now())
        try:
            with self._write_batch():
                chosen: dict[str, Any] = dict(options)  # run_dream's keyword options, checked there
                report = run_dream(self._ctx, sessions=sessions, provider=provider, workers=workers, progress=progress,
                                   **chosen)
        except Exception as exc:
            state.finish(self.clock.now(), error=f"{type(exc).__name__}: {exc}"[:500])
            typed = storage_error(exc)
            if typed is None:
                raise
            raise typed from exc
        state.finish(self.clock.now(), report=report)
        return report

    def evidence_watermarks(self) -> dict[str, int]:
        """session id -> its last stored seq: what a scheduler watches for new evidence."""

        return self._ctx.stores.evidence.watermarks()

    def queue_dream(self) -> bool:
        """Mark a Dream of this memory queued (a host about to run one in the background);
        False when one is already queued or running here."""
        return self._dream_state.queue(self.clock.now())

    def dream_status(self) -> dict[str, object]:
        """This process's Dream state (idle / queued / running, last run and error) with a count
        of the scope's Dream jobs by status."""
        status = self._dream_state.to_dict()
        try:
            rows = self.dream_jobs().to_dicts()  # most recently updated first
        except ImportError:
            status["jobs"] = None
            return status
        by_status: dict[str, int] = {}
        for row in rows:
            by_status[str(row.get("status"))] = by_status.get(str(row.get("status")), 0) + 1
        status["jobs"] = {"total": len(rows), "by_status": by_status}
        if rows and not status["last_error"] and rows[0].get("status") == "failed":
            status["last_error"] = rows[0].get("last_error")
        finished = [r["updated_at"] for r in rows
                    if r.get("status") in ("succeeded", "failed") and r.get("updated_at") is not None]
        if finished and status["last_run_at"] is None:
            status["last_run_at"] = max(finished)
        return status

    def dream_jobs(self) -> pl.DataFrame:
        """Dream job records: id, session, cursor, status, attempts, last error."""

        return jobs_frame(self._ctx)

    def observations(self, status: str | None = None) -> pl.DataFrame:
        """Inferred observations (never canon), with anchors, confidence and status."""

        return observations_frame(self._ctx, status)

    # -- Recall (query time) ------------------------------------------------------------------------
    def recall(self, query: str, at_time: datetime | str | None = None, history: bool = False,
               **options: object) -> "RecallResult":
        """Planner-gated, multi-channel recall for one user turn; returns a RecallResult
        (``.results`` DataFrame, ``.context`` to inject, ``.trace``). Never writes canon.

        ``recall_enabled`` (default off) gates it here as on every surface (``riko recall``,
        ``POST /recall``): while it is off this raises :class:`~riko.errors.StateError`.
        """

        if not self.config.recall_enabled:
            raise StateError("recall is off (recall_enabled = false); set recall_enabled = true in riko.toml, "
                             "RIKO_RECALL_ENABLED=1 or riko.open(..., config={'recall_enabled': True})")
        return recall(self._ctx, query, at_time=at_time, history=history, **options)

    def retrieve(self, query: str, k: int = 10, channels: Iterable[str] | None = None) -> pl.DataFrame:
        """Ungated research ranking over every channel (raw evidence included), for measuring retrieval."""

        return retrieve(self._ctx, query, k=k, channels=channels)

    def index(self, progress: bool = True, force: bool = False,
              executor: "str | LocalExecutor | RayExecutor | None" = None,
              address: str | None = None) -> dict[str, object]:
        """Build or refresh the dense vector generation (incremental; only new texts are embedded).

        ``executor="ray"`` (``address``: a Ray cluster) embeds the passage batches as Ray tasks."""

        return parallel_index(self._ctx, executor, address=address, progress=progress, force=force)

    # -- purge --------------------------------------------------------------------------------------
    def purge(self, session_id: str, dry_run: bool = True, confirmation: str | None = None) -> dict[str, object]:
        """Journaled raw-session purge: a dry run returns the impact and the confirmation token."""
        if not self.read_only:

            # counts in flight land first, so the impact shows them and the purge finds every row
            flush_activation(self._ctx)
        result = purge_session(self._ctx, session_id, dry_run=dry_run, confirmation=confirmation)
        if not dry_run:
            self._drop_recall_cache()
        return result

    def _drop_recall_cache(self) -> None:
        """In-process recall indexes may hold purged text: drop them so they rebuild from disk."""

        drop_cache(self._ctx)

    # -- observations ---------------------------------------------------------------------------------
    def add_observation(self, text: str, anchors: Iterable[str], confidence: float = 0.8) -> dict[str, object]:
        """Management: an anchored observation candidate (never canon; anchors must resolve)."""

        out = ObservationStore.of(self._ctx).propose(text, list(anchors), confidence, authority="management")
        return dict(out.__dict__)

    def observation(self, observation_id: str) -> dict[str, object]:
        """One observation record (text, anchors, status …); an unknown id is a NotFoundError."""

        return ObservationStore.of(self._ctx).get(observation_id)

    def activate_observation(self, observation_id: str) -> dict[str, object]:

        return ObservationStore.of(self._ctx).activate(observation_id)

    def invalidate_observation(self, observation_id: str, reason: str = "management-invalidation") -> dict[str, object]:

        return ObservationStore.of(self._ctx).invalidate(observation_id, reason=reason)

    def suppress_observation(self, observation_id: str, reason: str = "management-suppression") -> dict[str, object]:

        return ObservationStore.of(self._ctx).suppress(observation_id, reason=reason)

    def restore_observation(self, observation_id: str, reason: str = "management-restore") -> dict[str, object]:

        return ObservationStore.of(self._ctx).restore(observation_id, reason=reason)

    def contradict_observation(self, observation_id: str, anchors: Iterable[str]) -> dict[str, object]:
        """Record contradicting evidence: an active observation weakens, or is invalidated."""

        return ObservationStore.of(self._ctx).contradict(observation_id, list(anchors))

    # -- settings, audits, journals -----------------------------------------------------------------
    def dream_settings(self) -> dict[str, object]:
        """Non-secret Dream settings saved for this scope over the config defaults (what the
        next Dream uses, and what ``GET /config`` shows)."""

        base = {name: getattr(self.config, name) for name in DREAM_SETTINGS}
        return {**base, **saved_dream_settings(self._ctx.stores.settings)}

    def dream_config(self) -> RikoConfig:
        """This memory's configuration with the scope's saved Dream settings applied."""

        saved = saved_dream_settings(self._ctx.stores.settings)
        return self.config.replace(**saved) if saved else self.config

    def set_dream_settings(self, **settings: object) -> dict[str, object]:
        """Persist non-secret Dream settings (snake or camelCase names; validated like config;
        a secret-shaped name or value is refused); audited. Returns the settings now in force."""

        changes = dream_changes(settings)
        saved = {**saved_dream_settings(self._ctx.stores.settings), **changes}
        self.config.replace(**saved)  # validates: URLs, credential reference names, bounds
        save_dream_settings(self._ctx.stores.settings, saved, list(changes))
        return self.dream_settings()

    def audit(self, kind: str, authority: str, target: str | None = None, detail: object = None) -> int:
        """Append one audit row (for hosts recording their own governed actions)."""
        with self._wh.transaction():
            return self._wh.audit(kind, authority, target, detail)

    def purges(self, *, impact: bool = False) -> pl.DataFrame:
        """The purge journal of this scope (sanitized: ids, statuses and times only; ``impact=True``
        adds each purge's impact summary, counts without content)."""
        return purges_frame(self._wh, impact=impact)

    @property
    def lock(self) -> Turn:
        """The re-entrant lock every read and write of this memory goes under: holding it is a
        unit of work on the scope's file (threads take turns; other processes wait)."""
        return self._wh.turn("lock")


# Not units of work of their own: lifecycle, and Dream (the runner takes turns step by step,
# so a long provider call never holds the file).
_NOT_UNITS = frozenset({"close", "hold", "dream", "lock", "warehouse"})


def _as_unit(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def unit(self: Memory, *args: Any, **kwargs: Any) -> Any:
        try:
            with self._wh.unit(name):
                return method(self, *args, **kwargs)
        except Exception as exc:
            typed = storage_error(exc)
            if typed is None:
                raise
            raise typed from exc

    return unit


for _name, _method in list(vars(Memory).items()):
    if not _name.startswith("_") and _name not in _NOT_UNITS and inspect.isfunction(_method):
        setattr(Memory, _name, _as_unit(_name, _method))
