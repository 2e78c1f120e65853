"""History recall shows replaced and forgotten pages as labelled lineage, never as current truth.

A superseded page comes back in history mode as ``[superseded by <id>] <its text>``; a forgotten
page only as ``[forgotten on <date>] <id>`` (its words are gone from memory); a protected
superseded page stays silent, its lineage in the guidance. Current recall sees none of them.
The same holds through ``mem.recall``, ``POST /recall`` and ``riko recall --history``.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import riko
from riko.cli.main import main
from riko.clock import FixedClock
from riko.server import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient

CONFIG = {"embedding_provider": "off", "recall_enabled": True, "evidence_classification_enabled": True}
HOME = "do you remember which city I live in?"
PET = "do you remember my corgi Doudou?"
PIN = "do you remember my bank PIN?"


def say(mem: Any, session: str, text: str) -> str:
    return str(mem.capture({"session_id": session, "type": "user/message",
                            "data": {"message": {"role": "user", "content": text}}}))


def build(root: Any) -> dict[str, str]:
    """Porto superseded by Berlin, a forgotten corgi, a protected PIN superseded by another."""
    (root / "riko.toml").write_text("recall_enabled = true\n", encoding="utf-8")
    clock = FixedClock("2026-01-15T09:00:00Z")
    with riko.open(root, preset="companion", clock=clock, config=CONFIG) as mem:
        porto = mem.create_page("Home city", "", description="The user lives in Porto city")
        clock.advance(days=1)
        berlin = mem.create_page("Home city now", "", description="The user lives in Berlin city")
        mem.supersede(porto.id, by=berlin.id)
        said = say(mem, "s1", "I have a corgi named Doudou")
        pet = mem.create_page("Corgi", "", description="The user has a corgi named Doudou", sources=[said])
        request = say(mem, "s1", "please forget my corgi Doudou")
        mem.context.review.forget(pet.id, request=request)
        old_pin = mem.create_page("Bank PIN", "", description="My bank PIN is 4412", sensitivity="sensitive")
        new_pin = mem.create_page("Bank PIN now", "", description="My bank PIN is 9931", sensitivity="sensitive")
        mem.supersede(old_pin.id, by=new_pin.id)
    return {"porto": porto.id, "berlin": berlin.id, "pet": pet.id, "old_pin": old_pin.id, "new_pin": new_pin.id}


@pytest.fixture
def scope(tmp_path) -> tuple[Any, dict[str, str]]:
    return tmp_path, build(tmp_path)


def reopen(root: Any) -> Any:
    return riko.open(root, preset="companion", clock=FixedClock("2026-01-20T09:00:00Z"), config=CONFIG)


def test_superseded_page_is_labelled_in_history_and_absent_from_current_recall(scope) -> None:
    root, ids = scope
    with reopen(root) as mem:
        current = mem.recall(HOME).context
        history = mem.recall(HOME, history=True).context
    assert "Berlin" in current and "Porto" not in current and "superseded" not in current
    porto = [line for line in history.splitlines() if "Porto" in line]
    assert porto and all(f"[superseded by {ids['berlin']}]" in line for line in porto), history
    berlin = [line for line in history.splitlines() if "Berlin" in line]
    assert berlin and not any("superseded" in line for line in berlin), history


def test_forgotten_page_shows_only_its_label_and_date_in_history(scope) -> None:
    root, ids = scope
    with reopen(root) as mem:
        current = mem.recall(PET)
        history = mem.recall(PET, history=True)
        ranked = mem.retrieve("corgi Doudou", k=20)
    assert ids["pet"] not in current.results["id"].to_list() and current.context == ""
    assert f"[forgotten on 2026-01-16] {ids['pet']}" in history.context, history.context
    assert "[lineage]" in history.context
    # neither the page's words nor the lines it stood on, nor the user's request, come back
    assert "corgi" not in history.context.casefold() and "doudou" not in history.context.casefold()
    shown = " ".join(str(t) for t in history.results["text"].to_list() if t)
    assert "doudou" not in shown.casefold()
    assert ids["pet"] not in ranked["doc_id"].to_list()  # retrieve ranks what is not forgotten


def test_protected_superseded_page_keeps_its_text_out_and_its_lineage_in(scope) -> None:
    root, ids = scope
    with reopen(root) as mem:
        history = mem.recall(PIN, history=True)
    assert "4412" not in history.context and "9931" not in history.context
    assert f"lineage: superseded by {ids['new_pin']}" in history.context, history.context
    row = history.results.filter(history.results["id"] == ids["old_pin"]).row(0, named=True)
    assert row["decision"] == "silent_use" and row["text"] is None


def test_http_and_cli_history_recall_carry_the_same_labels(scope, capsys) -> None:
    root, ids = scope
    headers = {"x-dsh-memory-profile": "companion"}
    with TestClient(create_app(root, CONFIG, clock=FixedClock("2026-01-20T09:00:00Z")),
                    client=("127.0.0.1", 50000)) as c:
        home = c.post("/memory/v1/recall", headers=headers, json={"query": HOME, "history": True}).json()
        pet = c.post("/memory/v1/recall", headers=headers, json={"query": PET, "history": True}).json()
        now = c.post("/memory/v1/recall", headers=headers, json={"query": HOME}).json()
    assert f"[superseded by {ids['berlin']}]" in home["context"] and "Porto" in home["context"]
    assert f"[forgotten on 2026-01-16] {ids['pet']}" in pet["context"]
    assert "doudou" not in json.dumps(pet["results"]).casefold()
    assert "Porto" not in json.dumps(now)
    assert main(["recall", "--root", str(root), "--preset", "companion", "--history", "--json", PET]) == 0
    out = json.loads(capsys.readouterr().out)
    assert f"[forgotten on 2026-01-16] {ids['pet']}" in out["context"]
    assert "doudou" not in json.dumps(out["results"]).casefold()
    assert main(["recall", "--root", str(root), "--preset", "companion", "--history", HOME]) == 0
    assert f"[superseded by {ids['berlin']}]" in capsys.readouterr().out
