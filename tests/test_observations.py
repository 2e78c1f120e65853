"""Observations: anchor validation, activation thresholds, contradiction, status changes, reflection."""

from __future__ import annotations

import json
import logging
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riko
from dream_stub import (
    CREDENTIAL_REF,
    SECRET,
    Reply,
    StubServer,
    assistant_event,
    dream_config,
    model_answer,
    secret_hits,
    user_event,
)
from riko.errors import NotFoundError, StateError
from riko.observations import EPISTEMIC_STATUS, ObservationStore, observation_id


@pytest.fixture
def mem(tmp_path):
    memory = riko.open(tmp_path / "root", preset="companion", config={"candidate_auto_confirm": "off"})
    yield memory
    memory.close()


def said(mem: riko.Memory, sid: str, *texts: str) -> list[str]:
    """Capture user messages (each followed by an assistant reply); return their anchor refs."""
    refs = []
    for text in texts:
        refs.append(str(mem.capture(user_event(sid, text))))
        mem.capture(assistant_event(sid, "I see."))
    return refs


def store_of(mem: riko.Memory) -> ObservationStore:
    return ObservationStore.of(mem.context)


# -- anchors -------------------------------------------------------------------------------------------
def test_created_observation_is_an_inferred_candidate(mem):
    a = said(mem, "s1", "I walk by the river after work.")
    b = said(mem, "s2", "Walked along the river again tonight.")
    out = store_of(mem).propose("Often walks by the river", [*a, *b], 0.6)
    assert (out.action, out.status) == ("created", "candidate")
    assert out.id == observation_id(mem.scope.key, "often walks BY the river ")
    row = mem.observations().to_dicts()[0]
    assert row["epistemic_status"] == EPISTEMIC_STATUS and row["sensitivity"] == "normal"
    assert json.loads(row["session_ids"]) == ["s1", "s2"] and row["anchor_count"] == 2
    assert mem.pages().height == 0 and mem.candidates(None).height == 0, "an observation is never a page"
    assert mem.audits("observation-created").height == 1


def test_anchor_must_be_user_evidence_or_a_confirmed_page(mem):
    good = said(mem, "s1", "I love tea.", "Tea again today.")
    assistant = "session:s1/event:1"  # the assistant reply after the first message
    plugin = str(mem.capture(user_event("s1", "<MEMORY_DATA>likes tea</MEMORY_DATA>", kind="plugin")))
    cand = mem.propose("Drinks tea", description="pending only")
    page = mem.create_page("Drinks tea daily", "Tea every morning.")
    store = store_of(mem)
    for bad in (assistant, plugin, "session:nope/event:0", "session:s1/event:999", f"page:{cand}", "page:p-missing",
                "event:1", "http://evil.example/anchor"):
        with pytest.raises(NotFoundError):
            store.propose("Drinks tea often", [good[0], bad], 0.5)
    assert mem.observations().height == 0 and mem.audits("observation-created").height == 0
    assert store.propose("Drinks tea often", [good[0], f"page:{page.id}"], 0.5).action == "created"


def test_distinct_anchor_minimum_and_confidence_bounds(mem):
    refs = said(mem, "s1", "I love tea.", "Tea again.", "More tea.")
    store = store_of(mem)
    with pytest.raises(ValueError, match="2 distinct anchors"):
        store.propose("Likes tea", [refs[0], refs[0], refs[0]], 0.5)
    for confidence in (-0.1, 1.01, float("nan"), float("inf"), True, "0.5"):
        with pytest.raises(ValueError):
            store.propose("Likes tea", refs, confidence)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        store.propose("   ", refs, 0.5)
    # a batch is all-or-nothing: one bad item rejects the good one beside it
    with pytest.raises(NotFoundError):
        store.propose_many([("Likes tea", refs[:2], 0.5), ("Forged", [refs[0], "session:x/event:1"], 0.5)])
    assert mem.observations().height == 0


# -- activation thresholds ---------------------------------------------------------------------------------
def _anchors(mem: riko.Memory, sessions: int, per_session: int) -> list[str]:
    refs = []
    for s in range(sessions):
        refs += said(mem, f"s{s}", *[f"I went running at dawn, day {s}-{i}." for i in range(per_session)])
    return refs


@pytest.mark.parametrize(
    "sessions,per_session,confidence,text,expected",
    [
        (2, 2, 0.8, "Often goes running at dawn", "active"),          # 4 anchors, 2 sessions, 0.8
        (1, 4, 0.9, "Often goes running at dawn", "candidate"),       # one session only
        (2, 1, 0.9, "Often goes running at dawn", "candidate"),       # 2 anchors < 3
        (2, 2, 0.79, "Often goes running at dawn", "candidate"),      # confidence below 0.8
        (2, 2, 0.95, "Seems to run to cope with depression and anxiety", "candidate"),  # sensitive cue
    ],
)
def test_automatic_activation_thresholds(mem, sessions, per_session, confidence, text, expected):
    out = store_of(mem).propose(text, _anchors(mem, sessions, per_session), confidence)
    assert out.status == expected
    row = mem.observations().to_dicts()[0]
    assert row["status"] == expected
    if "depression" in text:
        assert row["sensitivity"] == "sensitive"
    if expected == "active":
        detail = json.loads(mem.audits("observation-activated")["detail"][0])
        assert detail["automatic"] is True
    assert mem.pages().height == 0


def test_thresholds_follow_the_configuration(tmp_path):
    config = {"observation_activation_min_evidence": 2, "observation_activation_min_sessions": 1,
              "observation_activation_min_confidence": 0.5}
    with riko.open(tmp_path / "r", preset="companion", config=config) as mem:
        assert store_of(mem).propose("Runs at dawn", _anchors(mem, 1, 2), 0.5).status == "active"


def test_evidence_updates_can_activate_later(mem):
    first = said(mem, "s1", "I went running at dawn.", "Ran at dawn again.")
    store = store_of(mem)
    said_twice = "The user has said this 2 times: \u201cI went running at dawn\u201d"
    assert store.propose(said_twice, first, 0.8).status == "candidate"
    more = said(mem, "s2", "Another dawn run today.")
    out = store.propose(said_twice.upper(), [first[0], *more], 0.85)
    assert (out.action, out.status) == ("updated", "active")
    row = store.get(out.id)
    assert len(row["anchors"]) == 3 and row["session_ids"] == ["s1", "s2"] and row["confidence"] == 0.85
    # a reworded count over mostly the same anchors updates the same record ...
    reworded = store.propose(said_twice.replace("2 times", "3 times across 2 sessions"), first + more, 0.8)
    assert reworded.id == out.id and reworded.action == "updated" and mem.observations().height == 1
    # ... while a different pattern over the same anchors is an observation of its own
    other = store.propose("Prefers mornings for exercise", first + more, 0.6)
    assert other.action == "created" and mem.observations().height == 2


# -- contradictions and status changes -------------------------------------------------------------------------
def test_contradictions_weaken_then_invalidate(mem):
    store = store_of(mem)
    obs = store.propose("Often runs at dawn", _anchors(mem, 2, 2), 0.9)
    assert obs.status == "active"
    against = said(mem, "s9", "I never run, I hate running.", "Running is not for me.", "I stopped running.",
                   "No running for me.")
    assert store.contradict(obs.id, against[:1])["status"] == "weakened"
    row = store.contradict(obs.id, against[1:3])
    assert row["status"] == "weakened" and len(row["contradictions"]) == 3
    row = store.contradict(obs.id, against[3:])
    assert row["status"] == "invalidated" and row["valid_to"] is not None  # 4 contradictions = 4 anchors
    with pytest.raises(NotFoundError):
        store.contradict(obs.id, ["session:s9/event:1"])  # an assistant line is no evidence
    with pytest.raises(StateError):
        store.activate(obs.id)
    # the same pattern proposed again does not come back to life
    again = store.propose("Often runs at dawn", _anchors(mem, 2, 1), 0.9)
    assert (again.action, again.status) == ("ignored", "invalidated")


def test_a_contradicted_candidate_is_never_auto_activated(mem):
    store = store_of(mem)
    refs = _anchors(mem, 2, 1)
    obs = store.propose("Often runs at dawn", refs, 0.9)
    store.contradict(obs.id, said(mem, "s9", "I never run."))
    out = store.propose("Often runs at dawn", _anchors(mem, 2, 2), 0.95)
    assert out.status == "candidate"


@settings(max_examples=25, deadline=None)
@given(support=st.integers(2, 5), contradictions=st.integers(1, 6))
def test_invalidated_exactly_when_contradictions_reach_support(tmp_path_factory, support, contradictions):
    root = tmp_path_factory.mktemp("prop")
    with riko.open(root, preset="companion", config={"observation_activation_min_evidence": 2}) as mem:
        store = store_of(mem)
        obs = store.propose("Runs at dawn", _anchors(mem, 1, support) + _anchors(mem, 1, 0), 0.9)
        against = said(mem, "contra", *[f"I did not run on day {i}." for i in range(contradictions)])
        row = store.contradict(obs.id, against)
        assert (row["status"] == "invalidated") == (contradictions >= support)


def test_status_changes_are_audited_and_reversible(mem):
    store = store_of(mem)
    obs = store.propose("Often walks by the river", _anchors(mem, 1, 2), 0.5)
    assert store.activate(obs.id)["status"] == "active"
    with pytest.raises(StateError):
        store.activate(obs.id)
    assert store.suppress(obs.id, reason="not useful")["status"] == "suppressed"
    assert mem.warehouse.fetchone("SELECT count(*) FROM suppressions WHERE target_kind = 'observation' AND active")[0] == 1
    with pytest.raises(StateError):
        store.suppress(obs.id)
    assert store.restore(obs.id)["status"] == "active"
    assert store.invalidate(obs.id, reason="wrong")["status"] == "invalidated"
    with pytest.raises(StateError):
        store.invalidate(obs.id)
    kinds = mem.audits()["kind"].to_list()
    for kind in ("observation-activated", "observation-suppressed", "observation-restored", "observation-invalidated"):
        assert kind in kinds
    assert mem.pages().height == 0
    assert mem.observations("invalidated").height == 1 and mem.observations("active").height == 0
    with pytest.raises(ValueError):
        mem.observations("bogus")


# -- reflection through mem.dream -------------------------------------------------------------------------------
def test_heuristic_reflection_finds_repeated_statements(tmp_path):
    with riko.open(tmp_path / "r", preset="companion", config={"reflection_enabled": True}) as mem:
        said(mem, "s1", "I go swimming every Sunday morning.", "Today I go swimming every Sunday morning again.")
        said(mem, "s2", "I go swimming every Sunday morning, as always.")
        report = mem.dream(progress=False)
        assert report.succeeded == 2 and report.observations >= 1 and report.reflection_failures == 0
        rows = mem.observations().to_dicts()
        assert len(rows) == 1
        row = rows[0]
        anchors = json.loads(row["anchors"])
        valid = {f"session:{r['session_id']}/event:{r['seq']}" for r in mem.evidence(user_only=True).to_dicts()}
        events = [a for a in anchors if not a.startswith("page:")]
        # the three statements, and the page the repeats were consolidated into when it is an anchor too
        assert len(events) == 3 and set(events) <= valid
        assert {a[5:] for a in anchors if a.startswith("page:")} <= set(mem.pages()["id"].to_list())
        assert row["status"] == "active" and row["epistemic_status"] == "inferred_observation"
        assert set(report.jobs["reflection"].to_list()) == {"ok"}
        assert all(json.loads(r["result"])["reflection"]["status"] == "ok" for r in mem.dream_jobs().to_dicts())


GOOD_FILE = ('<<<FILE path="wiki/concepts/tea.md">>>\n---\ntype: concept\ntitle: Likes tea\n'
             "description: Tea drinker.\n---\nTea.\n<<<END>>>")


def offered(prompt: str) -> list[str]:
    body = prompt.split("<anchors>\n", 1)[1].split("\n</anchors>", 1)[0]
    return [json.loads(line)["ref"] for line in body.splitlines() if line.startswith("{")]


def reflecting(answer: Callable[[list[str]], Any]) -> Callable[[str], Reply]:
    """A stub responder: FILE blocks for extraction, ``answer(offered refs)`` for reflection."""
    def respond(prompt: str) -> Reply:
        if "<anchors>" not in prompt:
            return Reply(text=GOOD_FILE)
        out = answer(offered(prompt))
        return out if isinstance(out, Reply) else Reply(text=json.dumps(out))
    return respond


def obs(text: str, anchors: list[str], confidence: float = 0.7) -> dict[str, Any]:
    return {"text": text, "anchors": anchors, "confidence": confidence}


REFLECTIONS: dict[str, tuple[Callable[[list[str]], Any], str | None]] = {
    "valid": (lambda refs: {"observations": [obs("Often mentions tea", refs[:2])]}, None),
    "forged-anchor": (lambda refs: {"observations": [obs("Often mentions tea", [refs[0], "session:other/event:1"])]},
                      "reflection-invalid"),
    "one-anchor": (lambda refs: {"observations": [obs("Tea", refs[:2]), obs("Coffee", refs[:1])]}, "reflection-invalid"),
    "confidence": (lambda refs: {"observations": [obs("Tea", refs[:2], 1.5)]}, "reflection-invalid"),
    "unknown-page": (lambda refs: {"observations": [obs("Tea", [refs[0], "page:p-does-not-exist"])]},
                     "reflection-invalid-anchor"),
    "not-json": (lambda refs: Reply(text="Here are my observations: tea!"), "reflection-invalid"),
    "http-500": (lambda refs: Reply(500, body={"error": "boom"}), "reflection-http-500"),
    "too-many": (lambda refs: {"observations": [obs(f"Pattern {i}", refs[:2]) for i in range(5)]}, None),
}


@pytest.mark.parametrize("case", sorted(REFLECTIONS))
def test_reflection_answers_are_validated(tmp_path, monkeypatch, caplog, case):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    answer, failure = REFLECTIONS[case]
    stub = StubServer(responder=reflecting(answer))
    try:
        config = dream_config(stub, reflection_enabled=True, reflection_max_observations=2,
                              candidate_auto_confirm="off")
        with riko.open(tmp_path / "r", preset="companion", config=config) as mem:
            said(mem, "s1", "I drink tea every morning.", "Tea with breakfast again.")
            said(mem, "s2", "Green tea is my favourite.")
            report = mem.dream(sessions=["s1"], progress=False)
            assert report.succeeded == 1 and report.failed == 0, "a reflection failure never fails the Dream job"
            job = mem.dream_jobs().filter(session_id="s1").to_dicts()[0]
            assert job["status"] == "succeeded"
            reflection = json.loads(job["result"])["reflection"]
            assert mem.candidates()["title"].to_list() == ["Likes tea"]
            if failure is None:
                assert reflection["status"] == "ok" and report.reflection_failures == 0
                assert mem.observations().height == (2 if case == "too-many" else 1)
                assert set(mem.observations()["epistemic_status"].to_list()) == {"inferred_observation"}
            else:
                assert reflection == {"status": "failed", "reason": failure}
                assert mem.observations().height == 0
                audit = json.loads(mem.audits("reflection-failed")["detail"][0])
                assert audit["reason"] == failure
                assert "reflection degraded" in caplog.text
            assert mem.pages().height == 0
            assert secret_hits(mem) == [] and SECRET not in caplog.text and SECRET not in repr(report)
            # reflection anchors offered were the valid session anchors only
            prompt = stub.requests[-1]["body"]["messages"][0]["content"]
            refs = offered(prompt)
            user_refs = {f"session:{r['session_id']}/event:{r['seq']}" for r in mem.evidence(user_only=True).to_dicts()}
            assert refs and set(refs) <= user_refs
    finally:
        stub.close()


def test_reflection_answers_are_cached_and_replayed(tmp_path, monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    stub = StubServer(responder=reflecting(lambda refs: {"observations": [obs("Often mentions tea", refs[:2])]}))
    try:
        config = dream_config(stub, reflection_enabled=True, candidate_auto_confirm="off")
        with riko.open(tmp_path / "r", preset="companion", config=config) as mem:
            said(mem, "s1", "I drink tea every morning.", "Tea with breakfast again.")
            mem.dream(progress=False)
            calls = len(stub.requests)
            assert calls == 2 and mem.warehouse.count("provider_cache") == 2
            replay = mem.dream(rescan=True, replay_only=True, progress=False)
            assert len(stub.requests) == calls and replay.jobs["reflection"].to_list() == ["ok"]
            assert mem.observations().height == 1
    finally:
        stub.close()


def test_stub_model_answer_is_deterministic():
    prompt = "<conversation>\nuser: I prefer green tea.\n</conversation>"
    assert model_answer(prompt) == model_answer(prompt) and "green tea" in model_answer(prompt)
