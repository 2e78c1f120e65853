"""DenseIndex: blue/green vector generations on disk, searched exactly or with hnswlib.

A build assembles a private generation (reusing vectors of unchanged texts), validates every
vector, writes it beside the active one and promotes it by replacing the ``ACTIVE`` pointer.
The active generation is never touched while a provider call is in flight, so a failed build
leaves the previous generation loaded and searchable.
"""

from __future__ import annotations

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
from ..errors import ConfigError, ProviderError
from ..progress import progress_enabled
from .providers import EmbeddingProvider, normalize_rows
from .store import (
    GENERATIONS_DIR,
    INVALIDATION_REASONS,
    KINDS,
    POINTER_NAME,
    SCHEMA_VERSION,
    Generation,
    InvalidGeneration,
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


class _Loaded:
    """A generation made searchable: normalised float32 rows, kind codes, optional HNSW graph."""

    def __init__(self, gen: Generation, exact_threshold: int) -> None:
        self.gen = gen
        self.matrix = normalize_rows(dequantize(gen.codes, gen.scales))
        self.kind_codes = np.array([_KIND_CODE[k] for k in gen.kinds], dtype=np.uint8)
        self.row_by_hash = {h: i for i, h in enumerate(gen.text_hashes)}
        self.hnsw: Any = None
        self.hnsw_lock = threading.Lock()
        if gen.count and gen.count >= exact_threshold:
            import hnswlib

            graph = hnswlib.Index(space="ip", dim=gen.dimension)
            graph.init_index(max_elements=gen.count, M=16, ef_construction=200, random_seed=100)
            graph.add_items(self.matrix, np.arange(gen.count))
            self.hnsw = graph


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
            self._active = _Loaded(gen, self.exact_threshold)
        except InvalidGeneration as exc:
            self._active = None
            self._load_error = str(exc)
            self._degraded_reason = self._degraded_reason or exc.reason

    # -- state -----------------------------------------------------------------------------

    @property
    def searchable(self) -> bool:
        """Whether search can return hits: a loaded generation not awaiting a purge rebuild."""
        return self._active is not None and self._degraded_reason != "purge-rebuild-required"

    def needs_rebuild(self, source_revision: str) -> bool:
        """True with no usable active generation, after invalidation, or when the inputs moved."""
        with self._lock:
            active = self._active
            if active is None or self._degraded_reason is not None:
                return True
            gen = active.gen
            if gen.source_revision != source_revision:
                return True
            if self.provider is not None and (
                gen.model != self.provider.model or gen.dimension != int(self.provider.dimension)
            ):
                return True
            return (self._meta or {}).get("schema_version") != SCHEMA_VERSION

    def status(self) -> dict[str, Any]:
        """A JSON-ready summary of the active generation and why it is degraded, if it is."""
        with self._lock:
            meta = self._meta or {}
            active = self._active
            return {
                "active_generation": self._active_id,
                "previous_generation": self._previous_id,
                "model": meta.get("model"),
                "dimension": meta.get("dimension"),
                "count": active.gen.count if active is not None else meta.get("count", 0),
                "source_revision": meta.get("source_revision"),
                "schema_version": meta.get("schema_version", SCHEMA_VERSION),
                "created_at": meta.get("created_at"),
                "degraded_reason": self._degraded_reason,
                "load_error": self._load_error,
                "searchable": self.searchable,
                "search_mode": None if active is None else ("hnsw" if active.hnsw is not None else "exact"),
                "provider_model": None if self.provider is None else self.provider.model,
                "bytes_on_disk": sum(p.stat().st_size for p in self.files()),
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
                self._active = None

    # -- build -----------------------------------------------------------------------------

    def build(
        self, docs: Sequence[DenseDoc], source_revision: str, *, progress: bool = False
    ) -> dict[str, Any]:
        """Embed ``docs`` into a new generation and promote it; returns build statistics.

        Vectors of texts already in the active generation are reused; only new or changed
        texts reach the provider, ``batch_size`` at a time. A ProviderError leaves the
        active generation as it was.
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
            hashes = [text_key(model, d.text) for d in unique]
            reuse = self._reuse_source(model, dim)
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
            embedded_rows = sum(len(rows) for rows in groups)
            generation_id = self._new_generation_id()
            codes, scales = quantize(matrix)
            gen = Generation(
                generation_id,
                model,
                dim,
                source_revision,
                iso(self._clock.now()),
                [d.doc_id for d in unique],
                [d.kind for d in unique],
                hashes,
                codes,
                scales,
            )
            self._promote(gen)
        return {
            "embedded": len(texts),
            "embedded_documents": embedded_rows,
            "reused": reused,
            "total": len(unique),
            "seconds": round(time.perf_counter() - started, 3),
            "generation_id": generation_id,
            "previous_generation_id": self._previous_id,
        }

    def _reuse_source(self, model: str, dim: int) -> dict[str, np.ndarray]:
        """Raw dequantized vectors of the active generation by text hash, when in this space."""
        with self._lock:
            loaded = self._active
            active_id = self._active_id
        gen: Generation | None = loaded.gen if loaded is not None else None
        if gen is None and active_id is not None:
            # Not loaded (e.g. after a purge invalidation): reuse is by hash of text still in
            # canon, so reading the vectors back cannot revive purged text.
            try:
                gen = read_generation(self._gen_path(active_id), model=model, dimension=dim)
            except InvalidGeneration:
                gen = None
        if gen is None or gen.model != model or gen.dimension != dim:
            return {}
        raw = dequantize(gen.codes, gen.scales)
        return {h: raw[i] for i, h in enumerate(gen.text_hashes)}

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

    def _promote(self, gen: Generation) -> None:
        """Write the staged generation, swap the pointer, then drop generations beyond two."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._generations.mkdir(mode=0o700, exist_ok=True)
        staging = self._generations / f".staging-{gen.generation_id}"
        try:
            write_generation(staging, gen)
            staging.rename(self._gen_path(gen.generation_id))
        except BaseException:
            remove_tree([staging])
            raise
        # Search uses exactly what was written, as a reopen would.
        loaded = _Loaded(read_generation(self._gen_path(gen.generation_id)), self.exact_threshold)
        with self._lock:
            previous = self._active_id
            if previous is not None and not self._gen_path(previous).is_dir():
                previous = None
            write_pointer(self.directory, gen.generation_id, previous, None)
            self._active, self._active_id, self._previous_id = loaded, gen.generation_id, previous
            self._meta = read_meta(self._gen_path(gen.generation_id))
            self._degraded_reason = None
            self._load_error = None
            keep = {gen.generation_id, previous}
            remove_tree(p for p in self._generations.iterdir() if p.name not in keep)
            remove_tree(p for p in self.directory.iterdir() if p.name.startswith(f".{POINTER_NAME}."))

    # -- search ----------------------------------------------------------------------------

    def search(
        self, query_vector: np.ndarray, k: int = 8, *, kinds: set[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` (doc_id, cosine similarity), best first; [] when nothing is searchable.

        Exact numpy scoring below ``exact_threshold`` vectors, hnswlib (ef = max(100, 2k)) above.
        """
        with self._lock:
            loaded = self._active if self.searchable else None
        if loaded is None or k <= 0 or loaded.gen.count == 0:
            return []
        q = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        if q.shape != (loaded.gen.dimension,) or not np.all(np.isfinite(q)):
            raise ValueError(
                f"query vector must be {loaded.gen.dimension} finite numbers, got shape {q.shape}"
            )
        q = normalize_rows(q)
        allowed: np.ndarray | None = None
        if kinds is not None:
            codes = [_KIND_CODE[k_] for k_ in kinds if k_ in _KIND_CODE]
            allowed = np.isin(loaded.kind_codes, codes)
            if allowed.all():
                allowed = None
            elif not allowed.any():
                return []
        if loaded.hnsw is not None:
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
                keep = np.array([not match(doc_id) for doc_id in gen.doc_ids], dtype=bool)
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
        path = self._gen_path(self._active_id or "")
        try:
            self._meta = read_meta(path)
            self._active = _Loaded(read_generation(path, **self._expected()), self.exact_threshold)
        except InvalidGeneration as exc:
            self._active = None
            self._load_error = str(exc)
            self._degraded_reason = self._degraded_reason or exc.reason


def _dedupe(docs: Sequence[DenseDoc]) -> list[DenseDoc]:
    """Documents in order, the first of each doc id kept."""
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
    rows = np.arange(loaded.gen.count) if allowed is None else np.flatnonzero(allowed)
    scores = loaded.matrix[rows] @ q
    k = min(k, len(rows))
    top = np.argpartition(-scores, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
    top = top[np.lexsort((rows[top], -scores[top]))]
    return [(loaded.gen.doc_ids[rows[i]], float(scores[i])) for i in top]


def _search_hnsw(
    loaded: _Loaded, q: np.ndarray, k: int, allowed: np.ndarray | None
) -> list[tuple[str, float]] | None:
    """HNSW search; None when the graph cannot return k filtered hits (caller falls back)."""
    k = min(k, loaded.gen.count if allowed is None else int(allowed.sum()))
    filt = None if allowed is None else (lambda label: bool(allowed[label]))
    try:
        with loaded.hnsw_lock:
            loaded.hnsw.set_ef(max(100, 2 * k))
            labels, distances = loaded.hnsw.knn_query(q, k=k, num_threads=1, filter=filt)
    except RuntimeError:
        return None
    return [
        (loaded.gen.doc_ids[int(label)], float(1.0 - dist))
        for label, dist in zip(labels[0], distances[0])
    ]
