"""Every server error is JSON, and the access log never holds a credential sent in the query."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
from server_data import TOKEN_CONFIG, TOKENS, LiveServer

from riko.server import create_app
from riko.server.access_log import redact_query

API = "/memory/v1"
SECRET = "s3cr3t-query-token-value"


def test_methods_the_api_path_does_not_take_answer_json(tmp_path: Path) -> None:
    with LiveServer(create_app(tmp_path, TOKEN_CONFIG)) as base, httpx.Client(base_url=base, timeout=30) as c:
        for method, path in (("DELETE", API), ("PUT", API + "/ui"), ("POST", API + "/static/app.js"),
                             ("PATCH", API), ("GET", "/elsewhere")):
            r = c.request(method, path)
            assert r.status_code in (404, 405), (method, path, r.status_code)
            assert r.headers["content-type"].startswith("application/json"), (method, path, r.text)
            assert r.json()["error"] in ("method-not-allowed", "not-found")


def test_redact_query_masks_credential_names_only() -> None:
    assert redact_query(f"/x?token={SECRET}&limit=3") == "/x?token=[redacted]&limit=3"
    assert SECRET not in redact_query(f"/x?api_key={SECRET}&access_token={SECRET}&Authorization={SECRET}")
    assert redact_query("/x?q=tea") == "/x?q=tea" and redact_query("/x") == "/x"


def test_access_log_has_no_query_token(tmp_path: Path) -> None:
    (tmp_path / "riko.toml").write_text(f'api_tokens = {{ companion = "{TOKENS["companion"]}" }}\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    proc = subprocess.Popen([sys.executable, "-m", "riko.cli.serve", "--root", str(tmp_path), "--port", "0",
                             "--access-log", "--log-level", "info"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        assert match, line
        with httpx.Client(base_url=match.group(1), timeout=30) as c:
            assert c.get(API + f"/resident?token={SECRET}&limit=2").status_code == 401
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    logged = out + err
    assert "/resident?token=[redacted]&limit=2" in logged, logged[-2000:]
    assert SECRET not in logged
