"""What ``ingest``, ``dream`` and ``audits`` print for a person: counts that add up to the tables,
sentences instead of Python reprs, and audit cells wide enough to read."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_capture import run


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RIKO_PRESET", "RIKO_ROOT", "RIKO_OWNER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The samples ingested and dreamt once; the ingest and dream outputs as printed."""
    root = tmp_path_factory.mktemp("cli-reports")
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("RIKO_PRESET", raising=False)
        mp.setenv("COLUMNS", "120")
        assert run("init", "--root", str(root), "--preset", "companion")[0] == 0
        assert run("samples", str(root / "samples"))[0] == 0
        code, ingested, _ = run("ingest", str(root / "samples"), "--root", str(root))
        assert code == 0
        code, dreamt, _ = run("dream", "--root", str(root))
        assert code == 0
    return root, ingested, dreamt


def test_dream_summary_counts_what_the_candidates_table_shows(world: tuple[Path, str, str]) -> None:
    root, _, dreamt = world
    table = json.loads(run("candidates", "--all", "--root", str(root), "--json")[1])
    entities = [c for c in table if c["type"] == "entity"]
    assert entities, "the samples name people and places: entity candidates are rows of the table"
    found = re.search(r"candidates: (\d+) new in the table \((\d+) fact\(s\), (\d+) entit", dreamt)
    assert found, dreamt
    assert [int(g) for g in found.groups()] == [len(table), len(table) - len(entities), len(entities)]
    assert "merged as new evidence into existing ones" in dreamt
    assert "DreamReport(" not in dreamt


def test_dream_json_keeps_every_count(tmp_path: Path) -> None:
    assert run("init", "--root", str(tmp_path), "--preset", "companion")[0] == 0
    assert run("samples", str(tmp_path / "samples"))[0] == 0
    assert run("ingest", str(tmp_path / "samples"), "--root", str(tmp_path), "--json")[0] == 0
    code, out, _ = run("dream", "--root", str(tmp_path), "--json")
    data = json.loads(out)
    table = json.loads(run("candidates", "--all", "--root", str(tmp_path), "--json")[1])
    assert code == 0 and data["candidates"] == data["candidates_created"] == len(table)
    assert data["entity_candidates"] == sum(c["type"] == "entity" for c in table)
    assert sum(row["created"] for row in data["sessions_detail"]) == len(table)


def test_ingest_prints_a_sentence_and_json_keeps_the_report(world: tuple[Path, str, str], tmp_path: Path) -> None:
    _, ingested, _ = world
    assert "IngestReport(" not in ingested
    assert re.search(r"^read 5 log file\(s\): 90 new event\(s\) in 3 session\(s\); 0 duplicate\(s\)", ingested), ingested
    assert "2 log(s) left for other presets" in ingested
    left = [line for line in ingested.splitlines() if line.startswith("  left ")]
    assert len(left) == 2 and all(line.count("session.jsonl.zstd") == 1 for line in left), left
    assert run("init", "--root", str(tmp_path), "--preset", "companion")[0] == 0
    assert run("samples", str(tmp_path / "samples"))[0] == 0
    code, out, _ = run("ingest", str(tmp_path / "samples"), "--root", str(tmp_path), "--json")
    data = json.loads(out)
    assert code == 0 and (data["files"], data["events"], data["sessions"], len(data["refused"])) == (5, 90, 3, 2)
    code, again, _ = run("ingest", str(tmp_path / "samples"), "--root", str(tmp_path))
    assert code == 0 and again.startswith("read 5 log file(s) (3 unchanged since the last ingest, 0 resumed)")


def test_audits_table_keeps_kinds_authorities_and_details_readable(world: tuple[Path, str, str]) -> None:
    root, _, _ = world
    code, out, _ = run("audits", "--root", str(root))
    assert code == 0
    lines = out.splitlines()
    assert all(len(line) <= 120 for line in lines)
    header = lines[0].split()
    assert header == ["id", "recorded_at", "kind", "authority", "target", "detail"]
    body = "\n".join(lines[2:])
    # kinds and authorities whole, the detail's first keys readable: no cell cut to a stub
    assert "candidate-auto-confirmed" in body and "deterministic_rule" in body
    assert "mode=user_grounded" in body
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", body)
    cells = [c for line in lines[2:-1] for c in re.split(r"\s{2,}", line)]
    stubs = [c for c in cells if c.endswith("…") and len(c) <= 9]
    assert not stubs, stubs
    audits = json.loads(run("audits", "--root", str(root), "--json")[1])
    code, wide, _ = run("audits", "--root", str(root), "--wide")
    paths = [a["target"] for a in audits if a["kind"] == "evidence-ingested"]
    assert code == 0 and paths and all(p in wide for p in paths)


def test_audits_table_on_a_narrow_terminal_still_names_the_kind(world: tuple[Path, str, str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    root, _, _ = world
    monkeypatch.setenv("COLUMNS", "80")
    out = run("audits", "--root", str(root))[1]
    assert "candidate-auto-confirmed" in out and "evidence-ingested" in out
