"""Authentication of the control API: every route against no token, a wrong token, another
profile's token and the right one; the four modes; refusing a non-loopback start; secrets."""

from __future__ import annotations

import os
import warnings
from typing import Any, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # Starlette's nudge towards httpx2; riko ships httpx
    from starlette.testclient import TestClient

from riko.config import load_config
from riko.errors import ConfigError
from riko.server import AuthPolicy, check_startable, create_app, is_loopback_host, scope_binding
from riko.server.wire import ApiError
from server_data import ADMIN, DREAM_KEY, SECRETS, TOKEN_CONFIG, TOKENS, Data, populate

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

API = "/memory/v1"
LOCAL = ("127.0.0.1", 50000)


def _client(app: Any, client: tuple[str, int] = LOCAL) -> TestClient:
    return TestClient(app, client=client, raise_server_exceptions=True)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Data:
    return populate(tmp_path_factory.mktemp("auth"))


@pytest.fixture(scope="module")
def seen() -> list[str]:
    """Every response body and header block of the module, scanned for secrets at the end."""
    return []


@pytest.fixture(scope="module")
def client(data: Data, seen: list[str]) -> Iterator[TestClient]:
    previous = os.environ.get("DSH_MEMORY_DREAM_API_KEY")
    os.environ["DSH_MEMORY_DREAM_API_KEY"] = DREAM_KEY
    try:
        with _client(create_app(data.root, TOKEN_CONFIG)) as c:
            c.event_hooks["response"] = [lambda r: seen.append(r.read().decode("utf-8", "replace") + str(r.headers))]
            yield c
    finally:
        if previous is None:
            os.environ.pop("DSH_MEMORY_DREAM_API_KEY", None)
        else:
            os.environ["DSH_MEMORY_DREAM_API_KEY"] = previous


# (method, path template, body, statuses with the right token); {p[..]}, {c[..]}, {sid}, {k} are filled per run
ROUTES: list[tuple[str, str, Any, set[int]]] = [
    ("GET", "/config", None, {200}),
    ("POST", "/config", {"dream_model": "deepseek-reasoner"}, {200}),
    ("GET", "/wiki", None, {200}),
    ("GET", "/wiki/pages/{p[mira]}", None, {200}),
    ("GET", "/wiki/pages/{p[mira]}/versions", None, {200}),
    ("GET", "/wiki/graph?hop=1", None, {200}),
    ("GET", "/wiki/search?q=Lisbon", None, {200}),
    ("GET", "/wiki/sources", None, {200}),
    ("POST", "/wiki/sync", None, {200}),
    ("GET", "/resident", None, {200}),
    ("POST", "/wiki/pages", {"title": "Made over HTTP", "body": "A locked page."}, {201}),
    ("PUT", "/wiki/pages/{p[edit]}", {"content": "Edited over HTTP."}, {200}),
    ("POST", "/wiki/pages/{p[temporal]}/temporal", {"content": "Now different.", "validFrom": "2030-01-01T00:00:00Z"}, {201}),
    ("POST", "/wiki/pages/{p[supersede]}/supersede", {}, {200}),
    ("POST", "/wiki/pages/{p[suppress]}/suppress", {"reason": "test"}, {200}),
    ("POST", "/wiki/pages/{p[restore]}/restore", {}, {200}),
    ("DELETE", "/wiki/pages/{p[forget]}", None, {200}),
    ("POST", "/memories", {"content": "Mira keeps a paper notebook."}, {201}),
    ("DELETE", "/memories/{p[memory]}", None, {200}),
    ("POST", "/dream", {"sessionId": "{sid}"}, {202}),
    ("GET", "/candidates", None, {200}),
    ("POST", "/candidates/{c[confirm]}/confirm", None, {200}),
    ("POST", "/candidates/{c[reject]}/reject", None, {200}),
    ("POST", "/wiki/candidates/{c[wiki-confirm]}/confirm", None, {200}),
    ("POST", "/wiki/candidates/{c[wiki-reject]}/reject", None, {200}),
    ("GET", "/observations", None, {200}),
    ("POST", "/observations", {"text": "Often mentions travel", "confidence": 0.6,
                               "anchors": ["session:{sid}/event:2", "session:{sid}/event:13"]}, {201, 501}),
    ("POST", "/observations/o-0000000000000000/activate", None, {404, 501}),
    ("GET", "/conflicts", None, {200}),
    ("POST", "/conflicts/{k}/resolve", {"resolution": "correction"}, {200}),
    ("GET", "/audits", None, {200}),
    ("GET", "/sessions", None, {200}),
    ("GET", "/sessions/{sid}", None, {200}),
    ("PUT", "/sessions/{sid}/events/2/sensitivity", {"sensitivity": "sensitive"}, {200}),
    ("GET", "/purges", None, {200}),
    ("POST", "/purge", {"sessionId": "{sid}", "dryRun": True}, {404}),  # purge_enabled is off
    ("POST", "/recall", {"query": "what do I drink?"}, {404}),  # recall_enabled is off
    ("POST", "/recall/debug", {"query": "what do I drink?"}, {404}),
]


def _fill(value: Any, d: Data) -> Any:
    if isinstance(value, str):
        return value.format(p=d.pages, c=d.candidates, sid=d.sessions[0], k=d.conflict)
    if isinstance(value, list):
        return [_fill(v, d) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, d) for k, v in value.items()}
    return value


def _call(c: TestClient, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
    return c.request(method, API + path, json=body, headers=headers)


@pytest.mark.parametrize(("method", "template", "template_body", "expected"), ROUTES,
                         ids=[f"{m} {t.split('?')[0]}" for m, t, _, _ in ROUTES])
def test_every_route_401_403_and_ok(client: TestClient, data: Data, method: str, template: str,
                                    template_body: Any, expected: set[int]) -> None:
    path, body = _fill(template, data), _fill(template_body, data)
    companion = {"x-dsh-memory-profile": "companion"}
    r = _call(client, method, path, body, companion)
    assert r.status_code == 401, r.text
    assert r.headers["www-authenticate"] == "Bearer"
    r = _call(client, method, path, body, {**companion, "authorization": "Bearer not-a-token"})
    assert r.status_code == 401, r.text
    r = _call(client, method, path, body, {**companion, "authorization": f"Bearer {TOKENS['work']}"})
    assert r.status_code == 403 and r.json()["error"] == "profile-mismatch", r.text
    r = _call(client, method, path, body, {**companion, "authorization": f"Bearer {TOKENS['companion']}"})
    assert r.status_code in expected, r.text
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["content-type"].startswith("application/json")


def test_route_table_is_complete(data: Data) -> None:
    """The matrix above covers every data route the app registers."""
    app = create_app(data.root, TOKEN_CONFIG)
    registered = set()
    for route in app.routes:
        for method in route.methods or ():
            path = route.path
            if method in ("HEAD", "OPTIONS") or "{rest:path}" in path or "/static/" in path:
                continue
            if path in (API, API + "/", API + "/ui"):
                continue
            registered.add((method, path[len(API):]))
    covered = set()
    for method, template, _, _ in ROUTES:
        path = _fill(template, data)
        for route in app.routes:
            match = getattr(route, "path_regex", None)
            if match and match.fullmatch(API + path.split("?")[0]) and method in (route.methods or ()):
                covered.add((method, route.path[len(API):]))
                break
    assert registered == covered


def test_no_response_contains_a_secret(client: TestClient, data: Data, seen: list[str]) -> None:
    # the matrix has run by now in this module; add the admin's views and the config routes
    admin = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}"}
    for path in ("/config", "/wiki", "/audits?limit=5000", f"/sessions/{data.sessions[0]}?reveal=sensitive"):
        assert client.get(API + path, headers=admin).status_code == 200
    bad = client.post(API + "/config", headers=admin, json={"dream_credential_ref": DREAM_KEY})
    assert bad.status_code == 400
    assert client.post(API + "/config", headers=admin, json={"apiKey": DREAM_KEY}).status_code == 400
    assert client.get(API + "/config", headers=admin).json()["credentials"]["dream"]["present"] is True
    assert len(seen) > 4 * len(ROUTES)
    for text in seen:
        for secret in SECRETS:
            assert secret not in text


def test_owner_admin_token_works_for_any_profile(client: TestClient, data: Data) -> None:
    for profile in ("companion", "work", "fresh-profile"):
        r = client.get(API + "/config", headers={"x-dsh-memory-profile": profile, "authorization": f"Bearer {ADMIN}"})
        assert r.status_code == 200
        body = r.json()
        assert body["profile"] == profile and body["owner_admin"] is True
        assert body["scope_binding"] == "profile+owner-admin"
    # the admin token still needs the profile header
    r = client.get(API + "/config", headers={"authorization": f"Bearer {ADMIN}"})
    assert r.status_code == 400 and r.json()["error"] == "profile-required"


def test_token_without_header_and_bad_headers(client: TestClient) -> None:
    token = {"authorization": f"Bearer {TOKENS['companion']}"}
    assert client.get(API + "/wiki", headers=token).status_code == 400
    r = client.get(API + "/wiki", headers={**token, "x-dsh-memory-profile": "../companion"})
    assert r.status_code == 400 and r.json()["error"] == "invalid-profile"
    r = client.get(API + "/wiki", headers={**token, "x-dsh-memory-profile": "companion", "x-riko-profile": "work"})
    assert r.status_code == 400
    assert client.get(API + "/wiki", headers={**token, "x-riko-profile": "companion"}).status_code == 200
    assert client.get(API + "/wiki", headers={"authorization": "Basic abc", "x-dsh-memory-profile": "companion"}).status_code == 401


def test_profile_scopes_are_isolated(client: TestClient, data: Data) -> None:
    """A work token reads work's records; companion's page and session ids do not exist there."""
    work = {"x-dsh-memory-profile": "work", "authorization": f"Bearer {TOKENS['work']}"}
    assert client.get(API + f"/wiki/pages/{data.work_page}", headers=work).status_code == 200
    assert client.get(API + f"/wiki/pages/{data.pages['mira']}", headers=work).status_code == 404
    assert client.get(API + f"/sessions/{data.sessions[0]}", headers=work).status_code == 404
    assert client.post(API + "/dream", headers=work, json={"sessionId": data.sessions[0]}).status_code == 404
    titles = {p.get("title") for p in client.get(API + "/wiki", headers=work).json()["pages"]}
    assert titles == {"Atlas roadmap"}


def test_single_token_mode(tmp_path: Any) -> None:
    cfg = {"api_token": "tok-single-9a8b7c", "api_token_profile": "work"}
    with _client(create_app(tmp_path, cfg)) as c:
        ok = {"x-dsh-memory-profile": "work", "authorization": "Bearer tok-single-9a8b7c"}
        r = c.get(API + "/config", headers=ok)
        assert r.status_code == 200
        assert r.json()["scope_binding"] == "profile" and r.json()["auth_mode"] == "single-token"
        assert r.json()["api_token_profile"] == "work"
        other = {**ok, "x-dsh-memory-profile": "companion"}
        assert c.get(API + "/config", headers=other).status_code == 403
        assert c.get(API + "/config", headers={"x-dsh-memory-profile": "work"}).status_code == 401
        # a single token never grants owner admin
        r = c.get(API + "/wiki/pages/p-0123456789abcdef?reveal=sensitive", headers=ok)
        assert r.status_code == 403


def test_owner_admin_only_mode(tmp_path: Any) -> None:
    with _client(create_app(tmp_path, {"owner_admin_token": ADMIN})) as c:
        r = c.get(API + "/config", headers={"x-dsh-memory-profile": "work", "authorization": f"Bearer {ADMIN}"})
        assert r.status_code == 200 and r.json()["scope_binding"] == "owner-admin"
        assert c.get(API + "/config", headers={"x-dsh-memory-profile": "work"}).status_code == 401


def test_loopback_header_only_mode(tmp_path: Any) -> None:
    app = create_app(tmp_path, {})
    with _client(app) as c:
        r = c.get(API + "/wiki", headers={"x-dsh-memory-profile": "companion"})
        assert r.status_code == 404 and r.json()["error"] == "no-scope"  # reads never create a scope
        assert not (tmp_path / "warehouse").exists()
        import riko

        riko.open(tmp_path, preset="companion").close()
        r = c.get(API + "/wiki", headers={"x-dsh-memory-profile": "companion"})
        assert r.status_code == 200
        cfg = c.get(API + "/config", headers={"x-dsh-memory-profile": "companion"}).json()
        assert cfg["auth_mode"] == "loopback-header" and cfg["owner_admin"] is False
        assert c.get(API + "/wiki").status_code == 401
        assert c.get(API + "/wiki", headers={"x-dsh-memory-profile": "companion", "authorization": "Bearer x"}).status_code == 401
        # header-only access is never owner admin
        r = c.get(API + "/wiki/pages/p-0123456789abcdef?reveal=sensitive", headers={"x-dsh-memory-profile": "companion"})
        assert r.status_code == 403
    with _client(app, client=("10.20.30.40", 50000)) as c:
        r = c.get(API + "/wiki", headers={"x-dsh-memory-profile": "companion"})
        assert r.status_code == 403 and r.json()["error"] == "loopback-only"


def test_the_page_is_public_and_preflight_is_204_null(client: TestClient) -> None:
    for path in (API, API + "/", API + "/ui"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    r = client.options(API + "/wiki", headers={"origin": "https://example.test", "access-control-request-method": "GET"})
    assert r.status_code == 204
    assert r.headers["access-control-allow-origin"] == "null"
    assert "x-dsh-memory-profile" in r.headers["access-control-allow-headers"]


def test_non_loopback_start_is_refused(tmp_path: Any) -> None:
    for host in ("0.0.0.0", "192.0.2.10", "::", "example.test"):
        with pytest.raises(ConfigError, match="refusing to serve on non-loopback host"):
            create_app(tmp_path, {}, host=host)
    for host in ("127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]"):
        assert is_loopback_host(host)
        check_startable(load_config(overrides={}, environ={}), host)
    create_app(tmp_path, {"owner_admin_token": ADMIN}, host="0.0.0.0")
    create_app(tmp_path, {"api_tokens": TOKENS}, host="0.0.0.0")


def test_cli_refuses_non_loopback_without_token(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from riko.cli.serve import main

    assert main(["--root", str(tmp_path), "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "refusing to serve on non-loopback host '0.0.0.0'" in err


def test_scope_binding_values() -> None:
    base = load_config(overrides={}, environ={})
    assert scope_binding(base.replace(api_tokens=TOKENS)) == "profile"
    assert scope_binding(base.replace(api_token="t-1", api_token_profile="work")) == "profile"
    assert scope_binding(base.replace(api_tokens=TOKENS, owner_admin_token=ADMIN)) == "profile+owner-admin"
    assert scope_binding(base.replace(owner_admin_token=ADMIN)) == "owner-admin"


_POLICY = AuthPolicy(load_config(overrides=TOKEN_CONFIG, environ={}))


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=80))
def test_profile_header_validation_property(profile: str) -> None:
    """A profile header is accepted exactly when it matches [A-Za-z0-9._-]{1,64}."""
    import re

    headers = {"x-dsh-memory-profile": profile, "authorization": f"Bearer {ADMIN}"}
    valid = re.fullmatch(r"[A-Za-z0-9._-]{1,64}", profile) is not None
    try:
        principal = _POLICY.authenticate(headers, "127.0.0.1")
    except ApiError as exc:
        assert not valid and exc.status == 400
    else:
        assert valid and principal.profile == profile and principal.owner_admin


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.sampled_from([*TOKENS.values(), ADMIN, ADMIN + "x", TOKENS["work"][:-1]]),
                 st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=12, max_size=40)))
def test_only_configured_tokens_authenticate(token: str) -> None:
    headers = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {token}"}
    try:
        principal = _POLICY.authenticate(headers, "127.0.0.1")
    except ApiError as exc:
        assert exc.status in (401, 403)
        assert token not in exc.message
    else:
        assert token in (TOKENS["companion"], ADMIN)  # work's token is bound to another profile: 403
        assert principal.owner_admin == (token == ADMIN)
