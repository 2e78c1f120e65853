"""One error contract: every CLI command and every route answers bad input with a typed, one-line error.

The CLI prints ``riko: error: <what, where, what to do>`` on one line and exits 2 (argparse's
own usage errors exit 2 too); the server answers a JSON 4xx, never a traceback or a 500.
Commands and routes are enumerated from the parser and the app, so new ones are covered.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_data import ADMIN, TOKEN_CONFIG, TOKENS, LiveServer

import riko
from riko.cli.main import build_parser, main
from riko.errors import InvalidArgumentError, RikoError
from riko.server import create_app

# Commands that run something long even with bad scope arguments, or serve forever.
_SKIP = {("serve",), ("eval", "companion"), ("demo",)}
_FILL = {"id": "nope", "session": "nope", "paths": "/nonexistent/logs", "content": "x", "level": "normal",
         "resolution": "management", "query": "tea", "title": "T", "what": "evidence", "out": "/proc/riko-nope",
         "action": "activate", "file": "/nonexistent/cases.json"}
# Positionals that name something that does not exist: the command must fail with exit 2.
_MISSING = {"id", "session", "paths", "out", "file"}


def _commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, prefix + (name,))
            return
    yield prefix, parser


COMMANDS = [(cmd, sub) for cmd, sub in _commands(build_parser()) if cmd not in _SKIP]


def _argv(cmd: tuple[str, ...], sub: argparse.ArgumentParser, root: Path, preset: str) -> tuple[list[str], set[str]]:
    positionals = [a for a in sub._actions if not a.option_strings]
    options = {o for a in sub._actions for o in a.option_strings}
    required = [a for a in sub._actions if a.option_strings and a.required]
    argv = [*cmd, *(_FILL.get(a.dest, "x") for a in positionals)]
    for a in required:
        argv += [a.option_strings[0], "2026-01-15T00:00:00Z" if "valid" in a.dest else "/nonexistent/x"]
    if "--root" in options:
        argv += ["--root", str(root)]
    if "--preset" in options:
        argv += ["--preset", preset]
    return argv, {a.dest for a in positionals}


def _one_line_error(code: int, err: str) -> None:
    lines = err.strip().splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("riko: error: "), err
    assert "Traceback" not in err


SCOPED = [(c, s) for c, s in COMMANDS if any("--preset" in a.option_strings for a in s._actions)]


@pytest.mark.parametrize(("cmd", "sub"), SCOPED, ids=[" ".join(c) for c, _ in SCOPED])
def test_every_command_refuses_a_bad_preset_in_one_line(tmp_path, capsys, cmd, sub):
    argv, _ = _argv(cmd, sub, tmp_path, "bad preset!")
    code = main(argv)
    _one_line_error(code, capsys.readouterr().err)


@pytest.fixture(scope="module")
def populated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("contract")
    with riko.open(root, preset="companion") as mem:
        mem.create_page("Tea", "Green tea in the morning.")
    return root


# ``evidence <session>`` of an unknown session is an empty listing, not an error
MISSING = [(c, s) for c, s in COMMANDS
           if {a.dest for a in s._actions if not a.option_strings} & _MISSING and c != ("evidence",)]


@pytest.mark.parametrize(("cmd", "sub"), MISSING, ids=[" ".join(c) for c, _ in MISSING])
def test_every_command_naming_something_missing_fails_in_one_line(populated, capsys, cmd, sub):
    argv, _ = _argv(cmd, sub, populated, "companion")
    code = main(argv)
    _one_line_error(code, capsys.readouterr().err)


def test_invalid_argument_error_is_a_value_error_and_a_riko_error(tmp_path):
    with riko.open(tmp_path, preset="companion") as mem:
        with pytest.raises(InvalidArgumentError) as info:
            mem.create_page("Tea", "x", type="recipe")
        assert isinstance(info.value, ValueError) and isinstance(info.value, RikoError)
        assert "type must be one of" in str(info.value)


# -- server ---------------------------------------------------------------------------------------
USER = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {TOKENS['companion']}"}
ADMIN_HEADERS = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}"}
BAD_BODIES = (b'{"content": [1, {', b"[]", b'{"content": {"nested": true}, "limit": "many", "valid_from": "2026-02-30"}')


@pytest.fixture(scope="module")
def server(populated) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    app = create_app(populated, TOKEN_CONFIG)
    routes = sorted({(m, r.path) for r in app.routes for m in (getattr(r, "methods", None) or ())
                     if m not in ("HEAD", "OPTIONS")})
    with LiveServer(app) as base:
        yield base, routes


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "nope", path)


def test_every_route_answers_bad_input_with_json_4xx(server):
    base, routes = server
    assert len(routes) > 20
    with httpx.Client(base_url=base, timeout=60) as c:
        for method, path in routes:
            url = _concrete(path)
            for headers in ({"x-dsh-memory-profile": "bad preset!", "authorization": USER["authorization"]},
                            {"x-dsh-memory-profile": "companion"}):
                r = c.request(method, url, headers=headers)
                if "ui" in url or url.endswith(("/v1", "/v1/")) or "/static/" in url:
                    continue  # the public page and its files
                assert 400 <= r.status_code < 500, (method, url, headers, r.status_code, r.text[:200])
                assert r.headers["content-type"].startswith("application/json") and "error" in r.json()
            if method in ("POST", "PUT", "DELETE", "PATCH"):
                for body in BAD_BODIES:
                    for auth in (USER, ADMIN_HEADERS):
                        r = c.request(method, url, headers={**auth, "content-type": "application/json"}, content=body)
                        assert r.status_code < 500, (method, url, body, r.status_code, r.text[:300])
                        if r.status_code >= 400:
                            assert r.headers["content-type"].startswith("application/json") and "error" in r.json()
            else:
                r = c.get(url + "?limit=many&status=bogus&at_time=2026-02-30&k=-5", headers=ADMIN_HEADERS)
                assert r.status_code < 500, (url, r.status_code, r.text[:300])
