"""The dense channel's store side: provider, generations and the document set of one scope.

Vectors are derived data kept under ``<warehouse>/dense``. A build embeds only texts not
already in the active generation (cached by text hash), in bounded batches, and promotes
the new generation atomically; recall only ever embeds the query.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..clock import iso, utc
from ..dense import DenseDoc, DenseIndex, make_embedding_provider
from ..errors import ConfigError, ProviderError
from ..stores.warehouse import dumps, naive_utc
from .gate import eligibility_reason
from .index_cache import RecallCache
from ..dense.store import POINTER_NAME, text_key
from ..stores.migrations import RECORD_SCHEMA_VERSION
from .index_cache import cache_for

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["provider_for", "dense_index", "dense_documents", "build_generation", "index_status", "serving_reason",
           "refresh_after_write", "MAX_VECTORS"]

#: Upper bound on the documents of one generation (a guard against runaway builds).
MAX_VECTORS = 1_000_000
_PAGE_CHARS = 2000


def provider_for(cache: RecallCache) -> Any:
    """The configured embedding provider (None for ``off``); construction errors are remembered."""
    with cache.lock:
        if not cache.provider_ready:
            cfg = cache.config
            try:
                cache.provider = make_embedding_provider(
                    cfg.embedding_provider, dimension=cfg.embedding_dimension, endpoint=cfg.embedding_endpoint,
                    model=cfg.embedding_model, credential_ref=cfg.embedding_credential_ref,
                    timeout_ms=cfg.embedding_timeout_ms,
                )
                cache.provider_error = None
            except (ConfigError, ProviderError) as exc:
                cache.provider, cache.provider_error = None, str(exc)
            cache.provider_ready = True
        return cache.provider


def dense_index(cache: RecallCache, provider: Any, directory: Any, clock: Any) -> DenseIndex:
    """The scope's DenseIndex for ``provider``'s vector space (loaded once per process)."""
    key = (provider.model, int(provider.dimension))
    with cache.lock:
        index = cache.dense.get(key)
        if index is None:
            index = cache.dense[key] = DenseIndex(directory, provider, max_vectors=MAX_VECTORS, clock=clock)
        index.provider = provider  # same vector space; the caller's provider embeds the next build
        return index


@dataclass
class _EvidenceMemo:
    """The evidence part of the dense documents, extended as lines are appended.

    In history mode an L0 line's eligibility depends only on its suppression and correction
    state, so while those sets stand still only appended lines are examined and hashed.
    """

    side: Any
    lines: int
    suppressed: frozenset[str]
    invalid: frozenset[int]
    docs: list[DenseDoc]
    digest: Any


_EVIDENCE: weakref.WeakKeyDictionary[Any, _EvidenceMemo] = weakref.WeakKeyDictionary()


def _hash_docs(digest: Any, docs: Iterable[DenseDoc]) -> Any:
    for doc in docs:
        digest.update(f"{doc.doc_id}\0{doc.kind}\0{doc.text}\n".encode())
    return digest


def _evidence_documents(cache: RecallCache, now: datetime) -> _EvidenceMemo:
    side = cache.evidence
    suppressed = frozenset(side.suppressed_refs)
    invalid = frozenset(i for i, flag in enumerate(side.invalidated) if flag)
    memo = _EVIDENCE.get(cache)
    if memo is None or memo.side is not side or memo.suppressed != suppressed or memo.invalid != invalid \
            or memo.lines > len(side.line_chunks):
        memo = _EvidenceMemo(side, 0, suppressed, invalid, [], hashlib.sha256())
    if memo.lines < len(side.line_chunks):
        added: list[DenseDoc] = []
        for line in range(memo.lines, len(side.line_chunks)):
            doc = cache.evidence_doc(line, keep=False)
            if eligibility_reason(doc, mode="history", now=now) is None:
                added.extend(DenseDoc(side.chunk_ids[i], side.chunk_texts[i], "evidence") for i in side.line_chunks[line])
        memo.docs.extend(added)
        _hash_docs(memo.digest, added)
        memo.lines = len(side.line_chunks)
    _EVIDENCE[cache] = memo
    return memo


def _page_documents(cache: RecallCache, now: datetime) -> list[DenseDoc]:
    docs = []
    for page_id in cache.pages.ids:
        doc = cache.pages.docs[page_id]
        # lineage a history read labels (forgotten, or replaced other than over time) is found
        # lexically; a forgotten page's words are never embedded
        if doc.status == "forgotten" or doc.superseded not in (None, "temporal"):
            continue
        if eligibility_reason(doc, mode="history", now=now) is None:
            page = cache.pages.pages[page_id]
            text = "\n".join(t for t in (page.title, page.description, page.body) if t)[:_PAGE_CHARS]
            docs.append(DenseDoc(page_id, text, "page"))
    return docs


def _observation_documents(cache: RecallCache, now: datetime) -> list[DenseDoc]:
    docs = []
    for obs_id in cache.observations.ids:
        doc = cache.observations.docs[obs_id]
        if eligibility_reason(doc, mode="history", now=now) is None:
            docs.append(DenseDoc(obs_id, doc.text, "observation"))
    return docs


def dense_documents(cache: RecallCache, now: datetime) -> list[DenseDoc]:
    """Evidence chunks, pages and observations eligible in history mode (no query), in order.

    Evidence comes first: its document objects persist between revisions, so a refresh after
    appended lines diffs only the tail (see DenseIndex build).
    """
    return _evidence_documents(cache, now).docs + _page_documents(cache, now) + _observation_documents(cache, now)


def source_revision(docs: list[DenseDoc]) -> str:
    """Hash of the semantic document set (ids, kinds, texts); timestamps never enter it."""
    return _hash_docs(hashlib.sha256(), docs).hexdigest()[:32]


def _revision(cache: RecallCache, now: datetime) -> tuple[list[DenseDoc], str]:
    """Documents and revision; the evidence part is hashed incrementally (see _EvidenceMemo)."""
    pages, observations = _page_documents(cache, now), _observation_documents(cache, now)
    evidence = _evidence_documents(cache, now)
    digest = hashlib.sha256()
    for part in (source_revision(pages), evidence.digest.hexdigest(), source_revision(observations)):
        digest.update(part.encode())
    return evidence.docs + pages + observations, digest.hexdigest()[:32]


def current_revision(cache: RecallCache, now: datetime) -> tuple[list[DenseDoc], str]:
    """The dense documents and their source revision, cached per recall-cache revision."""
    with cache.lock:
        cached = cache.dense_revision
        if cached is not None and cached[0] == cache.revision:
            return cached[1]  # type: ignore[return-value]
        result = _revision(cache, now)
        cache.dense_revision = (cache.revision, result)  # type: ignore[assignment]
        return result


def write_index_meta(cache: RecallCache, index: DenseIndex, now: datetime, *, degraded: str | None = None) -> None:
    """Record the generation state for dashboards in ``index_meta`` (skipped when read-only)."""
    wh = cache.wh
    if wh.read_only:
        return
    status = index.status(disk=False)
    with wh.transaction():
        wh.upsert("index_meta", {
            "name": "dense", "source_revision": status["source_revision"], "provider_model": status["model"],
            "dimension": status["dimension"], "vector_count": status["count"],
            "degraded_reason": degraded or status["degraded_reason"],
            "active_generation": status["active_generation"], "previous_generation": status["previous_generation"],
            "updated_at": naive_utc(now),
        }, key=("name",))


def _model_of(index: DenseIndex) -> tuple[str, int]:
    """(model, dimension) of the provider a recall-side index was opened with."""
    provider = index.provider
    if provider is None:
        raise ConfigError("embedding_provider", "the dense index was opened without an embedding provider")
    return provider.model, int(provider.dimension)


def recorded_degradation(cache: RecallCache) -> str | None:
    """The ``degraded_reason`` last recorded for the dense index in ``index_meta``."""
    return cache.stores.vectors.degraded_reason("dense")


def _vector_rows(cache: RecallCache, index: DenseIndex, docs: list[DenseDoc], generation: str) -> Any:
    import pyarrow as pa


    model, dim = _model_of(index)
    return pa.table({
        "scope_key": [cache.scope_key] * len(docs),
        "schema_version": [RECORD_SCHEMA_VERSION] * len(docs),
        "doc_id": [d.doc_id for d in docs],
        "generation": [generation] * len(docs),
        "model": [model] * len(docs),
        "dimension": pa.array([dim] * len(docs), pa.int32()),
        "text_hash": [text_key(model, d.text) for d in docs],
        "source_kind": [d.kind for d in docs],
        "source_id": [d.doc_id.split("#", 1)[0] if d.kind == "evidence" else d.doc_id for d in docs],
    })


def _write_vectors(cache: RecallCache, index: DenseIndex, docs: list[DenseDoc], stats: dict[str, Any],
                   now: datetime) -> None:
    """Bring the provider-neutral ``vectors`` rows to the new generation's documents.

    After a delta build only the added and retired documents' rows change (a row's
    ``generation`` is the one that embedded it); a full build, or rows that drifted from the
    index (a crash between the two writes), rewrite the scope's rows.
    """
    wh = cache.wh
    generation = stats["generation_id"]
    model, dim = _model_of(index)
    count = index.count
    delta = index.last_delta
    with wh.transaction():
        if delta is not None:
            added, retired = delta
            touched = sorted({d.doc_id for d in added} | set(retired))
            if touched:
                cache.stores.vectors.delete(touched)
            if added:
                wh.insert_arrow("vectors", _vector_rows(cache, index, added, generation))
            delta = delta if cache.stores.vectors.count() == count else None
        if delta is None:
            seen: set[str] = set()
            unique = [d for d in docs if not (d.doc_id in seen or seen.add(d.doc_id))]  # type: ignore[func-returns-value]
            cache.stores.vectors.delete()
            if unique:
                wh.insert_arrow("vectors", _vector_rows(cache, index, unique, generation))
        wh.upsert("jobs", {
            "id": "dense-generation", "kind": "dense-generation", "session_id": None, "cursor": count,
            "status": "succeeded", "attempts": 1, "last_error": None,
            "result": dumps({"generation": generation, "model": model, "dimension": dim, "count": count,
                             "mode": stats["mode"], "embedded": stats["embedded"], "appended": stats["appended"],
                             "retired": stats["retired"], "seconds": stats["seconds"]}),
            "lease_owner": None, "lease_expires_at": None, "created_at": naive_utc(now), "updated_at": naive_utc(now),
        }, key=("id",))


def build_generation(
    cache: RecallCache, index: DenseIndex, now: datetime, *, progress: bool = False, force: bool = False
) -> dict[str, Any]:
    """Build (or refresh) the generation when the inputs moved; ``force`` builds regardless.

    A provider failure leaves the active generation serving, records ``vector-degraded`` in
    ``index_meta`` and re-raises.
    """
    docs, revision = current_revision(cache, now)
    if not force and not index.needs_rebuild(revision):
        write_index_meta(cache, index, now)
        return {"status": "fresh", "source_revision": revision, "total": len(docs), "embedded": 0,
                "reused": len(docs), **_summary(index)}
    reason = _stale_reason(index, revision)
    try:
        stats = index.build(docs, revision, progress=progress, full=force)
    except ProviderError as exc:
        write_index_meta(cache, index, now, degraded="vector-degraded")
        if not cache.wh.read_only:
            with cache.wh.transaction():
                cache.wh.upsert("jobs", {
                    "id": "dense-generation", "kind": "dense-generation", "session_id": None, "cursor": None,
                    "status": "failed", "attempts": 1, "last_error": exc.reason, "result": None,
                    "lease_owner": None, "lease_expires_at": None, "created_at": naive_utc(now),
                    "updated_at": naive_utc(now),
                }, key=("id",))
        raise
    if not cache.wh.read_only:
        with cache.wh.transaction():  # one commit for the vectors rows, the job and index_meta
            _write_vectors(cache, index, docs, stats, now)
            write_index_meta(cache, index, now)
    return {"status": "built", "reason": reason, "source_revision": revision, **stats, **_summary(index)}


def _stale_reason(index: DenseIndex, revision: str) -> str:
    status = index.status(disk=False)
    if status["active_generation"] is None:
        return "no-generation"
    if status["degraded_reason"]:
        return status["degraded_reason"]
    if (status["model"], status["dimension"]) != _model_of(index):
        return "embedding-model-changed"
    if status["source_revision"] != revision:
        return "source-revision-changed"
    return "forced"


def _summary(index: DenseIndex) -> dict[str, Any]:
    status = index.status()
    return {
        "active_generation": status["active_generation"], "previous_generation": status["previous_generation"],
        "model": status["model"], "dimension": status["dimension"], "count": status["count"],
        "search_mode": status["search_mode"], "bytes_on_disk": status["bytes_on_disk"],
    }


def index_status(cache: RecallCache, index: DenseIndex, now: datetime) -> dict[str, Any]:
    """The generation's status plus whether the scope's documents moved since it was built."""
    _, revision = current_revision(cache, now)
    status = index.status()
    status["current_source_revision"] = revision
    status["needs_rebuild"] = index.needs_rebuild(revision)
    status["checked_at"] = iso(now)
    return status


def serving_reason(cache: RecallCache, index: DenseIndex, now: datetime) -> str | None:
    """Why the served generation is degraded, if it is: ``source-revision-changed`` when it was
    built before the scope's current documents, or the reason recorded in its pointer.

    A stale generation keeps serving, but only for documents still in the dense set: the
    vectors of documents that are gone or no longer eligible are hidden until the refresh.
    """
    docs, revision = current_revision(cache, now)
    if index.serve_for(revision, lambda: {d.doc_id for d in docs}):
        return "source-revision-changed"
    return index.degraded_reason


def listen(ctx: "ScopeContext") -> None:
    """Subscribe the dense refresh to every write, deferred: a write batch refreshes once at its end."""
    ctx.changed.subscribe(lambda: refresh_after_write(ctx), deferred=True)


def refresh_after_write(ctx: "ScopeContext") -> dict[str, Any] | None:
    """After a write batch, bring a served dense generation up to the scope's documents.

    Runs only when dense recall is on, a provider is configured and a generation exists (the
    first build is the next dense request's, or ``riko index``'s). Only new texts are embedded. A failure never
    fails the write: it is recorded in ``index_meta``/``jobs`` and recall reports the stale
    generation until the next refresh.
    """
    cfg = ctx.config
    if ctx.read_only or not cfg.recall_vector_enabled or cfg.embedding_provider == "off":
        return None

    directory = ctx.warehouse_dir / "dense"
    if not (directory / POINTER_NAME).exists():
        return None
    cache = cache_for(ctx)
    provider = provider_for(cache)
    if provider is None:
        return None
    try:
        index = dense_index(cache, provider, directory, ctx.clock)
        # a loaded generation, or one whose vectors a purge dropped (rebuilt by reuse, not re-embedding)
        if index.active_revision is None and index.degraded_reason != "purge-rebuild-required":
            return None
        cache.refresh()
        now = utc(ctx.clock.now())
        if not index.needs_rebuild(current_revision(cache, now)[1]):
            return None  # the batch moved nothing the dense set holds (e.g. an assistant turn)
        return build_generation(cache, index, now)
    except Exception:  # noqa: BLE001 - derived data: the write already landed and must not fail
        # build_generation recorded a provider failure; any failure leaves the generation
        # stale, which recall names (source-revision-changed) until the next refresh.
        return None
