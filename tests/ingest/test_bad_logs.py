"""One malformed log line never blocks its file or its folder: it becomes an issue row (file, line, what)."""

from __future__ import annotations

import json

import pytest

import riko
from riko.cli.main import main

BAD_CHAT_LINES = [
    ('{"role": {"x": 1}, "content": "a"}', "role"),
    ('{"role": ["user"], "content": "a"}', "role"),
    ('{"role": "user", "content": "a", "time": "\\u00b2"}', "time"),
    ('{"role": "user", "content": "a", "time": 1e300}', "time"),
    ('{"role": "user", "content": "a", "time": 99999999999999999999}', "time"),
    ('{"role": "user", "content": "a", "time": "99999999999999999999"}', "time"),
]
BAD_L0_LINES = [
    '{"schemaVersion":1,"sessionId":"b","seq":99999999999999999999,"time":1767000000000,"type":"user/message","data":{}}',
    '{"schemaVersion":1,"sessionId":"b","seq":5,"time":"\\u00b2","type":"user/message","data":{}}',
    '{"schemaVersion":1,"sessionId":"b","seq":6,"time":1e300,"type":"user/message","data":{}}',
    '{"schemaVersion":1,"sessionId":"b","seq":7,"time":-99999999999999999,"type":"user/message","data":{}}',
]


def chat(sid: str) -> str:
    return "".join(json.dumps({"role": r, "content": f"{sid} {r} line", "session_id": sid}) + "\n"
                   for r in ("user", "assistant"))


def l0(sid: str, start: int = 0) -> list[str]:
    return [json.dumps({"schemaVersion": 1, "sessionId": sid, "seq": start + i, "time": 1767000000000 + i,
                        "type": "user/message", "data": {"message": {"role": "user", "source": {"kind": "user"},
                                                                      "content": [{"type": "text", "text": f"{sid} {i}"}]}}},
                       separators=(",", ":")) for i in range(2)]


@pytest.mark.parametrize(("bad", "what"), BAD_CHAT_LINES)
def test_a_bad_chat_line_is_an_issue_and_the_folder_arrives(tmp_path, bad, what):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text(chat("a"))
    (logs / "b.jsonl").write_text(chat("b").replace("\n", "\n" + bad + "\n", 1))
    (logs / "c.jsonl").write_text(chat("c"))
    with riko.open(tmp_path / "root", preset="companion") as mem:
        report = mem.ingest(logs, progress=False, preset="companion")
        assert sorted(mem.sessions()["session_id"]) == ["a", "b", "c"]
        assert mem.evidence("b").height >= 2  # the lines before and after the bad one
        rows = report.issues.to_dicts()
        assert len(rows) == 1 and rows[0]["path"].endswith("b.jsonl") and rows[0]["line"] == 2
        assert what in rows[0]["message"]


@pytest.mark.parametrize("bad", BAD_L0_LINES)
def test_a_bad_l0_line_is_an_issue_and_the_rest_of_the_file_is_kept(tmp_path, bad):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_text("\n".join(l0("a")) + "\n")
    (logs / "b.jsonl").write_text("\n".join([*l0("b"), bad, *l0("b", 10)]) + "\n")
    (logs / "c.jsonl").write_text("\n".join(l0("c")) + "\n")
    with riko.open(tmp_path / "root", preset="companion") as mem:
        report = mem.ingest(logs, progress=False, preset="companion")
        assert sorted(mem.sessions()["session_id"]) == ["a", "b", "c"]
        assert sorted(mem.evidence("b")["seq"]) == [0, 1, 10, 11]
        rows = report.issues.to_dicts()
        assert [(r["line"], r["kind"]) for r in rows] == [(3, "invalid-event")]
        assert rows[0]["path"].endswith("b.jsonl")


def test_strict_ingest_fails_when_a_log_of_the_folder_was_refused(tmp_path, capsys):
    logs = tmp_path / "logs"
    logs.mkdir()
    header = {"type": "session", "version": 4, "id": "x", "createdAt": 1767000000000, "agentPreset": "other"}
    (logs / "x.jsonl").write_text(json.dumps(header) + "\n")
    (logs / "a.jsonl").write_text("\n".join(l0("a")) + "\n")
    code = main(["ingest", str(logs), "--root", str(tmp_path / "root"), "--preset", "companion", "--strict", "--quiet"])
    out, _ = capsys.readouterr()
    assert "left for other presets" in out and code == 1


def test_a_store_error_inside_a_file_transaction_names_its_real_cause(tmp_path):
    import duckdb
    import pyarrow as pa

    with riko.open(tmp_path / "root", preset="companion") as mem:
        wh = mem.warehouse
        bad = pa.table({"scope_key": ["local:companion"], "schema_version": [1], "session_id": ["s"],
                        "seq": ["not a number"]})
        with pytest.raises(duckdb.Error) as info, wh.transaction():
            wh.insert_arrow("evidence", bad)
        assert "aborted" not in str(info.value) and "not a number" in str(info.value)
        assert mem.evidence().height == 0
        mem.capture({"session_id": "s", "type": "user/message",
                     "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": "ok"}]}})
        assert mem.evidence().height == 1  # the warehouse is usable after the rollback
