"""Sensitivity of raw L0 lines after capture: the authority matrix on Memory, the CLI and HTTP."""

from __future__ import annotations

import json
import warnings

import pytest

import riko
from riko.cli.main import main
from riko.clock import FixedClock
from riko.errors import AuthorityError, NotFoundError
from riko.server import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

CONFIG = {"evidence_classification_enabled": True, "recall_enabled": True, "embedding_provider": "off"}


def say(mem, text: str, sid: str = "s1") -> str:
    mem.clock.advance(seconds=5)
    return str(mem.capture({"session_id": sid, "type": "user/message",
                            "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}}))


def level(mem, ref: str):
    sid, seq = ref.removeprefix("session:").split("/event:")
    return mem.warehouse.fetchone("SELECT sensitivity, sensitivity_origin FROM evidence WHERE session_id = ? AND seq = ?",
                                  [sid, int(seq)])


@pytest.fixture
def mem(tmp_path):
    with riko.open(tmp_path / "root", preset="companion", config=CONFIG, clock=FixedClock("2026-02-01T09:00:00Z")) as m:
        yield m


def test_the_authority_matrix_on_one_line(mem):
    ref = say(mem, "I went to see my cousin Ilse at the harbour on Sunday")
    assert level(mem, ref) == ("normal", "deterministic_rule")
    before = mem.recall("do you remember what I did with my cousin Ilse at the harbour?").context
    assert "Ilse" in before
    out = mem.propose_evidence_sensitivity(ref, "sensitive")  # a model may tighten
    assert out["changed"] and level(mem, ref) == ("sensitive", "model_proposal")
    after = mem.recall("do you remember what I did with my cousin Ilse at the harbour?").context
    assert "harbour on Sunday" not in after
    with pytest.raises(AuthorityError, match="needs user or management"):
        mem.propose_evidence_sensitivity(ref, "normal")  # ... never loosen
    with pytest.raises(AuthorityError):
        mem.mark_evidence_sensitivity(ref, "provisional_sensitive", authority="deterministic_rule")
    assert level(mem, ref)[0] == "sensitive"
    mem.mark_evidence_sensitivity(ref, "normal", authority="user")  # the user may relax it
    assert level(mem, ref) == ("normal", "user")
    changed = mem.audits("memory-sensitivity-changed")
    rejected = mem.audits("memory-sensitivity-rejected")
    assert changed["authority"].to_list() == ["model_proposal", "user"] and set(changed["target"]) == {ref}
    assert rejected["authority"].to_list() == ["model_proposal", "deterministic_rule"]
    assert all("harbour" not in d for d in changed["detail"].to_list() + rejected["detail"].to_list())


def test_an_unclassified_line_reads_as_sensitive(tmp_path):
    config = {**CONFIG, "evidence_classification_enabled": False}
    with riko.open(tmp_path / "root", preset="companion", config=config, clock=FixedClock("2026-02-01T09:00:00Z")) as mem:
        ref = say(mem, "I like the harbour")
        assert level(mem, ref) == (None, None)
        with pytest.raises(AuthorityError):
            mem.propose_evidence_sensitivity(ref, "normal")
        assert mem.propose_evidence_sensitivity(ref, "provisional_sensitive")["from"] == "unclassified"
        with pytest.raises(NotFoundError):
            mem.mark_evidence_sensitivity("session:s1/event:99", "sensitive")
        with pytest.raises(ValueError):
            mem.mark_evidence_sensitivity("s1#0", "sensitive")


def test_cli_marks_a_line(tmp_path, capsys):
    root = tmp_path / "root"
    with riko.open(root, preset="companion", config=CONFIG, clock=FixedClock("2026-02-01T09:00:00Z")) as mem:
        ref = say(mem, "I keep my diary in the blue box")
    assert main(["mark-evidence", "--root", str(root), "--preset", "companion", ref, "sensitive", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["to"] == "sensitive"
    assert main(["mark-evidence", "--root", str(root), "--preset", "companion", "session:s1/event:42", "normal"]) == 2
    assert "evidence line" in capsys.readouterr().err
    with riko.open(root, preset="companion", config=CONFIG) as mem:
        assert level(mem, ref) == ("sensitive", "user")


def test_http_tightens_for_anyone_and_relaxes_only_for_the_owner_admin(tmp_path):
    root = tmp_path / "root"
    with riko.open(root, preset="companion", config=CONFIG, clock=FixedClock("2026-02-01T09:00:00Z")) as mem:
        ref = say(mem, "I keep my diary in the blue box")
    user = {"x-dsh-memory-profile": "companion", "authorization": "Bearer tok-user-1234567890"}
    admin = {"x-dsh-memory-profile": "companion", "authorization": "Bearer adm-owner-0987654321"}
    app = create_app(root, {**CONFIG, "api_tokens": {"companion": "tok-user-1234567890"},
                            "owner_admin_token": "adm-owner-0987654321"})
    url = "/memory/v1/sessions/s1/events/0/sensitivity"
    with TestClient(app, client=("127.0.0.1", 50000)) as c:
        r = c.put(url, headers=user, json={"sensitivity": "sensitive"})
        assert r.status_code == 200 and r.json()["to"] == "sensitive"
        r = c.put(url, headers=user, json={"sensitivity": "normal"})
        assert r.status_code == 403 and "owner-admin" in json.dumps(r.json())
        assert c.put(url, headers=admin, json={"sensitivity": "normal"}).status_code == 200
        assert c.put("/memory/v1/sessions/s1/events/x/sensitivity", headers=admin,
                     json={"sensitivity": "normal"}).status_code == 400
        assert c.put("/memory/v1/sessions/s1/events/9/sensitivity", headers=admin,
                     json={"sensitivity": "normal"}).status_code == 404
    with riko.open(root, preset="companion", config=CONFIG) as mem:
        assert level(mem, ref) == ("normal", "management")
