"""Debug surfaces show a sanitized plan and never count as use; a real injection does."""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import riko
from riko.cli.main import main
from riko.recall.index_cache import flush_activation
from riko.recall.planner import MASK
from riko.server import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient

API = "/memory/v1"
LOCAL = ("127.0.0.1", 50000)
SOLO = {"x-dsh-memory-profile": "solo"}
SECRET_QUERY = "Do you remember my passport number X12345678 and my PIN 4821 for the Lisbon trip?"


def _steady(text: str) -> str:
    """``text`` without the trace's id and latencies: random digits that may hold "4821" by chance."""
    return re.sub(r'"trace_?[iI]d": ?"[^"]*"|\d+\.\d+', "", text)


def _scope(root: Any, clock: Any) -> str:
    (root / "riko.toml").write_text("recall_enabled = true\n", encoding="utf-8")  # riko recall needs it too
    with riko.open(root, preset="solo", clock=clock, config={"embedding_provider": "off"}) as mem:
        page = mem.create_page("Lisbon trip", "The user flies to Lisbon in May.", description="Trip to Lisbon in May")
    return page.id


def _recall_counts(root: Any, clock: Any) -> dict[str, int]:
    with riko.open(root, preset="solo", clock=clock, config={"embedding_provider": "off"}) as mem:
        flush_activation(mem.context)
        rows = mem.warehouse.fetchall("SELECT record_id, recall_count FROM activation WHERE scope_key = ?",
                                      [mem.scope.key])
    return {r[0]: int(r[1]) for r in rows}


def test_debug_route_masks_the_passport_number_and_pin(tmp_path, clock) -> None:
    _scope(tmp_path, clock)
    with TestClient(create_app(tmp_path, {"recall_enabled": True, "embedding_provider": "off"}), client=LOCAL) as c:
        r = c.post(API + "/recall/debug", headers=SOLO, json={"query": SECRET_QUERY})
    assert r.status_code == 200
    text = _steady(r.text).casefold()
    assert "x12345678" not in text and "4821" not in text
    plan = r.json()["plan"]
    assert MASK in plan["exact_terms"] or MASK in plan["keywords"]
    assert "lisbon" in plan["keywords"]  # what is not protected stays readable


def test_cli_debug_plan_is_the_same_sanitized_plan(tmp_path, clock, capsys) -> None:
    _scope(tmp_path, clock)
    assert main(["recall", "--root", str(tmp_path), "--preset", "solo", "--debug", "--json", SECRET_QUERY]) == 0
    raw = capsys.readouterr().out
    out = _steady(raw)
    assert "x12345678" not in out.casefold() and "4821" not in out
    assert MASK in json.dumps(json.loads(raw)["plan"])
    assert main(["recall", "--root", str(tmp_path), "--preset", "solo", "--debug", SECRET_QUERY]) == 0
    out = _steady(capsys.readouterr().out)
    assert "x12345678" not in out.casefold() and "4821" not in out
    assert "[masked]" in out


def test_debug_and_inspection_record_no_activation_only_injection_does(tmp_path, clock) -> None:
    page_id = _scope(tmp_path, clock)
    query = "do you remember my Lisbon trip?"
    with TestClient(create_app(tmp_path, {"recall_enabled": True, "embedding_provider": "off"}), client=LOCAL) as c:
        for _ in range(3):
            assert c.post(API + "/recall/debug", headers=SOLO, json={"query": query}).status_code == 200
    assert main(["recall", "--root", str(tmp_path), "--preset", "solo", "--debug", query]) == 0
    with riko.open(tmp_path, preset="solo", clock=clock, config={"embedding_provider": "off", "recall_enabled": True}) as mem:
        assert mem.recall(query, debug=True).trace["injectedMemories"] == 1
    assert _recall_counts(tmp_path, clock).get(page_id, 0) == 0
    with TestClient(create_app(tmp_path, {"recall_enabled": True, "embedding_provider": "off"}), client=LOCAL) as c:
        assert c.post(API + "/recall", headers=SOLO, json={"query": query}).status_code == 200
    assert _recall_counts(tmp_path, clock).get(page_id) == 1
