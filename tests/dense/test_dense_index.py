"""DenseIndex: generations on disk, incremental rebuilds, failure safety, search modes, purge."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from riko.clock import FixedClock
from riko.dense import DenseDoc, DenseIndex, DeterministicProvider, USEProvider
from riko.dense.providers import normalize_rows
from riko.dense.store import dequantize, quantize
from riko.errors import ConfigError, ProviderError


class CountingProvider(DeterministicProvider):
    """The deterministic provider, recording every batch it is asked to embed."""

    def __init__(self, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.batches: list[list[str]] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return super().embed_passages(texts)

    @property
    def embedded(self) -> list[str]:
        return [t for batch in self.batches for t in batch]


class FailingProvider(CountingProvider):
    """Fails with a provider error on batch number ``fail_on`` (1-based)."""

    def __init__(self, fail_on: int, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.fail_on = fail_on

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if len(self.batches) + 1 == self.fail_on:
            self.batches.append(list(texts))
            raise ProviderError("http-503", "embedding service unavailable")
        return super().embed_passages(texts)


class OtherModelProvider(DeterministicProvider):
    model = "deterministic-local-v1-other"


class BrokenVectorsProvider(DeterministicProvider):
    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        out = super().embed_passages(texts)
        out[0, 0] = np.nan
        return out


def make_docs(n: int, prefix: str = "") -> list[DenseDoc]:
    kinds = ("page", "evidence", "observation")
    return [DenseDoc(f"d{i}", f"{prefix}memory number {i} about topic {i % 7}", kinds[i % 3]) for i in range(n)]


def gen_dirs(directory: Path) -> list[str]:
    return sorted(p.name for p in (directory / "generations").iterdir())


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock("2026-01-15T09:00:00Z")


def test_build_then_reopen_restores_the_same_generation(tmp_path: Path, clock: FixedClock) -> None:
    provider = CountingProvider()
    index = DenseIndex(tmp_path / "dense", provider, clock=clock)
    assert index.needs_rebuild("rev-1") and index.status()["active_generation"] is None
    assert index.search_text("topic") == []
    stats = index.build(make_docs(40), "rev-1")
    assert (stats["embedded"], stats["reused"], stats["total"]) == (40, 0, 40)
    assert stats["generation_id"].startswith("g20260115T090000-")
    hits = index.search_text("memory number 5 about topic 5", k=3)
    assert hits[0][0] == "d5" and hits[0][1] == pytest.approx(1.0, abs=0.02)

    reopened = DenseIndex(tmp_path / "dense", DeterministicProvider(64))
    status = reopened.status()
    assert status["active_generation"] == stats["generation_id"]
    assert (status["model"], status["dimension"], status["count"]) == ("deterministic-local-v1", 64, 40)
    assert (status["source_revision"], status["schema_version"], status["degraded_reason"]) == ("rev-1", 3, None)
    assert status["created_at"] == "2026-01-15T09:00:00.000Z"
    assert status["searchable"] and status["search_mode"] == "exact"
    assert status["bytes_on_disk"] == sum(p.stat().st_size for p in reopened.files())
    assert reopened.search_text("memory number 5 about topic 5", k=3) == hits
    assert not reopened.needs_rebuild("rev-1")
    assert reopened.needs_rebuild("rev-2")


def test_files_are_private_and_hold_no_text(tmp_path: Path) -> None:
    index = DenseIndex(tmp_path / "dense", CountingProvider())
    index.build([DenseDoc("p1", "Alice keeps a secret diary", "page")], "r")
    names = {p.name for p in index.files()}
    assert names == {"ACTIVE", "meta.json", "vectors.i8", "scales.f32", "docs.jsonl.zst"}
    for path in index.files():
        assert path.stat().st_mode & 0o077 == 0
        data = path.read_bytes()
        if path.suffix == ".zst":
            data = zstandard.ZstdDecompressor().decompress(data)
        assert b"secret diary" not in data
    assert (tmp_path / "dense").stat().st_mode & 0o077 == 0


def test_incremental_rebuild_embeds_only_new_and_changed_texts(tmp_path: Path) -> None:
    provider = CountingProvider()
    index = DenseIndex(tmp_path / "dense", provider, batch_size=8)
    docs = make_docs(100)
    index.build(docs, "rev-1")
    assert len(provider.embedded) == 100
    assert all(len(batch) <= 8 for batch in provider.batches)

    provider.batches.clear()
    changed = list(docs[5:])  # d0..d4 removed
    changed[0] = DenseDoc("d5", "memory five was corrected", "page")
    changed[1] = DenseDoc("d6", "memory six was corrected", "evidence")
    changed += [DenseDoc("n1", "a brand new observation", "observation"), DenseDoc("n2", "another new page", "page")]
    stats = index.build(changed, "rev-2")
    assert sorted(provider.embedded) == sorted(
        ["memory five was corrected", "memory six was corrected", "a brand new observation", "another new page"]
    )
    assert (stats["embedded"], stats["reused"], stats["total"]) == (4, 93, 97)
    assert index.search_text("memory five was corrected", k=1)[0][0] == "d5"
    assert "d0" not in {doc_id for doc_id, _ in index.search_text("memory number 0 about topic 0", k=97)}

    provider.batches.clear()
    stats = index.build(changed, "rev-3")
    assert provider.batches == [] and stats["reused"] == 97


def test_duplicate_texts_are_embedded_once_and_duplicate_ids_keep_the_first(tmp_path: Path) -> None:
    provider = CountingProvider()
    index = DenseIndex(tmp_path / "dense", provider)
    docs = [
        DenseDoc("a", "same words", "page"),
        DenseDoc("b", "same words", "evidence"),
        DenseDoc("a", "ignored duplicate id", "page"),
    ]
    stats = index.build(docs, "r")
    assert provider.embedded == ["same words"]
    assert (stats["total"], stats["embedded"], stats["embedded_documents"]) == (2, 1, 2)
    hits = dict(index.search_text("same words", k=5))
    assert set(hits) == {"a", "b"} and hits["a"] == pytest.approx(hits["b"])


def test_reused_vectors_survive_many_generations(tmp_path: Path) -> None:
    provider = CountingProvider()
    index = DenseIndex(tmp_path / "dense", provider)
    docs = make_docs(30)
    index.build(docs, "r0")
    first = index.search_text("memory number 3 about topic 3", k=5)
    for rev in range(1, 6):
        docs = docs + [DenseDoc(f"x{rev}", f"extra text {rev}", "page")]
        index.build(docs, f"r{rev}")
    again = index.search_text("memory number 3 about topic 3", k=5)
    assert [d for d, _ in again] == [d for d, _ in first]
    assert np.allclose([s for _, s in again], [s for _, s in first], atol=0.02)


def test_only_active_and_previous_generations_stay_on_disk(tmp_path: Path) -> None:
    index = DenseIndex(tmp_path / "dense", CountingProvider())
    ids = [index.build(make_docs(5 + i), f"r{i}")["generation_id"] for i in range(4)]
    assert gen_dirs(tmp_path / "dense") == sorted(ids[-2:])
    status = index.status()
    assert (status["active_generation"], status["previous_generation"]) == (ids[-1], ids[-2])
    pointer = orjson.loads((tmp_path / "dense" / "ACTIVE").read_bytes())
    assert pointer == {"active": ids[-1], "previous": ids[-2], "degraded_reason": None, "schema_version": 3}


def test_provider_failure_mid_build_keeps_the_previous_generation(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    DenseIndex(directory, CountingProvider(), batch_size=4).build(make_docs(12), "rev-1")
    failing = FailingProvider(fail_on=3)
    index = DenseIndex(directory, failing, batch_size=4)
    before = index.status()
    expected = index.search_text("memory number 2 about topic 2", k=3)
    with pytest.raises(ProviderError) as err:
        index.build(make_docs(20, prefix="rewritten "), "rev-2")
    assert err.value.reason == "http-503" and len(failing.batches) == 3
    assert index.status()["active_generation"] == before["active_generation"]
    assert index.search_text("memory number 2 about topic 2", k=3) == expected
    assert index.needs_rebuild("rev-2") and not index.needs_rebuild("rev-1")
    assert gen_dirs(directory) == [before["active_generation"]]
    assert DenseIndex(directory, CountingProvider()).search_text("memory number 2 about topic 2", k=3) == expected


def test_invalid_provider_vectors_fail_the_build(tmp_path: Path) -> None:
    index = DenseIndex(tmp_path / "dense", BrokenVectorsProvider(64))
    with pytest.raises(ProviderError) as err:
        index.build(make_docs(3), "r")
    assert err.value.reason == "invalid-response"
    assert index.status()["active_generation"] is None
    assert not (tmp_path / "dense" / "ACTIVE").exists()


def test_model_or_dimension_change_needs_a_rebuild_and_never_mixes(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    DenseIndex(directory, CountingProvider(64)).build(make_docs(10), "rev-1")
    for provider in (OtherModelProvider(64), CountingProvider(128)):
        index = DenseIndex(directory, provider)
        status = index.status()
        assert status["degraded_reason"] == "embedding-model-changed" and not status["searchable"]
        assert index.needs_rebuild("rev-1")
        assert index.search(np.ones(provider.dimension, dtype=np.float32)) == []
    rebuilt = CountingProvider(128)
    stats = DenseIndex(directory, rebuilt).build(make_docs(10), "rev-1")
    assert stats["reused"] == 0 and len(rebuilt.embedded) == 10
    reopened = DenseIndex(directory, CountingProvider(128))
    assert reopened.status()["dimension"] == 128 and not reopened.needs_rebuild("rev-1")


def _active_dir(directory: Path) -> Path:
    return directory / "generations" / orjson.loads((directory / "ACTIVE").read_bytes())["active"]


def test_corrupt_generation_is_ignored_and_reported(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    DenseIndex(directory, CountingProvider()).build(make_docs(10), "rev-1")
    vectors = _active_dir(directory) / "vectors.i8"
    data = bytearray(vectors.read_bytes())
    data[-3] ^= 0xFF
    vectors.write_bytes(bytes(data))
    index = DenseIndex(directory, CountingProvider())
    status = index.status()
    assert status["degraded_reason"] == "vector-degraded" and "checksum" in status["load_error"]
    assert not status["searchable"] and index.needs_rebuild("rev-1")
    assert index.search_text("memory") == []
    index.build(make_docs(10), "rev-1")
    assert index.status()["degraded_reason"] is None and index.search_text("memory number 1", k=1)[0][0] == "d1"


def test_foreign_schema_and_missing_generation_are_ignored(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    DenseIndex(directory, CountingProvider()).build(make_docs(5), "rev-1")
    meta_path = _active_dir(directory) / "meta.json"
    meta = orjson.loads(meta_path.read_bytes())
    meta_path.write_bytes(orjson.dumps({**meta, "schema_version": 2}))
    status = DenseIndex(directory, CountingProvider()).status()
    assert status["degraded_reason"] == "index-schema-changed" and not status["searchable"]

    (directory / "ACTIVE").write_text('{"active": "g-missing", "previous": null}')
    status = DenseIndex(directory, CountingProvider()).status()
    assert status["degraded_reason"] == "vector-degraded" and "missing" in status["load_error"]

    (directory / "ACTIVE").write_text("{not json")
    index = DenseIndex(directory, CountingProvider())
    assert index.status()["degraded_reason"] == "vector-degraded" and index.needs_rebuild("rev-1")


def test_invalidation_persists_and_stale_generation_stays_searchable(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    index = DenseIndex(directory, CountingProvider())
    index.build(make_docs(10), "rev-1")
    index.invalidate("source-revision-changed")
    assert index.needs_rebuild("rev-1")
    reopened = DenseIndex(directory, CountingProvider())
    assert reopened.status()["degraded_reason"] == "source-revision-changed"
    assert reopened.needs_rebuild("rev-1")
    assert reopened.search_text("memory number 4 about topic 4", k=1)[0][0] == "d4"
    reopened.build(make_docs(10), "rev-1")
    assert DenseIndex(directory, CountingProvider()).status()["degraded_reason"] is None
    with pytest.raises(ConfigError):
        index.invalidate("because")


def test_purge_rebuild_required_is_not_searchable(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    index = DenseIndex(directory, CountingProvider())
    index.build(make_docs(10), "rev-1")
    index.invalidate("purge-rebuild-required")
    assert index.search_text("memory number 4") == [] and not index.status()["searchable"]
    assert index.search(np.ones(64, dtype=np.float32)) == []
    reopened = DenseIndex(directory, CountingProvider())
    status = reopened.status()
    assert status["degraded_reason"] == "purge-rebuild-required" and not status["searchable"]
    assert status["model"] == "deterministic-local-v1" and status["source_revision"] == "rev-1"
    assert reopened.search_text("memory number 4") == []
    provider = CountingProvider()
    rebuilt = DenseIndex(directory, provider)
    stats = rebuilt.build(make_docs(9), "rev-2")
    assert stats["reused"] == 9 and provider.embedded == []
    assert rebuilt.status()["searchable"] and rebuilt.search_text("memory number 4 about topic 4", k=1)[0][0] == "d4"


def test_drop_documents_scrubs_active_and_previous_generations(tmp_path: Path) -> None:
    directory = tmp_path / "dense"
    index = DenseIndex(directory, CountingProvider())
    index.build(make_docs(10), "rev-1")
    index.build(make_docs(12), "rev-2")
    removed = index.drop_documents(lambda doc_id: doc_id in {"d3", "d11"})
    assert removed == 3  # d3 in both generations, d11 only in the active one
    assert index.status()["count"] == 10
    for doc_id, _ in index.search_text("memory number 3 about topic 3", k=20):
        assert doc_id not in {"d3", "d11"}
    for path in index.files():
        if path.name == "docs.jsonl.zst":
            lines = zstandard.ZstdDecompressor().decompress(path.read_bytes()).splitlines()
            ids = [orjson.loads(line)["id"] for line in lines]
            assert "d3" not in ids and "d11" not in ids
    assert index.drop_documents({"d4"}) == 2
    assert index.drop_documents({"nope"}) == 0
    reopened = DenseIndex(directory, CountingProvider())
    assert reopened.status()["count"] == 9 and reopened.status()["degraded_reason"] is None
    assert len(gen_dirs(directory)) == 2


def test_kinds_filter_and_bounds(tmp_path: Path) -> None:
    index = DenseIndex(tmp_path / "dense", CountingProvider(), max_vectors=50)
    index.build(make_docs(30), "r")
    hits = index.search_text("memory about topic", k=30, kinds={"evidence"})
    assert len(hits) == 10 and all(int(d[1:]) % 3 == 1 for d, _ in hits)
    assert index.search_text("memory", k=5, kinds={"unknown"}) == []
    assert index.search_text("memory", k=0) == []
    scores = [s for _, s in index.search_text("memory about topic", k=30)]
    assert scores == sorted(scores, reverse=True)
    with pytest.raises(ValueError):
        index.search(np.ones(32, dtype=np.float32))
    with pytest.raises(ConfigError):
        index.build(make_docs(51), "r2")
    with pytest.raises(ConfigError):
        DenseDoc("x", "text", "chapter")


def test_empty_build_and_missing_provider(tmp_path: Path) -> None:
    index = DenseIndex(tmp_path / "dense", CountingProvider())
    index.build([], "r")
    assert index.status()["count"] == 0 and index.search_text("anything") == []
    assert not index.needs_rebuild("r")
    bare = DenseIndex(tmp_path / "dense", None)
    assert bare.status()["count"] == 0
    with pytest.raises(ProviderError) as err:
        bare.build(make_docs(2), "r")
    assert err.value.reason == "invalid-config"
    with pytest.raises(ProviderError):
        bare.search_text("x")


@settings(max_examples=60, deadline=None)
@given(arrays(np.float32, st.tuples(st.integers(1, 20), st.integers(1, 16)), elements=st.floats(-1, 1, width=32)))
def test_quantisation_error_is_at_most_half_a_step(matrix: np.ndarray) -> None:
    codes, scales = quantize(matrix)
    assert codes.dtype == np.int8 and scales.dtype == np.float32 and np.all(scales > 0)
    assert np.all(np.abs(dequantize(codes, scales) - matrix) <= scales / 2 + 1e-6)
    again, same = quantize(dequantize(codes, scales))
    assert np.array_equal(same, scales) and np.array_equal(again, codes)


# -- real sentence embeddings --------------------------------------------------------------

_SUBJECTS = ["my sister", "the old fisherman", "our neighbour", "a young engineer", "the teacher",
             "my grandfather", "the baker", "a tired nurse", "the mayor", "my best friend", "the pilot",
             "a street musician"]
_VERBS = ["repaired", "painted", "sold", "borrowed", "photographed", "cooked", "forgot", "discovered",
          "cleaned", "bought", "lost", "described"]
_OBJECTS = ["a red bicycle", "the wooden boat", "a bowl of noodles", "an antique clock", "the garden fence",
            "a broken laptop", "a jar of honey", "the kitchen window", "a pair of hiking boots",
            "an oil painting", "the family car", "a stack of letters"]
_PLACES = ["near the harbour", "in the mountains", "at the night market", "behind the library",
           "in a small village", "at the train station", "on the rooftop", "beside the river"]
_TIMES = ["last winter", "early this morning", "during the storm", "after the wedding", "on a rainy Sunday",
          "before the exam", "in the summer of 2019", "late at night"]


def sentences(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < n:
        parts = (rng.choice(_SUBJECTS).capitalize(), rng.choice(_VERBS), rng.choice(_OBJECTS),
                 rng.choice(_PLACES), rng.choice(_TIMES))
        out[" ".join(parts) + "."] = None
    return list(out)


class RecordingUSE(USEProvider):
    """USE, keeping the float32 vectors it returned so int8 search can be compared to them."""

    def __init__(self) -> None:
        super().__init__(threads=2)
        self.returned: list[np.ndarray] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        out = super().embed_passages(texts)
        self.returned.append(out)
        return out


@pytest.fixture(scope="module")
def use_corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    texts = sentences(2100)
    provider = RecordingUSE()
    directory = tmp_path_factory.mktemp("use") / "dense"
    docs = [DenseDoc(f"s{i}", t, "evidence") for i, t in enumerate(texts[:2000])]
    index = DenseIndex(directory, provider, batch_size=256, exact_threshold=1000)
    index.build(docs, "rev-use")
    float32 = np.vstack(provider.returned)
    queries = provider.embed_passages(texts[2000:])
    return {"directory": directory, "provider": provider, "index": index, "float32": float32, "queries": queries}


def _top10(matrix: np.ndarray, q: np.ndarray) -> list[str]:
    return [f"s{i}" for i in np.argsort(-(matrix @ q), kind="stable")[:10]]


def test_hnsw_agrees_with_exact_search_on_real_embeddings(use_corpus: dict[str, Any]) -> None:
    hnsw_index = use_corpus["index"]
    exact_index = DenseIndex(use_corpus["directory"], use_corpus["provider"], exact_threshold=10**9)
    assert hnsw_index.status()["search_mode"] == "hnsw" and exact_index.status()["search_mode"] == "exact"
    overlap = []
    for q in use_corpus["queries"]:
        a = {d for d, _ in hnsw_index.search(q, k=10)}
        b = {d for d, _ in exact_index.search(q, k=10)}
        overlap.append(len(a & b) / 10)
    assert float(np.mean(overlap)) >= 0.98
    hits = hnsw_index.search(use_corpus["queries"][0], k=10, kinds={"evidence"})
    assert len(hits) == 10 and hnsw_index.search(use_corpus["queries"][0], k=10, kinds={"page"}) == []


def test_int8_storage_is_small_and_keeps_float32_neighbours(use_corpus: dict[str, Any]) -> None:
    index, float32 = use_corpus["index"], use_corpus["float32"]
    assert float32.shape == (2000, 512)
    stored = sum(p.stat().st_size for p in index.files() if "generations" in p.parts)
    assert stored <= 0.30 * float32.nbytes
    exact = DenseIndex(use_corpus["directory"], use_corpus["provider"], exact_threshold=10**9)
    overlap = []
    for q in use_corpus["queries"]:
        got = {d for d, _ in exact.search(q, k=10)}
        overlap.append(len(got & set(_top10(normalize_rows(float32), q))) / 10)
    assert float(np.mean(overlap)) >= 0.98
