"""The command line: thin commands over riko.Memory, JSON output, clear errors, help everywhere."""

import json


from riko.cli.main import build_parser, main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_command_has_help_text():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert set(helps) == set(sub.choices)
    for name, text in helps.items():
        assert text and text.strip(), f"command {name} has no help text"


def test_ingest_sessions_evidence_audits_json(tmp_path, capsys):
    root = str(tmp_path / "root")
    code, out, _ = run(capsys, "samples", str(tmp_path / "logs"), "--json")
    assert code == 0 and len(json.loads(out)) == 5
    code, out, _ = run(capsys, "ingest", str(tmp_path / "logs"), "--root", root, "--preset", "companion", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["sessions"] == 3 and report["events"] > 0 and len(report["refused"]) == 2
    code, out, _ = run(capsys, "sessions", "--root", root, "--preset", "companion", "--json")
    sessions = json.loads(out)
    assert len(sessions) == 3
    sid = sessions[0]["session_id"]
    code, out, _ = run(capsys, "evidence", sid, "--user-only", "--root", root, "--preset", "companion", "--json")
    rows = json.loads(out)
    assert rows and all(r["is_user"] for r in rows) and {r["session_id"] for r in rows} == {sid}
    code, out, _ = run(capsys, "audits", "--root", root, "--preset", "companion", "--json")
    assert any(a["kind"] == "evidence-ingested" for a in json.loads(out))
    code, out, _ = run(capsys, "export", "evidence", "--out", str(tmp_path / "pq"), "--root", root, "--preset", "companion")
    assert code == 0 and "exported evidence" in out
    assert list((tmp_path / "pq" / "local--companion").glob("session_id=*/*.parquet"))


def test_missing_preset_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RIKO_PRESET", raising=False)
    code, _, err = run(capsys, "sessions", "--root", str(tmp_path))
    assert code == 2 and "preset" in err and err.startswith("riko: error:")


def test_preset_mismatch_reported_with_path(tmp_path, capsys):
    from riko.evaluation.samples import generate_samples

    paths = generate_samples(tmp_path / "logs")
    code, _, err = run(capsys, "ingest", str(paths[-1]), "--root", str(tmp_path / "r"), "--preset", "nobody")
    assert code == 2 and str(paths[-1]) in err and "preset" in err


def test_read_commands_do_not_create_a_scope(tmp_path, capsys):
    code, _, err = run(capsys, "sessions", "--root", str(tmp_path), "--preset", "never")
    assert code == 2 and "riko init --preset never" in err
    assert not (tmp_path / "warehouse" / "local--never").exists()
