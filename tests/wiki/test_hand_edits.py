"""Page files edited by hand, as a person with a text editor does it: the bytes are written to
disk, then ``riko wiki check``, ``riko wiki sync``, ``riko wiki watch`` and ``riko serve`` run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx
import pytest

import riko
from waiting import until
import riko.cli.main as cli_main

ROOT = Path(riko.__file__).resolve().parents[1]  # the tree under test, for the subprocesses
API = "/memory/v1"
TOKEN = "hand-edit-test-token-0123456789"


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Callable[..., Any]:
    """``riko <argv> --root <tmp> --preset companion`` through the command line's own entry point;
    returns (exit code, stdout, stderr)."""
    for name in ("RIKO_ROOT", "RIKO_PRESET", "RIKO_OWNER"):
        monkeypatch.delenv(name, raising=False)

    def run(*argv: str) -> tuple[int, str, str]:
        code = cli_main.main([*argv, "--root", str(tmp_path), "--preset", "companion"])
        out, err = capsys.readouterr()
        return code, out, err

    assert cli_main.main(["init", "--root", str(tmp_path), "--preset", "companion"]) == 0
    capsys.readouterr()
    return run


def _scope(root: Path) -> Path:
    return root / "wiki" / "local" / "companion"


def _new_page(root: Path, title: str, body: str, **fields: Any) -> tuple[str, Path]:
    """A page made as riko makes one, and the file it lives in."""
    with riko.open(root, preset="companion") as mem:
        page = mem.create_page(title, body, **fields)
        rel = mem.warehouse.fetchone("SELECT path FROM pages WHERE scope_key = ? AND id = ?", [mem.scope.key, page.id])
    assert rel is not None
    return page.id, _scope(root) / rel[0]


def _edit(path: Path, old: str, new: str) -> bytes:
    """What a text editor saves: the file's bytes with one span replaced."""
    data = path.read_bytes()
    assert old.encode() in data, old
    data = data.replace(old.encode(), new.encode(), 1)
    path.write_bytes(data)
    return data


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


# -- one rule for what a page may hold -----------------------------------------------------------
def test_a_lone_surrogate_is_refused_alike_by_check_and_sync(tmp_path: Path, cli: Callable[..., Any]) -> None:
    pid, path = _new_page(tmp_path, "Tea", "I drink green tea.")
    broken = _edit(path, "title: Tea", 'title: "\\ud800 bad"')  # the YAML escape, as typed
    line = broken.decode().splitlines().index('title: "\\ud800 bad"') + 1
    code, out, err = cli("wiki", "check")
    assert code == 1 and f"{path}:{line}: field 'title':" in out and "U+D800" in out
    checked = out.strip()
    code, out, err = cli("wiki", "sync")
    assert code == 1 and "codec" not in out + err and checked in out
    assert path.read_bytes() == broken  # never overwritten
    with riko.open(tmp_path, preset="companion", read_only=True) as mem:
        assert mem.page(pid).title == "Tea" and mem.page(pid).version == 1


def test_a_lone_surrogate_in_an_extra_key_is_reported_where_it_is(tmp_path: Path, cli: Callable[..., Any]) -> None:
    _new_page(tmp_path, "Tea", "I drink green tea.")
    path = _scope(tmp_path) / "concepts" / "odd.md"
    path.write_bytes(b'---\nid: p-odd\ntype: concept\ntitle: Odd\n"nick\\udc80": Mi\n---\n\nText.\n')
    code, out, _ = cli("wiki", "check")
    assert code == 1 and f"{path}:5: field 'nick\\udc80':" in out
    code, out, _ = cli("wiki", "sync")
    assert code == 1 and f"{path}:5: field 'nick\\udc80':" in out


@pytest.mark.slow
def test_riko_wiki_watch_refuses_a_lone_surrogate_with_file_and_line(tmp_path: Path) -> None:
    pid, path = _new_page(tmp_path, "Plant", "I keep a fig tree.")
    proc = subprocess.Popen([sys.executable, "-m", "riko", "wiki", "watch", "--root", str(tmp_path),
                             "--preset", "companion"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())
    try:
        assert proc.stderr is not None and "watching" in proc.stderr.readline()
        time.sleep(0.3)
        _edit(path, "title: Plant", 'title: "\\ud800 bad"')
        assert proc.stdout is not None
        refused = proc.stdout.readline()
        assert refused.startswith(f"refused {path}:4: field 'title':") and "U+D800" in refused
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err


# -- a broken edit under riko serve is seen -------------------------------------------------------
@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[httpx.Client, subprocess.Popen[str]]]:
    """A real ``riko serve`` on a loopback port, its client (with the profile's token) and process."""
    (tmp_path / "riko.toml").write_text(f'api_token = "{TOKEN}"\napi_token_profile = "companion"\n', encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "riko", "serve", "--root", str(tmp_path), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    headers = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {TOKEN}"}
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        assert match, line
        with httpx.Client(base_url=match[1] + API, headers=headers, timeout=30) as client:
            yield client, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.communicate(timeout=30)


@pytest.mark.slow
def test_a_broken_edit_under_riko_serve_is_logged_and_listed_by_get_wiki(
        tmp_path: Path, serve: tuple[httpx.Client, subprocess.Popen[str]]) -> None:
    pid, path = _new_page(tmp_path, "Bike", "My bike is a blue Brompton.")
    client, proc = serve
    assert client.get("/wiki").json()["sync"] == {"errors": []}
    broken = _edit(path, "title: Bike", "title: [Bike")  # line 4: a bracket left open
    errors = until(lambda: client.get("/wiki").json()["sync"]["errors"], "the refused edit in GET /wiki")
    assert [(e["path"], e["line"], e["field"]) for e in errors] == [(str(path), 4, None)]
    assert "flow sequence" in errors[0]["message"]
    served = client.get(f"/wiki/pages/{pid}").json()
    assert served["title"] == "Bike" and served["version"] == 1 and path.read_bytes() == broken
    _edit(path, "title: [Bike", "title: Bike")
    until(lambda: client.get("/wiki").json()["sync"] == {"errors": []}, "the fixed file")
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert err.count(f"refused {path}:4: invalid YAML in frontmatter") == 1  # once, not on every sync
    assert "the previous version keeps serving" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_lone_surrogate_under_riko_serve_is_a_refusal_not_a_traceback(
        tmp_path: Path, serve: tuple[httpx.Client, subprocess.Popen[str]]) -> None:
    pid, path = _new_page(tmp_path, "Bike", "My bike is a blue Brompton.")
    client, proc = serve
    client.get("/wiki")  # the profile is open and watched
    _edit(path, "title: Bike", 'title: "\\ud800 bad"')
    errors = until(lambda: client.get("/wiki").json()["sync"]["errors"], "the refused edit in GET /wiki")
    assert [(e["line"], e["field"]) for e in errors] == [(4, "title")]
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert f"refused {path}:4: field 'title'" in err and "Traceback" not in err


# -- a valid hand edit keeps the person's bytes --------------------------------------------------
def test_a_valid_hand_edit_keeps_the_bytes_and_every_field_not_touched(tmp_path: Path, cli: Callable[..., Any]) -> None:
    pid, path = _new_page(tmp_path, "I live in Lisbon", "", description="I live in Lisbon", tags=["home"])
    text = path.read_text(encoding="utf-8")
    # the person edits the description only, and moves it below the version while at it
    lines = text.splitlines(keepends=True)
    lines = [line for line in lines if not line.startswith("description:")]
    at = next(i for i, line in enumerate(lines) if line.startswith("version:")) + 1
    lines.insert(at, "description: I live in Porto now\n")
    saved = "".join(lines).encode()
    path.write_bytes(saved)
    code, out, _ = cli("wiki", "sync")
    assert code == 0 and "1 edited" in out
    assert path.read_bytes() == saved  # not a byte rewritten: no version bump, no key order
    with riko.open(tmp_path, preset="companion") as mem:
        page = mem.page(pid)
        assert page.title == "I live in Lisbon"  # the title the person did not touch
        assert (page.description, page.version, page.tags) == ("I live in Porto now", 2, ["home"])
        assert mem.page_versions(pid)["version"].to_list() == [1]
        assert "I live in Porto now" in mem.resident().text
        assert mem.sync().changed is False  # the saved bytes are what riko recorded
        mem.suppress(pid)  # riko's own next write renders the page, its version included
        assert "version: 3" in path.read_text(encoding="utf-8")
        assert "description: I live in Porto now" in path.read_text(encoding="utf-8")


# -- a page file moved out of the type folders is kept, not deleted --------------------------------
def test_a_page_file_moved_out_of_the_type_folders_is_reported_and_kept(tmp_path: Path, cli: Callable[..., Any]) -> None:
    pid, path = _new_page(tmp_path, "Tea", "I drink green tea.")
    notes = _scope(tmp_path) / "notes"
    notes.mkdir()
    moved = notes / path.name
    path.rename(moved)
    (_scope(tmp_path) / "README.md").write_text("# My notes, not a page\n", encoding="utf-8")
    expected = f"{moved}:2: field 'id': page {pid} was moved out of the type folders"
    code, out, _ = cli("wiki", "check")
    assert code == 1 and out.startswith(expected) and "move it back under concepts/" in out
    code, out, _ = cli("wiki", "sync")
    assert code == 1 and "0 deleted" in out and expected in out
    with riko.open(tmp_path, preset="companion") as mem:
        assert mem.page(pid).status == "confirmed" and "I drink green tea." in mem.resident().text
        assert "page-deleted-externally" not in mem.audits()["kind"].to_list()
    moved.rename(path)  # moved back: read again, nothing changed
    code, out, _ = cli("wiki", "sync")
    assert code == 0 and "0 refused" in out
    path.unlink()  # a file really deleted is a deleted page, as before
    code, out, _ = cli("wiki", "sync")
    assert code == 0 and "1 deleted" in out


# -- the Markdown body carries the memory text ----------------------------------------------------
def test_a_memory_typed_in_the_body_is_the_memory(tmp_path: Path, cli: Callable[..., Any]) -> None:
    # riko keeps a one-line memory in `description:` and leaves the body empty
    pid, path = _new_page(tmp_path, "Tea", "", description="I prefer green tea.")
    saved = path.read_text(encoding="utf-8") + "\nI prefer oolong tea now.\n"  # typed below the frontmatter
    path.write_text(saved, encoding="utf-8")
    code, out, _ = cli("wiki", "sync")
    assert code == 0 and "1 edited" in out
    # the stale copy of the old text is the one entry taken out; every other byte is as saved
    assert path.read_text(encoding="utf-8") == saved.replace("description: I prefer green tea.\n", "")
    with riko.open(tmp_path, preset="companion", config={"recall_enabled": True}) as mem:
        page = mem.page(pid)
        assert (page.description, page.body, page.title, page.version) == ("", "I prefer oolong tea now.", "Tea", 2)
        assert "I prefer oolong tea now." in mem.resident().text and "green" not in mem.resident().text
        assert "oolong" in mem.recall("what tea do I prefer").context
        assert mem.sync().changed is False


def test_a_body_edit_under_the_persons_own_gist_keeps_the_gist(tmp_path: Path, cli: Callable[..., Any]) -> None:
    pid, path = _new_page(tmp_path, "Trip", "We went to Kyoto in April.\nThe temples were quiet.",
                          description="Spring trip to Kyoto")
    saved = _edit(path, "The temples were quiet.", "The temples were quiet and the food was great.")
    code, out, _ = cli("wiki", "sync")
    assert code == 0 and "1 edited" in out and path.read_bytes() == saved
    with riko.open(tmp_path, preset="companion", read_only=True) as mem:
        assert mem.page(pid).description == "Spring trip to Kyoto" and "food was great" in mem.page(pid).body
