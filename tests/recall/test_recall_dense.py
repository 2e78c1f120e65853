"""The dense channel over a real scope: generations, incremental refresh, blue/green, rebuild triggers."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import riko
from riko.clock import FixedClock
from riko.dense import DeterministicProvider
from riko.errors import ConfigError, ProviderError
from riko.recall.engine import build_index, dense_status
from conversation import say

NOW = "2026-01-15T09:00:00Z"




def open_mem(root: Any, **config: Any) -> Any:
    base = {"embedding_provider": "deterministic", "embedding_dimension": 64, "recall_vector_enabled": True,
            "recall_enabled": True,
            "evidence_classification_enabled": True}
    return riko.open(root, preset="companion", clock=FixedClock(NOW), config={**base, **config})


class CountingProvider(DeterministicProvider):
    """The deterministic provider, counting texts; optionally failing from the n-th batch on."""

    def __init__(self, dimension: int = 64, fail_from_batch: int | None = None) -> None:
        super().__init__(dimension)
        self.texts = 0
        self.batches = 0
        self.fail_from_batch = fail_from_batch

    def embed_passages(self, texts):
        self.batches += 1
        if self.fail_from_batch is not None and self.batches >= self.fail_from_batch:
            raise ProviderError("http-503", "embedding service went away mid-build")
        self.texts += len(texts)
        return super().embed_passages(texts)


def index_meta(mem: Any) -> dict[str, Any]:
    cur = mem.warehouse.con.execute("SELECT * FROM index_meta WHERE scope_key = ? AND name = 'dense'", [mem.scope.key])
    names = [d[0] for d in cur.description]
    return dict(zip(names, cur.fetchall()[0]))


def test_build_is_incremental_and_cached_by_text_hash(tmp_path) -> None:
    provider = CountingProvider()
    with open_mem(tmp_path, recall_vector_enabled=False) as m:  # no refresh after writes: mem.index() does it
        m.create_page("Tea", "The user drinks oolong every morning.", type="concept")
        for i in range(5):
            say(m, "s1", f"Message {i}: I walked the dog along the canal.")
        first = build_index(m.context, progress=False, provider=provider)
        assert (first["status"], first["embedded"], first["total"]) == ("built", 6, 6)
        assert build_index(m.context, progress=False, provider=provider)["status"] == "fresh"
        say(m, "s1", "I started learning the cello.")
        second = build_index(m.context, progress=False, provider=provider)
        meta = index_meta(m)
        vectors = m.warehouse.fetchall("SELECT source_kind, count(*) FROM vectors WHERE scope_key = ? GROUP BY 1 ORDER BY 1",
                                       [m.scope.key])
    assert (second["reason"], second["embedded"], second["reused"], second["total"]) == ("source-revision-changed", 1, 6, 7)
    assert provider.texts == 7 and second["previous_generation_id"] == first["generation_id"]
    assert meta["vector_count"] == 7 and meta["provider_model"] == "deterministic-local-v1" and meta["dimension"] == 64
    assert meta["active_generation"] == second["generation_id"] and meta["previous_generation"] == first["generation_id"]
    assert meta["degraded_reason"] is None and meta["source_revision"] == second["source_revision"]
    assert vectors == [("evidence", 6), ("page", 1)]


def test_dense_documents_are_history_eligible_records_only(tmp_path) -> None:
    with open_mem(tmp_path) as m:
        kept = m.create_page("Tea", "The user drinks oolong.", type="concept")
        gone = m.create_page("Coffee", "The user drinks espresso.", type="concept")
        m.supersede(gone.id)
        m.create_page("Tea notes", "A source.", type="source")
        build_index(m.context, progress=False)
        ids = [r[0] for r in m.warehouse.fetchall("SELECT doc_id FROM vectors WHERE scope_key = ?", [m.scope.key])]
    assert ids == [kept.id]


def test_a_provider_failing_mid_build_leaves_the_previous_generation_serving(tmp_path) -> None:
    with open_mem(tmp_path, recall_vector_enabled=False) as m:
        m.create_page("Cello", "The user is learning the cello.", type="concept")
        good = build_index(m.context, progress=False)
        for i in range(40):  # more than one batch of 32 new texts
            say(m, "s1", f"Practice log {i}: scales on the cello for twenty minutes.")
        flaky = CountingProvider(fail_from_batch=2)
        with pytest.raises(ProviderError):
            build_index(m.context, progress=False, provider=flaky)
        assert flaky.texts == 32  # the first batch was embedded, then the provider failed
        status = dense_status(m.context)
    with open_mem(tmp_path) as m:
        result = m.recall("do you remember my cello lessons?")
        meta = index_meta(m)
        job = m.warehouse.fetchone("SELECT status, last_error FROM jobs WHERE scope_key = ? AND id = 'dense-generation'",
                                   [m.scope.key])
        generations = sorted(p.name for p in (m.warehouse_dir / "dense" / "generations").iterdir())
    assert status["active_generation"] == good["generation_id"] and status["searchable"]
    assert status["needs_rebuild"]
    # the old generation still serves what it holds, and says it predates the 40 new lines
    assert result.trace["degradedModes"] == ["source-revision-changed"] and result.trace["candidatesByChannel"]["dense"] >= 1
    assert meta["degraded_reason"] == "vector-degraded" and meta["active_generation"] == good["generation_id"]
    assert job == ("failed", "http-503")
    assert generations == [good["generation_id"]]  # the staging directory was removed


def test_a_model_change_forces_a_rebuild(tmp_path) -> None:
    with open_mem(tmp_path) as m:
        m.create_page("Cello", "The user is learning the cello.", type="concept")
        built = build_index(m.context, progress=False)
    with open_mem(tmp_path, embedding_dimension=32) as m:
        stale = m.recall("do you remember my cello?")
        status = dense_status(m.context)
        rebuilt = build_index(m.context, progress=False)
        fresh = m.recall("do you remember my cello?")
    assert stale.trace["degradedModes"] == ["embedding-model-changed"]  # recorded; lexical until the rebuild
    assert status["needs_rebuild"] and status["degraded_reason"] == "embedding-model-changed"
    assert rebuilt["reason"] == "embedding-model-changed" and rebuilt["reused"] == 0 and rebuilt["dimension"] == 32
    assert rebuilt["previous_generation_id"] == built["generation_id"]
    assert fresh.trace["degradedModes"] == [] and fresh.trace["candidatesByChannel"]["dense"] == 1


def test_turning_dense_recall_on_builds_the_generation_on_the_next_dense_request(tmp_path) -> None:
    with open_mem(tmp_path, recall_vector_enabled=False) as m:
        m.create_page("Cello", "The user is learning the cello.", type="concept")
        assert not (m.warehouse_dir / "dense").exists() or dense_status(m.context)["active_generation"] is None
    with open_mem(tmp_path) as m:  # the setting turned on; nobody ran `riko index`
        first = m.recall("do you remember my cello?")
        status = dense_status(m.context)
        job = m.warehouse.fetchone("SELECT status FROM jobs WHERE scope_key = ? AND id = 'dense-generation'",
                                   [m.scope.key])
        again = m.recall("do you remember my cello?")
        second_status = dense_status(m.context)
    assert first.trace["degradedModes"] == [] and first.trace["candidatesByChannel"]["dense"] == 1
    assert status["searchable"] and status["count"] >= 1 and not status["needs_rebuild"]
    assert job == ("succeeded",)
    assert again.trace["candidatesByChannel"]["dense"] == 1
    assert second_status["active_generation"] == status["active_generation"]  # built once, then served


def test_a_dense_request_that_may_not_build_degrades_and_says_so(tmp_path) -> None:
    with open_mem(tmp_path) as m:
        m.create_page("Cello", "The user is learning the cello.", type="concept")
        held = m.recall("do you remember my cello?", build_index=False)
        assert dense_status(m.context)["active_generation"] is None
    with riko.open(tmp_path, preset="companion", clock=FixedClock(NOW), read_only=True,
                   config={"embedding_provider": "deterministic", "embedding_dimension": 64,
                           "recall_vector_enabled": True, "recall_enabled": True}) as ro:
        read_only = ro.recall("do you remember my cello?")
    assert held.trace["degradedModes"] == ["vector-degraded"] and "dense" not in held.trace["candidatesByChannel"]
    assert "vector-degraded" in read_only.trace["degradedModes"] and read_only.trace["injectedMemories"] == 1
    with open_mem(tmp_path) as m:
        assert dense_status(m.context)["active_generation"] is None  # neither request built anything


def test_a_failing_build_on_the_dense_request_degrades_to_lexical_and_is_recorded(tmp_path) -> None:
    with open_mem(tmp_path) as m:
        m.create_page("Cello", "The user is learning the cello.", type="concept")
        failed = m.recall("do you remember my cello?", provider=CountingProvider(fail_from_batch=1))
        job = m.warehouse.fetchone("SELECT status, last_error FROM jobs WHERE scope_key = ? AND id = 'dense-generation'",
                                   [m.scope.key])
        healed = m.recall("do you remember my cello?")
    assert failed.trace["degradedModes"] == ["vector-degraded"] and failed.trace["injectedMemories"] == 1
    assert "Cello" in failed.context or "cello" in failed.context
    assert job == ("failed", "http-503")
    assert healed.trace["degradedModes"] == [] and healed.trace["candidatesByChannel"]["dense"] == 1


def test_no_provider_means_vector_provider_unavailable(tmp_path) -> None:
    with open_mem(tmp_path, embedding_provider="off") as m:
        m.create_page("Cello", "The user is learning the cello.", type="concept")
        result = m.recall("do you remember my cello?")
        with pytest.raises(ConfigError):
            m.index(progress=False)
    assert result.trace["degradedModes"] == ["vector-provider-unavailable"] and result.trace["injectedMemories"] == 1


class _Embeddings(BaseHTTPRequestHandler):
    status = 200

    def do_POST(self) -> None:  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        vectors = DeterministicProvider(64).embed_passages(body["input"]).tolist()
        data = json.dumps({"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]}).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return


def test_an_http_provider_failing_at_query_time_degrades_to_lexical(tmp_path, monkeypatch) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("RIKO_TEST_EMBEDDING_KEY", "k-test")
    _Embeddings.status = 200
    try:
        with open_mem(tmp_path, embedding_provider="openai-compatible", embedding_model="stub",
                      embedding_endpoint=f"http://127.0.0.1:{server.server_address[1]}/v1/embeddings",
                      embedding_credential_ref="RIKO_TEST_EMBEDDING_KEY", embedding_timeout_ms=2000) as m:
            m.create_page("Cello", "The user is learning the cello.", type="concept")
            assert m.index(progress=False)["status"] == "built"
            served = m.recall("do you remember my cello?")
            _Embeddings.status = 500
            failed = m.recall("do you remember my cello?")
    finally:
        server.shutdown()
        server.server_close()
    assert served.trace["degradedModes"] == [] and served.trace["candidatesByChannel"]["dense"] == 1
    assert failed.trace["degradedModes"] == ["vector-degraded"] and failed.trace["injectedMemories"] == 1


def test_the_local_e5_provider_serves_paraphrased_recall(tmp_path) -> None:
    with open_mem(tmp_path, embedding_provider="local", evidence_classification_enabled=True) as m:
        say(m, "s1", "My daughter started violin lessons at the conservatory.")
        say(m, "s1", "The boiler in the basement is making a strange noise.")
        stats = m.index(progress=False)
        frame = m.retrieve("what instrument is my kid learning?", channels=["dense"], k=2)
    assert stats["model"] == "multilingual-e5-small" and stats["dimension"] == 384
    assert frame["doc_id"].to_list()[0] == "session:s1/event:0"
