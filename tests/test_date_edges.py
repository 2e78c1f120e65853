"""Dates at the calendar's edges through every surface: page files, CLI flags, HTTP bodies, log lines.

Years 1 and 9999 with every kind of offset, leap seconds, naive and aware values, dates only:
whatever riko reads either works or is refused with a RikoError naming the file, line and field
(or the flag, or the JSON path). Never a traceback, never a 500, and an unknown frontmatter
field is kept as written, never parsed as a date. Budgets are fixed and derandomized.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_data import ADMIN, TOKEN_CONFIG, LiveServer

import riko
from riko.cli.main import main
from riko.clock import EARLIEST, LATEST, MAX_MS, MIN_MS, from_ms, to_ms, utc
from riko.errors import InvalidDateError, RikoError, StateError, WikiFormatError
from riko.server import create_app
from riko.wiki.page import parse_page

BUDGET = settings(max_examples=40, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
HEADERS = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}", "content-type": "application/json"}
LOW = "0001-01-01T00:00:00+05:00"  # year 0 once in UTC
HIGH = "9999-12-31T23:59:59-05:00"  # year 10000 once in UTC


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


@st.composite
def edge_times(draw: Any) -> str:
    """ISO / RFC 3339 / YAML date-times near the calendar's ends (some impossible on purpose)."""
    year = draw(st.sampled_from([1, 2, 1969, 1970, 2016, 9998, 9999]))
    month, day = draw(st.sampled_from([(1, 1), (12, 31), (2, 28), (2, 29), (6, 30)]))
    clock = draw(st.sampled_from(["", "T00:00:00", "T23:59:59", "T23:59:60", "T23:59:59.999999", " 12:00:00",
                                  "T00:00", "t05:00:00,5"]))
    zone = draw(st.sampled_from(["", "Z", "z", "+00:00", "-00:00", "+05:00", "-05:00", "+14:00", "-12:00",
                                 "+23:59", "-23:59", "+0530", "+05"])) if clock else ""
    return f"{year:04d}-{month:02d}-{day:02d}{clock}{zone}"


def _fits(text: str) -> bool:
    """Whether ``text`` names an instant of years 1-9999 in UTC (the reference answer)."""
    try:
        utc(text)
    except InvalidDateError:
        return False
    return True


# -- the parser itself ------------------------------------------------------------------------------
@BUDGET
@given(edge_times())
def test_the_parser_answers_an_instant_or_a_named_error(text: str) -> None:
    try:
        moment = utc(text, where="$.atTime")
    except InvalidDateError as exc:
        assert str(exc).startswith("$.atTime: ") and repr(text) in str(exc)
        return
    assert EARLIEST <= moment <= LATEST and moment.tzinfo is not None
    assert from_ms(to_ms(moment)) == moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def test_the_parser_rules() -> None:
    assert utc("2016-12-31T23:59:60Z") == utc("2017-01-01T00:00:00Z")  # a leap second, POSIX style
    assert utc("2026-01-15") == utc("2026-01-15T00:00:00") == utc("2026-01-15T00:00:00Z")  # naive is UTC
    assert utc("2001-12-14 21:59:43.10 -5") == utc("2001-12-15T02:59:43.1Z")  # YAML's own form
    assert utc("0001-01-01T00:00:00-05:00").year == 1 and utc("9999-12-31T23:59:59+05:00").year == 9999
    for bad in (LOW, HIGH, "9999-12-31T23:59:60Z", "2026-02-30", "2026-01-15T09:00:00+24:00", "", "soon"):
        with pytest.raises(InvalidDateError):
            utc(bad)
    for ms in (MIN_MS - 1, MAX_MS + 1, float("nan"), float("inf")):
        with pytest.raises(InvalidDateError):
            from_ms(ms)
    assert from_ms(MIN_MS) == EARLIEST and to_ms(LATEST) == MAX_MS


# -- page files -------------------------------------------------------------------------------------
def _page_file(root: Path) -> Path:
    wiki = root / "wiki" / "local" / "companion"
    return next(p for p in wiki.rglob("*.md") if p.name != "RESIDENT.md")


@pytest.fixture(scope="module")
def page_root(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    root = tmp_path_factory.mktemp("date-pages")
    (root / "riko.toml").write_text("recall_enabled = true\n", encoding="utf-8")
    with riko.open(root, preset="companion") as mem:
        page = mem.create_page("Tea", "Likes green tea.")
    return root, page.id, _page_file(root).read_text(encoding="utf-8")


@pytest.mark.parametrize("line", [f"nickname: {LOW}", f"reviewed: {HIGH}", "birthday: 2026-02-30",
                                  "seen: 9999-12-31T23:59:60Z", f"when: [{LOW}, {{at: {HIGH}}}]"])
def test_an_unknown_field_is_kept_as_written_and_blocks_nothing(page_root: tuple[Path, str, str], line: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    root, pid, original = page_root
    path = _page_file(root)
    path.write_text(original.replace("status: confirmed\n", f"status: confirmed\n{line}\n"), encoding="utf-8")
    R = ["--root", str(root), "--preset", "companion"]
    assert main(["wiki", "check", *R]) == 0
    assert main(["wiki", "sync", *R]) == 0
    stamps = re.findall(r"\d{4}-[\d:+T.-]+Z?", line)
    assert path.read_text(encoding="utf-8") == original.replace("status: confirmed\n", f"status: confirmed\n{line}\n")
    assert main(["correct", pid, "Likes oolong.", *R]) == 0
    assert main(["init", *R]) == 0
    with riko.open(root, preset="companion") as mem:
        assert all(f" {s}" in path.read_text(encoding="utf-8") for s in stamps)
        page = mem.page(pid)
        assert "oolong" in page.description + page.body and mem.resident().text
    app = create_app(root, TOKEN_CONFIG)
    with LiveServer(app) as base:
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
        conn.request("GET", "/memory/v1/wiki", headers=HEADERS)
        assert conn.getresponse().status == 200
    capsys.readouterr()
    path.write_text(original, encoding="utf-8")
    with riko.open(root, preset="companion") as mem:
        mem.correct(pid, "Likes green tea.")


@pytest.mark.parametrize("value", [LOW, HIGH, "2026-02-30", "9999-12-31T23:59:60Z"])
@pytest.mark.parametrize("name", ["valid_from", "observed_at", "recorded_at"])
def test_a_known_date_field_out_of_range_names_file_line_and_field(page_root: tuple[Path, str, str], name: str,
                                                                   value: str) -> None:
    root, _pid, original = page_root
    path = _page_file(root)
    lines = original.replace(f"{name}: ", "dropped: ").splitlines()
    at = lines.index("status: confirmed") + 1
    lines.insert(at, f"{name}: {value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        with pytest.raises(WikiFormatError) as info:
            parse_page(path.read_text(encoding="utf-8"), path)
        err = info.value
        assert (err.path, err.line, err.field) == (path, at + 1, name) and repr(value) in str(err)
        with riko.open(root, preset="companion") as mem:
            checked = [(e.path, e.line, e.field) for e in mem.wiki_check()]
            synced = [(e.path, e.line, e.field) for e in mem.sync().errors]
        assert checked == synced == [(path, at + 1, name)]  # check finds what sync hits
    finally:
        path.write_text(original, encoding="utf-8")


@settings(BUDGET, max_examples=30)
@given(st.sampled_from(["nickname", "valid_from", "valid_to", "observed_at", "recorded_at"]), edge_times())
def test_page_files_with_edge_dates_sync_or_are_named(page_root: tuple[Path, str, str], name: str,
                                                      value: str) -> None:
    root, pid, original = page_root
    path = _page_file(root)
    lines = [ln for ln in original.splitlines() if not ln.startswith(f"{name}:")]
    lines.insert(lines.index("status: confirmed") + 1, f"{name}: {value}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        with riko.open(root, preset="companion") as mem:
            checked = [(e.path, e.line, e.field) for e in mem.wiki_check()]
            report = mem.sync()
            synced = [(e.path, e.line, e.field) for e in report.errors]
            assert checked == synced
            if name == "nickname" or _fits(value):
                assert not synced, synced
                page = mem.page(pid)
                assert page.extra.get("nickname", value) == value
                mem.resident()
                mem.context.config.recall_enabled and mem.recall("what tea do I like?")
                mem.pages()
            else:
                assert synced == [(path, lines.index(f"{name}: {value}") + 1, name)]
    finally:
        path.write_text(original, encoding="utf-8")
        with riko.open(root, preset="companion") as mem:
            mem.sync()


# -- CLI flags --------------------------------------------------------------------------------------
def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("argv", "flag"), [
    (["recall", "tea", "--at", HIGH], "--at"),
    (["replace", "{pid}", "x", "--valid-from", LOW], "--valid-from"),
    (["resolve", "x", "correction", "--valid-from", HIGH], "--valid-from"),
])
def test_an_edge_date_flag_is_one_line_naming_the_flag(page_root: tuple[Path, str, str], argv: list[str],
                                                       flag: str) -> None:
    root, pid, _ = page_root
    code, out, err = _cli([a.replace("{pid}", pid) for a in argv] + ["--root", str(root), "--preset", "companion"])
    assert code == 2 and len(err.splitlines()) == 1 and f"argument {flag}: " in err, err
    assert "Traceback" not in out + err and "once in UTC" in err


@BUDGET
@given(st.sampled_from(["recall", "replace", "resolve"]), edge_times())
def test_cli_flags_at_the_edges(page_root: tuple[Path, str, str], command: str, value: str) -> None:
    root, pid, _ = page_root
    argv = {"recall": ["recall", "tea", "--at", value], "replace": ["replace", "p-nosuch", "x", "--valid-from", value],
            "resolve": ["resolve", "c-nosuch", "correction", "--valid-from", value]}[command]
    code, out, err = _cli([*argv, "--root", str(root), "--preset", "companion", "--json"])
    assert "Traceback" not in out + err
    if _fits(value):
        # a usable date reaches the memory: recall answers; the unknown ids are then refused
        assert code == (0 if command == "recall" else 2), err
    else:
        assert code == 2 and len(err.splitlines()) == 1 and "argument --" in err, err


# -- HTTP bodies ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def api(page_root: tuple[Path, str, str]) -> Iterator[tuple[http.client.HTTPConnection, str]]:
    root, pid, _ = page_root
    with LiveServer(create_app(root, {**TOKEN_CONFIG, "recall_enabled": True})) as base:
        conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
        yield conn, pid
        conn.close()


def _post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], tuple]:
    conn.request("POST", path, body=json.dumps(body), headers=HEADERS)
    response = conn.getresponse()
    data = json.loads(response.read() or b"{}")
    assert (response.getheader("connection") or "").lower() != "close"
    assert conn.sock is not None
    return response.status, data, conn.sock.getsockname()


def _routes(pid: str, value: str) -> list[tuple[str, dict[str, Any], str]]:
    return [("/memory/v1/recall", {"query": "tea", "atTime": value}, "$.atTime"),
            (f"/memory/v1/wiki/pages/{pid}/temporal", {"content": "Likes oolong.", "validFrom": value}, "$.validFrom"),
            ("/memory/v1/conflicts/c-nosuch/resolve", {"resolution": "correction", "valid_from": value},
             "$.valid_from")]


@pytest.mark.parametrize("value", [LOW, HIGH])
def test_an_edge_date_in_a_body_is_a_400_naming_its_json_path(api: tuple[http.client.HTTPConnection, str],
                                                              value: str) -> None:
    conn, pid = api
    where = None
    for path, body, name in _routes(pid, value):
        status, data, sock = _post(conn, path, body)
        assert status == 400 and data["message"].startswith(f"{name}: "), (path, status, data)
        assert where in (None, sock)  # the same connection served every request
        where = sock
    conn.request("GET", "/memory/v1/wiki", headers=HEADERS)
    response = conn.getresponse()
    response.read()
    assert response.status == 200 and conn.sock is not None and conn.sock.getsockname() == where


@BUDGET
@given(st.integers(0, 2), edge_times())
def test_http_bodies_at_the_edges(api: tuple[http.client.HTTPConnection, str], which: int, value: str) -> None:
    conn, pid = api
    path, body, name = _routes(pid, value)[which]
    if which == 1:
        body["validFrom"] = value  # replacing needs a start after the page's own; the unknown id is fine too
        path = path.replace(pid, "p-nosuch")
    status, data, _ = _post(conn, path, body)
    assert status < 500, (path, body, status, data)
    if not _fits(value):
        assert status == 400 and data["message"].startswith(f"{name}: "), data
    elif which == 0:
        assert status == 200, data


# -- log lines and captured events ------------------------------------------------------------------
@pytest.fixture(scope="module")
def log_memory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[riko.Memory, Path]]:
    with riko.open(tmp_path_factory.mktemp("edge-log-root"), preset="companion") as mem:
        yield mem, tmp_path_factory.mktemp("edge-logs")


@settings(BUDGET, max_examples=25)
@given(edge_times(), st.sampled_from(["l0", "chat"]))
def test_log_lines_at_the_edges_are_events_or_named_issues(log_memory: tuple[riko.Memory, Path], value: str,
                                                           kind: str) -> None:
    mem, logs = log_memory
    sid = f"s-{len(list(logs.iterdir()))}"
    if kind == "l0":
        line: dict[str, Any] = {
            "schemaVersion": 1, "sessionId": sid, "seq": 0, "time": value, "type": "user/message",
            "data": {"message": {"role": "user", "source": {"kind": "user"},
                                 "content": [{"type": "text", "text": "I like tea."}]}}}
    else:
        line = {"role": "user", "content": "I like tea.", "timestamp": value}
    path = logs / f"{sid}.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    report = mem.ingest(path, preset="companion", progress=False)
    issues = report.errors.to_dicts()
    assert report.events == 1 or issues, report
    if _fits(value):
        assert report.events == 1, issues
    else:  # a chat line is kept without its time; an L0 line is refused; both name the line
        assert issues and issues[0]["line"] == 1 and repr(value) in issues[0]["message"], issues
    with pytest.raises(StateError, match="recall_enabled"):
        mem.recall("tea")  # recall is off by default on every surface


@settings(BUDGET, max_examples=25)
@given(st.one_of(edge_times(), st.sampled_from([MIN_MS, MAX_MS, MIN_MS - 1, MAX_MS + 1])))
def test_a_captured_event_at_the_edges_is_kept_or_refused(page_root: tuple[Path, str, str], value: Any) -> None:
    root, _, _ = page_root
    event = {"sessionId": "s-capture", "type": "user/message", "time": value,
             "data": {"message": {"role": "user", "content": [{"type": "text", "text": "Tea."}]}}}
    with riko.open(root, preset="companion") as mem:
        try:
            mem.capture(event)
        except RikoError as exc:
            assert isinstance(exc, InvalidDateError) and "time" in str(exc)
            assert not (isinstance(value, str) and _fits(value))


def test_clock_doctests() -> None:
    import doctest

    import riko.clock

    assert doctest.testmod(riko.clock).failed == 0
