"""No input reaches a 500, the connection outlives every error, and messages name real routes.

One keep-alive connection to a real loopback server carries every request of a test, so a
server that dropped it after an error would show up as a new local port.
"""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_data import ADMIN, TOKEN_CONFIG, LiveServer
from starlette.routing import Route

import riko
from riko.errors import REMEDIES, phrase
from riko.server import create_app

BUDGET = settings(max_examples=150, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
PREFIX = "/memory/v1"
HEADERS = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}", "content-type": "application/json"}
_NAMED_ROUTE = re.compile(r"\b(GET|POST|PUT|DELETE) (/[a-z][\w/{}.-]*[\w}])")


def _routes(app: Any) -> set[tuple[str, str]]:
    """(method, path template without the API prefix) of every route the app serves."""
    found = set()
    for route in app.routes:
        if isinstance(route, Route) and route.path.startswith(PREFIX + "/") and "{rest:path}" not in route.path:
            for method in route.methods or ():
                found.add((method, route.path.removeprefix(PREFIX)))
    return found


def _matches(path: str, templates: set[str]) -> bool:
    for template in templates:
        pattern = re.sub(r"\\\{[^}]+\\\}", r"[^/]+", re.escape(template))
        if re.fullmatch(pattern, path) or path == template:
            return True
    return False


def _named_routes() -> set[tuple[str, str]]:
    """Every "METHOD /path" riko's own text names: remedies for the HTTP surface and source strings."""
    texts = []
    listings = {"candidates", "conflicts", "observations", "pages", "sessions"}
    for key in REMEDIES:
        for what in listings:
            texts.append(phrase(key, "http", what=what, route=getattr(riko.errors, "HTTP_LISTINGS", {}).get(what, what),
                                preset="p", other="o", root="r"))
    package = Path(riko.__file__).parent
    # the MCP endpoint is another app with routes of its own (``POST /capture``); its texts name those
    texts += [p.read_text(encoding="utf-8") for p in package.rglob("*.py")
              if "mcp" not in p.relative_to(package).as_posix()]
    return {(m.group(1), m.group(2)) for text in texts for m in _NAMED_ROUTE.finditer(text)}


def test_every_route_a_message_names_exists(tmp_path: Path) -> None:
    served = _routes(create_app(tmp_path, TOKEN_CONFIG))
    named = _named_routes()
    assert ("GET", "/wiki") in named  # what a missing page's message points to
    missing = sorted((m, p) for m, p in named if not _matches(p, {t for sm, t in served if sm == m}))
    assert not missing, f"messages name routes that do not exist: {missing}"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[http.client.HTTPConnection, Any, str]]:
    root = tmp_path_factory.mktemp("no-500")
    with riko.open(root, preset="companion") as mem:
        page = mem.create_page("Tea", "Green tea.")
        mem.propose("Coffee", "Black coffee.")
    app = create_app(root, {**TOKEN_CONFIG, "recall_enabled": True})

    async def broken(request: Any) -> Any:  # stands for any bug a handler may still hold
        raise RuntimeError("a bug")

    app.router.routes.insert(0, Route(PREFIX + "/test-broken", broken, methods=["GET"]))
    with LiveServer(app) as base:
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
        yield conn, app, page.id
        conn.close()


def _send(conn: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None,
          headers: dict[str, str] | None = None) -> tuple[int, bytes, Any]:
    before = conn.sock.getsockname() if conn.sock is not None else None
    conn.request(method, path, body=body, headers=HEADERS if headers is None else headers)
    response = conn.getresponse()
    data = response.read()
    assert (response.getheader("connection") or "").lower() != "close", (method, path, response.status)
    assert conn.sock is not None
    after = conn.sock.getsockname()
    assert before in (None, after), (method, path, "the server dropped the connection")
    return response.status, data, response


def test_a_missing_page_points_to_the_route_that_lists_pages(live: tuple[http.client.HTTPConnection, Any, str]):
    conn, _, _ = live
    status, data, _ = _send(conn, "GET", PREFIX + "/wiki/pages/p-nosuch")
    message = json.loads(data)["message"]
    assert status == 404 and "GET /wiki" in message and "GET /pages" not in message, message


def _named_in(message: str, app: Any) -> list[tuple[str, str]]:
    """The "METHOD /path" routes ``message`` names that the app does not serve."""
    served = _routes(app)
    return [(m.group(1), m.group(2)) for m in _NAMED_ROUTE.finditer(message)
            if not _matches(m.group(2), {t for sm, t in served if sm == m.group(1)})]


def test_every_route_an_answered_error_names_exists(live: tuple[http.client.HTTPConnection, Any, str]) -> None:
    """Every route with made-up ids and empty bodies, and paths that are not routes: each error the
    server really answers is JSON, and every route its message names is served."""
    conn, app, _ = live
    asked = [(m, re.sub(r"\{[^}]+\}", "x-nosuch", t)) for m, t in sorted(_routes(app))
             if t != "/test-broken" and m != "HEAD"]  # a HEAD answer has no body to read
    asked += [("GET", "/pages"), ("GET", "/nosuch"), ("POST", "/wiki/pages/x-nosuch/nosuch"), ("DELETE", "/wiki")]
    errors = 0
    for method, path in asked:
        status, raw, response = _send(conn, method, PREFIX + path, b"{}" if method in ("POST", "PUT") else None)
        if status < 400:
            continue
        errors += 1
        assert response.getheader("content-type", "").startswith("application/json"), (method, path, status)
        message = json.loads(raw).get("message", "")
        assert not _named_in(message, app), (method, path, message)
    assert errors >= len(asked) // 2  # most of these are refusals: the check saw real messages


def test_the_connection_outlives_an_unexpected_error(live: tuple[http.client.HTTPConnection, Any, str]) -> None:
    conn, _, _ = live
    assert _send(conn, "GET", PREFIX + "/wiki")[0] == 200
    status, data, response = _send(conn, "GET", PREFIX + "/test-broken")
    assert status == 500 and json.loads(data) == {"error": "internal", "message": "internal server error"}
    assert response.getheader("content-type", "").startswith("application/json")
    assert _send(conn, "GET", PREFIX + "/wiki")[0] == 200  # same connection, next request served


_SEGMENTS = st.one_of(st.sampled_from(["p-nosuch", "..", "%2e%2e", "x" * 200, "%00", "a:b", "-x", "{id}", "0",
                                       "confirm", "reject", "resolve", "activate", "-1", "99999999999999999999"]),
                      st.text(alphabet=st.characters(codec="ascii", exclude_characters="/?#"), max_size=12))
_QUERY = st.dictionaries(st.sampled_from(["limit", "offset", "kind", "status", "state", "q", "reveal", "root",
                                          "history", "k", "token", "seq", "at", "since"]),
                         st.one_of(st.text(max_size=10), st.integers().map(str),
                                   st.sampled_from(["", "-1", "true", "nan", "9999-12-31T23:59:59-05:00"])),
                         max_size=3)
_JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**20), max_value=10**20),
                               st.floats(allow_nan=False), st.text(max_size=12),
                               st.sampled_from(["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00",
                                                "2016-12-31T23:59:60Z", "2026-02-30"])),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                     max_leaves=6)
_BODY_KEYS = st.sampled_from(["content", "title", "body", "type", "validFrom", "valid_from", "atTime", "query",
                              "limit", "session_id", "level", "resolution", "confirmation", "sensitivity", "k",
                              "dream_interval_ms", "preset", "history", "tags", "sources"])


@BUDGET
@given(st.data())
def test_no_request_reaches_a_500_and_the_connection_stays(live: tuple[http.client.HTTPConnection, Any, str],
                                                           data: Any) -> None:
    conn, app, pid = live
    method, template = data.draw(st.sampled_from(sorted(r for r in _routes(app) if r[1] != "/test-broken")))
    path = re.sub(r"\{[^}]+\}", lambda m: data.draw(st.one_of(st.just(pid), _SEGMENTS)), template)
    query = data.draw(_QUERY)
    if query:
        from urllib.parse import urlencode

        path += "?" + urlencode(query)
    body = None
    if method in ("POST", "PUT"):
        value = data.draw(st.one_of(_JSON, st.dictionaries(_BODY_KEYS, _JSON, max_size=4)))
        body = data.draw(st.one_of(st.just(json.dumps(value).encode()), st.binary(max_size=30)))
    from urllib.parse import quote

    target = PREFIX + quote(path, safe="/?=&%:")
    status, raw, response = _send(conn, method, target, body)
    assert status < 500 or status in (501, 503), (method, target, body, status, raw[:300])
    if status >= 400:  # every refusal is JSON (the review page and its files are not), naming real routes
        assert response.getheader("content-type", "").startswith("application/json"), (method, target)
        if raw:  # (a HEAD answer has no body)
            assert not _named_in(json.loads(raw).get("message", ""), app), (method, target, raw[:300])
