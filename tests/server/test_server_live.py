"""``riko serve`` over real loopback sockets: uvicorn in a thread and as a ``riko serve`` process."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import httpx
import pytest

import riko
from riko.server import create_app
from server_data import ADMIN, TOKEN_CONFIG, TOKENS, Data, LiveServer, populate

API = "/memory/v1"
USER = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {TOKENS['companion']}"}


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Data:
    return populate(tmp_path_factory.mktemp("live"))


@pytest.fixture(scope="module")
def base(data: Data) -> Iterator[str]:
    with LiveServer(create_app(data.root, TOKEN_CONFIG)) as url:
        yield url


def test_page_and_auth_over_the_wire(base: str, data: Data) -> None:
    with httpx.Client(base_url=base, timeout=30) as c:
        page = c.get(API + "/ui")
        assert page.status_code == 200 and "riko" in page.text
        assert c.get(API + "/static/app.js").status_code == 200
        assert c.get(API + "/resident", headers={"x-dsh-memory-profile": "companion"}).status_code == 401
        wrong = {**USER, "authorization": f"Bearer {TOKENS['work']}"}
        assert c.get(API + "/resident", headers=wrong).status_code == 403
        r = c.get(API + "/resident", headers=USER)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
        preflight = c.options(API + "/resident", headers={"origin": "null", "access-control-request-method": "GET"})
        assert preflight.status_code == 204 and preflight.headers["access-control-allow-origin"] == "null"
        admin = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}"}
        revealed = c.get(API + f"/wiki/pages/{data.pages['health']}?reveal=sensitive", headers=admin)
        assert revealed.json()["body"] == "Diagnosed with anxiety in 2024."


def test_oversized_body_over_the_wire(base: str) -> None:
    with httpx.Client(base_url=base, timeout=30) as c:
        r = c.post(API + "/memories", headers={**USER, "content-type": "application/json"},
                   content=b'{"content": "' + b"z" * (2 << 20) + b'"}')
        assert r.status_code == 413
        assert c.get(API + "/wiki", headers=USER).status_code == 200  # the server keeps serving


def test_concurrent_reads_and_writes_have_no_errors(base: str) -> None:
    before = httpx.get(base + API + "/wiki", headers=USER, timeout=30).json()["counts"]["pages"]

    def one(i: int) -> int:
        with httpx.Client(base_url=base, timeout=60) as c:
            if i % 4 == 0:
                return c.post(API + "/memories", headers=USER, json={"content": f"Concurrent note number {i}"}).status_code
            path = ("/resident", "/wiki", "/candidates")[i % 3]
            return c.get(API + path, headers=USER).status_code

    with ThreadPoolExecutor(max_workers=32) as pool:
        codes = list(pool.map(one, range(96)))
    assert sorted(set(codes)) == [200, 201]
    assert codes.count(201) == 24
    after = httpx.get(base + API + "/wiki", headers=USER, timeout=30).json()["counts"]["pages"]
    assert after == before + 24


def test_shutdown_closes_every_scope(tmp_path: Path) -> None:
    data = populate(tmp_path)
    app = create_app(data.root, TOKEN_CONFIG)
    scopes = app.state.riko.scopes
    with LiveServer(app) as url:
        work = {"x-dsh-memory-profile": "work", "authorization": f"Bearer {TOKENS['work']}"}
        assert httpx.get(url + API + "/wiki", headers=work, timeout=30).status_code == 200
        assert httpx.get(url + API + "/wiki", headers=USER, timeout=30).status_code == 200
        assert scopes.open_profiles() == ["companion", "work"]
        with riko.open(data.root, preset="work") as mem:  # a scope the server has open is shared
            assert mem.sessions().height > 0
    assert scopes.open_profiles() == []
    for preset in ("companion", "work"):
        with riko.open(data.root, preset=preset) as mem:
            assert mem.sessions().height > 0
            assert not mem.warehouse.held or mem.warehouse.other_handles() == 0


def test_riko_serve_process(tmp_path: Path) -> None:
    """``python -m riko.cli.serve``: reads riko.toml, announces its port, serves, stops cleanly."""
    (tmp_path / "riko.toml").write_text(
        f'api_tokens = {{ companion = "{TOKENS["companion"]}" }}\nowner_admin_token = "{ADMIN}"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    proc = subprocess.Popen([sys.executable, "-m", "riko.cli.serve", "--root", str(tmp_path), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)(/memory/v1)/ui", line)
        assert match, line + (proc.stderr.read() if proc.stderr and proc.poll() is not None else "")
        base = match.group(1)
        with httpx.Client(base_url=base, timeout=30) as c:
            assert c.get(API + "/ui").status_code == 200
            assert c.get(API + "/config", headers={"x-dsh-memory-profile": "companion"}).status_code == 401
            r = c.post(API + "/memories", headers=USER, json={"content": "Written through riko serve."})
            assert r.status_code == 201
            cfg = c.get(API + "/config", headers=USER).json()
            assert cfg["scope_binding"] == "profile+owner-admin"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    # uvicorn shuts down gracefully (lifespan closes every scope), then re-raises SIGTERM
    assert proc.returncode == -signal.SIGTERM
    assert "Traceback" not in err
    with riko.open(tmp_path, preset="companion") as mem:
        assert mem.pages()["title"].to_list() == ["Written through riko serve."]
