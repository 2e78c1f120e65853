"""The purge confirmation covers what the purge deletes, not counters ordinary use moves.

A recall in another process between the dry run and the execution leaves the token valid; new
evidence in the session or an edit of a page the purge touches voids it, and the refusal says
what changed since the dry run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import riko
from riko.clock import FixedClock
from riko.errors import ConfirmationMismatchError

CONFIG = {"purge_enabled": True, "recall_enabled": True}
HONEY = "I keep QUOKKA-7781 honeybees behind the lighthouse in Cornwall."
BOATS = "I repair PELICAN-4412 sailboats every winter in Brest."


def _say(mem: Any, sid: str, text: str) -> str:
    data = {"id": "m", "role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}
    return str(mem.capture({"session_id": sid, "type": "user/message", "data": data}))


def _open(root: Path, clock: FixedClock) -> Any:
    return riko.open(root, preset="companion", config=CONFIG, clock=clock)


@pytest.fixture
def scope(tmp_path: Path, clock: FixedClock) -> tuple[Path, str]:
    """Session s1 with a page of its own; session s2 with another page."""
    root = tmp_path / "root"
    with _open(root, clock) as mem:
        ref = _say(mem, "s1", HONEY)
        _say(mem, "s1", "The hives are painted blue and yellow this year.")
        mem.confirm(mem.propose("Honeybees", description=HONEY, evidence=[ref], session_id="s1"))
        other = _say(mem, "s2", BOATS)
        mem.confirm(mem.propose("Sailboats", description=BOATS, evidence=[other], session_id="s2"))
        page = mem.pages().filter(mem.pages()["title"] == "Honeybees")["id"][0]
    return root, str(page)


def _recall_elsewhere(root: Path, query: str) -> None:
    """Recall from another real process, as a notebook or `riko serve` would."""
    code = textwrap.dedent(f"""
        import riko
        with riko.open({str(root)!r}, preset="companion", config={CONFIG!r}) as mem:
            result = mem.recall({query!r})
            assert result.results.height > 0, result.trace
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr


def test_a_recall_in_another_process_keeps_the_confirmation(scope: tuple[Path, str], clock: FixedClock) -> None:
    root, page = scope
    with _open(root, clock) as mem:
        dry = mem.purge("s1")
    assert page in dry["impact"]["pages"]["removed"]
    _recall_elsewhere(root, "What do I keep behind the lighthouse? honeybees")
    with _open(root, clock) as mem:
        assert mem.purge("s1")["impact"]["activation"] >= 1  # the recall did count the page
        done = mem.purge("s1", dry_run=False, confirmation=dry["confirmation"])
        assert done["verified"] is True and done["changed"] is True
        assert "s1" not in mem.sessions()["session_id"].to_list()


def test_new_evidence_in_the_session_voids_it_and_says_so(scope: tuple[Path, str], clock: FixedClock) -> None:
    root, _ = scope
    with _open(root, clock) as mem:
        token = mem.purge("s1")["confirmation"]
        _say(mem, "s1", "One more thing about the lighthouse garden gate.")
        _say(mem, "s1", "And the gate is painted green.")
        with pytest.raises(ConfirmationMismatchError,
                           match=r"2 evidence rows added to session 's1' since the dry run.*nothing was changed"):
            mem.purge("s1", dry_run=False, confirmation=token)
        assert "s1" in mem.sessions()["session_id"].to_list()
        fresh = mem.purge("s1")["confirmation"]
        assert fresh != token
        assert mem.purge("s1", dry_run=False, confirmation=fresh)["verified"] is True


def test_an_edit_of_a_page_it_removes_voids_it_and_names_the_page(scope: tuple[Path, str], clock: FixedClock) -> None:
    root, page = scope
    with _open(root, clock) as mem:
        token = mem.purge("s1")["confirmation"]
        # a hand edit of the page file that keeps its claim and sources: still purged, a new version
        path = mem.wiki_dir / mem.pages().filter(mem.pages()["id"] == page)["path"][0]
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("tags: []", "tags: [garden]", 1) if "tags: []" in text
                        else text.replace("\n---\n", "\ntags: [garden]\n---\n", 1), encoding="utf-8")
        assert mem.sync().changed
        with pytest.raises(ConfirmationMismatchError, match=rf"page {page} changed \(version 1 → 2\).* since the dry run"):
            mem.purge("s1", dry_run=False, confirmation=token)
        token = mem.purge("s1")["confirmation"]
        # a correction that says something else: the page is no longer the session's to purge
        mem.correct(page, "I keep two goats behind the old mill in Devon.")
        with pytest.raises(ConfirmationMismatchError,
                           match=rf"page {page} changed and is no longer part of the purge.*nothing was changed"):
            mem.purge("s1", dry_run=False, confirmation=token)
        assert mem.page(page).version == 3


def test_a_token_no_dry_run_gave_is_refused_as_unknown(scope: tuple[Path, str], clock: FixedClock) -> None:
    root, _ = scope
    with _open(root, clock) as mem:
        mem.purge("s1")
        with pytest.raises(ConfirmationMismatchError, match="no dry run of session 's1' gave this token"):
            mem.purge("s1", dry_run=False, confirmation="0" * 32)
