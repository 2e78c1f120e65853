"""Eligibility before every window: hidden versions of a fact never crowd the current one out."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riko
from riko.recall.sparse import SparseBM25
from riko.language.text import tokenize
from conversation import say

QUERY = "What is my gym membership at Fitwell?"




@pytest.fixture
def mem(tmp_path, clock):
    m = riko.open(tmp_path, preset="companion", clock=clock,
                  config={"embedding_provider": "off", "evidence_classification_enabled": True, "recall_enabled": True})
    yield m
    m.close()


def test_gym_membership_current_page_survives_thirty_expired_and_ten_superseded(mem) -> None:
    # the probe: the lexical top-20 used to be cut first, filled with outdated pages, then
    # filtered to nothing (lexical: 20, temporal-invalid ...), and the current page was lost
    for i in range(30):
        mem.create_page(f"Gym membership at Fitwell ({i})", f"The user's gym membership at Fitwell was plan {i}.",
                        description=f"My gym membership at Fitwell is the old plan {i}", valid_to="2025-06-01T00:00:00Z")
    for i in range(10):
        page = mem.create_page(f"Gym membership Fitwell v{i}", f"The gym membership at Fitwell is tier {i}.",
                               description=f"My gym membership at Fitwell is tier {i}")
        mem.supersede(page.id)
    current = mem.create_page("Fitwell", "Premium plan since January.", description="Premium plan at Fitwell")
    result = mem.recall(QUERY)
    injected = [r["id"] for r in result.results.iter_rows(named=True) if r["injected"]]
    assert injected[:1] == [current.id]
    assert "Premium plan at Fitwell" in result.context and "old plan" not in result.context
    assert result.trace["candidatesByChannel"]["lexical"] == 1
    assert result.trace["rejectionReasons"]["temporal-invalid"] == 30
    assert result.trace["rejectionReasons"]["superseded"] == 10


def test_suppressed_and_forgotten_versions_do_not_fill_the_raw_evidence_window(mem) -> None:
    for i in range(25):
        ref = say(mem, f"s{i}", f"My gym membership at Fitwell is plan {i}")
        page = mem.create_page(f"Fitwell plan {i}", f"My gym membership at Fitwell is plan {i}",
                               description=f"My gym membership at Fitwell is plan {i}", sources=[ref])
        (mem.suppress if i % 2 else mem.forget)(page.id)
    say(mem, "now", "Fitwell renewed me on the Orchid tier")
    result = mem.recall("do you remember what I said about Fitwell gym membership?")
    assert "Orchid tier" in result.context
    assert "is plan" not in result.context
    assert result.trace["candidatesByChannel"]["rawEvidence"] == 1


def test_history_mode_still_reaches_expired_versions(mem) -> None:
    for i in range(25):
        mem.create_page(f"Fitwell plan {i}", f"My gym membership at Fitwell was plan {i}",
                        description=f"Gym membership at Fitwell was plan {i}", valid_to="2025-06-01T00:00:00Z")
    result = mem.recall(QUERY, history=True)
    assert result.trace["injectedMemories"] > 0 and "was plan" in result.context


def test_dense_channel_filters_hidden_pages_inside_the_search(tmp_path, clock) -> None:
    m = riko.open(tmp_path, preset="companion", clock=clock,
                  config={"embedding_provider": "deterministic", "embedding_dimension": 64, "recall_enabled": True,
                          "recall_vector_enabled": True, "dense_candidate_cap": 3})
    try:
        for i in range(20):
            page = m.create_page(f"Fitwell gym membership plan {i}", f"gym membership Fitwell plan {i}",
                                 description=f"gym membership Fitwell plan {i}")
            m.suppress(page.id)
        current = m.create_page("Fitwell", "Orchid tier", description="Orchid tier at the gym")
        m.index(progress=False)
        result = m.recall(QUERY, build_index=True)
        dense = [r["id"] for r in result.results.iter_rows(named=True) if r["rank_dense"] is not None]
        assert current.id in dense
        assert result.trace["candidatesByChannel"]["dense"] >= 1
    finally:
        m.close()


WORDS = st.sampled_from("gym fitwell plan tier orchid membership premium sauna".split())


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(WORDS, min_size=1, max_size=6), min_size=1, max_size=30),
       st.lists(WORDS, min_size=1, max_size=3), st.data(), st.integers(1, 10))
def test_masked_top_is_the_filtered_ranking(docs: list[list[str]], query: list[str], data: Any, k: int) -> None:
    index = SparseBM25()
    index.add(docs)
    allowed = np.array(data.draw(st.lists(st.booleans(), min_size=len(docs), max_size=len(docs))), dtype=bool)
    keys = [f"d{i:03d}" for i in range(len(docs))]
    idx, scores = index.top(tokenize(" ".join(query)), k, keys=keys, allowed=allowed)
    every, all_scores = index.top(tokenize(" ".join(query)), len(docs), keys=keys)
    expected = [(i, s) for i, s in zip(every.tolist(), all_scores.tolist()) if allowed[i]][:k]
    assert idx.tolist() == [i for i, _ in expected]
    assert scores.tolist() == pytest.approx([s for _, s in expected])


def test_protected_results_the_topic_gate_suppresses_take_no_candidate_seat(mem) -> None:
    # Six protected lines rank above an ordinary one on the query's filler words ("last",
    # "time") yet do not share its topic (Fitwell): the mention gate suppresses them after
    # fusion, and the ordinary line must still be used however small the candidate window.
    for i in range(200):
        say(mem, f"f{i}", f"Filler line number {i} about the weather and tea")
    for i in range(6):
        say(mem, f"p{i}", f"Last time I said I relapsed, time after time, I said it again {i}")
    desk = say(mem, "d", "The Fitwell front desk gave me a locker key")
    page = mem.create_page("Fitwell gym", "", description="Fitwell renewed my gym membership on the Orchid tier")
    for seats in (2, 4, 8):
        result = mem.recall("what did I say last time about Fitwell?", max_candidates=seats)
        rows = {r["id"]: r for r in result.rows}
        assert rows[page.id]["injected"] and rows[desk]["injected"], (seats, result.rows)
        suppressed = [r for r in result.rows if r["decision"] == "suppress"]
        assert len(suppressed) == 6 and {r["reason"] for r in suppressed} == {"sensitive-topic-mismatch"}
        assert "relapsed" not in result.context and "locker key" in result.context
