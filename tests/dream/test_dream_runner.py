"""The batch Dream runner: jobs, cursors, skips, auto-confirm, shards, concurrency, crash resume, CLI."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riko
from dream_stub import (
    CREDENTIAL_REF,
    SECRET,
    StubServer,
    assistant_event,
    dream_config,
    secret_hits,
    user_event,
)
from riko.cli.main import COMMANDS
from riko.cli.dream import register
from riko.dream.runner import job_id, parse_shard, shard_of
from riko.errors import ConfigError, NotFoundError, ReadOnlyError
from riko.evaluation.samples import generate_samples

ENGLISH = ["I prefer green tea in the morning.", "My sister Anna lives in Lisbon.", "Please never call me Bob."]
CHINESE = ["我喜欢喝乌龙茶。", "我住在上海。", "请不要提起我的前任。"]


@pytest.fixture
def mem(tmp_path):
    memory = riko.open(tmp_path / "root", preset="companion", config={"candidate_auto_confirm": "off"})
    yield memory
    memory.close()


@pytest.fixture
def stub():
    server = StubServer()
    yield server
    server.close()


def say(mem: riko.Memory, sid: str, *texts: str, reply: str = "I see.") -> None:
    for text in texts:
        mem.capture(user_event(sid, text))
        mem.capture(assistant_event(sid, reply))


def titles(mem: riko.Memory, status: str | None = "pending") -> set[str]:
    return set(mem.candidates(status)["title"].to_list())


# -- heuristic provider over captured sessions -------------------------------------------------------
def test_heuristic_english_and_chinese(mem):
    say(mem, "en", *ENGLISH, reply="Noted, I love that too!")
    say(mem, "zh", *CHINESE, reply="好的，我也喜欢。")
    mem.capture(user_event("en", "<MEMORY_DATA>I love cats.</MEMORY_DATA>", kind="plugin"))
    report = mem.dream(progress=False)
    assert (report.sessions, report.succeeded, report.failed) == (2, 2, 0)
    assert report.provider == "heuristic"
    got = titles(mem)
    # each title states the fact so that it reads alone: the subject named
    assert {"The user prefers green tea in the morning", "The user's sister Anna lives in Lisbon",
            "Please never call the user Bob"} <= got
    assert {"用户喜欢喝乌龙茶", "用户住在上海"} <= got
    assert not any("cat" in t.casefold() for t in got), "plugin-sourced messages are never Dream input"
    assert not any("love that too" in t for t in got), "assistant lines never become pages"
    assert mem.pages().height == 0
    by_session = {r["session_id"]: r for r in mem.dream_jobs().to_dicts()}
    for sid in ("en", "zh"):
        row = by_session[sid]
        assert row["id"] == hashlib.sha256(f"{mem.scope.key}:{sid}".encode()).hexdigest()[:24] == job_id(mem.scope.key, sid)
        assert row["status"] == "succeeded" and row["attempts"] == 1
        assert row["cursor"] == mem.sessions().filter(session_id=sid)["last_seq"][0]
    for cand in mem.candidates().to_dicts():
        refs = json.loads(cand["evidence"])
        assert refs and all(r.startswith("session:") for r in refs)


def test_sample_logs_end_to_end(tmp_path):
    generate_samples(tmp_path / "logs")
    with riko.open(tmp_path / "root", preset="companion") as mem:
        mem.ingest(tmp_path / "logs", progress=False)
        report = mem.dream(progress=False)
        assert report.succeeded == mem.sessions().height == 3 and report.failed == 0
        # default policy user_grounded: only candidates whose description is one user message verbatim
        pages = mem._review.canon.pages()
        facts = [p for p in pages if p.category != "entity"]
        assert report.auto_confirmed and len(facts) == len(report.auto_confirmed)
        audits = mem.audits("candidate-auto-confirmed")
        assert audits.height == len(report.auto_confirmed)
        grounded = {json.loads(d)["candidate"] for d in audits["detail"].to_list()}
        assert grounded <= set(mem.candidates("accepted")["id"].to_list())
        user_text = mem.evidence(user_only=True)["text"].to_list()
        for page in facts:  # each holds one of riko's atomic facts of a user line, in its words
            assert any(page.description in text for text in user_text), page.description
        # entity pages: admitted with the fact whose user words name them
        for page in pages:
            if page.category == "entity" and page.kind != "self":
                assert any(page.title in text for text in user_text) and page.sources
        assert mem.audits("dream-run").height == 1


def test_auto_confirm_policies(tmp_path):
    for policy in ("off", "user_grounded", "all"):
        with riko.open(tmp_path / policy, preset="companion", config={"candidate_auto_confirm": policy}) as mem:
            # a one-sentence message, and two facts of one message (the pronoun resolved by riko)
            say(mem, "s1", "I prefer green tea.", "My sister Anna lives in Lisbon. She is a painter who loves the sea.")
            report = mem.dream(progress=False)
            facts = sorted(p.description.rstrip(".") for p in mem._review.canon.pages() if p.category != "entity")
            assert len(report.auto_confirmed) == mem.audits("candidate-auto-confirmed").height
            if policy == "off":
                assert facts == [] and not report.auto_confirmed
            elif policy == "user_grounded":
                # only a whole user line is exactly what the user typed: the facts split out of the
                # second message (one with a pronoun riko resolved) wait for review
                assert facts == ["I prefer green tea"]
                pending = sorted(mem.candidates("pending")["description"].to_list())
                assert "Anna is a painter who loves the sea" in pending and "My sister Anna lives in Lisbon" in pending
            else:
                assert facts == ["Anna is a painter who loves the sea", "I prefer green tea",
                                 "My sister Anna lives in Lisbon"]
                tea = next(p for p in mem._review.canon.pages() if p.description.startswith("I prefer green tea"))
                # admitted from the user's words, a first-person fact links the user's own page
                assert ("[[User]]" in tea.body) is (policy == "user_grounded")


# -- jobs, cursors and skips ---------------------------------------------------------------------------
def test_cursor_moves_and_only_new_lines_are_read(mem, stub, monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    cfg = dream_config(stub)
    say(mem, "s1", "I prefer green tea.")
    first = mem.dream(provider=cfg["dream_provider"], url=cfg["dream_api_url"], model="m",
                      credential_ref=CREDENTIAL_REF, progress=False)
    assert first.succeeded == 1 and len(stub.requests) == 1
    cursor = mem.dream_jobs()["cursor"][0]
    # nothing new: not selected, and a named session is skipped without a call
    assert mem.dream(progress=False).sessions == 0
    named = mem.dream(sessions=["s1"], provider="openai-compatible", url=cfg["dream_api_url"], model="m",
                      credential_ref=CREDENTIAL_REF, progress=False)
    assert named.skipped == 1 and named.jobs["outcome"].to_list() == ["already-dreamed"] and len(stub.requests) == 1
    say(mem, "s1", "I live in Porto.")
    again = mem.dream(provider="openai-compatible", url=cfg["dream_api_url"], model="m",
                      credential_ref=CREDENTIAL_REF, progress=False)
    assert again.succeeded == 1 and len(stub.requests) == 2
    prompt = stub.requests[1]["body"]["messages"][0]["content"]
    assert "user: I live in Porto." in prompt and "green tea" not in prompt.split("<conversation>")[1]
    row = mem.dream_jobs().to_dicts()[0]
    assert row["cursor"] > cursor and row["attempts"] == 2
    assert secret_hits(mem) == []


def test_empty_transcripts_succeed_without_a_call(mem):
    mem.capture({"session_id": "tools", "type": "tool/call", "data": {"callId": "c1", "name": "ls", "arguments": "{}"}})
    mem.capture(user_event("plugin-only", "<MEMORY_DATA>I love cats.</MEMORY_DATA>", kind="plugin"))
    report = mem.dream(progress=False)
    assert report.succeeded == 2 and report.provider_calls == 0
    assert set(report.jobs["outcome"].to_list()) == {"empty"}
    assert all(r["status"] == "succeeded" and r["cursor"] is not None for r in mem.dream_jobs().to_dicts())
    assert mem.candidates(None).height == 0


def test_transcript_is_bounded_by_max_session_chars(tmp_path, stub, monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    with riko.open(tmp_path / "root", preset="companion", config=dream_config(stub, max_session_chars=1000)) as mem:
        for i in range(40):
            say(mem, "long", f"Line {i}: I went for a long walk along the river and counted {i} boats today.")
        assert mem.dream(progress=False).succeeded == 1
    conversation = stub.requests[0]["body"]["messages"][0]["content"].split("<conversation>\n")[1].split("\n</conversation>")[0]
    assert len(conversation) <= 1000
    assert "Line 39:" in conversation and "Line 0:" not in conversation


def test_unknown_session_bad_workers_and_read_only(mem, tmp_path):
    say(mem, "s1", "I prefer green tea.")
    with pytest.raises(NotFoundError):
        mem.dream(sessions=["nope"], progress=False)
    with pytest.raises(ConfigError):
        mem.dream(workers=0, progress=False)
    mem.close()
    with riko.open(tmp_path / "root", preset="companion", read_only=True) as ro, pytest.raises(ReadOnlyError):
        ro.dream(progress=False)


class ExplodingProvider:
    """A provider with a bug: its failure must fail one job, not the batch."""

    name = "exploding"
    model = "boom-1"

    def extract(self, transcript: Any, *, existing_titles: Any = ()) -> str:
        if "explode" in transcript.render(10_000):
            raise RuntimeError("provider bug")
        said = transcript.lines[0].text.rstrip(".")  # quotes the user, so riko finds its evidence
        return ('<<<FILE path="wiki/concepts/fine.md">>>\n---\ntype: concept\ntitle: '
                f"{said}\n---\n{said}\n<<<END>>>")

    def reflect(self, request: Any) -> str:
        return '{"observations": []}'

    def request_key(self, transcript: Any, existing_titles: Any = ()) -> str:
        return hashlib.sha256(transcript.render(10_000).encode()).hexdigest()


def test_a_provider_bug_fails_only_its_job(mem):
    say(mem, "good", "I prefer green tea.")
    say(mem, "bad", "please explode now")
    report = mem.dream(provider=ExplodingProvider(), workers=2, progress=False)
    assert (report.succeeded, report.failed) == (1, 1)
    row = mem.dream_jobs().filter(session_id="bad").to_dicts()[0]
    assert row["status"] == "failed" and row["last_error"].startswith("provider-error")
    assert titles(mem) == {"I prefer green tea"}


# -- concurrency ------------------------------------------------------------------------------------------
def test_workers_call_concurrently_and_a_running_session_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    stub = StubServer(latency=0.4)
    try:
        with riko.open(tmp_path / "root", preset="companion",
                       config=dream_config(stub, candidate_auto_confirm="off")) as mem:
            for i in range(6):
                say(mem, f"s{i}", f"I love hiking trail number {i}.")
            results: dict[str, Any] = {}
            first = threading.Thread(target=lambda: results.setdefault("a", mem.dream(workers=3, progress=False)))
            first.start()
            deadline = time.monotonic() + 30
            while not stub.requests and time.monotonic() < deadline:
                time.sleep(0.01)
            second = mem.dream(workers=3, progress=False)  # every session is in flight in the first run
            first.join(60)
            a = results["a"]
            assert a.succeeded == 6
            assert second.skipped == 6 and set(second.jobs["outcome"].to_list()) == {"already-running"}
            assert len(stub.extraction_requests()) == 6 and stub.max_active >= 2
            assert titles(mem) == {f"The user loves hiking trail number {i}" for i in range(6)}
    finally:
        stub.close()


# -- shards --------------------------------------------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=20), unique=True, max_size=40), st.integers(1, 8))
def test_shards_partition_any_session_set(ids, n):
    parts = [{s for s in ids if shard_of(s, n) == i} for i in range(n)]
    assert sum(len(p) for p in parts) == len(ids) and set().union(*parts) == set(ids)
    assert parse_shard(f"{n - 1}/{n}") == (n - 1, n)


@pytest.mark.parametrize("bad", ["3/3", "-1/2", "1", "a/b", "0/0"])
def test_bad_shards_are_refused(bad):
    with pytest.raises(ConfigError):
        parse_shard(bad)


def test_shards_cover_every_session_exactly_once(mem):
    sids = [f"sess-{i:02d}" for i in range(12)]
    for i, sid in enumerate(sids):
        say(mem, sid, f"I love hiking trail number {i}.")
    seen: list[str] = []
    for index in range(3):
        report = mem.dream(shard=f"{index}/3", progress=False)
        seen += report.jobs["session_id"].to_list()
        assert report.shard == (index, 3) and report.failed == 0
    assert sorted(seen) == sids
    assert set(mem.dream_jobs()["status"].to_list()) == {"succeeded"}
    assert len(titles(mem)) == 12


# -- crash and resume ------------------------------------------------------------------------------------------
CHILD = textwrap.dedent(
    """
    import json, sys
    import riko
    root, config = sys.argv[1], json.loads(sys.argv[2])
    with riko.open(root, preset="companion", config=config) as mem:
        mem.dream(workers=2, progress=False)
    """
)


def test_killed_run_resumes_without_duplicates(tmp_path, monkeypatch):
    monkeypatch.setenv(CREDENTIAL_REF, SECRET)
    stub = StubServer(latency=0.3)
    root = tmp_path / "root"
    config = dream_config(stub, candidate_auto_confirm="off")
    n = 20
    try:
        with riko.open(root, preset="companion", config=config) as mem:
            for i in range(n):
                say(mem, f"s{i:02d}", f"I love hiking trail number {i}.")
        env = {**os.environ, CREDENTIAL_REF: SECRET,
               "PYTHONPATH": os.pathsep.join([str(Path(riko.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(root), json.dumps(config)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while len(stub.extraction_requests()) < 6 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        assert child.returncode == -signal.SIGKILL
        killed_at = len(stub.extraction_requests())

        with riko.open(root, preset="companion", config=config) as mem:
            before = mem.dream_jobs()
            assert before.filter(status="succeeded").height < n, "the run was killed part-way"
            assert set(before["status"].to_list()) <= {"queued", "running", "succeeded"}
            report = mem.dream(workers=4, progress=False)
            assert report.failed == 0 and report.succeeded == n - before.filter(status="succeeded").height
            jobs = mem.dream_jobs()
            assert jobs.height == n and set(jobs["status"].to_list()) == {"succeeded"}
            cands = mem.candidates().to_dicts()
            assert sorted(c["title"] for c in cands) == sorted(f"The user loves hiking trail number {i}" for i in range(n))
            for cand in cands:
                assert len(json.loads(cand["source_sessions"])) == 1
            proposed = [json.loads(d)["title"] for d in mem.audits("candidate-proposed")["detail"].to_list()]
            assert len(proposed) == len(set(proposed)) == n, "each session's candidates were written exactly once"
            assert mem.audits("candidate-merged").height == 0
            assert secret_hits(mem) == []
        assert len(stub.extraction_requests()) <= killed_at + n
    finally:
        stub.close()


# -- CLI ----------------------------------------------------------------------------------------------------------
def cli(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="riko")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    return COMMANDS[args.command](args)


def test_cli_dream_and_observations(tmp_path, capsys):
    root = str(tmp_path / "root")
    with riko.open(root, preset="companion", config={"candidate_auto_confirm": "off"}) as mem:
        say(mem, "a", "I prefer green tea.", "I prefer green tea, honestly.")
        say(mem, "b", "I prefer green tea!")
    common = ["--root", root, "--preset", "companion", "--json"]
    assert cli("dream", *common, "--provider", "heuristic", "--workers", "2", "--shard", "0/1", "--reflect") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["succeeded"] == 2 and out["provider"] == "heuristic" and out["shard"] == "0/1"
    assert cli("dream-jobs", *common, "--status", "succeeded") == 0
    assert {r["session_id"] for r in json.loads(capsys.readouterr().out)} == {"a", "b"}
    assert cli("dream", *common, "--session", "a") == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 1
    assert cli("observations", *common) == 0
    observations = json.loads(capsys.readouterr().out)
    assert observations and all(o["epistemic_status"] == "inferred_observation" for o in observations)
    oid = observations[0]["id"]
    assert cli("observation", *common, "suppress", oid, "--reason", "not useful") == 0
    assert json.loads(capsys.readouterr().out)["status"] == "suppressed"
    assert cli("observation", *common, "restore", oid) == 0
    assert json.loads(capsys.readouterr().out)["status"] == observations[0]["status"]
    with pytest.raises(SystemExit):
        cli("dream", *common, "--shard", "5/2")
    assert cli("dream", "--root", root, "--preset", "companion", "--quiet", "--strict") == 0
    assert "Dream with heuristic" in capsys.readouterr().out


# -- batch proposals equal item-by-item review -----------------------------------------------------------------
def _page(title: str, description: str, *, type_: str = "concept", tags: tuple[str, ...] = (), body: str = "",
          confidence: float | None = 0.5, sensitivity: str = "normal") -> Any:
    from riko.dream.protocol import ProposedPage

    folder = {"concept": "concepts", "entity": "entities", "episode": "episodes"}.get(type_, "concepts")
    return ProposedPage(path=f"wiki/{folder}/x.md", folder=folder, type=type_, title=title, description=description,
                        body=body or description, tags=tags, confidence=confidence, kind=None, category=None,
                        sensitivity=sensitivity, links=())


def _seeded(root: Path, clock: Any) -> riko.Memory:
    mem = riko.open(root, preset="companion", clock=clock, config={"candidate_auto_confirm": "off"})
    say(mem, "s1", "I prefer green tea.", "My card number is 4111 1111 1111 1111.")
    say(mem, "s2", "I live in Porto.")
    mem.create_page("I live in Porto", "I live in Porto.")                   # a repeat is dropped
    mem.create_page("Favourite colour", "Blue.")                              # a differing claim conflicts
    mem._review.propose(title="Likes hiking", description="Hikes.", source="dream", session_id="s1",
                        authority="model_proposal", tags=["old"])            # a pending candidate to merge into
    return mem


def test_batch_proposals_store_what_item_by_item_review_stores(tmp_path, clock):
    from riko.dream.proposals import Proposal, propose_batch

    items = [
        Proposal(_page("I prefer green tea", "I prefer green tea.", tags=("preference",)), "s1",
                 ("session:s1/event:0",)),
        Proposal(_page("i prefer  GREEN tea", "Green tea fan.", tags=("drink",), confidence=0.9), "s2", ()),
        Proposal(_page("Likes hiking", "Hikes a lot.", tags=("new",), confidence=None), "s2", ("session:s2/event:0",)),
        Proposal(_page("I live in Porto", "I live in Porto.", type_="concept"), "s2", ()),
        Proposal(_page("Favourite colour", "Green, actually."), "s1", ()),
        Proposal(_page("Favourite colour", "Green."), "s2", ()),
        Proposal(_page("Card", "My card number is 4111 1111 1111 1111.", sensitivity="bogus"), "s1", ()),
        Proposal(_page("Trip", "A trip.", type_="episode"), "s1", ()),
        Proposal(_page("  ", "no title"), "s1", ()),
    ]
    stores = {}
    for mode in ("batch", "review"):
        mem = _seeded(tmp_path / mode, clock)
        audit_mark = mem.audits().height
        with mem._wh.transaction():
            if mode == "batch":
                outcomes = propose_batch(mem._review, items)
            else:
                outcomes = []
                for p in items:
                    try:
                        outcomes.append(mem._review.propose(
                            title=p.page.title, type=p.page.type, description=p.page.description, body=p.page.body,
                            tags=list(p.page.tags), confidence=p.page.confidence, kind=p.page.kind,
                            category=p.page.category, sensitivity=p.page.sensitivity, links=list(p.page.links),
                            source="dream", session_id=p.session_id, evidence=list(p.evidence),
                            authority="model_proposal"))
                    except ValueError as exc:
                        outcomes.append(exc)
        cands = mem.candidates(None).drop("created_at", "updated_at").sort("id").to_dicts()
        audits = sorted((a["kind"], a["authority"], a["target"], a["detail"])
                        for a in mem.audits().to_dicts()[audit_mark:])
        summary = [(o.candidate_id, o.action) if not isinstance(o, Exception) else type(o).__name__ for o in outcomes]
        stores[mode] = (cands, audits, summary, mem.conflicts().drop("created_at").to_dicts())
        mem.close()
    assert stores["batch"] == stores["review"]
    actions = [s if isinstance(s, str) else s[1] for s in stores["batch"][2]]
    assert actions == ["created", "merged", "merged", "dropped-duplicate", "conflict", "merged", "created",
                       "created", "InvalidArgumentError"]


def test_progress_bar_and_report_rendering(mem, capsys):
    # Whether a bar is drawn depends on stderr being a terminal (riko.progress, tested in a
    # real terminal in test_cli_output.py); here the run with progress on must still report.
    say(mem, "s1", "I prefer green tea.")
    say(mem, "s2", "我住在上海。")
    report = mem.dream(progress=True)
    capsys.readouterr()
    markdown = report._repr_markdown_()
    assert "| sessions | succeeded |" in markdown and "| 2 | 2 | 0 |" in markdown
    data = json.loads(json.dumps(report.to_dict(), default=str))
    # two facts and the entity candidate of the city one names: the three rows the table gained
    assert data["candidates"] == report.candidates == mem.candidates(None).height == 3
    assert data["entity_candidates"] == 1
    assert {row["session_id"] for row in data["sessions_detail"]} == {"s1", "s2"}
    assert report.jobs.columns[:4] == ["session_id", "job_id", "status", "outcome"]
    assert "DreamReport(provider='heuristic'" in repr(report)
    empty = mem.dream(progress=False)
    assert empty.jobs.height == 0 and empty.sessions == 0
