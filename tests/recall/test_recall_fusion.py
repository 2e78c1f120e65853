"""Reciprocal Rank Fusion arithmetic and canonical/evidence de-duplication."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.recall import Fused, dedupe_canonical_evidence, fact_fingerprint, fingerprint_description, refs_overlap, rrf


def test_rrf_exact_scores_and_order() -> None:
    fused = rrf({"lexical": ["a", "b", "c"], "dense": ["c", "a"]})
    scores = {f.doc_id: f.score for f in fused}
    assert scores["a"] == 0.0 + 1.0 / 61 + 1.0 / 62
    assert scores["b"] == 0.0 + 1.0 / 62
    assert scores["c"] == 0.0 + 1.0 / 63 + 1.0 / 61
    assert [f.doc_id for f in fused] == ["a", "c", "b"]
    a = fused[0]
    assert a.channels == ["lexical", "dense"]
    assert a.ranks == {"lexical": 1, "dense": 2}


def test_rrf_custom_k_and_weights() -> None:
    fused = rrf({"lexical": ["a", "b"], "exact": ["b"]}, k=10, weights={"exact": 2.0})
    scores = {f.doc_id: f.score for f in fused}
    assert scores["a"] == 0.0 + 1.0 / 11
    assert scores["b"] == 0.0 + 1.0 / 12 + 2.0 / 11
    assert [f.doc_id for f in fused] == ["b", "a"]


def test_rrf_counts_a_repeated_id_once_per_channel() -> None:
    fused = rrf({"lexical": ["a", "a", "b"]})
    assert {f.doc_id: f.score for f in fused} == {"a": 1.0 / 61, "b": 1.0 / 62}
    assert fused[1].ranks == {"lexical": 2}


def test_rrf_ties_break_by_activation_then_doc_id() -> None:
    rankings = {"lexical": ["x"], "graph": ["y"], "dense": ["z"]}
    assert [f.doc_id for f in rrf(rankings)] == ["x", "y", "z"]
    assert [f.doc_id for f in rrf(rankings, tie_break={"z": 0.9, "y": 0.1})] == ["z", "y", "x"]


def test_rrf_edge_cases() -> None:
    assert rrf({}) == []
    assert rrf({"lexical": []}) == []
    with pytest.raises(ValueError):
        rrf({"lexical": ["a"]}, k=-1)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["lexical", "exact", "rawEvidence", "dense"]),
        st.lists(st.sampled_from(list("abcdefg")), max_size=7),
        max_size=4,
    )
)
def test_rrf_properties(rankings: dict[str, list[str]]) -> None:
    fused = rrf(rankings)
    ids = {d for ranking in rankings.values() for d in ranking}
    assert {f.doc_id for f in fused} == ids
    assert all(fused[i].score >= fused[i + 1].score for i in range(len(fused) - 1))
    for f in fused:
        assert set(f.channels) == set(f.ranks) == {c for c, r in rankings.items() if f.doc_id in r}
        assert f.score <= len(f.channels) / 61 + 1e-12


# ---------------------------------------------------------------- de-duplication


def test_fact_fingerprint_ignores_case_width_and_punctuation() -> None:
    a = fact_fingerprint("User likes dark mode.")
    assert a == fact_fingerprint("user   likes DARK mode") == fact_fingerprint("ｕｓｅｒ likes dark mode!")
    assert a != fact_fingerprint("user likes light mode")
    typed = fact_fingerprint("User likes dark mode.", page_type="concept")
    assert typed == f"concept|{a}"
    assert fingerprint_description(typed) == a == fingerprint_description(a)


def test_refs_overlap_exact_or_event_prefix() -> None:
    assert refs_overlap(["s1/event:4"], ["s1/event:4"])
    assert refs_overlap(["s1"], ["s1/event:4"])
    assert refs_overlap(["s1/event:4"], ["s1"])
    assert not refs_overlap(["s1"], ["s10/event:4"])
    assert not refs_overlap(["s1/event:4"], ["s1/event:5"])
    assert not refs_overlap([], ["s1"])


def _fixture() -> tuple[list[Fused], dict[str, str], dict[str, set[str]], dict[str, str]]:
    fused = rrf({"lexical": ["p1", "p2"], "rawEvidence": ["e1", "e2", "e3"]})
    desc = fact_fingerprint("user likes dark mode")
    fingerprints = {
        "p1": f"preference|{desc}",
        "p2": fact_fingerprint("user lives in berlin", page_type="entity"),
        "e1": desc,
        "e2": fact_fingerprint("user lives in berlin"),
        "e3": desc,
    }
    refs = {"p1": {"s1"}, "p2": {"s9/event:1"}, "e1": {"s1/event:4"}, "e2": {"s2/event:7"}, "e3": {"s3/event:1"}}
    kinds = {"p1": "page", "p2": "page", "e1": "evidence", "e2": "evidence", "e3": "evidence"}
    return fused, fingerprints, refs, kinds


def test_evidence_folds_into_its_canonical_page() -> None:
    fused, fingerprints, refs, kinds = _fixture()
    result = dedupe_canonical_evidence(fused, fingerprints, refs, kinds)
    by_id = {f.doc_id: f for f in result}
    # e1 restates p1 and shares its source: merged. e2 has p2's fingerprint but no shared
    # source; e3 shares p1's fingerprint but not its source: both stay.
    assert set(by_id) == {"p1", "p2", "e2", "e3"}
    p1 = by_id["p1"]
    assert p1.merged == ["e1"]
    assert p1.channels == ["lexical", "rawEvidence"]
    assert p1.ranks == {"lexical": 1, "rawEvidence": 1}
    assert p1.refs == ("s1", "s1/event:4")
    assert p1.score == max(1.0 / 61, 1.0 / 61)
    assert [f.doc_id for f in result] == ["p1", "e2", "p2", "e3"]  # e2 and p2 tie on 1/62


def test_merge_keeps_the_higher_score_and_resorts() -> None:
    fused = rrf({"lexical": ["x", "p1"], "rawEvidence": ["e1"]})
    fingerprints = {"p1": "concept|abc", "e1": "abc"}
    refs = {"p1": ["s1/event:2"], "e1": ["s1/event:2"], "x": []}
    kinds = {"p1": "page", "e1": "evidence", "x": "page"}
    result = dedupe_canonical_evidence(fused, fingerprints, refs, kinds, tie_break={"p1": 1.0})
    assert [f.doc_id for f in result] == ["p1", "x"]  # p1 now ties x on 1/61, activation wins
    assert result[0].score == 1.0 / 61
    assert result[0].refs == ("s1/event:2",)


def test_dedupe_without_fingerprints_or_canonicals_changes_nothing_but_refs() -> None:
    fused = rrf({"rawEvidence": ["e1", "e2"]})
    result = dedupe_canonical_evidence(fused, {}, {"e1": {"s1"}}, {"e1": "evidence", "e2": "evidence"})
    assert [(f.doc_id, f.score, f.refs) for f in result] == [("e1", 1.0 / 61, ("s1",)), ("e2", 1.0 / 62, ())]
    assert fused[0].refs == ()  # inputs are not mutated


def test_dedupe_truncates_to_limit() -> None:
    fused, fingerprints, refs, kinds = _fixture()
    assert [f.doc_id for f in dedupe_canonical_evidence(fused, fingerprints, refs, kinds, limit=2)] == ["p1", "e2"]


def test_observation_is_never_merged() -> None:
    fused = rrf({"lexical": ["p1"], "observation": ["o1"]})
    result = dedupe_canonical_evidence(
        fused, {"p1": "t|abc", "o1": "abc"}, {"p1": ["s1"], "o1": ["s1"]}, {"p1": "page", "o1": "observation"}
    )
    assert sorted(f.doc_id for f in result) == ["o1", "p1"]
    assert all(not f.merged for f in result)
