"""Forgotten stays forgotten: a forget or a suppression holds the user lines that stated,
corrected or governed the memory out of every later Dream pass and every automatic admission,
and a line that asked to govern memory is never a memory itself. Real tools, real Dream, a
real DuckDB and page files in tmp_path."""

from __future__ import annotations

import json

import riko
from riko.clock import FixedClock
from riko.config import load_config
from riko.server.scheduler import DreamScheduler
from riko.server.scopes import Scopes
from riko.tools import ToolBox

PEANUTS = (
    "Please remember: I'm allergic to peanuts.",
    "Correction: I'm allergic to peanuts and cashews",
    "Please don't mention the peanuts thing",
    "You can mention the peanuts thing again",
    "Please forget the peanut allergy",
)


def say(mem, sid: str, text: str) -> str:
    if isinstance(mem.clock, FixedClock):
        mem.clock.advance(seconds=1)
    mem.capture({"session_id": sid, "type": "user/message",
                 "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})
    return text


def peanut_story(mem, sid: str = "s1") -> str:
    """Remember, correct, suppress, restore, then forget one allergy through the tools."""
    box = ToolBox(mem, sid)
    say(mem, sid, PEANUTS[0])
    remembered = box.call("memory_remember", {"content": "I'm allergic to peanuts"})
    assert remembered.ok, remembered.error
    pid = remembered.id
    say(mem, sid, PEANUTS[1])
    assert box.call("memory_correct", {"id": pid, "content": "I'm allergic to peanuts and cashews"}).ok
    say(mem, sid, PEANUTS[2])
    assert box.call("memory_suppress", {"target": "peanuts"}).ok
    say(mem, sid, PEANUTS[3])
    assert box.call("memory_restore", {"target": "peanuts"}).ok
    say(mem, sid, PEANUTS[4])
    assert box.call("memory_forget", {"id": pid}).ok
    return pid


def derived_from_the_story(mem) -> list[str]:
    """Live pages and candidates whose words or evidence come from a line of the story."""
    folded = {" ".join(t.casefold().rstrip(".").split()) for t in PEANUTS}
    folded |= {"i'm allergic to peanuts and cashews", "i'm allergic to peanuts"}
    found = []
    for page in mem.context.canon.pages():
        words = " ".join(f"{page.title} {page.description}".casefold().split())
        if page.status == "confirmed" and ("peanut" in words or any(f in words for f in folded)):
            found.append(f"page {page.id}: {page.title}")
    for row in mem.context.review.cands.records():
        if row["status"] != "rejected" and "peanut" in f"{row['title']} {row['description']}".casefold():
            found.append(f"candidate {row['id']} ({row['status']}): {row['title']}")
    return found


def test_a_forgotten_allergy_never_comes_back_through_dream(tmp_path):
    with riko.open(tmp_path / "root", preset="companion", clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        assert mem.config.candidate_auto_confirm == "user_grounded"
        peanut_story(mem)
        report = mem.dream(progress=False)
        assert report.succeeded == 1 and derived_from_the_story(mem) == []
        # the raw lines are kept in L0 (an ordinary forget keeps raw evidence)
        assert set(PEANUTS) <= set(mem.evidence("s1")["text"].to_list())
        mem.dream(progress=False, rescan=True, use_cache=False)
        assert derived_from_the_story(mem) == []
        # the user says every line again, in the same session and in another one
        for sid in ("s1", "s2"):
            for text in PEANUTS:
                say(mem, sid, text)
            say(mem, sid, "I'm allergic to peanuts and cashews")
        report = mem.dream(progress=False)
        assert report.succeeded == 2 and derived_from_the_story(mem) == []
        assert mem.dream(progress=False, rescan=True, use_cache=False).succeeded == 2
        assert derived_from_the_story(mem) == []


def test_the_scheduled_dream_of_riko_serve_keeps_it_forgotten(tmp_path):
    cfg = load_config(tmp_path, overrides={"embedding_provider": "off", "debounce_ms": 0, "dream_interval_ms": 60_000})
    scopes = Scopes(tmp_path, cfg, None)
    ticks = iter(float(t) for t in range(1000, 2000, 100))
    scheduler = DreamScheduler(scopes, cfg.debounce_ms, cfg.dream_interval_ms, clock=lambda: next(ticks))
    try:
        mem = scopes.call("companion", lambda m: m)
        peanut_story(mem)
        assert scheduler.tick("companion") == "debounce"  # debounce_ms = 0: Dream as soon as evidence moved
        assert scheduler.runs[-1] == ("companion", "debounce", ["s1"])
        assert derived_from_the_story(mem) == []
        for text in PEANUTS:
            say(mem, "s9", text)
        assert scheduler.tick("companion") == "debounce"
        assert scheduler.runs[-1] == ("companion", "debounce", ["s9"])
        assert derived_from_the_story(mem) == []
    finally:
        scopes.close_all()


def test_a_suppressed_memory_is_held_until_restored_and_its_request_for_good(tmp_path):
    with riko.open(tmp_path / "root", preset="companion", clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        box = ToolBox(mem, "s1")
        say(mem, "s1", "I work at the corner bakery")
        assert box.call("memory_remember", {"content": "I work at the corner bakery"}).ok
        say(mem, "s1", "Please don't mention the bakery any more")
        pid = box.call("memory_suppress", {"target": "bakery"}).id
        say(mem, "s2", "I work at the corner bakery")
        say(mem, "s2", "Please don't mention the bakery any more")
        mem.dream(progress=False)
        assert [p.id for p in mem.context.canon.pages() if "bakery" in p.description.casefold()] == [pid]
        assert all(r["status"] == "rejected" or "bakery" not in r["description"].casefold()
                   for r in mem.context.review.cands.records())
        assert mem.page(pid).sources == ["session:s1/event:0"]  # nothing held grounds the page again
        say(mem, "s1", "You can mention the bakery again")
        assert box.call("memory_restore", {"target": "bakery"}).ok
        mem.dream(progress=False, rescan=True, use_cache=False)
        pages = [p for p in mem.context.canon.pages() if "bakery" in p.description.casefold()]
        # the statement is the live memory's again (its repeat is a duplicate), the requests never a memory
        assert [p.id for p in pages] == [pid]
        assert not [p for p in mem.context.canon.pages() if "mention" in p.description.casefold()]


def test_a_boundary_no_tool_governed_is_still_a_memory(tmp_path):
    with riko.open(tmp_path / "root", preset="companion", clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        say(mem, "s1", "Please don't mention my ex")
        mem.dream(progress=False)
        assert [p.description for p in mem.context.canon.pages() if p.kind == "boundary"] == ["Please don't mention my ex"]


def test_forget_dismisses_what_dream_drew_from_the_memory_s_lines(tmp_path):
    config = {"candidate_auto_confirm": "off"}
    with riko.open(tmp_path / "root", preset="companion", config=config,
                   clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        box = ToolBox(mem, "s1")
        say(mem, "s1", "Correction: I'm allergic to peanuts and cashews")
        mem.dream(progress=False)
        pending = [r for r in mem.context.review.cands.records() if r["status"] == "pending"]
        assert any("peanuts" in r["description"] for r in pending)
        assert box.call("memory_remember", {"content": "I'm allergic to peanuts and cashews"}).ok
        say(mem, "s1", "Please forget the peanut allergy")
        assert box.call("memory_forget", {"target": "peanut allergy"}).ok
        rows = {r["id"]: r for r in mem.context.review.cands.records()}
        assert {rows[r["id"]]["status"] for r in pending} == {"rejected"}
        detail = [json.loads(d) for d in mem.audits("candidate-rejected")["detail"].to_list()]
        assert {d["reason"] for d in detail} == {"governed-evidence"}
        # an "all" admission later has nothing to admit from those lines either
        assert mem.context.review.auto_confirm([r["id"] for r in pending], "all") == []


def test_held_lines_anchor_no_reflection(tmp_path):
    with riko.open(tmp_path / "root", preset="companion", config={"reflection_enabled": True},
                   clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        peanut_story(mem)
        for sid in ("s2", "s3", "s4"):
            say(mem, sid, "I'm allergic to peanuts and cashews")
            say(mem, sid, "Correction: I'm allergic to peanuts and cashews")
        say(mem, "s5", "I walk my dog every morning")
        mem.dream(progress=False)
        texts = " ".join(mem.observations()["text"].to_list()).casefold() if len(mem.observations()) else ""
        assert "peanut" not in texts
