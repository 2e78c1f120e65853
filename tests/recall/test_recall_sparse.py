"""The appendable BM25 index: its pruned top-k equals scoring the whole corpus, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riko.recall.sparse as sparse
from riko.recall.sparse import SparseBM25

# A skewed vocabulary: a few words in most documents, many rare ones, as in real chat logs.
VOCAB = [f"w{i}" for i in range(30)]
WORD = st.integers(0, 2**20).map(lambda x: VOCAB[min(int(len(VOCAB) / (1 + x % 97)) - 1, len(VOCAB) - 1)])
DOCS = st.lists(st.lists(WORD, max_size=8), min_size=1, max_size=150)
QUERY = st.lists(st.sampled_from([*VOCAB, "unseen"]), min_size=1, max_size=6)


def full_ranking(index: SparseBM25, tokens: list[str], k: int, keys: list[str]) -> tuple[list[int], list[float]]:
    scores = index.scores(tokens)
    order = sorted(np.flatnonzero(scores > 0).tolist(), key=lambda i: (-scores[i], keys[i]))[:k]
    return order, [float(scores[i]) for i in order]


@pytest.mark.parametrize("dense_share", [0.0, 0.125, 1.0])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=DOCS, query=QUERY, k=st.integers(1, 12), split=st.integers(0, 150))
def test_pruned_top_k_equals_full_scoring(dense_share: float, docs: list[list[str]], query: list[str], k: int,
                                          split: int) -> None:
    previous, sparse._DENSE_SHARE = sparse._DENSE_SHARE, dense_share
    try:
        index = SparseBM25()
        index.add(docs[:split])
        index.add(docs[split:])
        keys = [f"d{len(docs) - i:04d}" for i in range(len(docs))]  # key order differs from index order
        idx, scores = index.top(query, k, keys=keys)
        expected, expected_scores = full_ranking(index, query, k, keys)
        assert idx.tolist() == expected
        assert scores.tolist() == expected_scores  # the same sums in the same order
    finally:
        sparse._DENSE_SHARE = previous


def test_rare_terms_decide_the_top_without_scoring_every_document() -> None:
    index = SparseBM25()
    index.add([["common", "filler"]] * 500 + [["common", "rare"], ["rare"], ["common"]])
    idx, scores = index.top(["common", "rare"], 2)
    assert idx.tolist() == [501, 500] and scores[0] > scores[1] > 0  # the shorter document first
    assert index.top(["unseen"], 3)[0].tolist() == []
    assert index.top(["rare"], 0)[0].tolist() == []


def test_postings_are_copies_so_documents_can_still_be_added() -> None:
    index = SparseBM25()
    index.add([["tea"], ["tea", "cup"]])
    held = index.postings("tea")
    index.add([["tea"]])
    assert held.tolist() == [0, 1] and index.postings("tea").tolist() == [0, 1, 2]
    assert index.document_frequency("tea") == 3 and index.document_frequency("coffee") == 0


@settings(max_examples=60, deadline=None)
@given(docs=DOCS, more=DOCS, query=QUERY, k=st.integers(1, 12))
def test_scores_follow_the_corpus_as_documents_arrive(docs: list[list[str]], more: list[list[str]],
                                                     query: list[str], k: int) -> None:
    grown = SparseBM25()
    grown.add(docs)
    grown.top(query, k)  # weights kept for the statistics of the moment...
    grown.scores(query)
    grown.add(more)  # ...and dropped when they move
    fresh = SparseBM25()
    fresh.add(docs + more)
    assert grown.scores(query).tolist() == fresh.scores(query).tolist()
    assert [a.tolist() for a in grown.top(query, k)] == [a.tolist() for a in fresh.top(query, k)]
