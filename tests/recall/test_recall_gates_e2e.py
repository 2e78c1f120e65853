"""Every eligibility reason and gate outcome, through ``mem.recall`` on real stored data."""

from __future__ import annotations

from typing import Any

import pytest

import riko
from riko.clock import FixedClock
from riko.wiki import Page, make_page_id, render_page
from conversation import say

BASE = {"embedding_provider": "deterministic", "embedding_dimension": 64, "recall_enabled": True}
NOW = "2026-01-15T09:00:00Z"




def open_mem(root: Any, **config: Any) -> Any:
    return riko.open(root, preset="companion", clock=FixedClock(NOW), config={**BASE, **config})


def row_of(result: Any, doc_id: str) -> dict[str, Any]:
    rows = result.results.filter(result.results["id"] == doc_id)
    assert rows.height == 1, f"{doc_id} not among {result.results['id'].to_list()}"
    return rows.row(0, named=True)


def write_page_file(mem: Any, page: Page, folder: str = "concepts") -> None:
    path = mem.wiki_dir / folder / f"{page.id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(page), encoding="utf-8")


@pytest.fixture
def mem(tmp_path):
    m = open_mem(tmp_path)
    yield m
    m.close()


# -- eligibility reasons ----------------------------------------------------------------------------
def test_page_eligibility_reasons(mem) -> None:
    source = mem.create_page("Tango source", "Notes on tango lessons.", type="source")
    write_page_file(mem, Page(id=make_page_id("consent"), type="concept", title="Tango partner",
                              body="Tango partner is Ines.", consent=False))
    write_page_file(mem, Page(id=make_page_id("cand"), type="concept", title="Tango shoes",
                              body="Tango shoes are size 39.", status="candidate"))
    assert not mem.sync().errors
    suppressed = mem.create_page("Tango club", "Tango club meets on Fridays.", type="concept")
    mem.suppress(suppressed.id)
    contested = mem.create_page("Tango teacher", "", type="concept", description="Tango teacher is Marco")
    assert mem.propose("Tango teacher", type="concept", description="Tango teacher is Lucia")
    superseded = mem.create_page("Tango venue", "Tango venue is the old mill.", type="concept")
    mem.supersede(superseded.id)
    future = mem.create_page("Tango festival", "Tango festival ticket booked.", type="episode",
                             valid_from="2026-06-01T00:00:00Z")
    result = mem.recall("do you remember my tango partner, shoes, club, teacher, venue, festival and source?",
                        debug=True, max_candidates=32)
    reasons = result.trace["rejectionReasons"]
    expected = {
        source.id: "source-page-not-recallable", make_page_id("consent"): "consent-required",
        make_page_id("cand"): "unconfirmed-canonical", suppressed.id: "suppressed-by-user",
        contested.id: "conflict-contested", superseded.id: "superseded", future.id: "temporal-invalid",
    }
    for doc_id, reason in expected.items():
        row = row_of(result, doc_id)
        assert (row["decision"], row["reason"]) == ("rejected", reason)
        assert reasons[reason] >= 1
    assert result.trace["injectedMemories"] == 0 and result.context == ""
    assert result.trace["rejectedByTemporal"] == 1
    assert result.trace["rejectedByEligibility"] == len(expected) - 1
    # A contested page is rejected only for current truth; history keeps it.
    history = mem.recall("do you remember my tango teacher?", history=True, debug=True)
    assert row_of(history, contested.id)["decision"] == "explicit"


def test_evidence_eligibility_reasons(tmp_path) -> None:
    with open_mem(tmp_path, evidence_classification_enabled=True) as m:
        cited = say(m, "s1", "My gym is Iron Temple downtown.")
        say(m, "s1", "My gym membership renews in March.", time="2026-01-10T09:00:00Z")
        say(m, "s2", "My gym trainer is called Bo.", time="2026-02-01T09:00:00Z")
        page = m.create_page("Gym", "", type="concept", description="Gym is Iron Temple", sources=[cited])
        m.correct(page.id, "Gym is Pulse Fitness")
        current = m.recall("do you remember my gym?", debug=True)
        at = m.recall("do you remember my gym?", at_time="2026-01-12T00:00:00Z", debug=True)
    assert row_of(current, "session:s1/event:0")["reason"] == "correction-invalidated"
    assert row_of(current, "session:s2/event:0")["reason"] == "temporal-future"
    assert row_of(current, "session:s1/event:1")["decision"] == "explicit"
    assert row_of(at, "session:s1/event:1")["decision"] == "explicit"
    assert row_of(at, "session:s2/event:0")["reason"] == "temporal-after-cutoff"
    assert at.trace["temporalMode"] == "at"


def test_observation_status_reasons(tmp_path) -> None:
    with open_mem(tmp_path, recall_observation_enabled=True) as m:
        for status in ("candidate", "active", "weakened", "invalidated", "suppressed"):
            m.warehouse.con.execute(
                "INSERT INTO observations (scope_key, schema_version, id, text, anchors, status, sensitivity, "
                "epistemic_status) VALUES (?, 5, ?, ?, '[]', ?, 'normal', 'inferred_observation')",
                [m.scope.key, f"o-{status}", f"The user tends to journal at night ({status})", status])
        result = m.recall("what patterns have you noticed about my journal habit at night?", debug=True)
    for status in ("candidate", "weakened", "invalidated", "suppressed"):
        assert row_of(result, f"o-{status}")["reason"] == f"observation-{status}"
    assert row_of(result, "o-active")["reason"] == "explicit-observation-recall"


# -- temporal modes over a replaced fact ------------------------------------------------------------------
def test_current_at_and_history_over_a_replaced_fact(mem) -> None:
    old = mem.create_page("Home city", "", type="concept", description="The user lives in Porto",
                          valid_from="2024-01-01T00:00:00Z")
    new = mem.replace(old.id, "The user lives in Berlin", valid_from="2025-09-01T00:00:00Z")
    current = mem.recall("do you remember which city I live in?", debug=True)
    assert "Berlin" in current.context and "Porto" not in current.context
    assert row_of(current, old.id)["reason"] == "temporal-superseded"
    at = mem.recall("do you remember which city I live in?", at_time="2025-03-01T00:00:00Z", debug=True)
    assert "Porto" in at.context and "Berlin" not in at.context
    assert row_of(at, new.id)["reason"] == "temporal-invalid"
    history = mem.recall("do you remember which city I live in?", history=True)
    assert "Porto" in history.context and "Berlin" in history.context
    assert history.trace["temporalMode"] == "history"
    # a date in the query selects "at" by itself
    dated = mem.recall("do you remember which city I lived in in 2025-02?")
    assert dated.trace["temporalMode"] == "at" and "Porto" in dated.context


def test_temporal_switched_off_reads_current_state_only(tmp_path) -> None:
    with open_mem(tmp_path, temporal_enabled=False) as m:
        old = m.create_page("Home city", "", type="concept", description="The user lives in Porto",
                            valid_from="2024-01-01T00:00:00Z")
        m.replace(old.id, "The user lives in Berlin", valid_from="2025-09-01T00:00:00Z")
        result = m.recall("do you remember which city I live in?", history=True)
    assert result.trace["temporalMode"] == "current" and "Porto" not in result.context


# -- mention gate and safe-usage projections -----------------------------------------------------------------
def test_gate_outcomes_for_protected_pages(mem) -> None:
    page = mem.create_page("Therapy", "The user sees a therapist on Thursdays for anxiety.", type="concept")
    assert page.sensitivity == "sensitive"
    plain = mem.create_page("Piano", "The user practises piano on Thursdays.", type="concept")
    provisional = mem.create_page("Locker", "The user's gym locker code is 4471.", type="concept",
                                  sensitivity="provisional_sensitive")
    explicit = mem.recall("do you remember my therapist on Thursdays?")
    row = row_of(explicit, page.id)
    assert (row["decision"], row["reason"]) == ("silent_use", "never-explicit-projection")
    assert "anxiety" not in explicit.context and "topic_sensitivity: sensitive" in explicit.context
    assert "allowed_effects: tone, avoid_topic" in explicit.context
    piano = mem.recall("what do I practise on Thursdays? I like piano")
    assert row_of(piano, plain.id)["reason"] == "normal-recall"
    assert row_of(piano, page.id)["reason"] == "sensitive-topic-mismatch"
    assert row_of(piano, page.id)["decision"] == "suppress" and piano.trace["rejectedBySensitivity"] >= 1
    asked = mem.recall("do you remember my gym locker code?")
    row = row_of(asked, provisional.id)
    assert (row["decision"], row["reason"]) == ("explicit", "user-explicit-only-projection")
    assert "4471" in asked.context
    assert "4471" in mem.recall("what is my gym locker code?").context  # asking for one's own detail
    unasked = mem.recall("heading to the gym, the locker code keypad there is broken again")
    row = row_of(unasked, provisional.id)
    assert (row["decision"], row["reason"]) == ("silent_use", "sensitive-no-explicit-request")
    assert "4471" not in unasked.context


def test_projections_are_persisted_and_rebuilt_from_canon(mem) -> None:
    page = mem.create_page("Sleep", "The user sleeps badly before exams.", type="concept")
    mem.recall("do you remember how I sleep?")
    stored = dict(mem.warehouse.fetchall(
        "SELECT record_id, disclosure FROM projections WHERE scope_key = ?", [mem.scope.key]))
    assert stored == {page.id: "normal"}
    mem.set_sensitivity(page.id, "sensitive")
    result = mem.recall("do you remember how I sleep before exams?")
    stored = dict(mem.warehouse.fetchall(
        "SELECT record_id, disclosure FROM projections WHERE scope_key = ?", [mem.scope.key]))
    assert stored == {page.id: "never_explicit"}
    assert row_of(result, page.id)["decision"] == "silent_use" and "badly" not in result.context


def test_context_budget_is_a_gate_reason(mem) -> None:
    for i in range(6):
        mem.create_page(f"Recipe {i}", f"Recipe {i} for lentil soup: " + "stir slowly, " * 30, type="concept")
    result = mem.recall("do you remember my lentil soup recipe?", max_context_chars=700)
    assert "context-budget" in result.trace["gateReasons"] and len(result.context) <= 700
    dropped = result.results.filter(~result.results["injected"])
    assert dropped.height and set(dropped["reason"]) <= {"context-budget"}


# -- the four evidence states, capture classification and its suspension ---------------------------------------
def test_four_evidence_states_and_unclassified_fallback(tmp_path) -> None:
    with open_mem(tmp_path, evidence_classification_enabled=True) as m:
        say(m, "s1", "My favourite bakery is Crumb on Elm Street.")                    # normal
        say(m, "s1", "My bakery stamp code is 88120457.")                      # provisional_sensitive
        say(m, "s1", "My bakery visits help with my depression.")                       # sensitive
    with open_mem(tmp_path, evidence_classification_enabled=False) as m:
        say(m, "s1", "My bakery order is always rye bread.")                            # unclassified
    states = {}
    with open_mem(tmp_path, evidence_classification_enabled=True) as m:
        rows = m.warehouse.fetchall("SELECT seq, sensitivity FROM evidence WHERE scope_key = ? ORDER BY seq",
                                    [m.scope.key])
        states = dict(rows)
        result = m.recall("do you remember my bakery stamp code and my bakery order and visits?")
    assert states == {0: "normal", 1: "provisional_sensitive", 2: "sensitive", 3: None}
    decisions = {r["id"]: (r["decision"], r["reason"]) for r in result.results.iter_rows(named=True)}
    assert decisions["session:s1/event:0"][0] == "explicit"
    assert decisions["session:s1/event:1"] == ("explicit", "user-explicit-only-projection")
    assert decisions["session:s1/event:2"] == ("silent_use", "never-explicit-projection")
    assert decisions["session:s1/event:3"] == ("silent_use", "never-explicit-projection")
    assert "depression" not in result.context and "rye bread" not in result.context
    with open_mem(tmp_path, evidence_classification_enabled=True,
                  unclassified_evidence_disclosure="user_explicit_only") as m:
        lowered = m.recall("do you remember my bakery order?")
        unasked = m.recall("my usual bakery order is rye bread, right?")
    assert row_of(lowered, "session:s1/event:3")["decision"] == "explicit" and "rye bread" in lowered.context
    assert row_of(unasked, "session:s1/event:3")["decision"] == "silent_use"


def test_capture_markers_are_suspended_while_classification_is_off(tmp_path) -> None:
    with open_mem(tmp_path, evidence_classification_enabled=True) as m:
        say(m, "s1", "My bike is a green Brompton.")
        say(m, "s1", "My bike lock combination is 9021.")
        # A user decision is not a capture-rule marker: it stays in force at every setting.
        m.warehouse.con.execute(
            "UPDATE evidence SET sensitivity = 'normal', sensitivity_origin = 'user' WHERE scope_key = ? AND seq = 1",
            [m.scope.key])
        on = m.recall("do you remember my bike?")
    with open_mem(tmp_path, evidence_classification_enabled=False) as m:
        off = m.recall("do you remember my bike?")
    with open_mem(tmp_path, evidence_classification_enabled=True) as m:
        back = m.recall("do you remember my bike?")
    for result in (on, back):
        assert row_of(result, "session:s1/event:0")["decision"] == "explicit"
    assert row_of(off, "session:s1/event:0")["decision"] == "silent_use"
    assert "Brompton" not in off.context
    for result in (on, off, back):
        assert row_of(result, "session:s1/event:1")["decision"] == "explicit"
