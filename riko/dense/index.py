"""DenseIndex: blue/green vector generations on disk, searched exactly or with hnswlib.

A build assembles a private generation (reusing vectors of unchanged texts), validates every
vector, writes it beside the active one and promotes it by replacing the ``ACTIVE`` pointer.
The active generation is never touched while a provider call is in flight, so a failed build
leaves the previous generation loaded and searchable.

A refresh of a loaded generation is a delta: only new or changed texts are embedded, the new
rows go into an appended segment (the older segment files are hard-linked, not rewritten),
superseded rows are listed as dead, and the loaded rows and HNSW graph are extended in place
of being rebuilt. When deltas pile up the generation is compacted into one segment.
"""

from __future__ import annotations

import operator
import secrets
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ..clock import Clock, as_clock, iso
from ..errors import ConfigError, InvalidArgumentError, ProviderError
from ..progress import progress_enabled
from .providers import EmbeddingProvider, normalize_rows
from .store import (
    DELTA_PREFIX,
    GENERATIONS_DIR,
    INVALIDATION_REASONS,
    KINDS,
    POINTER_NAME,
    SCHEMA_VERSION,
    Generation,
    InvalidGeneration,
    Segment,
    dequantize,
    quantize,
    read_generation,
    read_meta,
    read_pointer,
    remove_tree,
    text_key,
    write_generation,
    write_pointer,
)

__all__ = ["DenseDoc", "DenseIndex"]

_KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class DenseDoc:
    """One document to embed: a canonical page, an evidence turn or an observation."""

    doc_id: str
    text: str
    kind: str

    def __post_init__(self) -> None:
        if not isinstance(self.doc_id, str) or not self.doc_id:
            raise ConfigError("doc_id", "a dense document needs a non-empty string id")
        if not isinstance(self.text, str):
            raise ConfigError("text", f"document {self.doc_id!r} text must be a string")
        if self.kind not in KINDS:
            raise ConfigError("kind", f"document {self.doc_id!r} has kind {self.kind!r}; expected one of {KINDS}")


class _Graph:
    """An hnswlib graph shared by successive views of one generation line; labels are row numbers.

    A refresh adds the new rows and marks superseded rows deleted instead of rebuilding.
    A view that was replaced keeps searching it and drops labels it does not know.
    """

    def __init__(self, dimension: int, matrix: np.ndarray, rows: np.ndarray) -> None:
        import hnswlib

        self.lock = threading.Lock()
        self.graph = hnswlib.Index(space="ip", dim=dimension)
        self.capacity = max(16, int(len(rows) * 1.25))
        self.graph.init_index(max_elements=self.capacity, M=16, ef_construction=200, random_seed=100)
        if len(rows):
            self.graph.add_items(matrix[rows], rows)
        self.size = len(rows)
        self.deleted = 0

    def extend(self, matrix: np.ndarray, rows: np.ndarray, dead: np.ndarray) -> None:
        with self.lock:
            if len(rows):
                if self.size + len(rows) > self.capacity:
                    self.capacity = max(self.size + len(rows), int(self.capacity * 1.5))
                    self.graph.resize_index(self.capacity)
                self.graph.add_items(matrix, rows)
                self.size += len(rows)
            for row in dead.tolist():
                self.graph.mark_deleted(int(row))
            self.deleted += len(dead)


class _Rows:
    """A grow-only float32 row buffer: a view reads its first ``n`` rows, later rows are appended.

    ``by_hash`` maps a text hash to a row holding its vector (any row, dead ones included: a
    vector stays valid for its text), so a refresh reuses vectors without a scan.
    """

    def __init__(self, matrix: np.ndarray, hashes: list[str]) -> None:
        self.data = matrix
        self.used = len(matrix)
        self.by_hash = {h: i for i, h in enumerate(hashes)}

    def truncate(self, n: int) -> None:
        """Forget rows past ``n`` (left by an attempt that was never promoted)."""
        if self.used > n:
            self.by_hash = {h: i for h, i in self.by_hash.items() if i < n}
            self.used = n

    def append(self, rows: np.ndarray, hashes: list[str]) -> _Rows:
        """Append ``rows``; returns the buffer holding them (itself, or a grown copy)."""
        target = self
        if self.used + len(rows) > len(self.data):
            grown = np.empty((max(self.used + len(rows), int(len(self.data) * 1.25) + 64), self.data.shape[1]),
                             dtype=np.float32)
            grown[: self.used] = self.data[: self.used]
            target = _Rows(grown[:0], [])
            target.data, target.used, target.by_hash = grown, self.used, dict(self.by_hash)
        target.data[target.used : target.used + len(rows)] = rows
        for offset, digest in enumerate(hashes):
            target.by_hash.setdefault(digest, target.used + offset)
        target.used += len(rows)
        return target


@dataclass
class _Header:
    generation_id: str
    model: str
    dimension: int
    source_revision: str
    created_at: str


class _Loaded:
    """A generation made searchable: normalised float32 rows, liveness, kind codes, optional graph.

    Views of successive delta refreshes share the row buffer and the graph; each view has its
    own row count, live mask and id maps, so a search on an older view stays consistent.
    """

    def __init__(self, header: _Header, rows: _Rows, n: int, doc_ids: list[str], kind_codes: np.ndarray,
                 hashes: list[str], live: np.ndarray, segments: list[Segment], dead: np.ndarray,
                 graph: _Graph | None, row_of: dict[str, int] | None = None) -> None:
        self.header, self.rows, self.n = header, rows, n
        self.doc_ids, self.kind_codes, self.hashes = doc_ids, kind_codes, hashes
        self.live, self.segments, self.dead, self.graph = live, segments, dead, graph
        self.live_rows = np.flatnonzero(live)
        self.count = len(self.live_rows)
        self.row_of = row_of if row_of is not None else {doc_ids[i]: i for i in self.live_rows.tolist()}
        self.masked = False  # rows hidden by ``restrict`` are still alive in the graph

    @property
    def matrix(self) -> np.ndarray:
        return self.rows.data[: self.n]

    @classmethod
    def from_generation(cls, gen: Generation, exact_threshold: int) -> _Loaded:
        matrix = normalize_rows(gen.vectors())
        header = _Header(gen.generation_id, gen.model, gen.dimension, gen.source_revision, gen.created_at)
        live = gen.live
        kind_codes = np.array([_KIND_CODE[k] for k in gen.column("kinds")], dtype=np.uint8)
        segments = [Segment(seg.prefix, [], [], [], None, None, seg.files, seg.rows) for seg in gen.segments]
        hashes = gen.column("text_hashes")
        rows = _Rows(matrix, hashes)
        rows.data = np.empty((gen.rows + max(64, gen.rows // 8), gen.dimension), dtype=np.float32)
        rows.data[: gen.rows] = matrix  # headroom, so the next refreshes append without a copy
        loaded = cls(header, rows, gen.rows, gen.stored_ids, kind_codes, hashes,
                     live, segments, gen.dead, None)
        if loaded.count and loaded.count >= exact_threshold:
            loaded.graph = _Graph(gen.dimension, matrix, loaded.live_rows)
        return loaded

    def extend(self, header: _Header, new_rows: np.ndarray, ids: list[str], kinds: list[str], hashes: list[str],
               dead: np.ndarray, segments: list[Segment], exact_threshold: int) -> _Loaded:
        """The view after a delta: ``new_rows`` appended, rows ``dead`` retired."""
        self.rows.truncate(self.n)
        buffer = self.rows.append(new_rows, hashes)
        n = self.n + len(new_rows)
        live = np.concatenate([self.live, np.ones(len(new_rows), dtype=bool)])
        retired = np.setdiff1d(dead, self.dead).astype(np.int64)
        live[retired] = False
        kind_codes = np.concatenate([self.kind_codes, np.array([_KIND_CODE[k] for k in kinds], dtype=np.uint8)])
        doc_ids = self.doc_ids + ids
        row_of = dict(self.row_of)
        for row in retired.tolist():
            if row_of.get(doc_ids[row]) == row:
                del row_of[doc_ids[row]]
        row_of.update(zip(ids, range(self.n, n)))
        view = _Loaded(header, buffer, n, doc_ids, kind_codes, self.hashes + hashes, live, segments,
                       dead, self.graph, row_of)
        if view.graph is not None:
            view.graph.extend(new_rows, np.arange(self.n, n), retired)
        elif view.count >= exact_threshold:
            view.graph = _Graph(header.dimension, view.matrix, view.live_rows)
        return view

    def restricted(self, keep_ids: Collection[str]) -> _Loaded:
        """This view with live rows outside ``keep_ids`` hidden (memory only; nothing is written)."""
        live = self.live.copy()
        for doc_id, row in self.row_of.items():
            if doc_id not in keep_ids:
                live[row] = False
        view = _Loaded(self.header, self.rows, self.n, self.doc_ids, self.kind_codes, self.hashes, live,
                       self.segments, self.dead, self.graph)
        view.masked = self.masked or view.count != self.count
        return view


class DenseIndex:
    """The dense recall-expansion index of one scope, stored under ``directory``.

    >>> idx = DenseIndex(tmp / "dense", DeterministicProvider(64))       # doctest: +SKIP
    >>> idx.build([DenseDoc("p1", "Alice likes tea", "page")], "rev-1")  # doctest: +SKIP
    >>> idx.search_text("tea", k=3)                                      # doctest: +SKIP
    [('p1', 0.41...)]
    """

    SCHEMA_VERSION = SCHEMA_VERSION

    def __init__(
        self,
        directory: Path,
        provider: EmbeddingProvider | None,
        *,
        max_vectors: int = 100_000,
        batch_size: int = 32,
        exact_threshold: int = 20_000,
        clock: Clock | Callable[[], Any] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError("batch_size", f"must be at least 1, got {batch_size}")
        if max_vectors < 1:
            raise ConfigError("max_vectors", f"must be at least 1, got {max_vectors}")
        self.directory = Path(directory)
        self.provider = provider
        self.max_vectors = max_vectors
        self.batch_size = batch_size
        self.exact_threshold = max(1, exact_threshold)
        self._clock = as_clock(clock)
        self._lock = threading.RLock()
        self._build_lock = threading.Lock()
        self._active: _Loaded | None = None
        self._active_id: str | None = None
        self._previous_id: str | None = None
        self._degraded_reason: str | None = None
        self._meta: dict[str, Any] | None = None
        self._load_error: str | None = None
        self._keys: dict[str, tuple[str, str]] = {}
        self._keys_model: str | None = None
        #: (added documents, retired doc ids) of the last build when it was a delta, else None.
        self.last_delta: tuple[list[DenseDoc], list[str]] | None = None
        self._last_build: tuple[_Header, list[DenseDoc], list[str]] | None = None
        self._masked: _Loaded | None = None  # the active view minus documents that left the set
        self._mask_token: str | None = None
        self._restore()

    def __repr__(self) -> str:
        s = self.status()
        return (
            f"DenseIndex({str(self.directory)!r}, model={s['model']!r}, count={s['count']}, "
            f"active={s['active_generation']!r}, degraded={s['degraded_reason']!r})"
        )

    # -- paths -----------------------------------------------------------------------------

    @property
    def _generations(self) -> Path:
        return self.directory / GENERATIONS_DIR

    def _gen_path(self, generation_id: str) -> Path:
        return self._generations / generation_id

    def _expected(self) -> dict[str, Any]:
        if self.provider is None:
            return {}
        return {"model": self.provider.model, "dimension": int(self.provider.dimension)}

    # -- restore ---------------------------------------------------------------------------

    def _restore(self) -> None:
        """Activate the generation named by ACTIVE after validation; record why when refused."""
        try:
            pointer = read_pointer(self.directory)
        except InvalidGeneration as exc:
            self._degraded_reason, self._load_error = exc.reason, str(exc)
            return
        if pointer is None:
            return
        self._active_id, self._previous_id = pointer["active"], pointer["previous"]
        self._degraded_reason = pointer["degraded_reason"]
        if self._active_id is None:
            return
        path = self._gen_path(self._active_id)
        try:
            self._meta = read_meta(path)
            if self._degraded_reason == "purge-rebuild-required":
                return  # may still describe purged text: keep the metadata, never the vectors
            gen = read_generation(path, **self._expected())
            self._active = _Loaded.from_generation(gen, self.exact_threshold)
        except InvalidGeneration as exc:
            self._active = None
            self._load_error = str(exc)
            self._degraded_reason = self._degraded_reason or exc.reason

    # -- state -----------------------------------------------------------------------------

    @property
    def searchable(self) -> bool:
        """Whether search can return hits: a loaded generation not awaiting a purge rebuild."""
        return self._active is not None and self._degraded_reason != "purge-rebuild-required"

    @property
    def count(self) -> int:
        """Live vectors of the loaded generation (0 when none is loaded)."""
        active = self._active
        return 0 if active is None else active.count

    @property
    def degraded_reason(self) -> str | None:
        """The invalidation reason recorded in the pointer, if any (cheap; status() walks the disk)."""
        return self._degraded_reason

    @property
    def active_revision(self) -> str | None:
        """The source revision the loaded generation was built from (None when none is loaded)."""
        active = self._active
        return None if active is None else active.header.source_revision

    def serve_for(self, source_revision: str, keep_ids: Callable[[], Collection[str]]) -> bool:
        """Serve the loaded generation for the documents at ``source_revision``; True when stale.

        A generation built from another revision keeps serving, with the vectors of documents
        outside ``keep_ids()`` hidden in memory (nothing is written) until the next promotion;
        one built from this revision is served whole. Repeated calls for one revision are free.
        """
        with self._lock:
            active = self._active
            if active is None or active.header.source_revision == source_revision:
                self._masked, self._mask_token = None, None
                return False
            if self._mask_token != source_revision or self._masked is None or self._masked.header is not active.header:
                self._masked = active.restricted(keep_ids())
                self._mask_token = source_revision
            return True

    def needs_rebuild(self, source_revision: str) -> bool:
        """True with no usable active generation, after invalidation, or when the inputs moved."""
        with self._lock:
            active = self._active
            if active is None or self._degraded_reason is not None:
                return True
            gen = active.header
            if gen.source_revision != source_revision:
                return True
            if self.provider is not None and (
                gen.model != self.provider.model or gen.dimension != int(self.provider.dimension)
            ):
                return True
            return (self._meta or {}).get("schema_version") != SCHEMA_VERSION

    def status(self, *, disk: bool = True) -> dict[str, Any]:
        """A JSON-ready summary of the active generation and why it is degraded, if it is.

        ``disk=False`` leaves out ``bytes_on_disk`` (None), which walks the directory.
        """
        with self._lock:
            meta = self._meta or {}
            active = self._active
            return {
                "active_generation": self._active_id,
                "previous_generation": self._previous_id,
                "model": meta.get("model"),
                "dimension": meta.get("dimension"),
                "count": active.count if active is not None else meta.get("count", 0),
                "source_revision": meta.get("source_revision"),
                "schema_version": meta.get("schema_version", SCHEMA_VERSION),
                "created_at": meta.get("created_at"),
                "degraded_reason": self._degraded_reason,
                "load_error": self._load_error,
                "searchable": self.searchable,
                "search_mode": None if active is None else ("hnsw" if active.graph is not None else "exact"),
                "provider_model": None if self.provider is None else self.provider.model,
                "bytes_on_disk": sum(p.stat().st_size for p in self.files()) if disk else None,
            }

    def files(self) -> list[Path]:
        """Every file under the index directory, in every generation (what purge must scan)."""
        if not self.directory.exists():
            return []
        return sorted(p for p in self.directory.rglob("*") if p.is_file() or p.is_symlink())

    def invalidate(self, reason: str) -> None:
        """Record ``reason`` in the pointer so it survives reopen; the next request rebuilds.

        The generation stays searchable (stale, but holding only current canon's vectors),
        except for ``purge-rebuild-required``: those vectors are dropped from memory at once.
        """
        if reason not in INVALIDATION_REASONS:
            raise ConfigError("reason", f"{reason!r} is not one of {', '.join(INVALIDATION_REASONS)}")
        with self._lock:
            write_pointer(self.directory, self._active_id, self._previous_id, reason)
            self._degraded_reason = reason
            if reason == "purge-rebuild-required":
                self._active, self._masked, self._mask_token = None, None, None

    # -- build -----------------------------------------------------------------------------

    #: Past this many segments a refresh merges the delta segments into one (row numbers, and
    #: so the HNSW graph, stay as they are); past this share of dead rows it compacts the
    #: generation into one segment without them (rows renumbered, the graph rebuilt).
    MAX_SEGMENTS = 32
    MAX_DEAD_SHARE = 0.25

    def build(
        self, docs: Sequence[DenseDoc], source_revision: str, *, progress: bool = False, full: bool = False
    ) -> dict[str, Any]:
        """Embed ``docs`` into a new generation and promote it; returns build statistics.

        Vectors of texts already in the active generation are reused; only new or changed
        texts reach the provider, ``batch_size`` at a time. With a loaded generation in the
        same vector space the new generation is a delta over it (``mode`` ``delta``, ``merged``
        or ``compacted``, see docs/vectors.md); otherwise, or with ``full``, it is written whole
        (``full``; unchanged texts are still reused, not embedded).
        A ProviderError leaves the active generation as it was.
        """
        provider = self.provider
        if provider is None:
            raise ProviderError("invalid-config", "no embedding provider is configured for the dense index")
        started = time.perf_counter()
        with self._build_lock:
            unique = _dedupe(docs)
            if len(unique) > self.max_vectors:
                raise ConfigError(
                    "max_vectors",
                    f"{len(unique)} documents exceed max_vectors={self.max_vectors}; raise the bound",
                )
            model, dim = provider.model, int(provider.dimension)
            with self._lock:
                loaded = self._active
            same = self._same_prefix(loaded, unique)
            hashes = self._text_keys(model, unique, same)
            if not full and loaded is not None and (loaded.header.model, loaded.header.dimension) == (model, dim):
                stats = self._refresh(provider, loaded, unique, hashes, source_revision, progress, same)
            else:
                stats = self._build_full(provider, unique, hashes, source_revision, progress)
            active = self._active
            self._last_build = None if active is None else (active.header, unique, hashes)
        return {**stats, "seconds": round(time.perf_counter() - started, 3),
                "previous_generation_id": self._previous_id}

    def _same_prefix(self, loaded: _Loaded | None, docs: list[DenseDoc]) -> int:
        """How many leading ``docs`` are the very objects the build of ``loaded`` was given.

        Callers that keep their document objects between builds (the scope's evidence list is
        extended in place) thus skip the per-document diff of everything before the change.
        """
        last = self._last_build
        if last is None or loaded is None or last[0] is not loaded.header:
            return 0
        previous = last[1]
        n = min(len(previous), len(docs))
        same = list(map(operator.is_, previous[:n], docs[:n]))
        return same.index(False) if False in same else n

    def _text_keys(self, model: str, docs: list[DenseDoc], same: int = 0) -> list[str]:
        """Text keys of ``docs``, hashing only texts that changed since the last build; the
        first ``same`` documents are those of the last build, whose keys are taken as they are."""
        if self._keys_model != model:
            self._keys, self._keys_model = {}, model
            same = 0
        memo = self._keys
        out = self._last_build[2][:same] if same and self._last_build is not None else []
        for doc in docs[len(out):]:
            known = memo.get(doc.doc_id)
            if known is None or known[0] != doc.text:
                known = memo[doc.doc_id] = (doc.text, text_key(model, doc.text))
            out.append(known[1])
        if len(memo) > len(docs):  # documents left: forget their texts
            wanted = {d.doc_id for d in docs}
            self._keys = {k: v for k, v in memo.items() if k in wanted}
        return out

    def _build_full(self, provider: EmbeddingProvider, unique: list[DenseDoc], hashes: list[str],
                    source_revision: str, progress: bool,
                    embedded: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
        model, dim = provider.model, int(provider.dimension)
        with self._lock:
            loaded = self._active
        if loaded is not None and (loaded.header.model, loaded.header.dimension) == (model, dim):
            reuse = {h: loaded.matrix[i] for h, i in loaded.rows.by_hash.items() if i < loaded.n}
        else:
            reuse = self._reuse_source(model, dim)
        reuse.update(embedded or {})
        matrix = np.zeros((len(unique), dim), dtype=np.float32)
        pending: dict[str, list[int]] = {}
        reused = 0
        for row, digest in enumerate(hashes):
            src = reuse.get(digest) if reuse else None
            if src is not None:
                matrix[row] = src
                reused += 1
            else:
                pending.setdefault(digest, []).append(row)
        groups = list(pending.values())
        texts = [unique[rows[0]].text for rows in groups]
        for start, vectors in self._embed_batches(provider, texts, progress):
            for offset, rows in enumerate(groups[start : start + len(vectors)]):
                matrix[rows] = vectors[offset]
        gen = self._whole(model, dim, source_revision, unique, hashes, matrix)
        self._promote(gen)
        self.last_delta = None
        return {
            "mode": "full", "embedded": len(texts), "embedded_documents": sum(len(rows) for rows in groups),
            "reused": reused, "total": len(unique), "appended": len(unique), "retired": 0,
            "generation_id": gen.generation_id,
        }

    def _whole(self, model: str, dim: int, source_revision: str, docs: list[DenseDoc], hashes: list[str],
               matrix: np.ndarray) -> Generation:
        codes, scales = quantize(matrix)
        return Generation.single(
            self._new_generation_id(), model, dim, source_revision, iso(self._clock.now()),
            [d.doc_id for d in docs], [d.kind for d in docs], hashes, codes, scales,
        )

    def _refresh(self, provider: EmbeddingProvider, loaded: _Loaded, unique: list[DenseDoc], hashes: list[str],
                 source_revision: str, progress: bool, same: int = 0) -> dict[str, Any]:
        """A delta over the loaded generation: embed new texts only, append them, retire the rest."""
        model, dim = provider.model, int(provider.dimension)
        row_of, old_hashes, old_kinds = loaded.row_of, loaded.hashes, loaded.kind_codes.tolist()
        live = loaded.live.copy()
        changed: list[int] = []
        present = same  # the first ``same`` documents are unchanged rows of ``loaded``
        for i in range(same, len(unique)):
            doc = unique[i]
            row = row_of.get(doc.doc_id)
            if row is not None:
                present += 1
                if old_hashes[row] == hashes[i] and old_kinds[row] == _KIND_CODE[doc.kind]:
                    continue
                live[row] = False
            changed.append(i)
        if present < loaded.count:  # documents that left the set
            wanted = {d.doc_id for d in unique}
            for doc_id, row in row_of.items():
                if doc_id not in wanted:
                    live[row] = False
        by_hash = loaded.rows.by_hash
        matrix = np.zeros((len(changed), dim), dtype=np.float32)
        pending: dict[str, list[int]] = {}
        for offset, i in enumerate(changed):
            src = by_hash.get(hashes[i])
            if src is not None and src < loaded.n:
                matrix[offset] = loaded.rows.data[src]
            else:
                pending.setdefault(hashes[i], []).append(offset)
        groups = list(pending.values())
        texts = [unique[changed[rows[0]]].text for rows in groups]
        for start, vectors in self._embed_batches(provider, texts, progress):
            for offset, rows in enumerate(groups[start : start + len(vectors)]):
                matrix[rows] = vectors[offset]
        embedded_rows = sum(len(rows) for rows in groups)
        stats = {"embedded": len(texts), "embedded_documents": embedded_rows, "reused": len(unique) - embedded_rows,
                 "total": len(unique)}
        dead = np.flatnonzero(np.concatenate([~live, np.zeros(len(changed), dtype=bool)])).astype(np.uint32)
        rows_after = loaded.n + len(changed)
        if len(dead) > self.MAX_DEAD_SHARE * rows_after:
            full = np.zeros((len(unique), dim), dtype=np.float32)
            fresh = iter(range(len(changed)))
            for i, doc in enumerate(unique):
                row = row_of.get(doc.doc_id)
                full[i] = loaded.rows.data[row] if row is not None and live[row] else matrix[next(fresh)]
            gen = self._whole(model, dim, source_revision, unique, hashes, full)
            self._promote(gen)
            self.last_delta = None
            return {**stats, "mode": "compacted", "appended": len(unique), "retired": 0,
                    "generation_id": gen.generation_id}
        docs = [unique[i] for i in changed]
        new_hashes = [hashes[i] for i in changed]
        segments = list(loaded.segments)
        ids, kinds, seg_hashes, block = [d.doc_id for d in docs], [d.kind for d in docs], new_hashes, matrix
        merged_from = None
        if len(changed) and len(segments) + 1 > self.MAX_SEGMENTS:
            merged_from = segments[0].rows  # the deltas and the new rows become one segment
            segments = segments[:1]
            ids = loaded.doc_ids[merged_from:] + ids
            kinds = [KINDS[c] for c in loaded.kind_codes[merged_from:].tolist()] + kinds
            seg_hashes = loaded.hashes[merged_from:] + seg_hashes
            block = np.concatenate([loaded.matrix[merged_from:], matrix])
        codes, scales = quantize(block)
        if len(changed):
            segments.append(Segment(f"{DELTA_PREFIX}{len(segments):04d}.", ids, kinds, seg_hashes, codes, scales))
        gen = Generation(self._new_generation_id(), model, dim, source_revision, iso(self._clock.now()),
                         segments, dead)
        written = normalize_rows(dequantize(codes, scales))  # search what a reopen would read
        try:
            self._promote_delta(loaded, gen, written, docs, new_hashes, merged_from)
        except OSError:  # the active generation's files cannot be linked: write the whole of it
            embedded = dict(zip(new_hashes, matrix))
            return {**self._build_full(provider, unique, hashes, source_revision, progress, embedded),
                    **stats, "mode": "full"}
        retired = np.setdiff1d(dead, loaded.dead)
        self.last_delta = (docs, [loaded.doc_ids[int(r)] for r in retired])
        return {**stats, "mode": "delta" if merged_from is None else "merged", "appended": len(changed),
                "retired": len(dead) - len(loaded.dead), "generation_id": gen.generation_id}

    def _reuse_source(self, model: str, dim: int) -> dict[str, np.ndarray]:
        """Vectors of the active generation on disk by text hash, when in this space.

        Used when no generation is loaded (e.g. after a purge invalidation): reuse is by hash
        of text still in canon, so reading the vectors back cannot revive purged text.
        """
        with self._lock:
            active_id = self._active_id
        if active_id is None:
            return {}
        try:
            gen = read_generation(self._gen_path(active_id), model=model, dimension=dim)
        except InvalidGeneration:
            return {}
        raw = gen.vectors()
        return {h: raw[i] for i, h in enumerate(gen.column("text_hashes"))}

    def _embed_batches(
        self, provider: EmbeddingProvider, texts: list[str], progress: bool
    ) -> list[tuple[int, np.ndarray]]:
        """Embed ``texts`` in bounded batches, validating each returned batch."""
        dim = int(provider.dimension)
        out: list[tuple[int, np.ndarray]] = []
        starts = range(0, len(texts), self.batch_size)
        batches = [texts[start : start + self.batch_size] for start in starts]
        # A provider that spreads batches over workers (riko.executor) gets them all at once.
        many = getattr(provider, "embed_passage_batches", None)
        answers = many(batches) if callable(many) else (provider.embed_passages(b) for b in batches)
        with tqdm(total=len(texts), unit="text", desc="embedding", disable=not progress_enabled(progress)) as bar:
            for start, batch, answer in zip(starts, batches, answers):
                vectors = np.asarray(answer, dtype=np.float32)
                if vectors.shape != (len(batch), dim):
                    raise ProviderError(
                        "invalid-response",
                        f"provider {provider.model!r} returned shape {vectors.shape} "
                        f"for {len(batch)} texts of dimension {dim}",
                    )
                norms = np.linalg.norm(vectors, axis=1)
                if not np.all(np.isfinite(vectors)) or np.any(norms == 0):
                    raise ProviderError(
                        "invalid-response", f"provider {provider.model!r} returned a non-finite or zero vector"
                    )
                out.append((start, normalize_rows(vectors)))
                bar.update(len(batch))
        return out

    def _new_generation_id(self) -> str:
        stamp = self._clock.now().strftime("%Y%m%dT%H%M%S")
        return f"g{stamp}-{secrets.token_hex(4)}"

    def _stage(self, gen: Generation, link_from: Path | None = None) -> dict[str, Any]:
        """Write ``gen`` beside the active generation and move it into place; returns its meta."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._generations.mkdir(mode=0o700, exist_ok=True)
        staging = self._generations / f".staging-{gen.generation_id}"
        try:
            meta = write_generation(staging, gen, link_from=link_from)
            staging.rename(self._gen_path(gen.generation_id))
        except BaseException:
            remove_tree([staging])
            raise
        return meta

    def _promote(self, gen: Generation) -> None:
        """Write the staged generation, swap the pointer, then drop generations beyond two."""
        self._stage(gen)
        # Search uses exactly what was written, as a reopen would.
        loaded = _Loaded.from_generation(read_generation(self._gen_path(gen.generation_id)), self.exact_threshold)
        self._activate(gen.generation_id, loaded, read_meta(self._gen_path(gen.generation_id)))

    def _promote_delta(self, base: _Loaded, gen: Generation, rows: np.ndarray, docs: list[DenseDoc],
                       hashes: list[str], merged_from: int | None) -> None:
        """Link the base's segments, write the delta, then extend the loaded view in place of a reload.

        ``rows`` are the last segment's rows as written; after a merge they start at row
        ``merged_from`` and replace the requantized rows in memory too (the graph keeps its own
        copies, which differ by quantization noise only).
        """
        meta = self._stage(gen, link_from=self._gen_path(base.header.generation_id))
        header = _Header(gen.generation_id, gen.model, gen.dimension, gen.source_revision, gen.created_at)
        kept = [Segment(seg.prefix, [], [], [], None, None, seg.files, seg.rows) for seg in gen.segments]
        fresh = rows[len(rows) - len(docs):]
        try:
            loaded = base.extend(header, fresh, [d.doc_id for d in docs], [d.kind for d in docs], hashes,
                                 gen.dead, kept, self.exact_threshold)
            if merged_from is not None:
                loaded.rows.data[merged_from : loaded.n] = rows
        except (RuntimeError, ValueError, MemoryError):  # the graph refused the delta: load what was written
            loaded = _Loaded.from_generation(read_generation(self._gen_path(gen.generation_id)), self.exact_threshold)
        self._activate(gen.generation_id, loaded, meta)

    def _activate(self, generation_id: str, loaded: _Loaded, meta: dict[str, Any]) -> None:
        with self._lock:
            previous = self._active_id
            if previous is not None and not self._gen_path(previous).is_dir():
                previous = None
            write_pointer(self.directory, generation_id, previous, None)
            self._active, self._active_id, self._previous_id = loaded, generation_id, previous
            self._masked, self._mask_token = None, None
            self._meta = meta
            self._degraded_reason = None
            self._load_error = None
            keep = {generation_id, previous}
            remove_tree(p for p in self._generations.iterdir() if p.name not in keep)
            remove_tree(p for p in self.directory.iterdir() if p.name.startswith(f".{POINTER_NAME}."))

    # -- search ----------------------------------------------------------------------------

    def search(
        self, query_vector: np.ndarray, k: int = 8, *, kinds: set[str] | None = None,
        exclude: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` (doc_id, cosine similarity), best first; [] when nothing is searchable.

        Exact numpy scoring below ``exact_threshold`` vectors, hnswlib (ef = max(100, 2k)) above.
        ``exclude`` names documents that must not take a place: they are filtered inside the
        search (hnswlib filter or masked scan), so the ``k`` hits are all allowed ones.
        """
        with self._lock:
            loaded = self._active if self.searchable else None
            if loaded is not None and self._masked is not None and self._masked.header is loaded.header:
                loaded = self._masked
        if loaded is None or k <= 0 or loaded.count == 0:
            return []
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if q.shape != (loaded.header.dimension,) or not np.all(np.isfinite(q)):
            raise InvalidArgumentError(
                f"query vector must be {loaded.header.dimension} finite numbers, got shape {q.shape}"
            )
        q = normalize_rows(q)
        allowed: np.ndarray | None = None
        if kinds is not None:
            codes = [_KIND_CODE[k_] for k_ in kinds if k_ in _KIND_CODE]
            allowed = np.isin(loaded.kind_codes, codes) & loaded.live
            if not allowed.any():
                return []
            if allowed.sum() == loaded.count:
                allowed = None
        if exclude:
            rows = [loaded.row_of[d] for d in exclude if d in loaded.row_of]
            if rows:
                allowed = (loaded.live.copy() if allowed is None else allowed.copy())
                allowed[rows] = False
                if not allowed.any():
                    return []
        if loaded.graph is not None:
            hits = _search_hnsw(loaded, q, k, allowed)
            if hits is not None:
                return hits
        return _search_exact(loaded, q, k, allowed)

    def search_text(self, query: str, k: int = 8, *, kinds: set[str] | None = None) -> list[tuple[str, float]]:
        """Embed ``query`` with the provider's query side and search."""
        if self.provider is None:
            raise ProviderError("invalid-config", "no embedding provider is configured for the dense index")
        if not self.searchable:
            return []
        vector = np.asarray(self.provider.embed_query(query), dtype=np.float32).reshape(-1)
        if vector.shape != (int(self.provider.dimension),) or not np.all(np.isfinite(vector)):
            raise ProviderError("invalid-response", f"provider {self.provider.model!r} returned a bad query vector")
        return self.search(vector, k, kinds=kinds)

    # -- purge -----------------------------------------------------------------------------

    def drop_documents(self, predicate: Callable[[str], bool] | Collection[str]) -> int:
        """Remove the vectors of matching doc ids from every generation on disk; returns how many.

        ``predicate`` is a callable on doc ids or a collection of ids. A generation that cannot
        be read is deleted whole, since it cannot be shown free of the documents.
        """
        match = predicate if callable(predicate) else (lambda doc_id, ids=set(predicate): doc_id in ids)
        removed = 0
        with self._build_lock, self._lock:
            for generation_id in (self._active_id, self._previous_id):
                if generation_id is None or not self._gen_path(generation_id).is_dir():
                    continue
                path = self._gen_path(generation_id)
                try:
                    gen = read_generation(path)
                except InvalidGeneration:
                    remove_tree([path])
                    continue
                keep = np.array([not match(doc_id) for doc_id in gen.stored_ids], dtype=bool)
                if keep.all():
                    continue
                removed += int((~keep).sum())
                self._rewrite(path, gen.subset(keep))
            if self._active is not None and self._active_id is not None:
                self._reload_active()
        return removed

    def _rewrite(self, path: Path, gen: Generation) -> None:
        """Replace a generation directory with ``gen`` (write beside, swap, delete the old)."""
        fresh = path.with_name(f".rewrite-{path.name}")
        trash = path.with_name(f".trash-{path.name}")
        remove_tree([fresh, trash])
        write_generation(fresh, gen)
        path.rename(trash)
        fresh.rename(path)
        remove_tree([trash])

    def _reload_active(self) -> None:
        self._masked, self._mask_token = None, None
        path = self._gen_path(self._active_id or "")
        try:
            self._meta = read_meta(path)
            self._active = _Loaded.from_generation(read_generation(path, **self._expected()), self.exact_threshold)
        except InvalidGeneration as exc:
            self._active = None
            self._load_error = str(exc)
            self._degraded_reason = self._degraded_reason or exc.reason


def _dedupe(docs: Sequence[DenseDoc]) -> list[DenseDoc]:
    """Documents in order, the first of each doc id kept."""
    if all(type(doc) is DenseDoc for doc in docs) and len({doc.doc_id for doc in docs}) == len(docs):
        return list(docs)  # the common case, checked at C speed
    seen: set[str] = set()
    out: list[DenseDoc] = []
    for doc in docs:
        if not isinstance(doc, DenseDoc):
            raise ConfigError("docs", f"expected DenseDoc items, got {type(doc).__name__}")
        if doc.doc_id not in seen:
            seen.add(doc.doc_id)
            out.append(doc)
    return out


def _search_exact(
    loaded: _Loaded, q: np.ndarray, k: int, allowed: np.ndarray | None
) -> list[tuple[str, float]]:
    rows = loaded.live_rows if allowed is None else np.flatnonzero(allowed)
    scores = loaded.matrix[rows] @ q
    k = min(k, len(rows))
    top = np.argpartition(-scores, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
    top = top[np.lexsort((rows[top], -scores[top]))]
    return [(loaded.doc_ids[rows[i]], float(scores[i])) for i in top]


def _search_hnsw(
    loaded: _Loaded, q: np.ndarray, k: int, allowed: np.ndarray | None
) -> list[tuple[str, float]] | None:
    """HNSW search; None when the graph cannot return k usable hits (caller falls back).

    The graph may hold rows a newer view appended, or rows this view hides: those labels are
    filtered (by callback when this view hides rows, afterwards otherwise).
    """
    graph = loaded.graph
    assert graph is not None
    k = min(k, loaded.count if allowed is None else int(allowed.sum()))
    n = loaded.n
    if allowed is None and loaded.masked:
        allowed = loaded.live
    filt = None if allowed is None else (lambda label: label < n and bool(allowed[label]))
    try:
        with graph.lock:
            extra = graph.size - graph.deleted - loaded.count  # rows this view does not know
            want = k + max(0, extra)
            graph.graph.set_ef(max(100, 2 * want))
            labels, distances = graph.graph.knn_query(q, k=want, num_threads=1, filter=filt)
    except RuntimeError:
        return None
    hits = [
        (loaded.doc_ids[int(label)], float(1.0 - dist))
        for label, dist in zip(labels[0], distances[0])
        if int(label) < n and loaded.live[int(label)]
    ]
    return hits[:k] if len(hits) >= k else None
