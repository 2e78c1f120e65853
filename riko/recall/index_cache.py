"""The per-Memory recall cache: recall documents and lexical indexes, refreshed by revision.

Recall must not re-read the stores on every call. Every committed write moves the database
file or its write-ahead log, so while neither moved (checked with two ``stat`` calls) the
cache is current; otherwise one query reads a revision (max audit id, evidence row count
and max row id, an observation signature) and only the part that moved is rebuilt.
Evidence is append-only, so new L0 lines are tokenised and appended to the existing index;
deletions (purge) and edits of audited state rebuild what they touch.
"""

from __future__ import annotations

import bisect

import atexit
import json
import math
import os
import threading
import time
import weakref
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any


from ..clock import from_ms, utc
from ..contracts import evidence_ref
from ..ingest.keep import KEPT_TOOL_TYPES, Keeper
from ..stores.revision import recall_probe
from ..wiki import Page
from .activation import ActivationBuffer
from .chunking import chunk_sentences
from .eligibility import DocTable, LineTable
from .fusion import fact_fingerprint
from .gate import RecallDoc
from .projections import Projection, observation_projection, page_projection, persist_projections
from .sparse import SparseBM25
from ..language.text import normalize, tokenize
from ..graph import build_graph

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from ..context import ScopeContext

__all__ = ["RecallCache", "cache_for", "flush_activation", "CHUNK_CHARS", "TOOL_CHUNK_CHARS", "PROBE_INTERVAL_S",
           "page_text",
           "evidence_sensitivity"]

#: Long user messages and assistant prose are indexed (and embedded) as sentence-aligned
#: chunks of this size.
CHUNK_CHARS = 480
#: Tool output is cut longer: a value and the label that explains it must stay in one chunk.
TOOL_CHUNK_CHARS = 1200
#: Lines of one session further apart than this are separate events, not one exchange, and
#: lend each other no context (MemDaily's statements, hours apart, lost .13 hit@1 without
#: the rule; REALTALK's replies, minutes apart, keep their gain: hit@10 .677 at 15 min, .680
#: at an hour, .670 at 6 min).
NEIGHBOUR_GAP_MS = 15 * 60_000
_FINGERPRINTS_KEPT = 100_000
_DOCS_KEPT = 50_000
#: Even when the database files show no write, the revision is re-read at least this often
#: (a safety net: every committed write already moves the files).
PROBE_INTERVAL_S = 10.0

# Contexts whose cache was built, so counts pending at interpreter exit are still written.
_OPEN: "weakref.WeakSet[Any]" = weakref.WeakSet()


def cache_for(ctx: "ScopeContext") -> "RecallCache":
    """The recall cache of the scope context ``ctx`` (created on first use, dropped with it)."""
    with ctx.recall_cache_guard:
        cache = ctx.recall_cache
        if cache is None:
            cache = ctx.recall_cache = RecallCache(ctx)
            _OPEN.add(ctx)
        return cache


def drop_cache(ctx: "ScopeContext") -> None:
    """Forget ``ctx``'s in-process indexes (after a purge they may hold purged text)."""
    with ctx.recall_cache_guard:
        ctx.recall_cache = None


def flush_activation(ctx: "ScopeContext") -> "RecallCache | None":
    """Write the recall counts ``ctx`` holds in memory to its store now (a no-op when none);
    the cache that held them, if any."""
    with ctx.recall_cache_guard:
        cache = ctx.recall_cache
    if cache is not None:
        cache.flush_activation()
    return cache


#: Longest wait for the activation writer thread when a memory closes or the process exits.
WRITER_EXIT_WAIT_S = 10.0


def finish_activation(ctx: "ScopeContext") -> None:
    """Flush the pending counts, then wait for the writer thread to end: a memory that closes
    leaves no thread of its own inside the database (a daemon thread still in DuckDB's C++ code
    when the interpreter exits aborts the process)."""
    cache = flush_activation(ctx)
    if cache is not None:
        cache.wait_for_writes(WRITER_EXIT_WAIT_S)


@atexit.register
def _flush_all() -> None:
    """Counts still pending when the interpreter exits are written by memories left open."""
    for ctx in list(_OPEN):
        cache = ctx.recall_cache
        if cache is None:
            continue
        try:
            cache.flush_activation()
        except Exception:
            pass  # a closed memory: its last second of counts is lost, and truth never was at stake
        cache.wait_for_writes(WRITER_EXIT_WAIT_S)


def page_text(page: Page) -> str:
    """What a recalled page says: its title and its gist (description, else body, else nothing)."""
    gist = page.description or page.body
    if not gist or normalize(gist) == normalize(page.title):
        return page.title
    return f"{page.title}: {gist}"


def evidence_sensitivity(value: str | None, origin: str | None, classification_enabled: bool) -> str | None:
    """The sensitivity an L0 line is read with (None = unclassified, which fails closed).

    A marker written by capture classification (``deterministic_rule``) is suspended while
    ``evidence_classification_enabled`` is off; user, management, model-proposal and
    pre-origin markers stay in force at every setting.
    """
    if value is None:
        return None
    if origin == "deterministic_rule" and not classification_enabled:
        return None
    return value


@dataclass
class PageSide:
    """Canonical pages as recall documents, with their lexical index and projections."""

    signature: Any = None
    ids: list[str] = field(default_factory=list)
    docs: dict[str, RecallDoc] = field(default_factory=dict)
    pages: dict[str, Page] = field(default_factory=dict)
    folded: list[str] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    index: SparseBM25 = field(default_factory=SparseBM25)
    fingerprints: dict[str, str] = field(default_factory=dict)
    projections: dict[str, Projection] = field(default_factory=dict)
    graph: Any = None
    table: DocTable | None = None  # eligibility, built on first use
    forgotten_sources: list[str] = field(default_factory=list)  # the L0 lines forgotten pages stood on
    sources_key: Any = None
    position: dict[str, int] | None = None
    sources: Any = None  # (page index, line index) pairs and the lines behind forgotten pages
    live: Any = None  # (the allow-mask of pages not forgotten,), built on first use


@dataclass
class EvidenceSide:
    """Kept L0 lines (user, assistant, tool) as sentence-aligned chunks under one appendable
    BM25 index; each line keeps its role and, for tool lines, the tool's name."""

    row_count: int = 0
    max_rowid: int = -1
    line_keys: list[tuple[str, int]] = field(default_factory=list)
    line_role: list[str] = field(default_factory=list)
    line_tool: list[str | None] = field(default_factory=list)
    keeper: Keeper = field(default_factory=Keeper)
    line_of: dict[tuple[str, int], int] = field(default_factory=dict)
    ref_line: dict[str, int] = field(default_factory=dict)
    line_time_ms: list[int | None] = field(default_factory=list)
    line_chunks: list[list[int]] = field(default_factory=list)
    # The session's lines in seq order and each line's previous / next line there (-1 at an
    # end), for scoring a line with its neighbours as context.
    session_lines: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    prev_line: list[int] = field(default_factory=list)
    next_line: list[int] = field(default_factory=list)
    chunk_line: list[int] = field(default_factory=list)
    chunk_ids: list[str] = field(default_factory=list)
    chunk_of: dict[str, int] = field(default_factory=dict)
    chunk_texts: list[str] = field(default_factory=list)
    folded: dict[int, str] = field(default_factory=dict)  # normalised chunk texts, as read
    docs: dict[tuple[int, int], RecallDoc] = field(default_factory=dict)  # (line, chunk), as read
    index: SparseBM25 = field(default_factory=SparseBM25)
    # Audited, mutable state per line; re-read when the audit log moves.
    sensitivity: list[str | None] = field(default_factory=list)
    invalidated: list[bool] = field(default_factory=list)
    suppressed_refs: set[str] = field(default_factory=set)
    meta_audit: int = -1
    table: LineTable = field(default_factory=LineTable)


    def link(self, session_id: str, seq: int, line: int, time_ms: int | None = None) -> None:
        """Place a new ``line`` (with its time) among its session's lines by seq; lines next to
        each other in seq are neighbours when at most NEIGHBOUR_GAP_MS apart (or untimed)."""
        self.line_time_ms.append(time_ms)
        self.prev_line.append(-1)
        self.next_line.append(-1)
        ordered = self.session_lines.setdefault(session_id, [])
        if not ordered or ordered[-1][0] < seq:
            if ordered:
                self._pair(ordered[-1][1], line)
            ordered.append((seq, line))
            return
        bisect.insort(ordered, (seq, line))  # out of seq order: relink the session
        for _, member in ordered:
            self.prev_line[member] = self.next_line[member] = -1
        for (_, before), (_, after) in zip(ordered, ordered[1:]):
            self._pair(before, after)

    def _pair(self, before: int, after: int) -> None:
        a, b = self.line_time_ms[before], self.line_time_ms[after]
        if a is None or b is None or abs(b - a) <= NEIGHBOUR_GAP_MS:
            self.prev_line[after], self.next_line[before] = before, after

    def neighbours(self, line: int) -> tuple[int, ...]:
        """The lines just before and after ``line`` in its session (by seq)."""
        return tuple(n for n in (self.prev_line[line], self.next_line[line]) if n >= 0)


@dataclass
class ObservationSide:
    signature: Any = None
    ids: list[str] = field(default_factory=list)
    docs: dict[str, RecallDoc] = field(default_factory=dict)
    folded: list[str] = field(default_factory=list)
    index: SparseBM25 = field(default_factory=SparseBM25)
    projections: dict[str, Projection] = field(default_factory=dict)
    table: DocTable | None = None
    anchors: Any = None
    anchors_key: Any = None
    position: dict[str, int] | None = None


class RecallCache:
    """Documents, indexes and activation scores of one Memory, kept in step with its stores."""

    def __init__(self, ctx: "ScopeContext") -> None:
        self._ctx = weakref.proxy(ctx)
        self.wh = ctx.wh
        self.stores = ctx.stores
        self.scope_key = ctx.scope.key
        self.config = ctx.config
        self.lock = threading.RLock()
        self.audit_id = -1
        self.pages = PageSide()
        self.evidence = EvidenceSide()
        self.observations = ObservationSide()
        self.activation: dict[str, float] = {}
        self.revision: tuple[Any, ...] = ()
        self.dense: dict[tuple[str, int], Any] = {}
        self.provider: Any = None
        self.provider_error: str | None = None
        self.provider_ready = False
        self.dense_revision: tuple[tuple[Any, ...], str] | None = None
        self.pending_activation = ActivationBuffer()
        #: counts handed to the writer thread and not yet written (changed only inside a unit of work)
        self._in_flight: dict[str, tuple[int, datetime | None]] | None = None
        self._writer: threading.Thread | None = None
        self._fingerprints: dict[str, str] = {}
        self._stamp_seen: Any = None
        self._probed_at = -math.inf

    # -- revision -------------------------------------------------------------------------
    def _stamp(self) -> Any:
        """Size and modification time of the database file and its write-ahead log.

        Any committed write changes one of them. None inside an open transaction of this
        memory's connection: those uncommitted writes are visible here but not on disk.
        """
        if getattr(self.wh, "_tx_depth", 0):
            return None
        stamp: list[tuple[int, int] | None] = []
        for path in (self.wh.path, self.wh.path.with_name(self.wh.path.name + ".wal")):
            try:
                st = os.stat(path)
            except OSError:
                stamp.append(None)
            else:
                stamp.append((st.st_size, st.st_mtime_ns))
        return tuple(stamp)

    def _probe(self) -> tuple[int, int, int, Any]:
        return recall_probe(self.wh)

    def refresh(self) -> tuple[Any, ...]:
        """Bring every part up to the stores' current state; returns the revision."""
        with self.lock:
            stamp, now = self._stamp(), time.monotonic()
            if stamp is not None and stamp == self._stamp_seen and now - self._probed_at < PROBE_INTERVAL_S:
                return self.revision
            self._stamp_seen, self._probed_at = stamp, now  # taken first: a write from here on is seen next time
            audit_id, ev_count, ev_rowid, obs_sig = self._probe()
            audit_moved = audit_id != self.audit_id
            if audit_moved:
                self._refresh_pages()
            self._refresh_evidence(ev_count, ev_rowid)
            if audit_moved or self.evidence.meta_audit != audit_id:
                self._refresh_evidence_meta(audit_id)
            if obs_sig != self.observations.signature:
                self._refresh_observations(obs_sig)
            if audit_moved:
                self._load_activation()
                self._persist_projections()
            self.audit_id = audit_id
            self.revision = (audit_id, ev_count, ev_rowid, obs_sig, self.pages.signature)
            return self.revision

    # -- pages ----------------------------------------------------------------------------
    def _page_signature(self) -> Any:
        return self.stores.pages.signature()

    def _refresh_pages(self) -> None:
        signature = (
            self._page_signature(),
            self.stores.overlay.contested_signature(),
            self.stores.overlay.suppressed_signature(),
        )
        if signature == self.pages.signature:
            return
        ctx = self._ctx
        every = ctx.canon.pages(include_forgotten=True)
        # forgotten pages stay searchable for history recall, which shows only that they were
        # forgotten and when; a purged page (its text gone) has nothing left to find
        pages = [p for p in every if p.status != "forgotten" or p.description or p.body]
        store = self.stores.pages
        reasons = store.supersede_reasons()
        forgotten_at = store.forgotten_times() if any(p.status == "forgotten" for p in pages) else {}
        contested = {r[0] for r in signature[1]}
        suppressed = {r[0] for r in signature[2]}
        side = PageSide(signature=signature)
        tokens: list[list[str]] = []
        for page in pages:
            if page.type == "entity" and page.category == "entity":
                # an entity page indexes facts rather than stating one: the graph walks through it,
                # recall never injects it (its facts are what answer)
                if page.status != "forgotten":
                    side.pages[page.id] = page
                continue
            forgotten = page.status == "forgotten"
            projection = page_projection(page)
            superseded = None
            if page.superseded_by or page.status == "superseded":
                superseded = reasons.get(page.id) or "other"
            doc = RecallDoc(
                doc_id=page.id, kind="page", text=page_text(page), title=page.title, page_type=page.type,
                status="confirmed" if page.status == "superseded" else page.status, consent=page.consent,
                sensitivity=page.sensitivity, disclosure=projection.disclosure,
                suppressed=page.usage_policy == "suppressed" or page.id in suppressed,
                contested=page.id in contested, superseded=superseded, valid_from=page.valid_from,
                valid_to=page.valid_to, observed_at=page.observed_at, refs=tuple(page.sources),
                topic_tags=projection.topic_tags, superseded_by=page.superseded_by,
                forgotten_at=_aware(forgotten_at.get(page.id)) if forgotten else None,
            )
            body = "\n".join([page.title, page.description, page.body, " ".join(page.tags)])
            side.ids.append(page.id)
            side.docs[page.id] = doc
            side.raw.append(body)
            side.folded.append(normalize(body))
            tokens.append(tokenize(body))
            if forgotten:
                continue  # not in the link graph, the projections or the fact fingerprints
            side.pages[page.id] = page
            side.fingerprints[page.id] = fact_fingerprint(page.description or page.summary(), page_type=page.type)
            side.projections[page.id] = projection
        side.index.add(tokens)
        side.forgotten_sources = sorted({ref for p in every if p.status == "forgotten" for ref in p.sources})
        self.pages = side

    def graph(self) -> "nx.DiGraph":
        """The Wiki link graph of the cached pages (built on first use per page revision)."""
        with self.lock:
            if self.pages.graph is None:

                self.pages.graph = build_graph(self.pages.pages.values())
            return self.pages.graph

    # -- evidence -------------------------------------------------------------------------
    def _refresh_evidence(self, count: int, max_rowid: int) -> None:
        side = self.evidence
        if count == side.row_count and max_rowid == side.max_rowid:
            return
        lines = self.stores.evidence
        if side.row_count + lines.count_after(side.max_rowid) != count:
            side = self.evidence = EvidenceSide()  # rows were removed: start over
        enabled = bool(self.config.evidence_classification_enabled)
        rows = lines.recall_lines(side.max_rowid, KEPT_TOOL_TYPES)
        tokens: list[list[str]] = []
        keeper = side.keeper
        for session_id, seq, time_ms, text, value, origin, invalid, is_user, etype, role, name, call_id in rows:
            key = (session_id, int(seq))
            if key in side.line_of:
                continue
            unit = keeper.unit(etype, bool(is_user), role, text, name=name, call_id=call_id)
            if unit is None:
                continue
            line = len(side.line_keys)
            ref = evidence_ref(session_id, int(seq))
            side.line_keys.append(key)
            side.line_role.append(unit.role)
            side.line_tool.append(unit.tool)
            side.line_of[key] = line
            side.link(session_id, key[1], line, None if time_ms is None else int(time_ms))
            side.ref_line[ref] = line
            side.sensitivity.append(evidence_sensitivity(value, origin, enabled))
            side.invalidated.append(bool(invalid))
            size = TOOL_CHUNK_CHARS if unit.role == "tool" else CHUNK_CHARS
            chunks = [c for _, _, c in chunk_sentences(unit.text, max_chars=size)] or [unit.text]
            ids = [ref] if len(chunks) == 1 else [f"{ref}#{n}" for n in range(1, len(chunks) + 1)]
            members = []
            for chunk_id, chunk in zip(ids, chunks):
                index = len(side.chunk_ids)
                side.chunk_ids.append(chunk_id)
                side.chunk_of[chunk_id] = index
                side.chunk_texts.append(chunk)
                side.chunk_line.append(line)
                members.append(index)
                tokens.append(tokenize(chunk))
            side.line_chunks.append(members)
        side.index.add(tokens)
        side.row_count = count
        side.max_rowid = max_rowid

    def _refresh_evidence_meta(self, audit_id: int) -> None:
        side = self.evidence
        enabled = bool(self.config.evidence_classification_enabled)
        side.docs.clear()  # documents carry the audited state re-read here
        side.sensitivity = [None] * len(side.line_keys)
        side.invalidated = [False] * len(side.line_keys)
        for session_id, seq, value, origin, invalid in self.stores.evidence.marked_lines():
            line = side.line_of.get((session_id, int(seq)))
            if line is not None:
                side.sensitivity[line] = evidence_sensitivity(value, origin, enabled)
                side.invalidated[line] = bool(invalid)
        side.suppressed_refs = self.stores.overlay.suppressed_ids("evidence")
        side.meta_audit = audit_id

    def evidence_doc(self, line: int, chunk: int | None = None, *, keep: bool = True) -> RecallDoc:
        """The recall document of one L0 line, showing ``chunk`` (default: its first chunk).

        ``keep=False`` (a pass over every line) leaves the per-query document cache alone.
        """
        side = self.evidence
        index = side.line_chunks[line][0] if chunk is None else chunk
        doc = side.docs.get((line, index))
        if doc is not None:
            return doc
        session_id, seq = side.line_keys[line]
        ref = evidence_ref(session_id, seq)
        time_ms = side.line_time_ms[line]
        doc = RecallDoc(
            doc_id=ref, kind="evidence", text=side.chunk_texts[index], sensitivity=side.sensitivity[line],
            suppressed=ref in side.suppressed_refs, correction_invalidated=side.invalidated[line],
            observed_at=None if time_ms is None else from_ms(time_ms), refs=(ref,), session_id=session_id,
            seq=seq, activation=self.activation.get(ref, 0.0), role=side.line_role[line], tool=side.line_tool[line],
        )
        if keep:
            if len(side.docs) >= _DOCS_KEPT:
                side.docs.clear()
            side.docs[(line, index)] = doc
        return doc

    def folded_chunk(self, chunk: int) -> str:
        """The normalised text of one evidence chunk (folded on first use, then kept)."""
        side = self.evidence
        text = side.folded.get(chunk)
        if text is None:
            text = side.folded[chunk] = normalize(side.chunk_texts[chunk])
        return text

    def line_of_chunk(self, chunk_id: str) -> int | None:
        index = self.evidence.chunk_of.get(chunk_id)
        return None if index is None else self.evidence.chunk_line[index]

    # -- observations ---------------------------------------------------------------------
    def _refresh_observations(self, signature: Any) -> None:
        names, records = self.stores.observations.recall_records()
        side = ObservationSide(signature=signature)
        suppressed = self.stores.overlay.suppressed_ids("observation")
        tokens = []
        for values in records:
            row = dict(zip(names, values))
            projection = observation_projection(row)
            anchors = _json_list(row["anchors"])
            doc = RecallDoc(
                doc_id=row["id"], kind="observation", text=row["text"] or "", sensitivity=row["sensitivity"],
                disclosure=projection.disclosure, suppressed=row["id"] in suppressed,
                valid_from=_aware(row["valid_from"]), valid_to=_aware(row["valid_to"]),
                observation_status=row["status"], refs=tuple(str(a) for a in anchors),
                topic_tags=projection.topic_tags,
            )
            side.ids.append(doc.doc_id)
            side.docs[doc.doc_id] = doc
            side.folded.append(normalize(doc.text))
            side.projections[doc.doc_id] = projection
            tokens.append(tokenize(doc.text))
        side.index.add(tokens)
        self.observations = side
        self._persist_projections()

    # -- activation and projections --------------------------------------------------------
    def count_recalls(self, doc_ids: list[str], when: datetime | None) -> None:
        """Count one recall of each record: in memory now, in the store with the next write.

        Writes come at most once a second, on a writer thread: the recall that finds one due
        hands it the counts and returns. A failed write puts its counts back for the next one.
        """
        with self.lock:
            self.pending_activation.add(doc_ids, when)
            for doc_id in doc_ids:
                count = round(math.expm1(self.activation.get(doc_id, 0.0))) + 1
                self.activation[doc_id] = math.log1p(count)
                if doc_id in self.pages.docs:
                    self.pages.docs[doc_id].activation = self.activation[doc_id]
                line = self.evidence.ref_line.get(doc_id)
                if line is not None:
                    for chunk in self.evidence.line_chunks[line]:
                        kept = self.evidence.docs.get((line, chunk))
                        if kept is not None:
                            kept.activation = self.activation[doc_id]
            if self.pending_activation.due() and self._in_flight is None:
                batch = self._in_flight = self.pending_activation.take()
                self._writer = threading.Thread(target=self._write_in_background, args=(batch,),
                                                name=f"riko-activation-{self.scope_key}", daemon=True)
                self._writer.start()

    def wait_for_writes(self, timeout: float | None = None) -> None:
        """Return once the writer thread's last write has ended (or ``timeout`` seconds passed).
        Call it from outside any unit of work of this scope: the writer waits for the unit, so
        a holder of it would wait for the timeout."""
        writer = self._writer
        if writer is not None and writer is not threading.current_thread():
            writer.join(timeout)

    def _write_in_background(self, batch: dict[str, tuple[int, datetime | None]]) -> None:
        """The writer thread: write ``batch`` unless a flush took it back first. It waits for
        the scope's unit of work, so it writes between recalls, never inside one."""
        try:
            with self.wh.unit("recall"):
                if self._in_flight is not batch:
                    return  # a flush put these counts back and wrote them
                self._in_flight = None
                self._write_counts(batch)
        except Exception:
            pass  # the counts are pending again; the next due write retries them

    def flush_activation(self) -> None:
        """Write every pending recall count now (those handed to the writer thread too)."""
        with self.lock:
            if (len(self.pending_activation) or self._in_flight is not None) and not self.wh.read_only:
                self._write_activation()

    def _write_activation(self) -> None:
        """Write every pending count now, taking back a batch the writer thread has not begun."""
        with self.wh.unit("recall"):
            batch, self._in_flight = self._in_flight, None
            if batch is not None:
                self.pending_activation.restore(batch)
            self._write_counts(None)

    def _write_counts(self, batch: dict[str, tuple[int, datetime | None]] | None) -> None:
        """Write ``batch`` (default: the pending counts) inside a unit of work; when nothing
        else had written since the last look, the cache stays current (this write changes no
        recalled document)."""
        seen = self._stamp_seen
        current = seen is not None and self._stamp() == seen
        self.pending_activation.write(self.stores.overlay, batch)
        if current and self._stamp_seen == seen:
            self._stamp_seen = self._stamp()

    def _load_activation(self) -> None:
        if (len(self.pending_activation) or self._in_flight is not None) and not self.wh.read_only:
            try:
                self._write_activation()
            except Exception:
                pass  # the counts stay pending; the scores below lag by them until the next write
        self.activation = self.stores.overlay.activation()
        for doc in self.pages.docs.values():
            doc.activation = self.activation.get(doc.doc_id, 0.0)
        self.evidence.docs.clear()

    def _persist_projections(self) -> None:
        """Keep the projections table equal to what recall uses (skipped when read-only)."""
        if self.wh.read_only:
            return
        merged = [*self.pages.projections.values(), *self.observations.projections.values()]
        persist_projections(self._ctx, merged, self._ctx.clock.now())

    def projection(self, doc_id: str) -> Projection | None:
        return self.pages.projections.get(doc_id) or self.observations.projections.get(doc_id)

    # -- eligibility tables -------------------------------------------------------------------
    def page_table(self) -> DocTable:
        """Eligibility of the cached pages, in index order (rebuilt with the pages)."""
        side = self.pages
        if side.table is None:
            side.table = DocTable.build([side.docs[i] for i in side.ids])
        return side.table

    def observation_table(self) -> DocTable:
        side = self.observations
        if side.table is None:
            side.table = DocTable.build([side.docs[i] for i in side.ids])
        return side.table

    def line_table(self) -> LineTable:
        """Eligibility of the cached L0 lines (extended as lines are appended)."""
        side = self.evidence
        suppressed = [side.ref_line[r] for r in side.suppressed_refs if r in side.ref_line]
        side.table.update(side.meta_audit, suppressed, side.invalidated, side.line_time_ms, side.chunk_line)
        return side.table

    def live_page_mask(self) -> Any:
        """The pages that are not forgotten, as an allow-mask in index order (None when none is
        forgotten): what the ungated ``retrieve`` ranks."""
        import numpy as np

        side = self.pages
        if side.live is None:
            live = np.array([side.docs[i].status != "forgotten" for i in side.ids], dtype=bool)
            side.live = (None if live.all() else live,)
        return side.live[0]

    def page_position(self, page_id: str) -> int | None:
        """The index position of a cached page (None when it is not cached)."""
        side = self.pages
        if side.position is None:
            side.position = {pid: i for i, pid in enumerate(side.ids)}
        return side.position.get(page_id)

    def observation_position(self, observation_id: str) -> int | None:
        """The index position of a cached observation (None when it is not cached)."""
        side = self.observations
        if side.position is None:
            side.position = {oid: i for i, oid in enumerate(side.ids)}
        return side.position.get(observation_id)

    def page_sources(self) -> tuple[Any, Any, Any]:
        """``(page positions, line positions, forgotten lines)``: which cached L0 line each
        page stands on, as parallel arrays, and the lines behind forgotten pages."""
        import numpy as np

        side, lines = self.pages, self.evidence
        key = len(lines.line_keys)
        if side.sources is None or side.sources_key != key:
            pairs = [(i, lines.ref_line[ref]) for i, pid in enumerate(side.ids) if pid in side.pages
                     for ref in side.pages[pid].sources if ref in lines.ref_line]
            gone = [lines.ref_line[ref] for ref in side.forgotten_sources if ref in lines.ref_line]
            side.sources = (np.array([p for p, _ in pairs], dtype=np.int64), np.array([ln for _, ln in pairs], dtype=np.int64),
                            np.array(gone, dtype=np.int64))
            side.sources_key = key
        return side.sources

    def observation_anchors(self) -> tuple[Any, Any]:
        """``(observation positions, line positions)``: the cached L0 lines each observation cites."""
        import numpy as np

        side, lines = self.observations, self.evidence
        key = len(lines.line_keys)
        if side.anchors is None or side.anchors_key != key:
            pairs = [(i, lines.ref_line[ref]) for i, oid in enumerate(side.ids)
                     for ref in side.docs[oid].refs if ref in lines.ref_line]
            side.anchors = (np.array([o for o, _ in pairs], dtype=np.int64), np.array([ln for _, ln in pairs], dtype=np.int64))
            side.anchors_key = key
        return side.anchors

    # -- lookups --------------------------------------------------------------------------
    def doc(self, doc_id: str, chunk: int | None = None) -> RecallDoc | None:
        """The recall document for a page, observation or evidence id (None when unknown)."""
        found = self.pages.docs.get(doc_id) or self.observations.docs.get(doc_id)
        if found is not None:
            return found
        line = self.evidence.ref_line.get(doc_id)
        return None if line is None else self.evidence_doc(line, chunk)

    def fingerprint(self, doc: RecallDoc) -> str | None:
        """The fact fingerprint recall de-duplicates by (kept per text once computed)."""
        if doc.kind == "page":
            return self.pages.fingerprints.get(doc.doc_id)
        found = self._fingerprints.get(doc.text)
        if found is None:
            if len(self._fingerprints) >= _FINGERPRINTS_KEPT:
                self._fingerprints.clear()
            found = self._fingerprints[doc.text] = fact_fingerprint(doc.text)
        return found

    def kind_of(self, doc_id: str) -> str | None:
        if doc_id in self.pages.docs:
            return "page"
        if doc_id in self.observations.docs:
            return "observation"
        return "evidence" if doc_id in self.evidence.ref_line else None


def _json_list(value: Any) -> list[Any]:
    if not value:
        return []
    try:
        data = json.loads(value)
    except (TypeError, ValueError):
        return []
    return list(data) if isinstance(data, list) else []


def _aware(value: datetime | None) -> datetime | None:
    return None if value is None else utc(value)
