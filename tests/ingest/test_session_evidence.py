"""Assistant prose and kept tool output as recall evidence: the kept/dropped table over a real
harness log, their labels, and the rules they share with user lines (never authority)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import zstandard

import riko
from riko.review.authority import claim_in_latest, latest_user_message, user_grounded_match
from riko.clock import FixedClock
from riko.ingest.keep import Keeper
from riko.recall.index_cache import cache_for

NOW = "2026-01-15T09:00:00Z"
BASE = {"embedding_provider": "off", "evidence_classification_enabled": True, "recall_enabled": True}
T0 = 1767225600000


def _frame(lines: list[dict]) -> bytes:
    return zstandard.ZstdCompressor(write_checksum=True).compress(
        "".join(json.dumps(line) + "\n" for line in lines).encode())


class _Log:
    """One harness session log: a header frame, then one frame per turn."""

    def __init__(self, sid: str) -> None:
        self.sid, self.seq, self.frames = sid, 0, [[{
            "type": "session", "version": 4, "id": sid, "createdAt": T0, "delegationDepth": 0,
            "cwd": "/home/u/project", "agentPreset": "companion"}]]
        self.seqs: dict[str, int] = {}

    def emit(self, etype: str, data: dict, name: str | None = None) -> None:
        if name is not None:
            self.seqs[name] = self.seq
        self.frames[-1].append({"seq": self.seq, "time": T0 + self.seq * 1000, "type": etype, "data": data})
        self.seq += 1

    def turn(self) -> None:
        self.frames.append([])

    def call(self, turn: int, call_id: str, name: str, args: dict, result: str, *, error: bool = False,
             label: str | None = None) -> None:
        arguments = json.dumps(args)
        self.emit("tool-call-chunks", {"turn": turn, "step": 0, "callId": call_id, "chunks": [arguments[:5]]})
        self.emit("tool/call", {"turn": turn, "step": 0, "callId": call_id, "name": name, "arguments": arguments},
                  f"{label}-call" if label else None)
        self.emit("tool/result", {"turn": turn, "step": 0, "message": {
            "source": {"kind": "tool", "callId": call_id},
            "content": [{"type": "tool-result", "toolCallId": call_id, "content": [{"type": "text", "text": result}],
                         "isError": error}]}}, f"{label}-result" if label else None)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(_frame(f) for f in self.frames if f))
        return path

    def ref(self, name: str) -> str:
        return f"session:{self.sid}/event:{self.seqs[name]}"


def every_kind_log(path: Path) -> _Log:
    """A log holding every event kind the seed's table names, each with a distinctive string."""
    log = _Log("s-every")
    log.turn()
    log.emit("request/header", {"provider": "deepseek", "model": "deepseek-chat"})
    log.emit("turn/start", {"turn": 1})
    log.emit("user/message", {"id": "m1", "role": "user", "source": {"kind": "user"},
                              "content": [{"type": "text", "text": "What is the weather in Taipei for the marathon?"}]},
             "user")
    log.emit("step/start", {"turn": 1, "step": 0})
    log.emit("user/message", {"id": "m2", "role": "user", "source": {"kind": "plugin"},
                              "content": [{"type": "text", "text": "Reminder zephyrinjection: recall memory first."}]},
             "plugin")
    log.emit("assistant/chunk", {"turn": 1, "step": 0, "delta": {"type": "text", "text": "quokkastream partial"}},
             "chunk")
    log.emit("text-chunks", {"turn": 1, "step": 0, "chunks": ["quokkastream packed"]})
    log.emit("reasoning-chunks", {"turn": 1, "step": 0, "chunks": ["quokkastream thinking"]})
    log.call(1, "c-weather", "weather", {"city": "Taipei"}, "Taipei light rain, 18 C, humidity 91 percent",
             label="weather")
    log.call(1, "c-shell", "bash", {"command": "grep -c gorgonzolacommand results.txt"},
             "bench finished: p95 latency 5.95 ms over 512 token prompts", label="shell")
    log.call(1, "c-code", "run_code", {"code": "print(sum(range(99)))  # platypuscode"}, "4851", label="code")
    log.call(1, "c-read", "read_file", {"path": "notes/diary.md"}, "Diary line with armadillofile contents inside.",
             label="read")
    log.call(1, "c-view", "str_replace_based_edit_tool", {"command": "view", "path": "src/app.py"},
             "def main(): pass  # pangolinview", label="view")
    log.call(1, "c-blob", "search_api", {"q": "tokens"}, '{"items": [{"id": 1, "title": "narwhalblob"}]}',
             label="blob")
    log.call(1, "c-error", "deploy", {"target": "staging"}, "Error: connection refused by ocelothost:5432",
             error=True, label="error")
    log.call(1, "c-write", "write_file", {"path": "docs/retry-policy.md",
                                          "content": "Retry policy: exponential backoff, capybarawrite jitter."},
             '{"ok": true}', label="write")
    log.call(1, "c-edit", "str_replace_based_edit_tool", {"command": "str_replace", "path": "config/limits.toml",
                                                          "old_str": "max = 10", "new_str": "max = 25 # wombatedit"},
             "The file config/limits.toml has been edited.", label="edit")
    log.emit("step/end", {"turn": 1, "step": 0})
    log.emit("assistant/message", {"turn": 1, "step": 1, "message": {
        "role": "assistant", "source": {"kind": "model", "provider": "deepseek", "model": "deepseek-chat"},
        "content": [{"type": "reasoning", "text": "I should mention the iguanareasoning forecast."},
                    {"type": "text", "text": "We concluded the marathon pacing plan is 5:10 per km, kestrelplan."}]},
        "usage": {"inputTokens": 10, "outputTokens": 5}}, "assistant")
    log.emit("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    log.write(path)
    return log


KEPT = {  # name in the log -> (query, role, tool)
    "user": ("weather Taipei marathon", "user", None),
    "weather-result": ("Taipei light rain humidity", "tool", "weather"),
    "shell-result": ("p95 latency 5.95 token prompts", "tool", "bash"),
    "code-result": ("4851", "tool", "run_code"),
    "error-result": ("connection refused ocelothost", "tool", "deploy"),
    "write-call": ("capybarawrite retry-policy", "tool", "write_file"),
    "edit-call": ("wombatedit limits", "tool", "str_replace_based_edit_tool"),
    "edit-result": ("limits.toml has been edited", "tool", "str_replace_based_edit_tool"),
    "assistant": ("kestrelplan pacing", "assistant", None),
}
DROPPED = {  # a string only the dropped event holds
    "plugin": "zephyrinjection", "chunk": "quokkastream", "shell-call": "gorgonzolacommand",
    "code-call": "platypuscode", "read-result": "armadillofile", "view-result": "pangolinview",
    "blob-result": "narwhalblob", "write-result": None, "assistant-reasoning": "iguanareasoning",
}


@pytest.fixture
def world(tmp_path: Path) -> Any:
    log = every_kind_log(tmp_path / "logs" / "--project--" / "s-every" / "session.jsonl.zstd")
    mem = riko.open(tmp_path / "root", preset="companion", clock=FixedClock(NOW),
                    config={**BASE, "purge_enabled": True})
    mem.ingest(tmp_path / "logs", progress=False)
    yield mem, log
    mem.close()


def test_kept_and_dropped_table_over_a_harness_log(world: Any) -> None:
    mem, log = world
    side = cache_for(mem.context).evidence
    cache_for(mem.context).refresh()
    indexed = {f"session:{sid}/event:{seq}": (side.line_role[i], side.line_tool[i])
               for i, (sid, seq) in enumerate(side.line_keys)}
    for name, (query, role, tool) in KEPT.items():
        ref = log.ref(name)
        assert indexed.get(ref) == (role, tool), name
        found = mem.retrieve(query, k=3)
        top = found.filter(pl.col("kind") == "evidence").row(0, named=True)
        assert (f"session:{top['session_id']}/event:{top['seq']}", top["role"]) == (ref, role), (name, found)
    kept_refs = {log.ref(name) for name in KEPT}
    assert set(indexed) == kept_refs  # nothing else of the log is recall material
    for name, needle in DROPPED.items():
        if needle is not None:
            assert mem.retrieve(needle, k=5).filter(pl.col("kind") == "evidence").height == 0, name
    # streaming fragments are not even stored; everything else is kept as L0 (only recall filters)
    stored = mem.evidence()
    assert not stored["type"].str.contains("chunk").any()
    assert stored.filter(pl.col("is_user")).height == 1


def test_a_file_write_keeps_its_path_and_content() -> None:
    keeper = Keeper()
    unit = keeper.unit("tool/call", False, "tool", json.dumps({"file_path": "a/b.py", "content": "x = 1"}),
                       name="Write", call_id="c1")
    assert unit is not None and unit.text == "a/b.py\nx = 1" and unit.label == "[tool: Write]"
    assert keeper.unit("tool/call", False, "tool", json.dumps({"command": "ls -la"}), name="shell", call_id="c2") is None
    assert keeper.unit("tool/result", False, None, "total 12", call_id="c2").label == "[tool: shell]"
    assert keeper.unit("tool/call", False, "tool", json.dumps({"path": "a.md"}), name="Read", call_id="c3") is None
    assert keeper.unit("tool/result", False, None, "file text", call_id="c3") is None


def test_labels_in_recall_and_never_the_users_words(world: Any) -> None:
    mem, log = world
    result = mem.recall("do you remember the weather in Taipei, the light rain?")
    assert "[supplement] [tool: weather] Taipei light rain" in result.context
    assert "[authoritative] [tool" not in result.context
    plan = mem.recall("do you remember what we concluded about the marathon pacing plan kestrelplan?")
    assert "[supplement] [assistant] We concluded the marathon pacing plan" in plan.context
    row = plan.results.filter(pl.col("id") == log.ref("assistant")).row(0, named=True)
    assert row["role"] == "assistant"
    # authority reads user lines only: the assistant's words are not the latest user message
    latest = latest_user_message(mem.warehouse, mem.scope, "s-every")
    assert latest is not None and latest.ref == log.ref("user")
    assert not claim_in_latest("the marathon pacing plan is 5:10 per km", latest)
    assert user_grounded_match(mem.warehouse, mem.scope,
                               "We concluded the marathon pacing plan is 5:10 per km, kestrelplan.") is None


def test_a_candidate_grounded_only_in_assistant_text_stays_pending(world: Any) -> None:
    mem, _ = world
    text = "We concluded the marathon pacing plan is 5:10 per km, kestrelplan."
    cand = mem.propose("Marathon pacing", type="concept", description=text)
    assert cand is not None
    assert mem.auto_confirm([cand], policy="user_grounded") == []
    assert mem.candidates().filter(pl.col("status") == "pending").height == 1
    assert mem.pages().height == 0


def test_sensitivity_classification_applies_to_assistant_and_tool_lines(tmp_path: Path) -> None:
    with riko.open(tmp_path, preset="companion", clock=FixedClock(NOW), config=BASE) as mem:
        mem.capture({"session_id": "s1", "type": "user/message",
                     "data": {"message": {"role": "user", "content": "How should I plan the week?"}}})
        mem.capture({"session_id": "s1", "type": "assistant/message", "data": {"message": {
            "role": "assistant", "content": "Since you were diagnosed with depression, plan gentle weekly walks."}}})
        mem.capture({"session_id": "s1", "type": "assistant/message", "data": {"message": {
            "role": "assistant", "content": "A gentle weekly plan: walks on Monday and reading on Friday."}}})
        rows = dict(mem.warehouse.fetchall("SELECT seq, sensitivity FROM evidence WHERE scope_key = ? ORDER BY seq",
                                           [mem.scope.key]))
        assert rows[1] == "sensitive" and rows[2] == "normal"
        result = mem.recall("do you remember the weekly plan with walks?", debug=True)
        decided = {r["id"]: r["decision"] for r in result.results.iter_rows(named=True)}
        assert decided["session:s1/event:2"] == "explicit"
        assert decided.get("session:s1/event:1") in ("silent_use", "suppress")
        assert "depression" not in result.context


def test_suppression_purge_and_resident_exclusion(world: Any) -> None:
    mem, log = world
    ref = log.ref("weather-result")
    query = "do you remember the weather in Taipei, the light rain?"
    assert "Taipei light rain" in mem.recall(query).context
    # the Resident is compiled from canonical pages only: no assistant or tool text
    mem.create_page("Marathon", "", type="concept", description="The user runs the Taipei marathon")
    resident = mem.resident()
    assert "light rain" not in resident.text and "kestrelplan" not in resident.text
    # a suppressed line is not recalled (the evidence suppression recall reads), audited
    with mem.warehouse.transaction():
        mem.warehouse.insert_rows("suppressions", [{"id": "s-ev", "target_id": ref, "target_kind": "evidence",
                                                    "reason": "test", "active": True, "created_at": None,
                                                    "restored_at": None, "restore_reason": None}])
        mem.warehouse.audit("evidence-suppressed", "management", ref, {})
    hidden = mem.recall(query, debug=True)
    assert "Taipei light rain" not in hidden.context
    assert hidden.results.filter(pl.col("id") == ref).row(0, named=True)["reason"] == "suppressed-by-user"
    # purge removes assistant and tool lines with the session
    token = mem.purge("s-every")["confirmation"]
    mem.purge("s-every", dry_run=False, confirmation=token)
    assert "Taipei light rain" not in mem.recall(query).context
    assert mem.retrieve("kestrelplan pacing", k=5).height == 0


def test_a_supplement_ranks_below_a_user_line_that_says_as_much(tmp_path: Path) -> None:
    """Assistant and tool lines are supplements: at equal match the user's own line leads."""
    with riko.open(tmp_path, preset="companion", clock=FixedClock(NOW), config=BASE) as mem:
        mem.capture({"session_id": "a", "type": "assistant/message", "data": {"message": {
            "role": "assistant", "content": "The ferry to Naxos leaves at seven fifteen."}}})
        mem.capture({"session_id": "b", "type": "user/message",
                     "data": {"message": {"role": "user", "content": "The ferry to Naxos leaves at seven fifteen."}}})
        frame = mem.retrieve("ferry Naxos seven fifteen", k=2, channels=["rawEvidence"])
        assert frame["role"].to_list() == ["user", "assistant"]
        from riko.recall.channels import raw_evidence
        from riko.language.text import tokenize

        cache = cache_for(mem.context)
        even = raw_evidence(cache, tokenize("ferry Naxos seven fifteen"), [], 2, supplement_weight=1.0)
        low = raw_evidence(cache, tokenize("ferry Naxos seven fifteen"), [], 2)
        assert even.scores["session:a/event:0"] == pytest.approx(even.scores["session:b/event:0"])
        assert low.scores["session:a/event:0"] == pytest.approx(0.7 * low.scores["session:b/event:0"])
