"""Control API routes over real data: redacted projections, the reveal matrix and its audits,
review transitions, evidence hiding, bounded and validated input, recall, purge and the page."""

from __future__ import annotations

import re
import warnings
from typing import Any, Iterator

import pytest

import riko
from riko.server import MAX_BODY_BYTES, create_app
from riko.server.redact import target_hash
from server_data import ADMIN, TOKEN_CONFIG, TOKENS, Data, populate

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # Starlette's nudge towards httpx2; riko ships httpx
    from starlette.testclient import TestClient

API = "/memory/v1"
LOCAL = ("127.0.0.1", 50000)
USER = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {TOKENS['companion']}"}
ADMIN_H = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}"}
REDACTED_KEYS = {"id", "type", "status", "consent", "observed_at", "recorded_at", "valid_from", "valid_to",
                 "sensitivity", "version", "source_count", "tag_count", "body_line_count", "body_byte_count", "redacted"}


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Data:
    return populate(tmp_path_factory.mktemp("routes"))


@pytest.fixture(scope="module")
def client(data: Data) -> Iterator[TestClient]:
    app = create_app(data.root, {**TOKEN_CONFIG, "recall_enabled": True, "purge_enabled": True})
    with TestClient(app, client=LOCAL) as c:
        yield c


def get(c: TestClient, path: str, headers: dict[str, str] = USER) -> Any:
    return c.get(API + path, headers=headers)


def audits(c: TestClient, kind: str) -> list[dict[str, Any]]:
    r = get(c, f"/audits?kind={kind}&limit=5000", ADMIN_H)
    assert r.status_code == 200
    return r.json()["audits"]


# -- Wiki -----------------------------------------------------------------------------------------
def test_wiki_snapshot_groups_by_type_and_projects_protected_pages(client: TestClient, data: Data) -> None:
    w = get(client, "/wiki").json()
    assert set(w["counts"]) >= {"sessions", "candidates", "pages", "injected"}
    assert w["counts"]["sessions"] == len(data.sessions)
    assert "entity" in w["tree"] and "concept" in w["tree"]
    assert [p["title"] for p in w["tree"]["entity"]] == ["Mira"]
    health = next(p for p in w["pages"] if p["id"] == data.pages["health"])
    assert health["redacted"] is True
    assert set(health) == REDACTED_KEYS | {"contested"}
    assert "Diagnosed" not in str(w) and "Health note" not in str(w)
    assert w["resident"]["version"] and w["dream"]["state"] == "idle"


def test_page_detail_and_redacted_projection(client: TestClient, data: Data) -> None:
    mira = get(client, f"/wiki/pages/{data.pages['mira']}").json()
    assert mira["title"] == "Mira" and mira["type"] == "entity" and mira["redacted"] is False
    assert mira["links"] == [{"target": "Atlas", "rel": None, "line": 1, "alias": None}]
    assert {"status", "consent", "locked", "sensitivity", "version", "tags", "sources", "body"} <= set(mira)
    health = get(client, f"/wiki/pages/{data.pages['health']}")
    assert health.status_code == 200
    body = health.json()
    assert set(body) == REDACTED_KEYS
    assert body["redacted"] is True and body["sensitivity"] == "sensitive"
    assert body["body_line_count"] == 1 and body["body_byte_count"] == len("Diagnosed with anxiety in 2024.")
    assert "anxiety" not in health.text and "Health note" not in health.text
    versions = get(client, f"/wiki/pages/{data.pages['health']}/versions").json()
    assert all("text" not in v for v in versions["versions"])


def test_reveal_matrix_with_audits(client: TestClient, data: Data) -> None:
    pid, sid = data.pages["health"], data.sessions[0]
    scope_key = "local:companion"
    rejected_before = len(audits(client, "sensitive-content-reveal-rejected"))
    revealed_before = len(audits(client, "sensitive-content-revealed"))
    # a profile token may never reveal: 403, audited with the target hash
    for path in (f"/wiki/pages/{pid}", f"/wiki/pages/{pid}/versions", f"/sessions/{sid}"):
        r = get(client, path + "?reveal=sensitive")
        assert r.status_code == 403 and r.json()["error"] == "reveal-forbidden"
        assert "anxiety" not in r.text
    rejected = audits(client, "sensitive-content-reveal-rejected")[rejected_before:]
    assert [a["target"] for a in rejected] == [target_hash(scope_key, "page", pid)] * 2 + [target_hash(scope_key, "session", sid)]
    assert all(a["authority"] == "refused" and pid not in str(a) and sid not in str(a) for a in rejected)
    assert rejected[0]["detail"]["route"] == "/memory/v1/wiki/pages/{id}"
    # owner admin without reveal still gets the projection; with reveal the body, audited
    assert get(client, f"/wiki/pages/{pid}", ADMIN_H).json()["redacted"] is True
    r = get(client, f"/wiki/pages/{pid}?reveal=sensitive", ADMIN_H)
    assert r.status_code == 200 and r.json()["body"] == "Diagnosed with anxiety in 2024." and r.json()["redacted"] is False
    session = get(client, f"/sessions/{sid}?reveal=sensitive", ADMIN_H).json()
    assert session["revealed"] is True and not any(line["hidden"] for line in session["lines"])
    revealed = audits(client, "sensitive-content-revealed")[revealed_before:]
    assert [a["target"] for a in revealed] == [target_hash(scope_key, "page", pid), target_hash(scope_key, "session", sid)]
    assert all(a["authority"] == "management" and a["detail"]["auth_mode"] == "owner-admin" for a in revealed)
    # revealing a readable page changes nothing and writes no reveal audit
    assert get(client, f"/wiki/pages/{data.pages['mira']}?reveal=sensitive", ADMIN_H).status_code == 200
    assert len(audits(client, "sensitive-content-revealed")) == revealed_before + 2
    assert get(client, f"/wiki/pages/{pid}?reveal=everything", ADMIN_H).status_code == 400


def test_edit_and_sensitivity_change_is_audited(client: TestClient, data: Data) -> None:
    pid = data.pages["edit"]
    r = client.put(API + f"/wiki/pages/{pid}", headers=USER, json={"content": "Corrected text of the page."})
    assert r.status_code == 200 and r.json()["version"] == 2 and r.json()["description"] == "Corrected text of the page."
    r = client.put(API + f"/wiki/pages/{pid}", headers=USER, json={"sensitivity": "sensitive"})
    assert r.status_code == 200 and r.json()["redacted"] is True
    changed = [a for a in audits(client, "memory-sensitivity-changed") if a["target"] == pid]
    assert changed and changed[-1]["authority"] == "management"
    assert changed[-1]["detail"]["from"] == "normal" and changed[-1]["detail"]["to"] == "sensitive"
    assert client.put(API + f"/wiki/pages/{pid}", headers=USER, json={}).status_code == 400
    assert client.put(API + f"/wiki/pages/{pid}", headers=USER, json={"sensitivity": "secret"}).status_code == 400
    assert client.put(API + f"/wiki/pages/{pid}", headers=USER, json={"content": 42}).status_code == 400


def test_create_temporal_supersede_forget(client: TestClient, data: Data) -> None:
    r = client.post(API + "/wiki/pages", headers=USER, json={"title": "Kyoto trip", "type": "episode",
                                                             "body": "Mira visited [[Kyoto]] in 2025.", "tags": ["travel"]})
    assert r.status_code == 201
    page = r.json()
    assert page["locked"] is True and page["tags"] == ["travel"] and page["links"][0]["target"] == "Kyoto"
    assert client.post(API + "/wiki/pages", headers=USER, json={"title": "x", "type": "nonsense"}).status_code == 400
    assert client.post(API + "/wiki/pages", headers=USER, json={"body": "no title"}).status_code == 400
    pid = data.pages["temporal"]
    missing = client.post(API + f"/wiki/pages/{pid}/temporal", headers=USER, json={"content": "Changed."})
    assert missing.status_code == 400 and "validFrom" in missing.json()["message"]
    r = client.post(API + f"/wiki/pages/{pid}/temporal", headers=USER,
                    json={"content": "Changed.", "validFrom": "2031-05-01T00:00:00Z"})
    assert r.status_code == 201 and r.json()["supersedes"] == pid
    old = get(client, f"/wiki/pages/{pid}").json()
    assert old["superseded_by"] == r.json()["id"] and old["valid_to"].startswith("2031-05-01")
    r = client.post(API + f"/wiki/pages/{data.pages['supersede']}/supersede", headers=USER, json={"by": "../x"})
    assert r.status_code == 400
    sessions_before = get(client, "/sessions").json()["sessions"]
    r = client.delete(API + f"/wiki/pages/{data.pages['forget']}", headers=USER)
    assert r.status_code == 200 and r.json()["raw_session_retained"] is True
    assert get(client, f"/wiki/pages/{data.pages['forget']}").json()["status"] == "forgotten"
    assert get(client, "/sessions").json()["sessions"] == sessions_before
    assert client.delete(API + f"/wiki/pages/{data.pages['forget']}", headers=USER).status_code == 409
    r = client.post(API + f"/wiki/pages/{data.pages['suppress']}/suppress", headers=USER, json={"reason": "not now"})
    assert r.json()["usage_policy"] == "suppressed"
    assert client.post(API + f"/wiki/pages/{data.pages['suppress']}/suppress", headers=USER).status_code == 409


def test_graph_and_search(client: TestClient, data: Data) -> None:
    g = get(client, "/wiki/graph").json()
    nodes = {n["id"]: n for n in g["nodes"]}
    assert nodes[data.pages["health"]]["title"] is None and nodes[data.pages["health"]]["redacted"] is True
    assert {(e["source"], e["target"], e["rel"]) for e in g["edges"]} >= {
        (data.pages["mira"], data.pages["atlas"], None), (data.pages["atlas"], data.pages["mira"], "supports")}
    near = get(client, f"/wiki/graph?root={data.pages['mira']}&hop=1&includeEvidence=true").json()
    assert {n["id"] for n in near["nodes"]} == {data.pages["mira"], data.pages["atlas"]}
    assert all("sources" in n for n in near["nodes"])
    assert get(client, f"/wiki/graph?root={data.pages['mira']}&hop=0").json()["nodes"][0]["id"] == data.pages["mira"]
    assert get(client, "/wiki/graph?hop=3").status_code == 400
    assert get(client, "/wiki/graph?root=p-ffffffffffffffff").status_code == 404
    hits = get(client, "/wiki/search?q=Lisbon").json()["results"]
    assert [h["id"] for h in hits] == [data.pages["mira"]]
    linked = get(client, "/wiki/search?q=Lisbon&hop=1").json()["results"]
    assert [(h["id"], h["via"]) for h in linked] == [(data.pages["mira"], "lexical"), (data.pages["atlas"], "graph")]
    assert get(client, "/wiki/search?q=anxiety").json()["results"] == []  # protected text is never searched
    assert get(client, "/wiki/search").status_code == 400
    assert get(client, "/wiki/search?q=x&limit=0").status_code == 400
    assert get(client, "/wiki/search?q=x&limit=101").status_code == 400
    sources = get(client, "/wiki/sources").json()["sources"]
    assert {s["session_id"] for s in sources} == set(data.sessions)


def test_resident_route_discloses_raw_retention(client: TestClient) -> None:
    r = get(client, "/resident").json()
    assert r["text"].startswith("<persistent-memory>") and r["source_page_count"] == len(r["source_page_ids"])
    assert "raw session evidence" in r["raw_retention"]


# -- review ---------------------------------------------------------------------------------------
def test_candidates_confirm_changes_resident_and_reject(client: TestClient, data: Data) -> None:
    listed = get(client, "/candidates").json()["candidates"]
    by_id = {c["id"]: c for c in listed}
    therapy = by_id[data.candidates["sensitive"]]
    assert therapy["redacted"] is True and "title" not in therapy and "depression" not in str(listed)
    assert by_id[data.candidates["conflict"]]["status"] == "pending_conflict"
    before = get(client, "/resident").json()
    r = client.post(API + f"/candidates/{data.candidates['confirm']}/confirm", headers=USER)
    assert r.status_code == 200 and r.json()["page"]["title"] == "Candidate confirm"
    after = get(client, "/resident").json()
    assert after["version"] != before["version"] and "Mira mentioned confirm once." in after["text"]
    assert client.post(API + f"/candidates/{data.candidates['confirm']}/confirm", headers=USER).status_code == 409
    r = client.post(API + f"/wiki/candidates/{data.candidates['reject']}/reject", headers=USER)
    assert r.status_code == 200 and r.json()["status"] == "rejected"
    assert client.post(API + f"/candidates/{data.candidates['wiki-confirm']}/approve", headers=USER).status_code == 404
    assert client.post(API + "/candidates/c-ffffffffffffffff/confirm", headers=USER).status_code == 404
    conflicted = client.post(API + f"/candidates/{data.candidates['conflict']}/confirm", headers=USER)
    assert conflicted.status_code == 409 and "resolve" in conflicted.json()["message"]
    confirmed = [a for a in audits(client, "candidate-confirmed") if a["detail"]["candidate"] == data.candidates["confirm"]]
    assert confirmed and confirmed[0]["authority"] == "management"
    assert [c["status"] for c in get(client, "/candidates?status=rejected").json()["candidates"]] == ["rejected"]
    assert get(client, "/candidates?status=bogus").status_code == 400


def test_conflict_resolution_400_and_404(client: TestClient, data: Data) -> None:
    contested = get(client, "/conflicts?state=contested").json()["conflicts"]
    assert [k["id"] for k in contested] == [data.conflict]
    path = API + f"/conflicts/{data.conflict}/resolve"
    assert client.post(path, headers=USER, json={"resolution": "overwrite"}).status_code == 400
    assert client.post(API + "/conflicts/k-ffffffffffffffff/resolve", headers=USER, json={"resolution": "correction"}).status_code == 404
    r = client.post(path, headers=USER, json={"resolution": "correction"})
    assert r.status_code == 200 and r.json()["page"]["description"] == "Mira quit coffee in March."
    again = client.post(path, headers=USER, json={"resolution": "correction"})
    assert again.status_code == 404  # no state changes
    assert get(client, "/conflicts?state=open").status_code == 400


def test_observation_routes(client: TestClient, data: Data) -> None:
    assert get(client, "/observations").json() == {"observations": []}
    sid = data.sessions[0]
    # two plain user lines (event 13, a ticket number, is identifier-shaped and would make the
    # observation protected, so its anchors would be withheld)
    body = {"text": "Often plans trips", "anchors": [f"session:{sid}/event:2", f"session:{sid}/event:36"], "confidence": 0.6}
    r = client.post(API + "/observations", headers=USER, json=body)
    if hasattr(riko.Memory, "add_observation"):
        assert r.status_code == 201
        [row] = get(client, "/observations").json()["observations"]
        assert row["anchors"] == body["anchors"] and isinstance(row["session_ids"], list)  # arrays, not JSON text
    else:
        assert r.status_code == 501 and "Memory.add_observation()" in r.json()["message"]
    assert client.post(API + "/observations", headers=USER, json={"text": "x", "anchors": []}).status_code == 400
    assert client.post(API + "/observations/o-1/rename", headers=USER).status_code == 404


# -- sessions, audits -----------------------------------------------------------------------------
def test_session_evidence_hides_sensitive_and_unclassified_lines(client: TestClient, data: Data) -> None:
    sid = data.sessions[0]
    d = get(client, f"/sessions/{sid}").json()
    assert d["line_count"] == len(d["lines"]) and d["revealed"] is False
    assert sum(d["classification_counts"].values()) == d["line_count"]
    assert re.fullmatch(r"[0-9a-f]{64}", d["sha256"])
    shown = [line for line in d["lines"] if line["text"]]
    hidden = [line for line in d["lines"] if line["hidden"]]
    assert shown and hidden
    assert all(line["sensitivity"] == "normal" for line in shown)
    assert all(line["sensitivity"] != "normal" and line["text"] is None and line["byte_count"] > 0 for line in hidden)
    assert d["byte_count"] == sum(line["byte_count"] for line in d["lines"])
    window = get(client, f"/sessions/{sid}?offset=2&limit=3").json()
    assert [line["seq"] for line in window["lines"]] == [line["seq"] for line in d["lines"][2:5]]
    assert window["sha256"] == d["sha256"]
    assert get(client, f"/sessions/{sid}?limit=0").status_code == 400
    assert get(client, "/sessions/no-such-session").status_code == 404


def test_audits_route_limits_and_filters(client: TestClient) -> None:
    a = get(client, "/audits?limit=2").json()
    assert len(a["audits"]) == 2 and a["total"] >= 2
    assert a["audits"][0]["id"] < a["audits"][1]["id"]
    kinds = {row["kind"] for row in get(client, "/audits?kind=page-created").json()["audits"]}
    assert kinds == {"page-created"}
    assert get(client, "/audits?limit=abc").status_code == 400


# -- configuration --------------------------------------------------------------------------------
def test_post_config_accepts_dream_settings_and_rejects_secrets(client: TestClient) -> None:
    r = client.post(API + "/config", headers=USER, json={"dreamModel": "deepseek-reasoner", "dream_max_tokens": 2048,
                                                          "dreamCredentialRef": "MY_DREAM_KEY"})
    assert r.status_code == 200
    view = r.json()
    assert view["dream_model"] == "deepseek-reasoner" and view["dream_max_tokens"] == 2048
    assert view["credentials"]["dream"] == {"ref": "MY_DREAM_KEY", "present": False}
    # the setting belongs to this profile's scope only
    other = get(client, "/config", {"x-dsh-memory-profile": "work", "authorization": f"Bearer {TOKENS['work']}"}).json()
    assert other["dream_model"] == "deepseek-chat"
    for bad in ({"apiKey": "abc"}, {"api_key": "abc"}, {"dream_api_key": "abc"}, {"secret": "abc"},
                {"dreamCredentialRef": "sk-abcdef123456"}, {"dream_model": "token-abcdef"},
                {"dream_api_url": "https://user:pw@llm.example.test/v1"}, {"dream_api_url": "http://llm.example.test/v1"},
                {"dream_api_url": "https://llm.example.test/v1?api_key=zzz"}, {"max_resident_chars": 10},
                {"dream_max_tokens": 5}, {}):
        r = client.post(API + "/config", headers=USER, json=bad)
        assert r.status_code == 400, bad
        for value in bad.values():
            if isinstance(value, str) and len(value) > 3:
                assert value not in r.text
    assert get(client, "/config").json()["dream_model"] == "deepseek-reasoner"


def test_config_view_is_safe(client: TestClient) -> None:
    view = get(client, "/config").json()
    for hidden in ("owner_namespace", "api_token", "api_tokens", "owner_admin_token"):
        assert hidden not in view
    assert view["owner_admin_configured"] is True and view["scope_binding"] == "profile+owner-admin"
    assert view["api_path"] == API and view["profile"] == "companion" and view["owner_admin"] is False


# -- input bounds and ids -------------------------------------------------------------------------
@pytest.mark.parametrize("raw", ["..%2F..%2Fetc%2Fpasswd", "%2e%2e", "..%2f", ".hidden", "-rf", "a%20b", "a%00b",
                                 "x" * 200, "%2E%2E%2F%2E%2E%2Friko.toml"])
def test_path_traversal_and_bad_ids_are_rejected(client: TestClient, raw: str) -> None:
    for path in (f"/wiki/pages/{raw}", f"/sessions/{raw}", f"/candidates/{raw}/confirm", f"/wiki/pages/{raw}/versions"):
        method = "POST" if path.endswith("confirm") else "GET"
        r = client.request(method, API + path, headers=USER)
        assert r.status_code in (400, 404), (path, r.status_code)
        assert r.headers["content-type"].startswith("application/json")
        assert "root:" not in r.text
    r = client.get(API + f"/static/{raw}")
    assert r.status_code == 404


def test_oversized_and_malformed_bodies(client: TestClient, data: Data) -> None:
    big = b'{"content": "' + b"a" * MAX_BODY_BYTES + b'"}'
    r = client.post(API + "/memories", headers={**USER, "content-type": "application/json"}, content=big)
    assert r.status_code == 413 and r.json()["error"] == "body-too-large"

    def chunks() -> Iterator[bytes]:  # no content-length: the stream is cut off while reading
        yield b'{"content": "'
        for _ in range(40):
            yield b"b" * 32768
        yield b'"}'

    r = client.post(API + "/memories", headers={**USER, "content-type": "application/json"}, content=chunks())
    assert r.status_code == 413
    assert client.post(API + "/memories", headers=USER, content=b"{not json").status_code == 400
    assert client.post(API + "/memories", headers=USER, content=b"[1, 2]").status_code == 400
    assert client.post(API + "/memories", headers=USER, content=b"").status_code == 400
    assert client.post(API + "/memories", headers={**USER, "content-length": "x"}, content=b"{}").status_code == 400
    titles = {p.get("title") for p in get(client, "/wiki").json()["pages"]}
    assert not any(t and t.startswith("aaaa") for t in titles)


def test_body_limit_is_configurable(tmp_path: Any) -> None:
    app = create_app(tmp_path, {}, max_body_bytes=64)
    with TestClient(app, client=LOCAL) as c:
        h = {"x-dsh-memory-profile": "solo"}
        assert c.post(API + "/memories", headers=h, json={"content": "short"}).status_code == 201
        assert c.post(API + "/memories", headers=h, json={"content": "x" * 100}).status_code == 413


def test_errors_are_json_and_never_cached(client: TestClient) -> None:
    for r in (client.get(API + "/wiki"), get(client, "/nope"), get(client, "/wiki/pages/p-ffffffffffffffff"),
              client.post(API + "/memories", headers=USER, json={"content": ""})):
        assert r.headers["cache-control"] == "no-store"
        assert set(r.json()) == {"error", "message"}


# -- recall, purge, dream -------------------------------------------------------------------------
def test_recall_routes(client: TestClient) -> None:
    r = client.post(API + "/recall", headers=USER, json={"query": "Where does Mira live?", "history": False})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"context", "results", "trace"} and isinstance(body["context"], str)
    debug = client.post(API + "/recall/debug", headers=USER, json={"query": "Where does Mira live?"}).json()
    assert "trace" in debug and "context" not in debug
    assert client.post(API + "/recall", headers=USER, json={}).status_code == 400
    assert client.post(API + "/recall", headers=USER, json={"query": 5}).status_code == 400


def test_recall_and_purge_are_404_when_disabled(tmp_path: Any) -> None:
    with TestClient(create_app(tmp_path, {}), client=LOCAL) as c:
        h = {"x-dsh-memory-profile": "solo"}
        assert c.post(API + "/recall", headers=h, json={"query": "x"}).status_code == 404
        assert c.post(API + "/recall/debug", headers=h, json={"query": "x"}).status_code == 404
        assert c.post(API + "/purge", headers=h, json={"sessionId": "s1", "dryRun": True}).status_code == 404


def test_purge_dry_run_then_confirmed(client: TestClient, data: Data) -> None:
    sid = data.sessions[-1]
    plan = client.post(API + "/purge", headers=USER, json={"sessionId": sid, "dryRun": True})
    assert plan.status_code == 200
    token = plan.json()["confirmation"]
    assert plan.json()["changed"] is False
    wrong = client.post(API + "/purge", headers=USER, json={"sessionId": sid, "confirmation": "0" * 32})
    assert wrong.status_code == 400 and wrong.json()["error"] == "confirmation-mismatch"
    assert sid in {s["session_id"] for s in get(client, "/sessions").json()["sessions"]}
    done = client.post(API + "/purge", headers=USER, json={"sessionId": sid, "confirmation": token})
    assert done.status_code == 200 and done.json()["verified"] is True
    assert sid not in {s["session_id"] for s in get(client, "/sessions").json()["sessions"]}
    journal = get(client, "/purges").json()["purges"]
    assert [j["status"] for j in journal if j["session_id"] == sid] == ["completed"]
    assert client.post(API + "/purge", headers=USER, json={"dryRun": True}).status_code == 400


def test_dream_is_queued_and_reported(client: TestClient, data: Data) -> None:
    r = client.post(API + "/dream", headers=USER, json={"sessionId": data.sessions[0]})
    assert r.status_code == 202 and r.json()["queued"] is True
    dream = get(client, "/wiki").json()["dream"]  # the test client has run the background task
    assert dream["state"] == "idle" and dream["last_error"] is None and dream["last_run_at"]
    assert dream["jobs"]["total"] >= 1
    assert client.post(API + "/dream", headers=USER, json={"sessionId": "../x"}).status_code == 400


# -- the page ------------------------------------------------------------------------------------
def test_review_page_is_dependency_free_and_locked_down(client: TestClient) -> None:
    page = client.get(API + "/ui")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert f'src="{API}/static/app.js"' in page.text and f'href="{API}/static/app.css"' in page.text
    for asset in (page.text, client.get(API + "/static/app.js").text, client.get(API + "/static/app.css").text):
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg\b)|//cdn|@import|<script[^>]*>[^<]", asset)
    js = client.get(API + "/static/app.js")
    assert js.headers["content-type"].startswith("text/javascript")
    assert "sessionStorage" in js.text and "innerHTML" not in js.text
    for element in ("resident-version", "wiki-tree", "page-detail", "graph", "candidates", "session-detail",
                    "settings", "token", "profile", "dream-error"):
        assert f'id="{element}"' in page.text


def test_custom_api_path(tmp_path: Any) -> None:
    with TestClient(create_app(tmp_path, {"api_path": "/mem"}), client=LOCAL) as c:
        assert 'content="/mem"' in c.get("/mem/ui").text
        assert c.get("/mem/config", headers={"x-dsh-memory-profile": "solo"}).json()["api_path"] == "/mem"
        assert c.get("/memory/v1/ui").status_code == 404


def test_docs_list_every_route(tmp_path: Any) -> None:
    """docs/http-api.md's route tables and the app's routes are the same set."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "http-api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| (GET|POST|PUT|DELETE) \| `([^`]+)` \|", text, flags=re.M))
    app = create_app(tmp_path, {})
    registered = {(method, route.path[len(API):]) for route in app.routes for method in (route.methods or ())
                  if method not in ("HEAD", "OPTIONS") and route.path not in (API, API + "/", API + "/ui")
                  and "{rest:path}" not in route.path and "/static/" not in route.path}
    assert documented == registered


def test_audits_about_protected_records_withhold_their_text(client: TestClient, data: Data) -> None:
    rows = get(client, "/audits?limit=5000").json()["audits"]
    about_health = [a for a in rows if a["target"] == data.pages["health"]]
    assert about_health and all("title" not in (a["detail"] or {}) for a in about_health)
    assert any((a["detail"] or {}).get("redacted") for a in about_health)
    about_therapy = [a for a in rows if a["target"] == data.candidates["sensitive"]]
    assert about_therapy and "Therapy" not in str(about_therapy)
    mira = [a for a in rows if a["target"] == data.pages["mira"] and a["kind"] == "page-created"]
    assert mira[0]["detail"]["title"] == "Mira"


def test_loosening_a_protected_page_needs_owner_admin(client: TestClient, data: Data) -> None:
    pid = data.pages["health"]
    r = client.put(API + f"/wiki/pages/{pid}", headers=USER, json={"sensitivity": "normal"})
    assert r.status_code == 403 and r.json()["error"] == "owner-admin-required" and "anxiety" not in r.text
    refused = audits(client, "memory-sensitivity-rejected")
    assert refused[-1]["target"] == target_hash("local:companion", "page", pid) and refused[-1]["authority"] == "refused"
    assert get(client, f"/wiki/pages/{pid}").json()["redacted"] is True
    # tightening is open to any token; loosening with the owner-admin token is a management change
    assert client.put(API + f"/wiki/pages/{data.pages['atlas']}", headers=USER,
                      json={"sensitivity": "provisional_sensitive"}).json()["redacted"] is True
    r = client.put(API + f"/wiki/pages/{data.pages['atlas']}", headers=ADMIN_H, json={"sensitivity": "normal"})
    assert r.status_code == 200 and r.json()["title"] == "Atlas"


def test_a_protected_page_s_conflict_does_not_show_its_title(tmp_path) -> None:
    root = tmp_path / "root"
    with riko.open(root, preset="companion") as mem:
        page = mem.create_page("I take insulin at 8", description="I take insulin at 8", sensitivity="sensitive")
        mem.propose("I take insulin at 8", description="I take insulin at 9")
        assert mem.conflicts("contested")["page_id"].to_list() == [page.id]
    app = create_app(root, TOKEN_CONFIG)
    with TestClient(app, client=LOCAL) as c:
        body = c.get(API + "/conflicts", headers=USER).text
    assert "insulin" not in body and '"redacted":true' in body.replace(" ", "")
