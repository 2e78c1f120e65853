"""The review and Wiki commands of the ``riko`` command line, run through ``riko.cli.main``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import riko
import riko.cli.main as cli_main
from riko.cli.wiki import register


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """Run ``riko <argv> --root <tmp> --preset companion``; returns (exit code, stdout, stderr)."""
    if "riko.cli.wiki" not in cli_main.EXTENSION_MODULES:
        monkeypatch.setattr(cli_main, "EXTENSION_MODULES", (*cli_main.EXTENSION_MODULES, "riko.cli.wiki"))
    for name in ("RIKO_ROOT", "RIKO_PRESET", "RIKO_OWNER"):
        monkeypatch.delenv(name, raising=False)

    def run(*argv: str, json_out: bool = True) -> tuple[int, object, str]:
        args = [*argv, "--root", str(tmp_path), "--preset", "companion", *(["--json"] if json_out else [])]
        code = cli_main.main(args)
        out, err = capsys.readouterr()
        return code, (json.loads(out) if json_out and out.strip() else out), err

    run.root = tmp_path  # type: ignore[attr-defined]
    assert cli_main.main(["init", "--root", str(tmp_path), "--preset", "companion"]) == 0  # only init/ingest create
    capsys.readouterr()
    return run


def wiki_dir(root: Path) -> Path:
    return root / "wiki" / "local" / "companion"


def test_review_flow_end_to_end(cli):
    code, out, _ = cli("propose", "Green tea", "--description", "I like green tea", "--type", "concept")
    assert code == 0
    cid = out["candidate_id"]
    code, cands, _ = cli("candidates")
    assert [c["id"] for c in cands] == [cid] and cands[0]["status"] == "pending"

    code, page, _ = cli("confirm", cid)
    assert code == 0 and page["status"] == "confirmed" and page["version"] == 1
    pid = page["id"]
    assert (wiki_dir(cli.root) / "concepts" / "green-tea.md").exists()
    code, cands, _ = cli("candidates", "--all")
    assert cands[0]["status"] == "accepted"
    code, cands, _ = cli("candidates", "--status", "accepted")
    assert [c["page_id"] for c in cands] == [pid]

    code, pages, _ = cli("pages")
    assert [p["id"] for p in pages] == [pid]
    code, shown, _ = cli("page", pid)
    assert shown["description"] == "I like green tea"
    code, text, _ = cli("page", pid, json_out=False)
    assert text.startswith(f"---\nid: {pid}\n")

    code, corrected, _ = cli("correct", pid, "I like genmaicha")
    assert corrected["version"] == 2 and corrected["description"] == "I like genmaicha"
    code, versions, _ = cli("page", pid, "--versions")
    assert [v["version"] for v in versions] == [1] and "I like green tea" in versions[0]["text"]

    code, resident, _ = cli("resident")
    assert "I like genmaicha" in resident["text"] and resident["source_page_ids"] == [pid]

    code, marked, _ = cli("sensitivity", pid, "sensitive")
    assert marked["sensitivity"] == "sensitive"
    assert "genmaicha" not in cli("resident")[1]["text"]
    cli("sensitivity", pid, "normal")

    code, suppressed, _ = cli("suppress", pid)
    assert suppressed["usage_policy"] == "suppressed"
    code, restored, _ = cli("restore", pid)
    assert restored["usage_policy"] == "normal"
    code, _, err = cli("restore", pid)
    assert code == 2 and "not suppressed" in err

    code, new, _ = cli("replace", pid, "I drink only water now", "--valid-from", "2026-01-01T00:00:00Z")
    assert new["supersedes"] == pid and new["valid_from"] == "2026-01-01T00:00:00Z"

    code, superseded, _ = cli("supersede", new["id"], "--by", pid)
    assert superseded["status"] == "superseded"

    code, forgotten, _ = cli("forget", pid)
    assert forgotten == {"id": pid, "forgotten": True, "raw_session_retained": True, "aliases_invalidated": 0}
    code, pages, _ = cli("pages")
    assert pid not in [p["id"] for p in pages]

    with riko.open(cli.root, preset="companion") as mem:
        kinds = mem.audits()["kind"].to_list()
        authorities = set(mem.audits().filter(mem.audits()["kind"].str.starts_with("page-"))["authority"].to_list())
    for kind in ("candidate-proposed", "candidate-confirmed", "page-corrected", "memory-sensitivity-changed",
                 "page-suppressed", "page-restored", "page-temporally-closed", "page-replaced",
                 "page-superseded", "page-forgotten"):
        assert kind in kinds
    assert authorities == {"management"}


def test_reject_conflicts_and_resolve(cli):
    cid = cli("propose", "Tea", "--description", "I like tea")[1]["candidate_id"]
    pid = cli("confirm", cid)[1]["id"]
    other = cli("propose", "Coffee", "--description", "I like coffee")[1]["candidate_id"]
    assert cli("reject", other)[1] == {"rejected": other}
    assert cli("propose", "tea", "--description", "I like tea.")[1] == {"candidate_id": None}

    contra = cli("propose", "Tea", "--description", "I hate tea")[1]["candidate_id"]
    code, conflicts, _ = cli("conflicts")
    assert conflicts[0]["candidate_id"] == contra and conflicts[0]["state"] == "contested"
    assert cli("conflicts", "--state", "resolved")[1] == []
    code, _, err = cli("confirm", contra)
    assert code == 2 and "resolve" in err
    code, page, _ = cli("resolve", conflicts[0]["id"], "correction")
    assert code == 0 and page["id"] == pid and page["description"] == "I hate tea"
    assert cli("conflicts")[1][0]["resolution"] == "correction"
    code, out, err = cli("propose", "Tea", json_out=False)
    assert code == 0 and "dropped" in out


def test_text_output_and_errors(cli):
    code, out, _ = cli("propose", "Jazz", "--description", "I love jazz", json_out=False)
    assert code == 0 and out.startswith("proposed candidate c-")
    code, _, err = cli("confirm", "c-missing")
    assert code == 2 and "no candidate with id 'c-missing'" in err
    code, _, err = cli("page", "p-missing")
    assert code == 2 and "no page" in err
    with pytest.raises(SystemExit):
        cli_main.main(["replace", "p-x", "text", "--valid-from", "not-a-date", "--preset", "companion",
                       "--root", str(cli.root)])
    with pytest.raises(SystemExit):
        cli_main.main(["sensitivity", "p-x", "secret", "--preset", "companion", "--root", str(cli.root)])


def test_wiki_check_is_a_pre_commit_hook(cli):
    pid = cli("propose", "Tea", "--description", "I like tea")[1]["candidate_id"]
    cli("confirm", pid)
    code, out, _ = cli("wiki", "check")
    assert code == 0 and out == {"ok": True, "errors": []}
    page = wiki_dir(cli.root) / "concepts" / "tea.md"
    page.write_text(page.read_text().replace("consent: true", "consent: sure"))
    broken = page.read_bytes()
    audits_before = _audit_count(cli.root)
    code, out, _ = cli("wiki", "check", json_out=False)
    assert code == 1
    assert out.strip().startswith(f"{page}:7: field 'consent': consent must be true or false")
    code, out, _ = cli("wiki", "check")
    assert code == 1 and out["ok"] is False and out["errors"][0]["line"] == 7
    assert page.read_bytes() == broken and _audit_count(cli.root) == audits_before


def test_wiki_check_needs_no_warehouse(tmp_path, cli, capsys):
    fresh = tmp_path / "fresh"
    scope = wiki_dir(fresh) / "entities"
    scope.mkdir(parents=True)
    (scope / "a.md").write_text("---\nid: same\ntype: entity\ntitle: A\n---\n")
    (scope / "b.md").write_text("---\nid: same\ntype: entity\ntitle: B\n---\n")
    code = cli_main.main(["wiki", "check", "--root", str(fresh), "--preset", "companion", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and [e["line"] for e in out["errors"]] == [2, 2]
    assert not (fresh / "warehouse").exists()


def test_wiki_sync_applies_edits_and_reports_errors(cli):
    pid = cli("confirm", cli("propose", "Tea", "--description", "I like tea")[1]["candidate_id"])[1]["id"]
    page = wiki_dir(cli.root) / "concepts" / "tea.md"
    page.write_text(page.read_text().replace("I like tea", "I like strong tea"))
    code, report, _ = cli("wiki", "sync")
    assert code == 0 and report["edited"] == [pid] and report["errors"] == []
    assert "version: 1" in page.read_text() and cli("page", pid)[1]["version"] == 2  # the file stays as saved
    page.write_text(page.read_text().replace("type: concept", "type: drink"))
    broken = page.read_bytes()
    code, report, _ = cli("wiki", "sync")
    assert code == 1 and report["errors"][0]["path"] == str(page) and report["errors"][0]["field"] == "type"
    assert page.read_bytes() == broken
    assert "I like strong tea" in cli("resident")[1]["text"]


def test_graph_and_aliases(cli):
    with riko.open(cli.root, preset="companion") as mem:
        anna = mem.create_page("Anna", type="entity", body="Sister; [[supports::Tea]] and [[Jazz]]")
        mem.create_page("Tea", body="I like tea")
        mem.add_alias(anna.id, "Annie")
    code, out, _ = cli("graph")
    assert out == {"nodes": 2, "edges": 2, "broken_links": [{"page_id": anna.id, "target": "Jazz"}]}
    code, text, _ = cli("graph", json_out=False)
    assert "2 page(s), 2 link(s), 1 broken" in text and "[[Jazz]]" in text
    code, aliases, _ = cli("aliases")
    assert [(a["alias"], a["entity_id"], a["status"]) for a in aliases] == [("Annie", anna.id, "active")]


def test_every_command_has_help():
    parser = argparse.ArgumentParser(prog="riko")
    sub = parser.add_subparsers(dest="command")
    register(sub)
    names = set(sub.choices)
    assert {"candidates", "confirm", "reject", "propose", "pages", "page", "correct", "replace", "supersede",
            "forget", "suppress", "restore", "sensitivity", "resident", "conflicts", "resolve", "aliases",
            "wiki", "graph"} <= names
    helps = {action.dest: action.help for action in sub._choices_actions}
    assert all(helps.get(name) for name in names)
    for name in names - {"wiki"}:
        assert "--json" in sub.choices[name].format_help()


def _audit_count(root: Path) -> int:
    with riko.open(root, preset="companion", read_only=True) as mem:
        return mem.audits().height
