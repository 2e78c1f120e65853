"""The control API's first-hour rules: reads never create a scope, and recall's one documented switch."""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import pytest

import riko
from riko.cli.main import main
from riko.errors import StateError
from riko.server import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

API = "/memory/v1"
HEADER = {"x-dsh-memory-profile": "newcomer"}


def test_get_requests_never_create_a_scope(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path, {}), client=("127.0.0.1", 50000)) as c:
        for path in ("/wiki", "/wiki/graph", "/wiki/sources", "/candidates", "/sessions", "/audits", "/resident",
                     "/observations", "/conflicts"):
            r = c.get(API + path, headers=HEADER)
            assert r.status_code == 404 and r.json()["error"] == "no-scope", (path, r.text)
            assert "riko init --preset newcomer" in r.json()["message"]
        assert not (tmp_path / "warehouse").exists() and not (tmp_path / "wiki").exists()
        r = c.post(API + "/memories", headers=HEADER, json={"content": "I like tea"})
        assert r.status_code in (200, 201), r.text  # a write creates the scope
        assert c.get(API + "/candidates", headers=HEADER).status_code == 200


def test_recall_follows_one_documented_switch(tmp_path: Path) -> None:
    riko.open(tmp_path, preset="newcomer").close()
    with TestClient(create_app(tmp_path, {}), client=("127.0.0.1", 50000)) as c:
        r = c.post(API + "/recall", headers=HEADER, json={"query": "hello"})
        assert r.status_code == 404 and r.json()["error"] == "recall-disabled"
        assert "recall_enabled = true" in r.json()["message"] and "RIKO_RECALL_ENABLED" in r.json()["message"]
    with TestClient(create_app(tmp_path, {"recall_enabled": True}), client=("127.0.0.1", 50000)) as c:
        assert c.post(API + "/recall", headers=HEADER, json={"query": "hello"}).status_code == 200
    # the same switch gates the owner's local calls: mem.recall and riko recall
    with riko.open(tmp_path, preset="newcomer") as mem:
        assert mem.config.recall_enabled is False
        with pytest.raises(StateError, match="recall_enabled"):
            mem.recall("hello")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["recall", "hello", "--root", str(tmp_path), "--preset", "newcomer"]) == 2
    docs = (Path(__file__).resolve().parents[2] / "docs" / "http-api.md").read_text(encoding="utf-8")
    assert "One rule for recall on every surface" in docs and "`riko recall` stop" in docs
