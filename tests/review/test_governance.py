"""Card governance: supersedes (id, id prefix, fragment) and expires on a new memory, and the
near-match overlaps offered (never applied) when nothing is named — through the tools, the
library, ``riko wiki new`` and HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import polars as pl
import pytest
from server_data import LiveServer

import riko
from riko.clock import FixedClock
from riko.errors import InvalidArgumentError, NotFoundError
from riko.review.governance import overlaps, parse_expires, resolve_page
from riko.server import create_app
from riko.tools import ToolBox

NOW = "2026-01-15T09:00:00Z"
REPO = Path(__file__).resolve().parents[2]


def say(mem: Any, sid: str, text: str) -> None:
    mem.clock.advance(seconds=1)
    mem.capture({"session_id": sid, "type": "user/message",
                 "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})


@pytest.fixture
def mem(tmp_path: Path) -> Any:
    with riko.open(tmp_path / "root", preset="companion", clock=FixedClock(NOW),
                   config={"embedding_provider": "off"}) as m:
        yield m


def status(mem: Any, page_id: str) -> tuple[str, str | None]:
    page = mem.page(page_id)
    return page.status, page.superseded_by


def test_remember_reports_overlaps_and_never_supersedes_by_itself(mem: Any) -> None:
    box = ToolBox(mem, "s1")
    say(mem, "s1", "Remember that my dentist appointment is on Friday at 10.")
    first = box.call("memory_remember", {"content": "my dentist appointment is on Friday at 10"})
    assert first.ok and first.overlaps == []
    say(mem, "s1", "Actually my dentist appointment is on Monday at 10.")
    second = box.call("memory_remember", {"content": "my dentist appointment is on Monday at 10"})
    assert second.ok and [o["id"] for o in second.overlaps] == [first.id]
    assert second.to_dict()["overlaps"][0]["id"] == first.id
    assert "supersedes set to its id" in second.text() and "nothing was superseded" in second.text()
    assert status(mem, first.id) == ("confirmed", None)  # both stay current until asked
    # the model takes the offer: the same claim again, naming the old one by its id prefix
    again = box.call("memory_remember", {"content": "my dentist appointment is on Monday at 10",
                                         "supersedes": first.id[:8]})
    assert again.ok and again.id == second.id, again.error
    assert status(mem, first.id) == ("superseded", second.id)
    kinds = mem.audits()["kind"].to_list()
    assert "page-superseded" in kinds


def test_remember_with_supersedes_fragment_and_expires(mem: Any) -> None:
    box = ToolBox(mem, "s1")
    say(mem, "s1", "Remember: I work at the Lisbon office.")
    old = box.call("memory_remember", {"content": "I work at the Lisbon office"}).id
    say(mem, "s1", "I now work at the Porto office until 2026-06-30.")
    new = box.call("memory_remember", {"content": "I now work at the Porto office until 2026-06-30",
                                       "supersedes": "Lisbon office", "expires": "2026-06-30"})
    assert new.ok, new.error
    assert f"supersedes {old}" in new.message and new.overlaps == []
    page = mem.page(new.id)
    assert page.supersedes == old and page.valid_to.isoformat().startswith("2026-07-01T00:00")
    assert status(mem, old) == ("superseded", new.id)
    mem.clock.set("2026-07-02T00:00:00Z")
    assert new.id not in mem.resident().source_page_ids  # expired: no longer current
    assert new.id not in mem.resident().index.page_ids


def test_remember_refuses_bad_governance_arguments(mem: Any) -> None:
    box = ToolBox(mem, "s1")
    say(mem, "s1", "Remember: I drink green tea every morning.")
    tea = box.call("memory_remember", {"content": "I drink green tea every morning"}).id
    say(mem, "s1", "Remember: my cat is called Miso.")
    unrelated = box.call("memory_remember", {"content": "my cat is called Miso", "supersedes": tea})
    assert not unrelated.ok and "not about" in unrelated.error
    assert status(mem, tea) == ("confirmed", None)
    missing = box.call("memory_remember", {"content": "my cat is called Miso", "supersedes": "no such words"})
    assert not missing.ok and "supersedes" in missing.error
    past = box.call("memory_remember", {"content": "my cat is called Miso", "expires": "2020-01-01"})
    assert not past.ok and "not in the future" in past.error
    bad = box.call("memory_remember", {"content": "my cat is called Miso", "expires": "next week"})
    assert not bad.ok and "YYYY" not in bad.error and "2026-05-31" in bad.error
    schema = next(s for s in box.schemas() if s["function"]["name"] == "memory_remember")
    assert {"supersedes", "expires"} <= set(schema["function"]["parameters"]["properties"])
    refused = mem.audits().filter(pl.col("kind") == "memory-tool-refused")
    assert refused.height >= 4


def test_resolve_and_overlap_rules(mem: Any) -> None:
    a = mem.create_page("Green tea", "", description="The user drinks green tea every morning")
    b = mem.create_page("Green tea brand", "", description="The user buys Sencha from Kyoto")
    pages = mem.context.canon.pages()
    assert resolve_page(pages, a.id).id == a.id
    assert resolve_page(pages, a.id[:9]).id == a.id
    assert resolve_page(pages, "Sencha from Kyoto").id == b.id
    with pytest.raises(InvalidArgumentError, match="matches 2 current pages"):
        resolve_page(pages, "Green tea")
    with pytest.raises(NotFoundError):
        resolve_page(pages, "espresso")
    assert [o["id"] for o in overlaps(pages, "the user drinks green tea each morning")] == [a.id]
    assert overlaps(pages, "the user walks the dog at noon") == []
    with pytest.raises(InvalidArgumentError, match="not in the future"):
        parse_expires("2026-01-14", mem.clock.now())


def test_create_page_cli_and_http_take_supersedes_and_expires(mem: Any, tmp_path: Path) -> None:
    old = mem.create_page("Office", "", description="The user works at the Lisbon office")
    mem.clock.advance(seconds=1)
    new = mem.create_page("Office", "", description="The user works at the Porto office",
                          supersedes="Lisbon office", expires="2026-12-31")
    assert status(mem, old.id) == ("superseded", new.id) and new.supersedes == old.id
    assert new.valid_to.isoformat().startswith("2027-01-01")
    assert [o["id"] for o in mem.overlaps("The user works at the Porto office", exclude=[new.id])] == []
    root = tmp_path / "root"
    mem.close()

    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    base = [sys.executable, "-m", "riko", "wiki", "new", "--root", str(root), "--preset", "companion"]
    run = subprocess.run([*base, "Office again", "--description", "The user works at the Porto office now", "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    made = json.loads(run.stdout)
    assert [o["id"] for o in made["overlaps"]] == [new.id]
    text = subprocess.run([*base, "Desk", "--description", "The user sits at desk 14",
                           "--supersedes", made["page"]["id"][:10], "--expires", "2026-12-31"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert text.returncode == 0 and f"supersedes {made['page']['id']}" in text.stdout, text.stderr
    bad = subprocess.run([*base, "Desk", "--expires", "tomorrow"], capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "expires" in bad.stderr

    header = {"x-dsh-memory-profile": "companion"}
    with LiveServer(create_app(root, {})) as url, httpx.Client(base_url=url, timeout=30) as client:
        r = client.post("/memory/v1/wiki/pages", headers=header,
                        json={"title": "Desk", "description": "The user sits at desk 14 by the window"})
        assert r.status_code == 201 and r.json()["overlaps"], r.text
        target = r.json()["overlaps"][0]["id"]
        r2 = client.post("/memory/v1/memories", headers=header,
                         json={"content": "The user sits at desk 15", "supersedes": target, "expires": "2026-12-31"})
        assert r2.status_code == 201, r2.text
        assert r2.json()["overlaps"] == []
        r3 = client.post("/memory/v1/wiki/pages", headers=header, json={"title": "X", "expires": "soon"})
        assert r3.status_code == 400 and "expires" in r3.json()["message"]
    with riko.open(root, preset="companion", read_only=True) as again:
        assert again.page(target).status == "superseded"
