"""Fresh dense vectors: stale generations say so, refreshes are deltas, gone documents never hit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson

import riko
from riko.clock import FixedClock
from riko.dense import DenseDoc, DenseIndex, DeterministicProvider
from riko.dense.store import read_generation
from riko.recall.engine import build_index, dense_status
from conversation import say

NOW = "2026-01-15T09:00:00Z"


class CountingProvider(DeterministicProvider):
    """The deterministic provider, recording every text it is asked to embed."""

    def __init__(self, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.embedded: list[str] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return super().embed_passages(texts)


def open_mem(root: Path, **config: Any) -> Any:
    base = {"embedding_provider": "deterministic", "embedding_dimension": 64, "recall_vector_enabled": True,
            "recall_enabled": True}
    return riko.open(root, preset="companion", clock=FixedClock(NOW), config={**base, **config})




def docs(n: int, start: int = 0) -> list[DenseDoc]:
    return [DenseDoc(f"d{i}", f"memory number {i} about topic {i % 7}", "evidence") for i in range(start, start + n)]


def active_dir(directory: Path) -> Path:
    return directory / "generations" / orjson.loads((directory / "ACTIVE").read_bytes())["active"]


def dense_job(mem: Any) -> dict[str, Any]:
    row = mem.warehouse.fetchone("SELECT status, result FROM jobs WHERE scope_key = ? AND id = 'dense-generation'",
                                 [mem.scope.key])
    assert row is not None and row[0] == "succeeded"
    return json.loads(row[1])


# -- the index: deltas on disk and in memory ---------------------------------------------------------


def test_a_refresh_embeds_only_new_texts_and_writes_only_a_delta(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    provider = CountingProvider()
    index = DenseIndex(directory, provider)
    first = index.build(docs(200), "rev-1")
    base = active_dir(directory)
    provider.embedded.clear()
    changed = docs(200)[2:] + docs(2, start=200)  # two gone, two new
    changed[10] = DenseDoc("d12", "memory number 12 now about gardening", "evidence")
    second = index.build(changed, "rev-2")
    assert provider.embedded == ["memory number 12 now about gardening", "memory number 200 about topic 4",
                                 "memory number 201 about topic 5"]
    assert (second["mode"], second["embedded"], second["appended"], second["retired"]) == ("delta", 3, 3, 3)
    assert second["reused"] == 197 and second["total"] == 200 and first["mode"] == "full"
    fresh = active_dir(directory)
    names = sorted(p.name for p in fresh.iterdir())
    assert names == ["dead.u32", "delta-0001.docs.jsonl.zst", "delta-0001.scales.f32", "delta-0001.vectors.i8",
                     "docs.jsonl.zst", "meta.json", "scales.f32", "vectors.i8"]
    # the base segment is the previous generation's file, linked, not rewritten
    assert (fresh / "vectors.i8").stat().st_ino == (base / "vectors.i8").stat().st_ino
    meta = orjson.loads((fresh / "meta.json").read_bytes())
    assert (meta["count"], meta["rows"], meta["segments"][1]) == (200, 203, {"prefix": "delta-0001.", "rows": 3})
    gen = read_generation(fresh)
    assert sorted(gen.doc_ids) == sorted(d.doc_id for d in changed) and len(gen.stored_ids) == 203
    # what the refreshed index serves is what a reopen reads
    query = provider.embed_query("memory number 12 now about gardening")
    served = index.search(query, k=5)
    assert served[0][0] == "d12" and served[0][1] > 0.99
    assert DenseIndex(directory, CountingProvider()).search(query, k=5) == served
    assert {d for d, _ in index.search(query, k=300)} == {d.doc_id for d in changed}


def test_a_refresh_over_the_same_document_objects_diffs_from_the_first_change(tmp_path: Path) -> None:
    provider = CountingProvider()
    index = DenseIndex(tmp_path / "dense", provider)
    kept = docs(50)
    index.build(kept, "rev-1")
    provider.embedded.clear()
    changed = list(kept)
    changed[20] = DenseDoc("d20", "memory twenty, rewritten", "evidence")  # a new object mid-list
    del changed[30]
    stats = index.build(changed + docs(1, start=50), "rev-2")
    assert provider.embedded == ["memory twenty, rewritten", "memory number 50 about topic 1"]
    assert (stats["mode"], stats["appended"], stats["retired"], stats["total"]) == ("delta", 2, 2, 50)
    assert index.search_text("memory twenty, rewritten", k=1)[0][0] == "d20"
    assert "d30" not in {d for d, _ in index.search_text("memory number 30 about topic 2", k=60)}
    assert DenseIndex(tmp_path / "dense", CountingProvider()).status()["count"] == 50


def test_deltas_are_compacted_once_dead_rows_pile_up(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    provider = CountingProvider()
    index = DenseIndex(directory, provider)
    index.build(docs(40), "rev-0")
    modes = []
    current = docs(40)
    for step in range(1, 8):  # each step rewrites 3 texts: 7.5 % dead rows per step
        current = [DenseDoc(d.doc_id, f"{d.text} v{step}" if int(d.doc_id[1:]) % 13 == step % 13 else d.text, d.kind)
                   for d in current]
        modes.append(index.build(current, f"rev-{step}")["mode"])
    assert modes[0] == "delta" and "compacted" in modes
    compacted = modes.index("compacted") + 1
    assert all(m == "delta" for m in modes[: compacted - 1])
    assert DenseIndex(directory, provider).status()["count"] == 40
    hit = index.search_text(current[13].text, k=1)[0]
    assert hit[0] == "d13" and hit[1] > 0.99


def test_many_deltas_merge_into_one_segment_without_renumbering_rows(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    provider = CountingProvider()
    index = DenseIndex(directory, provider, exact_threshold=50)
    index.MAX_SEGMENTS = 3
    index.build(docs(100), "rev-0")
    graph = index._active.graph
    modes, current = [], docs(100)
    for step in range(1, 5):
        current = current + docs(2, start=100 + 2 * step)
        if step == 2:  # rewrite a text that lives in a delta: the merged segment holds both rows of d102
            current[100] = DenseDoc("d102", "memory one hundred and two, rewritten", "evidence")
        modes.append(index.build(current, f"rev-{step}")["mode"])
    assert modes == ["delta", "delta", "merged", "delta"]
    names = sorted(p.name for p in active_dir(directory).iterdir() if p.name.endswith(".vectors.i8"))
    assert names == ["delta-0001.vectors.i8", "delta-0002.vectors.i8"]  # base + merged deltas + the last one
    assert index._active.graph is graph and index.status()["count"] == 108
    reopened = DenseIndex(directory, CountingProvider(), exact_threshold=10**9)
    assert reopened.status()["load_error"] is None and reopened.status()["count"] == 108
    assert reopened.search_text("memory one hundred and two, rewritten", k=1)[0][0] == "d102"
    for number in (105, 109, 7):
        q = provider.embed_query(f"memory number {number} about topic {number % 7}")
        (doc_id, score), = index.search(q, k=1)
        assert doc_id == reopened.search(q, k=1)[0][0] == f"d{number}"
        assert abs(score - reopened.search(q, k=1)[0][1]) < 1e-5  # memory holds the merged rows as written


def test_hnsw_graph_is_extended_not_rebuilt_and_agrees_with_exact_search(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    provider = CountingProvider()
    index = DenseIndex(directory, provider, exact_threshold=50)
    index.build(docs(300), "rev-1")
    graph = index._active.graph
    index.build(docs(300)[5:] + docs(5, start=300), "rev-2")
    assert index.status()["search_mode"] == "hnsw" and index._active.graph is graph  # extended in place
    exact = DenseIndex(directory, CountingProvider(), exact_threshold=10**9)
    assert exact.status()["search_mode"] == "exact"
    for text in ("memory number 302 about topic 1", "memory number 3 about topic 3", "topic 6"):
        q = provider.embed_query(text)
        got = index.search(q, k=10)
        assert all(doc_id not in {"d0", "d1", "d2", "d3", "d4"} for doc_id, _ in got)
        assert [d for d, _ in got] == [d for d, _ in exact.search(q, k=10)]


def test_serving_a_stale_generation_hides_departed_documents_until_it_matches(tmp_path: Path) -> None:
    index = DenseIndex(tmp_path / "dense", CountingProvider())
    index.build(docs(10), "rev-1")
    q = index.provider.embed_query("memory number 3 about topic 3")
    assert index.serve_for("rev-2", lambda: {f"d{i}" for i in range(10) if i != 3})  # d3 left at rev-2
    assert "d3" not in [d for d, _ in index.search(q, k=10)] and len(index.search(q, k=10)) == 9
    assert not index.serve_for("rev-1", lambda: set())  # the generation's own revision: served whole
    assert index.search(q, k=1)[0][0] == "d3"
    index.serve_for("rev-2", lambda: {f"d{i}" for i in range(10) if i != 3})
    index.build(docs(10)[:3] + docs(10)[4:], "rev-2")
    assert index.status()["count"] == 9 and not index.serve_for("rev-2", lambda: set())
    assert "d3" not in [d for d, _ in index.search(q, k=10)]


def test_drop_documents_scrubs_dead_rows_of_delta_generations(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    index = DenseIndex(directory, CountingProvider())
    index.build(docs(10), "rev-1")
    index.build(docs(10)[1:] + [DenseDoc("d0", "memory zero rewritten", "evidence")], "rev-2")  # d0's old row is dead
    assert index.drop_documents({"d0"}) == 3  # rev-1's row, rev-2's dead row and its new row
    for path in index.files():
        if path.name.endswith("docs.jsonl.zst"):
            gen_ids = read_generation(path.parent).stored_ids
            assert "d0" not in gen_ids and len(gen_ids) == 9
    assert DenseIndex(directory, CountingProvider()).status()["count"] == 9


def test_a_refresh_whose_base_files_vanished_writes_the_whole_generation(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    provider = CountingProvider()
    index = DenseIndex(directory, provider)
    index.build(docs(20), "rev-1")
    (active_dir(directory) / "vectors.i8").unlink()  # e.g. removed by hand while the index is loaded
    provider.embedded.clear()
    stats = index.build(docs(21), "rev-2")
    assert (stats["mode"], stats["embedded"], stats["total"]) == ("full", 1, 21)
    assert provider.embedded == ["memory number 20 about topic 6"]
    reopened = DenseIndex(directory, CountingProvider())
    assert reopened.status()["count"] == 21 and reopened.status()["load_error"] is None


# -- a scope: the stale signal, the refresh after writes, gone documents ------------------------------


def test_a_stale_generation_says_so_until_mem_index_refreshes_it(tmp_path: Path) -> None:
    provider = CountingProvider()
    with open_mem(tmp_path, recall_vector_enabled=False) as m:  # no refresh after writes
        m.create_page("Cello", "The user is learning the cello.", type="concept")
        for i in range(20):
            say(m, "s1", f"Note {i}: the neighbour's dog barked at the postman.")
        build_index(m.context, progress=False, provider=provider)
        say(m, "s1", "I started taking cello lessons on Tuesdays.")
    with open_mem(tmp_path) as m:
        stale = m.recall("do you remember my cello lessons?")
        status = dense_status(m.context)
        provider.embedded.clear()
        refreshed = build_index(m.context, progress=False, provider=provider)
        fresh = m.recall("do you remember my cello lessons?")
    assert stale.trace["degradedModes"] == ["source-revision-changed"]
    assert stale.trace["candidatesByChannel"]["dense"] >= 1  # the old generation still serves
    assert status["needs_rebuild"] and status["current_source_revision"] != status["source_revision"]
    assert provider.embedded == ["I started taking cello lessons on Tuesdays."]
    assert (refreshed["mode"], refreshed["reason"], refreshed["total"]) == ("delta", "source-revision-changed", 22)
    assert fresh.trace["degradedModes"] == []
    assert "session:s1/event:20" in fresh.results["id"].to_list()


def test_a_forgotten_page_never_surfaces_from_a_stale_generation(tmp_path: Path) -> None:
    with open_mem(tmp_path, recall_vector_enabled=False) as m:
        kept = m.create_page("Tea", "The user drinks oolong tea every morning.", type="concept")
        gone = m.create_page("Green tea", "The user drinks green tea every morning.", type="concept")
        build_index(m.context, progress=False)
        m.forget(gone.id)
    with open_mem(tmp_path) as m:
        from riko.recall.index_cache import cache_for

        ranked = m.retrieve("green tea every morning", channels=["dense"], k=5)
        result = m.recall("do you remember what tea I drink every morning?", debug=True)
        index = next(iter(cache_for(m.context).dense.values()))
        hits = index.search_text("The user drinks green tea every morning.", k=10)
        on_disk = read_generation(active_dir(m.warehouse_dir / "dense")).doc_ids
    assert result.trace["degradedModes"] == ["source-revision-changed"]
    assert gone.id in on_disk  # still stored until the refresh ...
    assert [d for d, _ in hits] == [kept.id]  # ... but hidden from search
    assert ranked["doc_id"].to_list() == [kept.id]
    assert gone.id not in result.results["id"].to_list()
    assert kept.id in result.results["id"].to_list()


def test_the_refresh_after_a_write_batch_keeps_the_generation_fresh(tmp_path: Path) -> None:
    with open_mem(tmp_path) as m:
        page = m.create_page("Cello", "The user is learning the cello.", type="concept")
        for i in range(6):
            say(m, "s1", f"Note {i}: nothing is indexed before the first build.")
        assert not (m.warehouse_dir / "dense").exists()  # the first build stays explicit
        built = m.index(progress=False)
        say(m, "s1", "I adopted a grey kitten called Miso.")  # capture
        captured = dense_job(m)
        m.forget(page.id)  # a page transition
        forgotten = dense_job(m)
        logs = tmp_path / "logs"
        logs.mkdir()
        line = {"schemaVersion": 1, "sessionId": "s2", "seq": 0, "time": NOW, "type": "user/message",
                "data": {"message": {"role": "user", "content": "We moved to a flat near the harbour."}}}
        (logs / "s2.jsonl").write_bytes(orjson.dumps(line) + b"\n")
        m.ingest([str(logs)], preset="companion", progress=False)  # an ingest batch
        ingested = dense_job(m)
        status = dense_status(m.context)
        kitten = m.recall("do you remember my kitten?")
        frame = m.retrieve("where did we move to?", channels=["dense"], k=1)
    assert built["mode"] == "full" and built["total"] == 7
    assert (captured["mode"], captured["embedded"], captured["count"]) == ("delta", 1, 8)
    assert (forgotten["mode"], forgotten["embedded"], forgotten["retired"], forgotten["count"]) == ("delta", 0, 1, 7)
    assert (ingested["mode"], ingested["embedded"], ingested["count"]) == ("delta", 1, 8)
    assert not status["needs_rebuild"] and status["degraded_reason"] is None
    assert kitten.trace["degradedModes"] == [] and "session:s1/event:6" in kitten.results["id"].to_list()
    assert frame["doc_id"].to_list() == ["session:s2/event:0"]


def test_no_refresh_after_writes_when_dense_recall_is_off(tmp_path: Path) -> None:
    with open_mem(tmp_path, recall_vector_enabled=False) as m:
        say(m, "s1", "I adopted a grey kitten called Miso.")
        built = m.index(progress=False)
        say(m, "s1", "We moved to a flat near the harbour.")
        status = dense_status(m.context)
    assert status["needs_rebuild"] and status["active_generation"] == built["generation_id"]


def test_a_forced_index_is_a_full_rewrite_that_embeds_nothing(tmp_path: Path) -> None:
    provider = CountingProvider()
    with open_mem(tmp_path, recall_vector_enabled=False) as m:
        for i in range(12):
            say(m, "s1", f"Note {i}: the neighbour's dog barked at the postman.")
        build_index(m.context, progress=False, provider=provider)
        say(m, "s1", "I started taking cello lessons on Tuesdays.")
        build_index(m.context, progress=False, provider=provider)
        provider.embedded.clear()
        forced = build_index(m.context, progress=False, provider=provider, force=True)
        files = sorted(p.name for p in active_dir(m.warehouse_dir / "dense").iterdir())
    assert (forced["mode"], forced["embedded"], forced["reused"], forced["count"]) == ("full", 0, 13, 13)
    assert provider.embedded == [] and files == ["docs.jsonl.zst", "meta.json", "scales.f32", "vectors.i8"]


def test_a_batch_of_page_transitions_refreshes_once(tmp_path: Path) -> None:
    with open_mem(tmp_path) as m:
        for i in range(8):
            say(m, "s1", f"Note {i}: the neighbour's dog barked at the postman.")
        built = m.index(progress=False)
        ids = [m.propose(f"Hobby {name}", f"The user enjoys {name}.") for name in ("chess", "rowing", "pottery")]
        pages = m.auto_confirm(ids, policy="all")
        status = dense_status(m.context)
        job = dense_job(m)
        stored = {r[0] for r in m.warehouse.fetchall("SELECT doc_id FROM vectors WHERE scope_key = ?", [m.scope.key])}
    assert len(pages) == 3 and not status["needs_rebuild"]
    assert status["previous_generation"] == built["generation_id"]  # one promotion for the whole batch
    assert (job["mode"], job["embedded"], job["count"]) == ("delta", 3, 11) and set(pages) <= stored
