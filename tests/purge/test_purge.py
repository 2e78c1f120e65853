"""Raw-session purge: dry run, exact confirmation, lease, verified apply, rollback, recovery."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riko
from riko.contracts import parse_ref
from riko.clock import FixedClock
from riko.dense import DenseDoc, DenseIndex, DeterministicProvider
from riko.dense.store import read_generation, read_pointer
from riko.errors import ConfirmationMismatchError, NotFoundError, PurgeError
from riko.stores.migrations import SCOPED_TABLES
from riko.purge import FAULT_ENV, KILL_ENV, Needles, recover_interrupted
from riko.purge.journal import KILL_EXIT_CODE, LEASE_ID, acquire_lease
from riko.purge.needles import MIN_FRAGMENT_CHARS, fragments_of, re2_escape
from riko.purge.verify import verify_files, verify_tables
from riko.evaluation.samples import generate_samples

# Long, distinctive ASCII, so a byte scan can tell whether any copy survived.
FA = "Ottoline keeps QUOKKA-ZEBRA-7781 honeybees behind the lighthouse in Cornwall."
FA2 = "Noted: the QUOKKA-ZEBRA-7781 hives sit near the old lighthouse."
FB = "My brother Lysander repairs PELICAN-4412 sailboats every winter in Brest."
MARK = b"QUOKKA-ZEBRA-7781"


@dataclass
class World:
    root: Path
    clock: FixedClock
    a: str
    b: str
    ra: str
    ra2: str
    rb: str
    page_a: str
    page_b: str
    page_mixed: str
    cand_a_only: str
    alias_a: str
    alias_b: str

    def open(self) -> Any:
        return riko.open(self.root, preset="companion", config={"purge_enabled": True}, clock=self.clock)


def _say(mem: Any, sid: str, text: str, role: str = "user") -> str:
    if role == "user":
        data = {"id": "m", "role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}
        return str(mem.capture({"session_id": sid, "type": "user/message", "data": data}))
    data = {"turn": 9, "step": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                                             "source": {"kind": "model"}}}
    return str(mem.capture({"session_id": sid, "type": "assistant/message", "data": data}))


def _build(tmp_path: Path, clock: FixedClock) -> World:
    """Sample harness logs ingested, two sessions with distinctive turns, pages from both,
    a page sourced from both, candidates, aliases, a dense index and a Parquet export."""
    generate_samples(tmp_path / "logs")
    root = tmp_path / "root"
    mem = riko.open(root, preset="companion", config={"purge_enabled": True}, clock=clock)
    mem.ingest(tmp_path / "logs", progress=False)
    a, b = sorted(mem.sessions()["session_id"].to_list())[:2]
    ra, ra2, rb = _say(mem, a, FA), _say(mem, a, FA2, "assistant"), _say(mem, b, FB)
    page_a = mem.confirm(mem.propose("Ottoline", type="entity", description=FA, evidence=[ra], session_id=a)).id
    page_b = mem.confirm(mem.propose("Lysander", type="entity", description=FB, evidence=[rb], session_id=b)).id
    page_mixed = mem.confirm(mem.propose("Sailing and bees", description="Family hobbies include boats and bees.",
                                         evidence=[ra, rb], session_id=a)).id
    cand = mem.propose("Lighthouse honey", description="Honey from the hives by the lighthouse",
                       evidence=[ra2], session_id=a)
    alias_a, alias_b = mem.add_alias(page_a, "Aunt Otto"), mem.add_alias(page_b, "Sandy")
    index = DenseIndex(mem.warehouse_dir / "dense", DeterministicProvider(64))
    docs = [DenseDoc(p.id, p.description, "page") for p in mem._canon.pages()]
    docs += [DenseDoc(f"session:{r['session_id']}/event:{r['seq']}", r["text"], "evidence")
             for r in mem.evidence(user_only=True).to_dicts()]
    index.build(docs, "rev-1")
    mem.export_evidence(root / "exports")
    mem.close()
    return World(root, clock, a, b, ra, ra2, rb, page_a, page_b, page_mixed, cand, alias_a, alias_b)


@pytest.fixture
def world(tmp_path: Path, clock: FixedClock) -> World:
    return _build(tmp_path, clock)


def _tables(mem: Any) -> dict[str, list[tuple]]:
    out = {}
    for table in SCOPED_TABLES:
        if table == "purges":
            continue
        out[table] = sorted(map(repr, mem._wh.fetchall(f"SELECT * FROM {table} WHERE scope_key = ?", [mem.scope.key])))
    return out


def _files(mem: Any) -> dict[str, str]:
    """Digests of the page files, Resident, exports and dense index (the database aside)."""
    out = {}
    for base in (mem.wiki_dir, mem.root / "exports", mem.warehouse_dir / "dense"):
        for p in sorted(base.rglob("*")):
            if p.is_file():
                out[p.relative_to(mem.root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _bytes_hits(root: Path, needle: bytes) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and needle in p.read_bytes())


def _journal(mem: Any) -> list[tuple]:
    return mem._wh.fetchall("SELECT id, status, impact, error FROM purges WHERE scope_key = ? ORDER BY created_at",
                            [mem.scope.key])


# -- dry run and confirmation -------------------------------------------------------------------
def test_disabled_purge_is_refused(world: World) -> None:
    with riko.open(world.root, preset="companion", clock=world.clock) as mem:
        with pytest.raises(PurgeError, match="disabled"):
            mem.purge(world.a)


def test_dry_run_reports_the_impact_and_changes_nothing(world: World) -> None:
    subprocess.run(["git", "init", "-q", str(world.root / "wiki")], check=True)
    subprocess.run(["git", "-C", str(world.root / "wiki"), "add", "."], check=True)
    with world.open() as mem:
        before_tables, before_files = _tables(mem), _files(mem)
        report = mem.purge(world.a)
        again = mem.purge(world.a)
        after_tables, after_files = _tables(mem), _files(mem)
    assert (after_tables, after_files) == (before_tables, before_files)
    assert report["dryRun"] is True and report["changed"] is False
    assert re.fullmatch(r"[0-9a-f]{32}", report["confirmation"])
    assert again["confirmation"] == report["confirmation"]
    impact = report["impact"]
    assert impact["pages"] == {"removed": [world.page_a], "scrubbed": [world.page_mixed]}
    assert world.cand_a_only in impact["candidates"]["removed"]
    assert impact["aliases"]["removed"] == [world.alias_a]
    assert impact["evidence"] > 2 and impact["sessions"] == 1 and impact["sources"] == 1
    assert impact["denseDocuments"] >= 3 and impact["files"]["dense"] is True
    assert impact["files"]["exports"] == [f"session_id={world.a}"]
    assert impact["audits"] > 0 and report["residentRebuild"] is True
    tracked = {Path(p).name for p in report["gitTrackedPaths"]}
    assert {"ottoline.md", "sailing-and-bees.md", "RESIDENT.md"} <= tracked
    assert any(world.a in p for p in report["sourcePaths"])


def test_wrong_token_is_refused_and_nothing_changes(world: World) -> None:
    with world.open() as mem:
        before_tables, before_files = _tables(mem), _files(mem)
        token = mem.purge(world.a)["confirmation"]
        with pytest.raises(ConfirmationMismatchError):
            mem.purge(world.a, dry_run=False, confirmation="0" * 32)
        with pytest.raises(ConfirmationMismatchError):
            mem.purge(world.a, dry_run=False)
        # a token for another plan: the state moved after the dry run
        _say(mem, world.a, "One more thing about the lighthouse garden gate.")
        moved_tables = _tables(mem)
        with pytest.raises(ConfirmationMismatchError):
            mem.purge(world.a, dry_run=False, confirmation=token)
        assert mem.purge(world.a)["confirmation"] != token
        assert _tables(mem) == moved_tables and _files(mem) == before_files
        assert moved_tables["evidence"] != before_tables["evidence"]
        assert _journal(mem) == []


def test_unknown_or_empty_session(world: World) -> None:
    with world.open() as mem:
        with pytest.raises(NotFoundError):
            mem.purge("no-such-session")
        with pytest.raises(PurgeError):
            mem.purge("  ")


# -- execution ----------------------------------------------------------------------------------
def test_purge_removes_every_trace_and_verifies_after_restart(world: World) -> None:
    assert "wiki/local/companion/entities/ottoline.md" in _bytes_hits(world.root, MARK)
    with world.open() as mem:
        needles = Needles.from_warehouse(mem._wh, mem.scope.key, world.a)
        token = mem.purge(world.a)["confirmation"]
        result = mem.purge(world.a, dry_run=False, confirmation=token)
        assert result["changed"] is True and result["verified"] is True and result["dryRun"] is False
        op = result["operationId"]
        assert mem.evidence(world.a).height == 0 and world.a not in mem.sessions()["session_id"].to_list()
        assert mem.evidence(world.b).height > 0
        tomb = mem._canon.row(world.page_a)
        assert (tomb["status"], tomb["title"], tomb["description"], tomb["path"]) == ("forgotten", "[purged]", "", None)
        mixed = mem.page(world.page_mixed)
        assert mixed.status == "confirmed" and mixed.sources == [world.rb]
        assert mem.page(world.page_b).description == FB
        assert world.cand_a_only not in mem.candidates(None)["id"].to_list()
        assert mem.aliases()["id"].to_list() == [world.alias_b]
        assert FA not in mem.resident().text and FB in mem.resident().text
        scrubbed = mem.audits().filter(pl.col("detail") == json.dumps({"scrubbed": f"purge {op}"}, separators=(",", ":")))
        assert scrubbed.height == result["impact"]["audits"]
        assert _journal(mem)[0][:2] == (op, "completed") and FA not in _journal(mem)[0][2]
        assert mem._wh.fetchone("SELECT count(*) FROM jobs WHERE id = ?", [LEASE_ID])[0] == 0
        dense = mem.warehouse_dir / "dense"
        pointer = read_pointer(dense)
        assert pointer["degraded_reason"] == "purge-rebuild-required"
        gen = read_generation(dense / "generations" / pointer["active"])
        assert world.page_a not in gen.doc_ids and not any(world.a in d for d in gen.doc_ids)
        assert world.page_b in gen.doc_ids
        assert not (mem.wiki_dir / "entities" / "ottoline.md").exists()
        assert world.a not in (mem.wiki_dir / "concepts" / "sailing-and-bees.md").read_text()
        assert not (mem.root / "exports" / mem.scope.storage_key / f"session_id={world.a}").exists()
        assert not (mem.warehouse_dir / "purge" / op).exists()
    # a fresh process view: reopen, then check the tables through SQL and every byte on disk
    with world.open() as mem:
        assert verify_tables(mem.context, needles) == [] and verify_files(mem.context, needles) == []
        exported = pl.read_parquet(mem.root / "exports" / mem.scope.storage_key / "**" / "*.parquet", hive_partitioning=True)
        assert world.a not in exported["session_id"].to_list() and world.b in exported["session_id"].to_list()
        assert mem.last_sync is not None and not mem.last_sync.changed
    assert _bytes_hits(world.root, MARK) == []
    assert _bytes_hits(world.root, FA2.encode()) == []
    # only the journal keeps the session id, inside the database file
    assert _bytes_hits(world.root, world.a.encode()) == [f"warehouse/{world_storage(world)}/riko.duckdb"]
    with duckdb.connect(str(world.root / "warehouse" / world_storage(world) / "riko.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM evidence WHERE text LIKE '%QUOKKA%'").fetchone() == (0,)


def world_storage(world: World) -> str:
    return riko.MemoryScope("local", "companion").storage_key


def test_derived_records_are_removed_or_scrubbed(world: World) -> None:
    with world.open() as mem:
        rb2 = _say(mem, world.b, "Lysander says the PELICAN-4412 hull needs new varnish.")
        key = mem.scope.key
        rows = {
            "observations": [
                {"id": "o-kept", "text": "Family talks about boats often", "anchors": json.dumps([world.ra, world.rb, rb2]),
                 "contradictions": "[]", "confidence": 0.7, "status": "active", "epistemic_status": "inferred",
                 "session_ids": json.dumps([world.a, world.b])},
                {"id": "o-gone", "text": "Bees come up a lot", "anchors": json.dumps([world.ra, world.ra2]),
                 "contradictions": "[]", "confidence": 0.7, "status": "active", "epistemic_status": "inferred",
                 "session_ids": json.dumps([world.a])},
            ],
            "activation": [{"record_id": world.page_a, "recall_count": 3, "score": 1.0},
                           {"record_id": world.page_b, "recall_count": 1, "score": 0.5}],
            "projections": [{"record_id": world.page_a, "disclosure": "allowed", "summary": "beekeeping aunt"},
                            {"record_id": world.page_b, "disclosure": "allowed", "summary": "sailing brother"}],
            "suppressions": [{"id": "s-a", "target_id": world.page_a, "target_kind": "page", "reason": "x", "active": False}],
            "conflicts": [{"id": "k-a", "state": "contested", "page_id": world.page_a, "candidate_id": "c-x"}],
            "provider_cache": [{"request_hash": "h-a", "provider": "p", "response": f"FILE ... {FA} ..."},
                               {"request_hash": "h-b", "provider": "p", "response": f"FILE ... {FB} ..."}],
            "jobs": [{"id": "j-a", "kind": "dream", "session_id": world.a, "status": "done", "attempts": 1},
                     {"id": "j-b", "kind": "dream", "session_id": world.b, "status": "done", "attempts": 1}],
            "vectors": [{"doc_id": world.ra, "generation": "g1"}, {"doc_id": world.page_a, "generation": "g1"},
                        {"doc_id": world.page_b, "generation": "g1"}],
            "index_meta": [{"name": "dense", "vector_count": 3}],
        }
        with mem._wh.transaction():
            for table, items in rows.items():
                for item in items:
                    if table == "projections":  # every write already persists the pages' projections
                        mem._wh.upsert(table, item, key=("record_id",))
                    else:
                        mem._wh.insert_rows(table, [item])
            mem._wh.con.execute("UPDATE sessions SET parent_session = ? WHERE session_id = ?", [world.a, world.b])
        mem.set_sensitivity(world.page_mixed, "provisional_sensitive")  # keeps the earlier version
        mem.set_sensitivity(world.page_a, "provisional_sensitive")
        token = mem.purge(world.a)["confirmation"]
        mem.purge(world.a, dry_run=False, confirmation=token)

        def ids(table: str, col: str) -> list[str]:
            return sorted(r[0] for r in mem._wh.fetchall(f"SELECT {col} FROM {table} WHERE scope_key = ?", [key]))

        assert ids("observations", "id") == ["o-kept"]
        anchors, sessions = mem._wh.fetchone("SELECT anchors, session_ids FROM observations WHERE id = 'o-kept'")
        assert json.loads(anchors) == [world.rb, rb2] and json.loads(sessions) == [world.b]
        assert ids("activation", "record_id") == [world.page_b]
        assert ids("projections", "record_id") == [world.page_b]
        assert ids("suppressions", "id") == [] and ids("conflicts", "id") == []
        assert ids("provider_cache", "request_hash") == ["h-b"]
        assert ids("jobs", "id") == ["j-b"]
        assert ids("vectors", "doc_id") == [world.page_b]
        assert mem._wh.fetchone("SELECT degraded_reason FROM index_meta WHERE name = 'dense'") == ("purge-rebuild-required",)
        assert mem.sessions().filter(pl.col("session_id") == world.b).height == 1
        assert mem._wh.fetchone("SELECT parent_session FROM sessions WHERE session_id = ?", [world.b]) == (None,)
        versions = mem.page_versions(world.page_mixed)["text"].to_list()
        assert len(versions) == 1 and world.rb in versions[0] and world.a not in versions[0]
        assert mem.page_versions(world.page_a).height == 0


def test_injected_memory_blocks_are_not_the_session_s_content(world: World) -> None:
    with world.open() as mem:
        kept = mem.create_page("Boat yard", description="The boat yard opens on Sundays until noon.").id
        block = "<MEMORY_DATA>\nThe boat yard opens on Sundays until noon.\n</MEMORY_DATA>"
        injection = {"id": "r", "role": "user", "source": {"kind": "plugin"}, "content": [{"type": "text", "text": block}]}
        mem.capture({"session_id": world.a, "type": "user/message", "data": injection})
        report = mem.purge(world.a)
        assert kept not in report["impact"]["pages"]["removed"]
        mem.purge(world.a, dry_run=False, confirmation=report["confirmation"])
        assert mem.page(kept).status == "confirmed"


def test_a_page_corrected_away_from_the_session_survives(world: World) -> None:
    with world.open() as mem:
        mem.correct(world.page_a, "Ottoline keeps honeybees in Cornwall.")
        assert mem.page_versions(world.page_a).height == 1
        report = mem.purge(world.a)
        assert world.page_a not in report["impact"]["pages"]["removed"]
        mem.purge(world.a, dry_run=False, confirmation=report["confirmation"])
        assert mem.page(world.page_a).description == "Ottoline keeps honeybees in Cornwall."
        assert mem.page_versions(world.page_a).height == 0  # the version quoting the session is gone


def test_a_held_lease_refuses_a_second_purge(world: World) -> None:
    with world.open() as mem:
        token = mem.purge(world.a)["confirmation"]
        acquire_lease(mem.context, f"another-store:{os.getppid()}:1")  # a live process holds it
        before = _tables(mem)
        with pytest.raises(PurgeError, match="holds the lease"):
            mem.purge(world.a, dry_run=False, confirmation=token)
        assert _tables(mem) == before and _journal(mem) == []
        world.clock.advance(seconds=61)  # the other holder's 60 s lease has run out
        assert mem.purge(world.a, dry_run=False, confirmation=token)["verified"] is True


def test_other_sessions_naming_the_session_block_the_purge(world: World) -> None:
    with world.open() as mem:
        _say(mem, world.b, f"Please look at the notes of session {world.a} again.")
        report = mem.purge(world.a)
        assert report["blockers"] and "other sessions" in report["blockers"][0]
        before = _tables(mem)
        with pytest.raises(PurgeError, match="refused"):
            mem.purge(world.a, dry_run=False, confirmation=report["confirmation"])
        assert _tables(mem) == before


# -- failure, rollback and recovery ------------------------------------------------------------------
def test_fault_between_apply_and_verify_rolls_back(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    with world.open() as mem:
        tables, files = _tables(mem), _files(mem)
        token = mem.purge(world.a)["confirmation"]
        monkeypatch.setenv(FAULT_ENV, "after-apply")
        with pytest.raises(PurgeError, match="fault injected"):
            mem.purge(world.a, dry_run=False, confirmation=token)
        after = _tables(mem)
        failed_audits = [r for r in after.pop("audits") if "raw-session-purge-failed" in r]
        assert len(failed_audits) == 1
        assert {k: v for k, v in tables.items() if k != "audits"} == after
        assert set(tables["audits"]) <= set(_tables(mem)["audits"])
        assert _files(mem) == files
        (op, status, _, error), = _journal(mem)
        assert status == "failed" and "fault injected" in error and "QUOKKA" not in error
        # the journal stays open: the next open (here: an explicit call) completes it
        monkeypatch.delenv(FAULT_ENV)
        assert recover_interrupted(mem.context) == [op]
        assert _journal(mem)[0][1] == "completed" and mem.evidence(world.a).height == 0
    assert _bytes_hits(world.root, MARK) == []


def test_failed_verification_restores_everything(world: World) -> None:
    with world.open() as mem:
        # a copy purge does not know how to remove: verification must find it and refuse
        stray = mem.wiki_dir / "notes" / "scratch.txt"
        stray.parent.mkdir(parents=True)
        stray.write_text(f"pasted: {FA}\n")
        tables, files = _tables(mem), _files(mem)
        token = mem.purge(world.a)["confirmation"]
        with pytest.raises(PurgeError, match="verification found retained traces.*scratch.txt: content"):
            mem.purge(world.a, dry_run=False, confirmation=token)
        after = _tables(mem)
        after.pop("audits")
        assert {k: v for k, v in tables.items() if k != "audits"} == after and _files(mem) == files
        assert _journal(mem)[0][1] == "failed" and FA not in _journal(mem)[0][3]


_KILLED = textwrap.dedent("""
    import sys, riko
    root, sid, token = sys.argv[1:4]
    mem = riko.open(root, preset="companion", config={"purge_enabled": True})
    mem.purge(sid, dry_run=False, confirmation=token)
    sys.exit(0)
""")


def test_killed_purge_is_completed_on_the_next_open(world: World) -> None:
    with world.open() as mem:
        token = mem.purge(world.a)["confirmation"]
    env = {**os.environ, KILL_ENV: "after-apply"}
    proc = subprocess.run([sys.executable, "-c", _KILLED, str(world.root), world.a, token], env=env,
                          capture_output=True, timeout=120)
    assert proc.returncode == KILL_EXIT_CODE, proc.stderr.decode()
    warehouse = world.root / "warehouse" / world_storage(world)
    # the apply committed, but freed database blocks still hold the text until the rewrite
    assert any(h.startswith(f"warehouse/{world_storage(world)}/riko.duckdb") for h in _bytes_hits(world.root, MARK))
    journal_dirs = [p.name for p in (warehouse / "purge").iterdir()]
    assert len(journal_dirs) == 1 and (warehouse / "purge" / journal_dirs[0] / "needles.json").is_file()
    with world.open() as mem:  # opening the scope finishes the interrupted purge
        (op, status, _, _), = _journal(mem)
        assert op == journal_dirs[0] and status == "completed"
        assert mem.evidence(world.a).height == 0
        assert recover_interrupted(mem.context) == []
    assert not (warehouse / "purge").exists() or not any((warehouse / "purge").iterdir())
    assert _bytes_hits(world.root, MARK) == []


_KILLED_HOLDING_LEASE = textwrap.dedent("""
    import os, signal, sys, riko
    from riko.purge.journal import _owner, acquire_lease
    mem = riko.open(sys.argv[1], preset="companion", config={"purge_enabled": True})
    acquire_lease(mem.context, _owner(mem.context))
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_a_lease_whose_process_died_is_free_at_once(world: World) -> None:
    with world.open() as mem:
        token = mem.purge(world.a)["confirmation"]
    proc = subprocess.run([sys.executable, "-c", _KILLED_HOLDING_LEASE, str(world.root)], capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    with world.open() as mem:  # the clock has not moved: the 60 s lease has not run out
        row = mem._wh.fetchone("SELECT lease_owner FROM jobs WHERE scope_key = ? AND id = ?", [mem.scope.key, LEASE_ID])
        assert row is not None and row[0].split(":")[1].isdigit()
        assert mem.purge(world.a, dry_run=False, confirmation=token)["verified"] is True


# -- CLI --------------------------------------------------------------------------------------------
def test_cli_dry_run_then_execute(world: World, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from riko.cli import main as cli
    from riko.cli.purge import register

    monkeypatch.setenv("RIKO_PURGE_ENABLED", "1")
    parser = argparse.ArgumentParser(prog="riko")
    register(parser.add_subparsers(dest="command"))
    common = ["--root", str(world.root), "--preset", "companion"]
    args = parser.parse_args(["purge", world.a, *common, "--json"])
    assert cli.COMMANDS["purge"](args) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["dryRun"] is True
    args = parser.parse_args(["purge", world.a, *common])
    assert cli.COMMANDS["purge"](args) == 0
    assert f"--execute --confirmation {plan['confirmation']}" in capsys.readouterr().out
    with pytest.raises(PurgeError, match="--confirmation"):
        cli.COMMANDS["purge"](parser.parse_args(["purge", world.a, *common, "--execute"]))
    args = parser.parse_args(["purge", world.a, *common, "--execute", "--confirmation", plan["confirmation"]])
    assert cli.COMMANDS["purge"](args) == 0
    assert "purged and verified" in capsys.readouterr().out


# -- needles ----------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=0x2FFF), max_size=40))
def test_re2_escape_is_a_literal_for_python_and_duckdb(text: str) -> None:
    pattern = re2_escape(text)
    assert re.fullmatch(pattern, text)
    with duckdb.connect() as con:
        assert con.execute("SELECT regexp_full_match(?, ?)", [text, pattern]).fetchone() == (True,)


@given(st.text(max_size=300))
def test_fragments_are_long_pieces_of_the_text(text: str) -> None:
    collapsed = re.sub(r"\s+", " ", text)
    for fragment in fragments_of(text):
        assert len(fragment) >= MIN_FRAGMENT_CHARS
        assert fragment in text or fragment in collapsed


def test_session_id_matches_only_as_a_whole_identifier() -> None:
    needles = Needles("s1")
    assert needles.mentions("session:s1/event:4") and needles.mentions("s1") and needles.mentions("[\"s1\"]")
    assert not needles.mentions("s10") and not needles.mentions("xs1") and not needles.mentions("s1-b")


def test_a_typo_fix_keeps_the_evidence_and_purge_still_reaches_the_page(world: World) -> None:
    with world.open() as mem:
        sources = mem.page(world.page_a).sources
        typo = mem.page(world.page_a).description.replace("honeybees", "honeybeees")
        mem.correct(world.page_a, typo)
        mem.correct(world.page_a, typo.replace("honeybeees", "honeybees"))
        assert mem.page(world.page_a).sources == sources  # the claim never changed
        sid, seq = parse_ref(world.ra)
        assert not mem._wh.fetchone("SELECT correction_invalidated FROM evidence WHERE session_id = ? AND seq = ?",
                                    [sid, seq])[0]
        report = mem.purge(world.a)
        assert world.page_a in report["impact"]["pages"]["removed"]


def test_purge_follows_the_version_lineage_of_a_page_whose_sources_were_edited_away(world: World) -> None:
    with world.open() as mem:
        row = mem.pages().filter(mem.pages()["id"] == world.page_a)
        file = mem._canon.dir / row["path"][0]
        text = file.read_text(encoding="utf-8")
        kept = [line for line in text.splitlines(keepends=True) if world.a not in line]
        file.write_text("".join(kept).replace("sources:\n", "sources: []\n"), encoding="utf-8")
        assert world.page_a in mem.sync().edited and not mem.page(world.page_a).sources
        report = mem.purge(world.a)
        assert world.page_a in report["impact"]["pages"]["removed"]
        mem.purge(world.a, dry_run=False, confirmation=report["confirmation"])
        assert mem.page(world.page_a).status == "forgotten"
