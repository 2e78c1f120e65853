"""One owner rule for every surface: riko.open, the commands, ``riko serve`` share one scope.

The owner is the explicit argument (``owner=`` / ``--owner``), else ``owner_namespace`` from
``RIKO_OWNER`` / ``RIKO_OWNER_NAMESPACE``, else ``riko.toml``, else ``local``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import httpx
import pytest

import riko
from riko.cli.main import main
from riko.config import resolve_owner
from riko.errors import ScopeError
from riko.scope import ScopeWarning

TOKEN = "tok-companion-owner-5e1b"
API = "/memory/v1"
HEADERS = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {TOKEN}"}
WAIT = 60


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    env.update(extra)
    return env


def _riko(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "riko", *args, "--root", str(root)],
                          capture_output=True, text=True, timeout=WAIT, env=_env(**env))


@pytest.fixture
def acme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("RIKO_OWNER", "RIKO_OWNER_NAMESPACE", "RIKO_ROOT", "RIKO_PRESET"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "root"
    root.mkdir()
    (root / "riko.toml").write_text(f'owner_namespace = "acme"\napi_tokens = {{ companion = "{TOKEN}" }}\n',
                                    encoding="utf-8")
    return root


def test_init_open_commands_and_serve_use_the_configured_owner(acme: Path) -> None:
    init = _riko(acme, "init", "--preset", "companion", "--json")
    assert init.returncode == 0, init.stderr
    assert json.loads(init.stdout)["scope"] == "acme:companion"
    assert not (acme / "warehouse" / "local--companion").exists()

    with riko.open(acme, preset="companion") as mem:  # what a notebook does
        assert mem.scope.key == "acme:companion" and mem.config.owner_namespace == "acme"
        page = mem.confirm(mem.propose("Tea", description="I drink oolong tea every morning.")).id

    pages = _riko(acme, "pages", "--json")
    assert pages.returncode == 0, pages.stderr
    assert [p["id"] for p in json.loads(pages.stdout)] == [page]

    proc = subprocess.Popen([sys.executable, "-m", "riko.cli.serve", "--root", str(acme), "--port", "0",
                             "--no-watch"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        assert match, line + (proc.stderr.read() if proc.stderr and proc.poll() is not None else "")
        assert "acme" in line
        with httpx.Client(base_url=match.group(1), timeout=WAIT) as c:
            listed = c.get(API + "/wiki", headers=HEADERS)
            assert listed.status_code == 200, listed.text
            assert [p["id"] for p in listed.json()["pages"]] == [page]
            r = c.post(API + "/memories", headers=HEADERS, json={"content": "Written through riko serve."})
            assert r.status_code == 201, r.text
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=WAIT)
    assert "Traceback" not in err
    with riko.open(acme, preset="companion") as mem:
        assert sorted(mem.pages()["title"].to_list()) == ["Tea", "Written through riko serve."]
    assert sorted(p.name for p in (acme / "warehouse").iterdir()) == ["acme--companion"]


def test_environment_beats_the_file_and_an_explicit_owner_beats_both(acme: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert resolve_owner(acme).owner == "acme"
    assert resolve_owner(acme, environ={"RIKO_OWNER": "envy"}).owner == "envy"
    assert resolve_owner(acme, environ={"RIKO_OWNER_NAMESPACE": "envy"}).owner == "envy"
    assert resolve_owner(acme, "bob", environ={"RIKO_OWNER": "envy"}).owner == "bob"
    assert resolve_owner(acme.parent / "elsewhere", environ={}).owner == "local"
    assert resolve_owner(acme.parent / "elsewhere", environ={}).conflict is None

    monkeypatch.setenv("RIKO_OWNER", "envy")
    assert main(["init", "--root", str(acme), "--preset", "companion", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scope"] == "envy:companion"
    with riko.open(acme, preset="companion") as mem:
        assert mem.scope.key == "envy:companion" and mem.config.owner_namespace == "envy"


def test_an_explicit_owner_that_leaves_the_configured_scope_says_so(acme: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.warns(ScopeWarning, match=r"owner 'bob' given explicitly differs from owner_namespace 'acme' "
                                          r"set in .*riko\.toml.*acme:<preset>"):
        with riko.open(acme, owner="bob", preset="companion") as mem:
            assert mem.scope.key == "bob:companion" and mem.config.owner_namespace == "bob"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the configured owner named explicitly is no conflict
        riko.open(acme, owner="acme", preset="companion").close()

    assert main(["init", "--root", str(acme), "--owner", "bob", "--preset", "companion", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["scope"] == "bob:companion"
    assert out.err.count("riko: warning: owner 'bob' given explicitly differs") == 1


def test_two_environment_owners_that_disagree_fail_clearly(acme: Path) -> None:
    with pytest.raises(ScopeError, match="RIKO_OWNER='a' and RIKO_OWNER_NAMESPACE='b' name different owners"):
        resolve_owner(acme, environ={"RIKO_OWNER": "a", "RIKO_OWNER_NAMESPACE": "b"})
    done = _riko(acme, "init", "--preset", "companion", RIKO_OWNER="a", RIKO_OWNER_NAMESPACE="b")
    assert done.returncode == 2 and done.stderr.startswith("riko: error: environment variables RIKO_OWNER='a'")
    assert "Traceback" not in done.stderr
