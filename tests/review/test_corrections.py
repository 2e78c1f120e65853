"""A corrected or replaced value leaves every injected surface, however the page was made.

Every creation path (management page with the claim as body or description, proposal +
confirm, ``memory_remember``, user-grounded auto-confirm) meets every correction path
(correct, replace, supersede, ``memory_correct``, both conflict resolutions, a hand edit of
the page file). Afterwards the old value appears in no current-mode surface — recall context,
Resident, tool text, the HTTP page projection — and history mode shows it marked as ended.
"""

from __future__ import annotations

import json

import pytest

import riko
from riko.clock import FixedClock
from riko.wiki.corrections import claim_changed, corrected_title
from riko.evaluation.cases import CASE_CONFIG
from riko.server.redact import page_view
from riko.tools import ToolBox

OLD, NEW = "I live in Lisbon", "I live in Porto"
QUERY, HISTORY_QUERY = "Remind me where I live", "Where did I use to live before?"


def say(mem, text: str, sid: str = "s1"):
    mem.clock.advance(seconds=5)
    return mem.capture({"session_id": sid, "type": "user/message",
                        "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})


def create(mem, path: str) -> str:
    if path == "page-body":
        return mem.create_page(OLD, OLD).id
    if path == "page-description":
        return mem.create_page(OLD, "", description=OLD).id
    if path == "propose-confirm":
        return mem.confirm(mem.propose(OLD, description=OLD)).id
    if path == "remember":
        say(mem, f"Please remember: {OLD}.")
        result = ToolBox(mem, "s1").call("memory_remember", {"content": OLD})
        assert result.ok, result.error
        return result.id
    if path == "auto-confirm":
        say(mem, OLD)
        cid = mem.propose(OLD, description=OLD, session_id="s1")
        (pid,) = mem.auto_confirm([cid], policy="user_grounded")
        return pid
    raise AssertionError(path)


def correct(mem, pid: str, path: str) -> str:
    mem.clock.advance(days=1)
    if path == "correct":
        return mem.correct(pid, NEW).id
    if path == "replace":
        return mem.replace(pid, NEW, mem.clock.now()).id
    if path == "supersede":
        new = mem.create_page("Home city", NEW)
        mem.supersede(pid, by=new.id)
        return new.id
    if path == "memory_correct":
        say(mem, f"No, that's wrong: {NEW}")
        result = ToolBox(mem, "s1").call("memory_correct", {"id": pid, "content": NEW})
        assert result.ok, result.error
        return result.id
    if path in ("conflict-correction", "conflict-temporal"):
        old = mem.page(pid)
        cid = mem.propose(old.title, type=old.type, description=NEW)
        (conflict,) = mem.conflicts("contested")["id"].to_list()
        assert cid is not None
        resolution = "correction" if path == "conflict-correction" else "temporal_transition"
        return mem.resolve_conflict(conflict, resolution).id
    if path == "hand-edit":
        # a person fixes the claim in the file, wherever it says the old value (riko never
        # changes a field of a hand edit the person did not touch, the title included)
        file = mem._canon.dir / mem.pages().filter(mem.pages()["id"] == pid)["path"][0]
        file.write_text(file.read_text(encoding="utf-8").replace("Lisbon", "Porto"), encoding="utf-8")
        report = mem.sync()
        assert pid in report.edited, report
        return pid
    raise AssertionError(path)


CREATIONS = ("page-body", "page-description", "propose-confirm", "remember", "auto-confirm")
CORRECTIONS = ("correct", "replace", "supersede", "memory_correct", "conflict-correction", "conflict-temporal",
               "hand-edit")


@pytest.mark.parametrize("correction", CORRECTIONS)
@pytest.mark.parametrize("creation", CREATIONS)
def test_the_old_value_leaves_every_injected_surface(tmp_path, creation, correction):
    config = {**CASE_CONFIG, "temporal_reconcile_enabled": False}
    with riko.open(tmp_path / "root", preset="companion", config=config,
                   clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        old = create(mem, creation)
        assert "Lisbon" in mem.resident().text
        current = correct(mem, old, correction)
        mem.clock.advance(minutes=1)
        box = ToolBox(mem, "s2")
        surfaces = {
            "recall": mem.recall(QUERY).context,
            "resident": mem.resident().text,
            "tool": box.call("memory_get_resident").text(),
            "http": json.dumps(page_view(mem.page(current)), default=str),
        }
        assert "Porto" in surfaces["resident"] and "Porto" in surfaces["recall"], surfaces
        for name, text in surfaces.items():
            assert "Lisbon" not in text, f"{name}: {text}"
        if correction in ("replace", "conflict-temporal"):
            history = mem.recall(HISTORY_QUERY, history=True).context
            ended = [line for line in history.splitlines() if "Lisbon" in line]
            assert ended and all("[until 2026-01-16]" in line for line in ended), history


def test_a_subject_title_is_kept_and_a_claim_title_follows_the_claim():
    assert corrected_title("Home city", OLD, NEW, "normal", "p-1") == "Home city"
    assert corrected_title(OLD, OLD, NEW, "normal", "p-1") == NEW
    assert corrected_title("Lisbon flat", OLD, "my PIN is 4412", "sensitive", "p-1").startswith("Protected credential")


@pytest.mark.parametrize("old,new,changed", [
    ("I prefer grene tea in the morning", "I prefer green tea in the morning", False),
    ("I prefer green tea", "i prefer green tea.", False),
    ("I live in Lisbon", "I live in Porto", True),
    ("My PIN is 4412", "My PIN is 4421", True),
    ("I like cats", "I like bats", True),
    ("我喜欢绿茶", "我喜欢红茶", True),
])
def test_claim_changed(old, new, changed):
    assert claim_changed(old, new) is changed


def test_over_http_the_replaced_value_is_gone_and_history_marks_it_ended(tmp_path):
    import warnings

    from riko.server import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    root = tmp_path / "root"
    clock = FixedClock("2026-01-15T09:00:00Z")
    with riko.open(root, preset="companion", config=CASE_CONFIG, clock=clock) as mem:
        page = mem.create_page("I live in Lisbon", "I live in Lisbon")
        clock.advance(days=1)
        new = mem.replace(page.id, "I live in Porto", clock.now())
    app = create_app(root, {**CASE_CONFIG, "api_tokens": {"companion": "tok-companion-123456"}}, clock=clock)
    headers = {"x-dsh-memory-profile": "companion", "authorization": "Bearer tok-companion-123456"}
    with TestClient(app, client=("127.0.0.1", 50000)) as c:
        current = c.post("/memory/v1/recall", headers=headers, json={"query": QUERY}).json()
        resident = c.get("/memory/v1/resident", headers=headers).text
        shown = c.get(f"/memory/v1/wiki/pages/{new.id}", headers=headers).text
        history = c.post("/memory/v1/recall", headers=headers, json={"query": HISTORY_QUERY, "history": True}).json()
    assert "Porto" in current["context"] and "Lisbon" not in json.dumps(current)
    assert "Lisbon" not in resident and "Lisbon" not in shown
    assert "[until 2026-01-16] I live in Lisbon" in history["context"]
