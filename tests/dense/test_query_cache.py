"""The process-wide query-vector cache: a repeated query is not encoded again, the cache is
bounded, keyed by model and exact text, and no memory write invalidates it."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import riko
from riko.clock import FixedClock
from riko.dense import DeterministicProvider, E5Provider
from riko.dense.query_cache import QUERY_VECTORS, QueryVectorCache
from riko.errors import InvalidArgumentError
from riko.recall.engine import retrieve


class CountingDeterministic(DeterministicProvider):
    """The real feature-hashing provider, counting how often it encodes a text."""

    def __init__(self, dimension: int = 64) -> None:
        super().__init__(dimension)
        self.encoded: list[str] = []
        self._count_lock = threading.Lock()

    def _embed_one(self, text: str) -> np.ndarray:
        with self._count_lock:
            self.encoded.append(text)
        return super()._embed_one(text)


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    QUERY_VECTORS.clear()


def test_a_repeated_query_is_encoded_once_and_gives_the_same_vector() -> None:
    provider = CountingDeterministic()
    first = provider.embed_query("what tea do I drink?")
    again = provider.embed_query("what tea do I drink?")
    assert provider.encoded == ["what tea do I drink?"]
    assert np.array_equal(first, again) and again.dtype == np.float32
    assert np.array_equal(again, DeterministicProvider(64)._embed_one("what tea do I drink?"))
    assert (QUERY_VECTORS.hits, QUERY_VECTORS.misses) == (1, 1)


def test_the_key_is_the_exact_text_and_the_vector_space() -> None:
    small, large = CountingDeterministic(32), CountingDeterministic(64)
    small.embed_query("tea")
    small.embed_query("Tea")  # another text, even if it normalises the same
    small.embed_query("tea ")
    large.embed_query("tea")  # same model name, another dimension: another space
    assert small.encoded == ["tea", "Tea", "tea "] and large.encoded == ["tea"]
    assert large.embed_query("tea").shape == (64,) and small.embed_query("tea").shape == (32,)
    # a second object of the same model and dimension shares the entries
    twin = CountingDeterministic(32)
    twin.embed_query("tea")
    assert twin.encoded == []


def test_cached_vectors_are_read_only() -> None:
    provider = DeterministicProvider(16)
    vector = provider.embed_query("oolong")
    with pytest.raises(ValueError):
        vector[0] = 2.0
    assert np.array_equal(provider.embed_query("oolong"), provider._embed_one("oolong"))


def test_the_cache_is_bounded_and_drops_the_least_recently_used() -> None:
    cache = QueryVectorCache(2)
    calls: list[str] = []

    def embed(text: str) -> Any:
        return lambda: (calls.append(text), np.full(4, len(text), dtype=np.float32))[1]

    for text in ("a", "bb", "a", "ccc", "a", "bb"):  # "bb" is the oldest when "ccc" comes in
        cache.get_or_embed(("m", 4, text), embed(text))
    assert calls == ["a", "bb", "ccc", "bb"] and len(cache) == 2
    assert cache.get_or_embed(("m", 4, "a"), embed("a")).tolist() == [1.0] * 4 and calls[-1] == "bb"
    with pytest.raises(InvalidArgumentError, match="query cache size"):
        QueryVectorCache(-1)


def test_a_failed_encoding_is_not_cached() -> None:
    cache = QueryVectorCache(4)

    def fail() -> np.ndarray:
        raise RuntimeError("model crashed")

    with pytest.raises(RuntimeError):
        cache.get_or_embed(("m", 4, "q"), fail)
    assert len(cache) == 0
    assert cache.get_or_embed(("m", 4, "q"), lambda: np.ones(4, dtype=np.float32)).tolist() == [1.0] * 4


def test_repeated_recall_encodes_the_query_once_even_after_writes(tmp_path) -> None:
    provider = CountingDeterministic(64)
    config = {"embedding_provider": "deterministic", "embedding_dimension": 64, "recall_vector_enabled": True,
              "recall_enabled": True}
    with riko.open(tmp_path, preset="companion", clock=FixedClock("2026-01-15T09:00:00Z"), config=config) as m:
        m.create_page("Tea", "The user drinks oolong every morning.", type="concept")
        first = m.recall("do you remember my tea?", provider=provider)
        m.create_page("Cello", "The user is learning the cello.", type="concept")  # the data change
        second = m.recall("do you remember my tea?", provider=provider)
        frame = retrieve(m.context, "do you remember my tea?", provider=provider)
    assert provider.encoded.count("do you remember my tea?") == 1  # the rest are the pages, as passages
    for result in (first, second):
        assert result.trace["degradedModes"] == [] and result.trace["candidatesByChannel"]["dense"] >= 1
    assert "dense" in frame["channels"].explode().to_list()


def test_the_e5_model_encodes_a_repeated_query_once() -> None:
    provider = E5Provider(num_threads=1)
    model = provider._get()
    calls: list[list[str]] = []
    encode = model.query

    def counting(texts: list[str]) -> Any:
        calls.append(list(texts))
        return encode(texts)

    model.query = counting  # the loaded model object's own encoder, counted
    try:
        first = provider.embed_query("where did my sister move?")
        again = provider.embed_query("where did my sister move?")
    finally:
        del model.query
    assert calls == [["where did my sister move?"]]
    assert np.array_equal(first, again) and first.shape == (384,)
    other = E5Provider()  # another object of the same model shares the entry and loads nothing
    assert np.array_equal(other.embed_query("where did my sister move?"), first) and not other.loaded
    assert abs(float(np.linalg.norm(first)) - 1.0) < 1e-5


def test_the_module_examples_hold() -> None:
    import doctest

    import riko.dense.query_cache as module

    assert doctest.testmod(module).failed == 0
