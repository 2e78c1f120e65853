"""Properties over hostile input: parsers, log readers, ingest and HTTP bodies raise only RikoError.

Budgets are small and fixed (``derandomize``) so CI time stays bounded and a failure replays.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_data import ADMIN, TOKEN_CONFIG, LiveServer

import riko
from riko.dream.protocol import parse_file_blocks
from riko.errors import ProviderError, RikoError, WikiFormatError
from riko.ingest.readers import LogReader
from riko.server import create_app
from riko.wiki.page import parse_page, render_page

BUDGET = settings(max_examples=60, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# YAML-ish values: dates that do not exist, huge numbers, tags, aliases, nesting, odd scalars
_VALUES = st.one_of(
    st.sampled_from(["2026-02-30", "2026-13-01", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00",
                     "!!float abc", "!!int x", "!!binary ???", "&a [*a]", "*nope", "[" * 50 + "]" * 50,
                     "9" * 5001, "-.inf", ".nan", "yes", "~", "{a: {b: {c: [1, 2]}}}", "'unterminated", "@", "|\n  x",
                     "!!timestamp 2026-99-99", "!!python/object:os.system x"]),
    st.text(max_size=40),
    st.integers().map(str),
    st.dates().map(str),
)
_KEYS = st.sampled_from(["id", "type", "title", "status", "version", "tags", "sources", "confidence", "valid_from",
                         "valid_to", "observed_at", "consent", "locked", "sensitivity", "supersedes", "note", "when"])


@st.composite
def page_texts(draw: Any) -> str:
    lines = ["id: p-1", "type: concept", "title: T"]
    for _ in range(draw(st.integers(0, 4))):
        lines.append(f"{draw(_KEYS)}: {draw(_VALUES)}")
    if draw(st.booleans()):
        lines = draw(st.permutations(lines))
    return "---\n" + "\n".join(lines) + "\n---\n" + draw(st.text(max_size=60))


@BUDGET
@given(st.one_of(page_texts(), st.text(max_size=300)))
def test_page_parser_raises_only_wiki_format_error(text: str) -> None:
    try:
        page = parse_page(text, "concepts/x.md")
    except WikiFormatError as exc:
        assert str(exc).startswith("concepts/x.md")
        return
    assert parse_page(render_page(page)) == page  # what it accepts, it can write back


_JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**25), max_value=10**25),
              st.floats(allow_nan=False), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)
_FIELDS = st.sampled_from(["role", "content", "time", "timestamp", "seq", "type", "data", "sessionId", "session_id",
                           "schemaVersion", "message", "id", "agentPreset", "createdAt"])


@st.composite
def log_lines(draw: Any) -> bytes:
    kind = draw(st.sampled_from(["chat", "l0", "harness", "raw"]))
    if kind == "raw":
        return draw(st.binary(max_size=80)).replace(b"\n", b" ")
    base: dict[str, Any] = {
        "chat": {"role": "user", "content": "hi"},
        "l0": {"schemaVersion": 1, "sessionId": "s", "seq": 1, "time": 1767000000000, "type": "user/message", "data": {}},
        "harness": {"seq": 1, "time": 1767000000000, "type": "user/message", "data": {}},
    }[kind]
    for _ in range(draw(st.integers(1, 3))):
        base[draw(_FIELDS)] = draw(_JSON_VALUES)
    return json.dumps(base).encode()


_HEADERS = [b"", b'{"type":"session","version":4,"id":"s","createdAt":1767000000000,"agentPreset":"companion"}\n']


@BUDGET
@given(st.sampled_from(_HEADERS), st.lists(log_lines(), min_size=1, max_size=6))
def test_log_reader_turns_every_bad_line_into_an_issue(tmp_path: Path, header: bytes, lines: list[bytes]) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(header + b"\n".join(lines) + b"\n")
    try:
        reader = LogReader(path, session_id="s")
        events = list(reader.events())
    except RikoError:
        return  # a file that cannot be read at all is an IngestError
    assert all(isinstance(i.line, int) or i.line is None for i in reader.issues)
    # The reader's contract (docs/warehouse.md): a line yields at most one event and at most
    # one issue; a warning issue rides on the event of its line, any other issue replaces it.
    dropped = [i for i in reader.issues if not i.kept]
    assert len(events) + len(dropped) <= len(lines) + 1  # + 1: the header line
    event_lines = [e.line for e in events]
    assert len(event_lines) == len(set(event_lines))
    warned = [i.line for i in reader.issues if i.kept]
    assert len(warned) == len(set(warned))
    assert set(warned) <= set(event_lines)
    assert not {i.line for i in dropped if i.line is not None} & set(event_lines)


def test_a_line_kept_with_a_warning_is_one_event_and_one_issue(tmp_path: Path) -> None:
    # the falsifying example once found: two chat lines whose time is unusable
    path = tmp_path / "log.jsonl"
    line = json.dumps({"role": "user", "content": "hi", "time": []})
    path.write_text(line + "\n" + line + "\n")
    reader = LogReader(path, session_id="s")
    events = list(reader.events())
    assert [e.text for e in events] == ["hi", "hi"]
    assert [(i.kind, i.line, i.kept) for i in reader.issues] == [("invalid-time", 1, True), ("invalid-time", 2, True)]


@pytest.fixture(scope="module")
def ingest_mem(tmp_path_factory: pytest.TempPathFactory) -> Iterator[riko.Memory]:
    with riko.open(tmp_path_factory.mktemp("prop-ingest"), preset="companion") as mem:
        yield mem


@BUDGET
@given(st.lists(st.lists(log_lines(), min_size=1, max_size=4), min_size=1, max_size=3))
def test_ingest_pipeline_raises_only_riko_errors_and_keeps_good_files(ingest_mem: riko.Memory, tmp_path_factory: Any,
                                                                       files: list[list[bytes]]) -> None:
    folder = tmp_path_factory.mktemp("logs")
    good = json.dumps({"role": "user", "content": f"a good line of {folder.name}", "session_id": f"good-{folder.name}"})
    for n, lines in enumerate(files):
        (folder / f"{n}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (folder / "zz-good.jsonl").write_text(good + "\n")
    try:
        ingest_mem.ingest(folder, preset="companion", progress=False, workers=1)
    except RikoError:
        pass
    assert f"good-{folder.name}" in set(ingest_mem.sessions()["session_id"])  # the folder was not blocked


_BLOCK_PARTS = st.sampled_from([
    '<<<FILE path="wiki/concepts/a.md">>>', "<<<END>>>", "---", "type: concept", "title: A", "description: B",
    "status: confirmed", " " * 500, "\t" * 200, "<<<FILE", '<<<FILE path="../etc/passwd">>>', "[[link]]",
    "confidence: !!float x", "tags: [a, [b]]", "valid_from: 2026-02-30", "The user asked me to remember this.",
])


@BUDGET
@given(st.lists(st.one_of(_BLOCK_PARTS, st.text(max_size=30)), max_size=25))
def test_file_parser_raises_only_provider_error(parts: list[str]) -> None:
    try:
        result = parse_file_blocks("\n".join(parts))
    except ProviderError:
        return
    for page in result.pages:
        assert "status:" not in page.body and page.path.startswith("wiki/")


# -- HTTP bodies --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, list[str]]]:
    root = tmp_path_factory.mktemp("prop-http")
    with riko.open(root, preset="companion") as mem:
        page = mem.create_page("Tea", "Green tea.")
        cand = mem.propose("Coffee", "Black coffee.")
    app = create_app(root, TOKEN_CONFIG)
    posts = sorted({r.path.replace("{id}", page.id if "wiki/pages" in r.path else (cand or "x"))
                   .replace("{action}", "confirm").replace("{name}", "x")
                    for r in app.routes if "POST" in (getattr(r, "methods", None) or ())})
    with LiveServer(app) as base, httpx.Client(base_url=base, timeout=60) as client:
        yield client, posts


@BUDGET
@given(st.data())
def test_http_bodies_never_cause_a_server_error(api: tuple[httpx.Client, list[str]], data: Any) -> None:
    client, posts = api
    path = data.draw(st.sampled_from(posts))
    body = data.draw(st.one_of(_JSON_VALUES, st.dictionaries(st.sampled_from(
        ["content", "title", "body", "type", "valid_from", "query", "limit", "session_id", "level", "resolution",
         "confirmation", "anchors", "reason", "sensitivity", "k"]), _JSON_VALUES, max_size=4)))
    raw = data.draw(st.one_of(st.just(json.dumps(body).encode()), st.binary(max_size=40)))
    headers = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {ADMIN}",
               "content-type": "application/json"}
    r = client.post(path, content=raw, headers=headers)
    assert r.status_code < 500, (path, raw[:200], r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json")


# -- forgotten stays forgotten ----------------------------------------------------------------------
# (statement, its correction, the target a request names, language)
_MEMORIES = [
    ("I'm allergic to peanuts", "I'm allergic to peanuts and cashews", "peanuts", "en"),
    ("I work at the corner bakery", "I work at the corner bakery on Elm Street", "bakery", "en"),
    ("My sister Lena lives in Berlin", "My sister Lena lives in Hamburg", "Lena", "en"),
    ("我在面包店工作", "我在面包店和咖啡店工作", "面包店", "zh"),
    ("我对花生过敏", "我对花生和腰果过敏", "花生", "zh"),
]
_ASK = {
    "en": {"remember": ["Please remember: {c}.", "Remember this: {c}"],
           "correct": ["Correction: {c}", "Actually, please correct that: {c}"],
           "suppress": ["Please don't mention the {t} thing", "Please suppress the memory about {t}",
                        "Stop bringing up {t}"],
           "restore": ["You can mention {t} again", "Please restore the {t} memory"],
           "forget": ["Please forget the {t} thing", "Delete what I said about {t}"]},
    "zh": {"remember": ["请记住：{c}", "记一下：{c}"],
           "correct": ["更正一下：{c}", "纠正：{c}"],
           "suppress": ["别再提{t}了", "请屏蔽{t}那条记忆", "以后别跟我说{t}"],
           "restore": ["可以再提{t}了", "请恢复{t}那条记忆"],
           "forget": ["请忘记{t}的事", "把{t}那条删了"]},
}
FORGET_BUDGET = settings(max_examples=8, deadline=None, derandomize=True,
                         suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _say(mem: riko.Memory, sid: str, text: str) -> str:
    mem.clock.advance(seconds=1)  # type: ignore[attr-defined]
    mem.capture({"session_id": sid, "type": "user/message",
                 "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})
    return f"session:{sid}/event:{mem.evidence(sid)['seq'].max()}"


def _leaks(mem: riko.Memory, refs: set[str], texts: set[str], kept: str | None) -> list[str]:
    """Live pages and admitted or pending candidates made from the governed lines or their words."""
    from riko.review.authority import normalize_claim

    found = []
    for page in mem.context.canon.pages():
        if page.id != kept and page.status == "confirmed" and (
                set(page.sources) & refs or normalize_claim(page.description) in texts):
            found.append(f"page {page.id} {page.title!r} {page.sources}")
    for row in mem.context.review.cands.records():
        if row["status"] != "rejected" and (set(json.loads(row["evidence"] or "[]")) & refs
                                            or normalize_claim(row["description"] or "") in texts):
            found.append(f"candidate {row['id']} ({row['status']}) {row['title']!r}")
    return found


@FORGET_BUDGET
@given(memory=st.sampled_from(_MEMORIES), corrected=st.booleans(), cycles=st.integers(0, 1),
       final=st.sampled_from(["forget", "suppress"]), policy=st.sampled_from(["user_grounded", "all"]),
       later=st.lists(st.sampled_from(["dream", "rescan", "rescan-no-cache", "repeat-same", "repeat-other",
                                       "claim-other"]), min_size=2, max_size=4),
       data=st.data())
def test_a_forget_or_suppress_holds_its_lines_out_of_every_later_dream(
        tmp_path_factory: pytest.TempPathFactory, memory: tuple[str, str, str, str], corrected: bool, cycles: int,
        final: str, policy: str, later: list[str], data: Any) -> None:
    from riko.clock import FixedClock
    from riko.review.authority import normalize_claim
    from riko.tools import ToolBox

    fact, correction, target, lang = memory
    ask = _ASK[lang]

    def phrase(action: str, **fill: str) -> str:
        return data.draw(st.sampled_from(ask[action])).format(**fill)

    root = tmp_path_factory.mktemp("forget-prop")
    with riko.open(root, preset="companion", config={"candidate_auto_confirm": policy},
                   clock=FixedClock("2026-01-15T09:00:00Z")) as mem:
        box = ToolBox(mem, "s1")
        story: list[tuple[str, str]] = []  # (ref, text) of every line that stated, corrected or governed it

        def tell(text: str) -> None:
            story.append((_say(mem, "s1", text), text))

        tell(phrase("remember", c=fact))
        result = box.call("memory_remember", {"content": fact})
        assert result.ok, result.error
        pid = result.id
        claims = {fact}
        if corrected:
            tell(phrase("correct", c=correction))
            assert box.call("memory_correct", {"id": pid, "content": correction}).ok
            claims.add(correction)
        for _ in range(cycles):
            tell(phrase("suppress", t=target))
            assert box.call("memory_suppress", {"target": target}).ok, story[-1]
            tell(phrase("restore", t=target))
            assert box.call("memory_restore", {"target": target}).ok, story[-1]
        tell(phrase(final, t=target))
        done = box.call(f"memory_{final}", {"target": target})
        assert done.ok, (story[-1], done.error)

        refs = {ref for ref, _ in story}
        texts = {normalize_claim(t) for _, t in story} | {normalize_claim(c) for c in claims}
        kept = pid if final == "suppress" else None  # the suppressed memory itself stays, unused
        sessions = 1
        mem.dream(progress=False)
        assert _leaks(mem, refs, texts, kept) == []
        for step in later:
            if step in ("repeat-same", "repeat-other"):
                sid = "s1" if step == "repeat-same" else f"s{(sessions := sessions + 1)}"
                for _, text in data.draw(st.lists(st.sampled_from(story), min_size=1, max_size=len(story))):
                    refs.add(_say(mem, sid, text))
            elif step == "claim-other":
                sessions += 1
                refs.add(_say(mem, f"s{sessions}", data.draw(st.sampled_from(sorted(claims)))))
            mem.dream(progress=False, rescan=step.startswith("rescan"), use_cache=step != "rescan-no-cache")
            assert _leaks(mem, refs, texts, kept) == [], step
