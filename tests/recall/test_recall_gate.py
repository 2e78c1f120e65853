"""Eligibility reasons, disclosure mapping, topic matching and every mention-gate outcome."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from riko.recall import (
    ELIGIBILITY_REASONS,
    GATE_REASONS,
    RecallDoc,
    analyze_recall_query,
    disclosure_for_sensitivity,
    effective_disclosure,
    eligibility_reason,
    mention_decision,
    topic_matches,
)

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=timezone.utc)
PAST = NOW - timedelta(days=90)
LONG_AGO = NOW - timedelta(days=400)
FUTURE = NOW + timedelta(days=30)

PAGE = RecallDoc("p1", "page", "User likes dark mode", title="Dark mode", page_type="preference", refs=("s1/event:2",))
EVIDENCE = RecallDoc("e1", "evidence", "I switched to dark mode", observed_at=PAST, refs=("s1/event:2",))
OBSERVATION = RecallDoc("o1", "observation", "User tends to work late", observation_status="active")


@pytest.mark.parametrize(
    ("doc", "mode", "at_time", "reason"),
    [
        (replace(PAGE, page_type="source"), "current", None, "source-page-not-recallable"),
        (replace(PAGE, consent=False), "current", None, "consent-required"),
        (replace(PAGE, status="candidate"), "current", None, "unconfirmed-canonical"),
        (replace(PAGE, suppressed=True), "current", None, "suppressed-by-user"),
        (replace(EVIDENCE, suppressed=True), "history", None, "suppressed-by-user"),
        (replace(OBSERVATION, suppressed=True), "current", None, "suppressed-by-user"),
        (replace(PAGE, contested=True), "current", None, "conflict-contested"),
        (replace(PAGE, status="forgotten"), "current", None, "forgotten"),
        (replace(PAGE, status="forgotten"), "at", NOW, "forgotten"),
        (replace(PAGE, superseded="correction"), "current", None, "correction-invalidated"),
        (replace(PAGE, superseded="correction"), "at", NOW, "correction-invalidated"),
        (replace(EVIDENCE, correction_invalidated=True), "current", None, "correction-invalidated"),
        (replace(PAGE, superseded="other"), "current", None, "superseded"),
        (replace(PAGE, superseded="other"), "at", NOW, "superseded"),
        (replace(EVIDENCE, correction_invalidated=True), "history", None, "correction-invalidated"),
        (replace(PAGE, superseded="temporal", valid_to=PAST), "current", None, "temporal-superseded"),
        (replace(PAGE, valid_to=PAST), "current", None, "temporal-invalid"),
        (replace(PAGE, valid_from=FUTURE), "current", None, "temporal-invalid"),
        (replace(PAGE, valid_from=PAST), "at", LONG_AGO, "temporal-invalid"),
        (replace(PAGE, valid_from=FUTURE), "history", None, "temporal-invalid"),
        (replace(OBSERVATION, valid_to=PAST), "current", None, "temporal-invalid"),
        (replace(EVIDENCE, observed_at=PAST), "at", LONG_AGO, "temporal-after-cutoff"),
        (replace(EVIDENCE, observed_at=FUTURE), "current", None, "temporal-future"),
        (replace(OBSERVATION, observation_status="candidate"), "current", None, "observation-candidate"),
        (replace(OBSERVATION, observation_status="weakened"), "current", None, "observation-weakened"),
        (replace(OBSERVATION, observation_status="invalidated"), "current", None, "observation-invalidated"),
        (replace(OBSERVATION, observation_status="suppressed"), "current", None, "observation-suppressed"),
        (replace(OBSERVATION, observation_status=None), "current", None, "observation-candidate"),
    ],
)
def test_every_eligibility_reason(doc: RecallDoc, mode: str, at_time: datetime | None, reason: str) -> None:
    assert reason in ELIGIBILITY_REASONS
    assert eligibility_reason(doc, mode=mode, now=NOW, at_time=at_time) == reason


@pytest.mark.parametrize("mode", ["current", "history", "at"])
def test_plain_records_are_eligible_in_every_mode(mode: str) -> None:
    at = NOW if mode == "at" else None
    for doc in (PAGE, EVIDENCE, OBSERVATION):
        assert eligibility_reason(doc, mode=mode, now=NOW, at_time=at) is None


def test_history_keeps_replaced_and_forgotten_pages_as_lineage() -> None:
    for doc in (replace(PAGE, superseded="other", superseded_by="p2"), replace(PAGE, superseded="correction"),
                replace(PAGE, status="forgotten")):
        assert eligibility_reason(doc, mode="history", now=NOW) is None
    # what the user asked to stop using, and an unconfirmed page, stay out of history too
    assert eligibility_reason(replace(PAGE, status="forgotten", suppressed=True), mode="history", now=NOW) == "suppressed-by-user"
    assert eligibility_reason(replace(PAGE, status="candidate"), mode="history", now=NOW) == "unconfirmed-canonical"


def test_temporal_lineage_is_kept_in_history_and_at_modes() -> None:
    old = replace(PAGE, superseded="temporal", valid_from=LONG_AGO, valid_to=PAST)
    assert eligibility_reason(old, mode="history", now=NOW) is None
    inside = LONG_AGO + timedelta(days=10)
    assert eligibility_reason(old, mode="at", now=NOW, at_time=inside) is None
    assert eligibility_reason(old, mode="at", now=NOW, at_time=PAST) == "temporal-invalid"  # end is exclusive
    contested = replace(PAGE, contested=True)
    assert eligibility_reason(contested, mode="history", now=NOW) is None
    assert eligibility_reason(contested, mode="at", now=NOW, at_time=NOW) is None


def test_evidence_time_rules_depend_on_mode() -> None:
    future = replace(EVIDENCE, observed_at=FUTURE)
    assert eligibility_reason(future, mode="history", now=NOW) is None
    assert eligibility_reason(future, mode="at", now=NOW, at_time=FUTURE + timedelta(days=1)) is None
    naive = replace(EVIDENCE, observed_at=datetime(2026, 6, 1))  # naive datetimes are read as UTC
    assert eligibility_reason(naive, mode="current", now=NOW) == "temporal-future"


def test_eligibility_argument_errors() -> None:
    with pytest.raises(ValueError):
        eligibility_reason(PAGE, mode="at", now=NOW)
    with pytest.raises(ValueError):
        eligibility_reason(PAGE, mode="sometime", now=NOW)
    with pytest.raises(ValueError):
        RecallDoc("x", "note", "text")


# ---------------------------------------------------------------- disclosure


def test_disclosure_mapping_and_strictest_wins() -> None:
    assert disclosure_for_sensitivity("normal") == "normal"
    assert disclosure_for_sensitivity("provisional_sensitive") == "user_explicit_only"
    assert disclosure_for_sensitivity("sensitive") == "never_explicit"
    assert disclosure_for_sensitivity(None) == "never_explicit"
    assert disclosure_for_sensitivity(None, unclassified="user_explicit_only") == "user_explicit_only"
    assert disclosure_for_sensitivity("mystery") == "never_explicit"
    with pytest.raises(ValueError):
        disclosure_for_sensitivity(None, unclassified="normal")
    assert effective_disclosure(replace(PAGE, sensitivity="provisional_sensitive")) == "user_explicit_only"
    assert effective_disclosure(replace(PAGE, disclosure="never_explicit")) == "never_explicit"
    assert effective_disclosure(replace(PAGE, sensitivity="sensitive", disclosure="user_explicit_only")) == "never_explicit"
    assert effective_disclosure(replace(PAGE, disclosure="garbage")) == "never_explicit"


# ---------------------------------------------------------------- topic matching

DIAGNOSIS = RecallDoc(
    "p9", "page", "User was diagnosed with depression in 2025", title="Health", sensitivity="sensitive",
    refs=("s4/event:9",),
)
DIAGNOSIS_ZH = RecallDoc("p10", "page", "2025年确诊抑郁症", sensitivity="sensitive")


def test_topic_match_removes_recall_cue_words() -> None:
    assert topic_matches("Do you remember my depression diagnosis?", DIAGNOSIS)
    assert not topic_matches("Do you remember?", RecallDoc("x", "page", "remember the milk"))
    assert not topic_matches("What's a good pasta recipe?", DIAGNOSIS)
    assert not topic_matches("Remember what I said about the weather, trips, depression, plans and pasta?", DIAGNOSIS)


def test_topic_match_in_chinese_and_by_exact_term() -> None:
    assert topic_matches("你还记得我的抑郁症吗", DIAGNOSIS_ZH)
    assert not topic_matches("你还记得我喜欢的电影吗", DIAGNOSIS_ZH)
    order = RecallDoc("e5", "evidence", "Order B-417 was my pharmacy refill", sensitivity=None)
    assert topic_matches("remember B-417?", order)
    assert topic_matches("what did I say in s4?", replace(DIAGNOSIS, text="x", title=""))  # source refs count


# ---------------------------------------------------------------- mention gate


def plan(query: str):
    return analyze_recall_query(query)


def test_normal_results_are_explicit() -> None:
    assert mention_decision(PAGE, "what theme do I like", plan("what theme do I like")) == ("explicit", "normal-recall")
    q = "do you remember my theme?"
    assert mention_decision(PAGE, q, plan(q)) == ("explicit", "explicit-recall")


def test_observations_are_silent_unless_asked_for() -> None:
    q = "do you remember when I work?"
    assert mention_decision(OBSERVATION, q, plan(q)) == ("silent_use", "inferred-observation-silent-use")
    q = "have you noticed a pattern in when I work late?"
    assert mention_decision(OBSERVATION, q, plan(q)) == ("explicit", "explicit-observation-recall")
    q = "你观察到我工作有什么规律吗"
    assert mention_decision(OBSERVATION, q, plan(q))[1] == "explicit-observation-recall"


def test_user_explicit_only_needs_explicit_recall_and_topic_match() -> None:
    doc = replace(DIAGNOSIS, sensitivity="provisional_sensitive")
    q = "Do you remember my depression diagnosis?"
    assert mention_decision(doc, q, plan(q)) == ("explicit", "user-explicit-only-projection")
    q = "I feel the depression again"
    assert mention_decision(doc, q, plan(q)) == ("silent_use", "sensitive-no-explicit-request")
    q = "Do you remember my favourite pasta?"
    assert mention_decision(doc, q, plan(q)) == ("suppress", "sensitive-topic-mismatch")


def test_never_explicit_is_silent_at_best() -> None:
    q = "Do you remember my depression diagnosis?"
    assert mention_decision(DIAGNOSIS, q, plan(q)) == ("silent_use", "never-explicit-projection")
    q = "depression is hard"
    assert mention_decision(DIAGNOSIS, q, plan(q)) == ("silent_use", "never-explicit-projection")
    q = "Do you remember my favourite pasta?"
    assert mention_decision(DIAGNOSIS, q, plan(q)) == ("suppress", "sensitive-topic-mismatch")


def test_projection_disclosure_protects_a_normal_page() -> None:
    doc = replace(PAGE, disclosure="user_explicit_only")
    q = "what theme do I like, dark mode?"
    assert mention_decision(doc, q, plan(q)) == ("silent_use", "sensitive-no-explicit-request")


def test_unclassified_evidence_fails_closed_unless_lowered() -> None:
    doc = RecallDoc("e7", "evidence", "My therapist appointment is on Friday", sensitivity=None)
    q = "do you remember my therapist appointment?"
    assert mention_decision(doc, q, plan(q)) == ("silent_use", "never-explicit-projection")
    lowered = mention_decision(doc, q, plan(q), unclassified_disclosure="user_explicit_only")
    assert lowered == ("explicit", "user-explicit-only-projection")
    q = "I have an appointment with my therapist"  # no explicit recall: still silent
    assert mention_decision(doc, q, plan(q), unclassified_disclosure="user_explicit_only")[0] == "silent_use"


def test_protected_observation_stays_silent_without_observation_question() -> None:
    doc = replace(OBSERVATION, sensitivity="provisional_sensitive", text="User tends to work late at night")
    q = "do you remember that I work late at night?"
    assert mention_decision(doc, q, plan(q)) == ("silent_use", "inferred-observation-silent-use")


def test_protected_result_with_nothing_to_match_is_suppressed() -> None:
    doc = RecallDoc("e8", "evidence", "   ", sensitivity="sensitive")
    q = "do you remember?"
    assert mention_decision(doc, q, plan(q)) == ("suppress", "sensitive-default-suppress")


def test_reason_catalogues_cover_the_seed() -> None:
    assert len(set(ELIGIBILITY_REASONS)) == len(ELIGIBILITY_REASONS) == 18
    assert set(GATE_REASONS) == {
        "normal-recall", "explicit-recall", "explicit-observation-recall", "inferred-observation-silent-use",
        "user-explicit-only-projection", "never-explicit-projection", "sensitive-default-suppress", "context-budget",
    }
