"""L0 ingest into the warehouse: formats, idempotence, scope, preset, crash safety."""

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest
import zstandard

import riko
from riko.errors import IngestError, PresetMismatchError, ScopeError
from riko.evaluation.samples import SAMPLE_INJECTIONS, generate_samples, generate_synthetic_log


def _frame(lines):
    return zstandard.ZstdCompressor(write_checksum=True).compress(("".join(json.dumps(line) + "\n" for line in lines)).encode())


def _header(sid, preset="companion"):
    return {"type": "session", "version": 4, "id": sid, "createdAt": 1767225600000, "delegationDepth": 0,
            "cwd": "/home/u/p", "agentPreset": preset}


def _user(seq, text, kind="user"):
    return {"seq": seq, "time": 1767225600000 + seq * 1000, "type": "user/message",
            "data": {"id": f"m{seq}", "role": "user", "source": {"kind": kind}, "content": [{"type": "text", "text": text}]}}


def _write_log(path: Path, sid: str, batches, preset="companion"):
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _frame([_header(sid, preset)]) + b"".join(_frame(b) for b in batches)
    path.write_bytes(data)
    return path


@pytest.fixture
def samples(tmp_path):
    generate_samples(tmp_path / "samples")
    return tmp_path / "samples"


def test_samples_ingest_and_plugin_messages_are_not_user_evidence(tmp_path, samples, clock):
    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        report = mem.ingest(samples, progress=False)
        assert report.sessions == 3 and report.events > 0
        assert len(report.refused) == 2  # the "work" preset's logs are left for their own scope
        ev = mem.evidence()
        users = ev.filter(pl.col("is_user"))
        assert users.height > 0
        plugin = ev.filter(pl.col("source_kind") == "plugin")
        assert plugin.height > 0
        assert not plugin["is_user"].any()
        for injected in SAMPLE_INJECTIONS:
            assert injected[:40] not in " ".join(users["text"].to_list())
        assert not ev["type"].str.ends_with("chunk").any()


def test_reingest_adds_nothing_and_grown_log_adds_only_new(tmp_path, clock):
    log = _write_log(tmp_path / "logs" / "--p--" / "s1" / "session.jsonl.zstd", "s1",
                     [[_user(0, "I like tea"), _user(1, "and cake")]])
    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        first = mem.ingest(log, progress=False)
        assert first.events == 2
        again = mem.ingest(log, progress=False)
        assert again.events == 0 and again.files_unchanged == 1
        with open(log, "ab") as f:  # the writer flushed one more frame
            f.write(_frame([_user(2, "I live in Oslo")]))
        grown = mem.ingest(log, progress=False)
        assert grown.events == 1 and grown.files_resumed == 1
        assert grown.issue_rows == []
        assert mem.evidence("s1")["seq"].to_list() == [0, 1, 2]
        assert mem.sessions().row(0, named=True)["last_seq"] == 2


def test_rewritten_log_is_deduplicated_by_watermark(tmp_path, clock):
    log = _write_log(tmp_path / "s1" / "session.jsonl.zstd", "s1", [[_user(0, "a"), _user(1, "b")]])
    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        mem.ingest(log, progress=False)
        _write_log(log, "s1", [[_user(0, "a"), _user(1, "b"), _user(2, "c")]])  # recompressed, one more
        rep = mem.ingest(log, progress=False)
        assert rep.events == 1 and rep.duplicates == 2
        assert mem.evidence("s1").height == 3


def test_preset_mismatch_refused_with_nothing_written(tmp_path, clock):
    log = _write_log(tmp_path / "w" / "session.jsonl.zstd", "w1", [[_user(0, "work fact")]], preset="work")
    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        with pytest.raises(PresetMismatchError, match="preset 'work'") as info:
            mem.ingest(log, progress=False)
        assert str(log) in str(info.value)
        assert mem.evidence().height == 0 and mem.sessions().height == 0
        with pytest.raises(ScopeError):
            mem.ingest(log, preset="work", progress=False)
        rep = mem.ingest(log, preset="companion", progress=False)  # explicit assignment
        assert rep.events == 1


def test_scopes_never_see_each_others_rows(tmp_path, samples, clock):
    root = tmp_path / "root"
    with riko.open(root, preset="companion", clock=clock) as a:
        a.ingest(samples, progress=False)
    with riko.open(root, preset="work", clock=clock) as b:
        b.ingest(samples, progress=False)
        work_sessions = set(b.sessions()["session_id"])
        assert work_sessions
    with riko.open(root, preset="companion", clock=clock) as a:
        comp_sessions = set(a.sessions()["session_id"])
        assert comp_sessions and not (comp_sessions & work_sessions)
        assert set(a.evidence()["session_id"]) == comp_sessions
        keys = a.warehouse.fetchall("SELECT DISTINCT scope_key FROM evidence")
        assert keys == [("local:companion",)]
    with riko.open(root, owner="other", preset="companion", clock=clock) as c:
        assert c.sessions().height == 0


def test_malformed_lines_and_torn_tail_reported_rest_kept(tmp_path, clock):
    path = tmp_path / "s2" / "session.jsonl.zstd"
    path.parent.mkdir(parents=True)
    good = _frame([_header("s2")]) + _frame([_user(0, "first")])
    bad = zstandard.ZstdCompressor(write_checksum=True).compress(b'{"seq": 1, "time": 1, "type": oops}\n' + (json.dumps(_user(1, "second")) + "\n").encode())
    last = _frame([_user(2, "third"), _user(3, "fourth")])
    path.write_bytes(good + bad + last[: len(last) - 7])  # torn last frame
    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        rep = mem.ingest(path, progress=False)
        kinds = rep.issues["kind"].to_list()
        assert "malformed-json" in kinds and "torn-frame" in kinds
        malformed = rep.issues.filter(pl.col("kind") == "malformed-json").row(0, named=True)
        assert malformed["line"] == 3 and malformed["path"] == str(path)
        assert mem.evidence("s2")["text"].to_list() == ["first", "second"]


def test_chat_transcript_needs_explicit_preset(tmp_path, clock):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "I am a nurse"}, {"role": "assistant", "content": "Nice"}]))
    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        with pytest.raises(PresetMismatchError, match="no agentPreset"):
            mem.ingest(chat, progress=False)
        rep = mem.ingest(chat, preset="companion", progress=False)
        assert rep.events == 2
        ev = mem.evidence("chat")
        assert ev.filter(pl.col("is_user"))["text"].to_list() == ["I am a nurse"]


def test_missing_path_is_a_clear_error(tmp_path, clock):
    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        with pytest.raises(IngestError, match="no such file"):
            mem.ingest(tmp_path / "nope", progress=False)


def test_capture_is_durable_and_ordered(tmp_path, clock):
    root = tmp_path / "root"
    with riko.open(root, preset="companion", clock=clock) as mem:
        r0 = mem.capture({"session_id": "live1", "type": "user/message",
                          "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": "I love jazz"}]}})
        r1 = mem.capture({"session_id": "live1", "type": "assistant/chunk", "data": {"delta": "x"}})
        r2 = mem.capture({"session_id": "live1", "type": "user/message",
                          "data": {"role": "user", "source": {"kind": "plugin"}, "content": [{"type": "text", "text": "<MEMORY_DATA>"}]}})
        assert (r0.seq, r0.stored, r0.is_user) == (0, True, True)
        assert r1.stored is False
        assert r2.stored and not r2.is_user
        assert str(r0) == "session:live1/event:0"
        dup = mem.capture({"session_id": "live1", "seq": 0, "type": "user/message", "data": {}})
        assert dup.stored is False
        with pytest.raises(ScopeError):
            mem.capture({"session_id": "x", "preset": "work", "type": "user/message", "data": {}})
        with pytest.raises(IngestError, match="type"):
            mem.capture({"session_id": "x", "data": {}})
    # a fresh process sees it: durable before return
    out = subprocess.run([sys.executable, "-c", f"import riko; m = riko.open({str(root)!r}, preset='companion', read_only=True); print(m.evidence('live1').height)"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "2"


def test_oversized_text_truncated_and_reported(tmp_path, clock):
    log = _write_log(tmp_path / "s3" / "session.jsonl.zstd", "s3", [[_user(0, "x" * 5000)]])
    with riko.open(tmp_path / "root", preset="companion", clock=clock, config={"max_event_chars": 1000}) as mem:
        rep = mem.ingest(log, progress=False)
        assert rep.truncated == 1
        row = mem.evidence("s3").row(0, named=True)
        assert row["truncated"] and "truncated 4000 chars" in row["text"] and len(row["text"]) < 1100


def test_export_parquet_and_l0_roundtrip(tmp_path, samples, clock):
    import duckdb

    with riko.open(tmp_path / "root", preset="companion", clock=clock) as mem:
        mem.ingest(samples, progress=False)
        n = mem.evidence().height
        out = mem.export_evidence(tmp_path / "pq")
        got = duckdb.sql(f"SELECT count(*), count(DISTINCT session_id) FROM read_parquet('{out}/*/*.parquet', hive_partitioning=true)").fetchall()[0]
        assert got == (n, 3)
        l0 = mem.export_evidence(tmp_path / "l0", format="jsonl")
        before = mem.evidence().select("session_id", "seq", "type", "text", "is_user", "content_hash")
    with riko.open(tmp_path / "root2", preset="companion", clock=clock) as other:
        rep = other.ingest(l0, preset="companion", progress=False)
        assert rep.events == n and rep.issue_rows == []
        after = other.evidence().select("session_id", "seq", "type", "text", "is_user", "content_hash")
        assert after.equals(before)


def test_killed_ingest_then_rerun_leaves_one_copy(tmp_path):
    logs = tmp_path / "big"
    for i in range(3):
        generate_synthetic_log(logs / f"s{i}" / "session.jsonl.zstd", events=60_000, session_id=f"big{i}", preset="companion", seed=i)
    root = tmp_path / "root"
    code = textwrap.dedent(f"""
        import riko
        with riko.open({str(root)!r}, preset="companion") as mem:
            mem.ingest({str(logs)!r}, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code])
    db = root / "warehouse" / "local--companion" / "riko.duckdb.wal"
    deadline = time.time() + 60
    while time.time() < deadline and not (db.exists() and db.stat().st_size > 0):
        time.sleep(0.01)
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL  # it really died mid-run
    with riko.open(root, preset="companion") as mem:
        mem.ingest(logs, progress=False)
        dupes = mem.warehouse.fetchall(
            "SELECT session_id, seq, count(*) c FROM evidence WHERE scope_key = ? GROUP BY 1, 2 HAVING c > 1", [mem.scope.key])
        assert dupes == []
        stored = mem.warehouse.fetchall("SELECT session_id, count(*), max(seq) FROM evidence GROUP BY 1 ORDER BY 1")
    fresh = tmp_path / "fresh"
    with riko.open(fresh, preset="companion") as ref:
        ref.ingest(logs, progress=False)
        expected = ref.warehouse.fetchall("SELECT session_id, count(*), max(seq) FROM evidence GROUP BY 1 ORDER BY 1")
    assert stored == expected and len(expected) == 3


def test_parallel_parse_stores_exactly_what_serial_does(tmp_path, monkeypatch):
    from riko.ingest import pipeline

    monkeypatch.setattr(pipeline, "PARALLEL_MIN_BYTES", 0)
    logs = tmp_path / "logs"
    for i in range(3):
        generate_synthetic_log(logs / f"s{i}" / "session.jsonl.zstd", events=4000, session_id=f"p{i}", preset="companion", seed=i)
    # a second file that continues session p0 (a rotated log): must not duplicate or drop events
    path = logs / "zz-rotated" / "session.jsonl.zstd"
    path.parent.mkdir(parents=True)
    path.write_bytes(_frame([_header("p0")]) + _frame([_user(s, f"late {s}") for s in range(3990, 4010)]))
    cols = "session_id, seq, type, text, is_user, content_hash"
    results = []
    for workers in (1, 2):
        with riko.open(tmp_path / f"root{workers}", preset="companion") as mem:
            rep = mem.ingest(logs, progress=False, workers=workers)
            assert rep.workers == workers
            rows = mem.warehouse.fetchall(f"SELECT {cols} FROM evidence ORDER BY session_id, seq")
            sessions = mem.sessions().sort("session_id").select("session_id", "event_count", "last_seq").rows()
        results.append((rep.events, rep.duplicates, rows, sessions))
    assert results[0] == results[1]
    events, duplicates, rows, sessions = results[0]
    assert duplicates > 0 and len({(r[0], r[1]) for r in rows}) == len(rows)
    assert [s for s in sessions if s[0] == "p0"][0][2] == 4009
