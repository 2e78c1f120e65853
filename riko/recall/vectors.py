"""The dense channel's store side: provider, generations and the document set of one scope.

Vectors are derived data kept under ``<warehouse>/dense``. A build embeds only texts not
already in the active generation (cached by text hash), in bounded batches, and promotes
the new generation atomically; recall only ever embeds the query.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from ..clock import iso
from ..dense import DenseDoc, DenseIndex, make_embedding_provider
from ..errors import ConfigError, ProviderError
from ..warehouse import dumps, naive_utc
from .gate import eligibility_reason
from .index_cache import RecallCache

__all__ = ["provider_for", "dense_index", "dense_documents", "build_generation", "index_status", "MAX_VECTORS"]

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


def dense_documents(cache: RecallCache, now: datetime) -> list[DenseDoc]:
    """Pages, evidence chunks and observations eligible in history mode (no query), in order."""
    docs: list[DenseDoc] = []
    for page_id in cache.pages.ids:
        doc = cache.pages.docs[page_id]
        if eligibility_reason(doc, mode="history", now=now) is None:
            page = cache.pages.pages[page_id]
            text = "\n".join(t for t in (page.title, page.description, page.body) if t)[:_PAGE_CHARS]
            docs.append(DenseDoc(page_id, text, "page"))
    side = cache.evidence
    for line, members in enumerate(side.line_chunks):
        doc = cache.evidence_doc(line, keep=False)
        if eligibility_reason(doc, mode="history", now=now) is None:
            docs.extend(DenseDoc(side.chunk_ids[i], side.chunk_texts[i], "evidence") for i in members)
    for obs_id in cache.observations.ids:
        doc = cache.observations.docs[obs_id]
        if eligibility_reason(doc, mode="history", now=now) is None:
            docs.append(DenseDoc(obs_id, doc.text, "observation"))
    return docs


def source_revision(docs: list[DenseDoc]) -> str:
    """Hash of the semantic document set (ids, kinds, texts); timestamps never enter it."""
    digest = hashlib.sha256()
    for doc in docs:
        digest.update(f"{doc.doc_id}\0{doc.kind}\0{doc.text}\n".encode("utf-8"))
    return digest.hexdigest()[:32]


def current_revision(cache: RecallCache, now: datetime) -> tuple[list[DenseDoc], str]:
    """The dense documents and their source revision, cached per recall-cache revision."""
    with cache.lock:
        cached = cache.dense_revision
        if cached is not None and cached[0] == cache.revision:
            return cached[1]  # type: ignore[return-value]
        docs = dense_documents(cache, now)
        result = (docs, source_revision(docs))
        cache.dense_revision = (cache.revision, result)  # type: ignore[assignment]
        return result


def write_index_meta(cache: RecallCache, index: DenseIndex, now: datetime, *, degraded: str | None = None) -> None:
    """Record the generation state for dashboards in ``index_meta`` (skipped when read-only)."""
    wh = cache.wh
    if wh.read_only:
        return
    status = index.status()
    with wh.transaction():
        wh.upsert("index_meta", {
            "name": "dense", "source_revision": status["source_revision"], "provider_model": status["model"],
            "dimension": status["dimension"], "vector_count": status["count"],
            "degraded_reason": degraded or status["degraded_reason"],
            "active_generation": status["active_generation"], "previous_generation": status["previous_generation"],
            "updated_at": naive_utc(now),
        }, key=("name",))


def _write_vectors(cache: RecallCache, index: DenseIndex, docs: list[DenseDoc], generation: str, now: datetime) -> None:
    """Replace the provider-neutral ``vectors`` rows with the new generation's documents."""
    import pyarrow as pa

    from ..dense.store import text_key
    from ..migrations import RECORD_SCHEMA_VERSION

    wh = cache.wh
    model, dim = index.provider.model, int(index.provider.dimension)
    seen: set[str] = set()
    unique = [d for d in docs if not (d.doc_id in seen or seen.add(d.doc_id))]
    table = pa.table({
        "scope_key": [cache.scope_key] * len(unique),
        "schema_version": [RECORD_SCHEMA_VERSION] * len(unique),
        "doc_id": [d.doc_id for d in unique],
        "generation": [generation] * len(unique),
        "model": [model] * len(unique),
        "dimension": pa.array([dim] * len(unique), pa.int32()),
        "text_hash": [text_key(model, d.text) for d in unique],
        "source_kind": [d.kind for d in unique],
        "source_id": [d.doc_id.split("#", 1)[0] if d.kind == "evidence" else d.doc_id for d in unique],
    })
    with wh.transaction():
        wh.con.execute("DELETE FROM vectors WHERE scope_key = ?", [cache.scope_key])
        if unique:
            wh.insert_arrow("vectors", table)
        wh.upsert("jobs", {
            "id": "dense-generation", "kind": "dense-generation", "session_id": None, "cursor": len(unique),
            "status": "succeeded", "attempts": 1, "last_error": None,
            "result": dumps({"generation": generation, "model": model, "dimension": dim, "count": len(unique)}),
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
        stats = index.build(docs, revision, progress=progress)
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
        _write_vectors(cache, index, docs, stats["generation_id"], now)
    write_index_meta(cache, index, now)
    return {"status": "built", "reason": reason, "source_revision": revision, **stats, **_summary(index)}


def _stale_reason(index: DenseIndex, revision: str) -> str:
    status = index.status()
    if status["active_generation"] is None:
        return "no-generation"
    if status["degraded_reason"]:
        return status["degraded_reason"]
    if status["model"] != index.provider.model or status["dimension"] != int(index.provider.dimension):
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
