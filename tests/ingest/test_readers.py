"""Session-log readers: every format, damage reporting, resume points and bounding, on real files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import orjson
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from riko.errors import IngestError
from riko.ingest.readers import (
    SKIPPED_TYPES,
    LogEvent,
    LogReader,
    detect_format,
    is_skipped_type,
    iter_log_files,
)
from riko.ingest.zstd_frames import FrameFault, iter_frames

T0 = 1_772_438_400_000  # 2026-03-02T08:00:00Z
SID = "5b0c6f7e-3d2a-4c1b-9e8f-7a6b5c4d3e2f"
HEADER = {
    "type": "session", "version": 4, "id": SID, "createdAt": T0, "delegationDepth": 0,
    "cwd": "/home/mira/journal", "agentPreset": "companion",
}


def line(obj: object) -> bytes:
    return orjson.dumps(obj) + b"\n"


def user_msg(text: str, kind: str = "user") -> dict:
    return {"id": "m1", "role": "user", "source": {"kind": kind}, "content": [{"type": "text", "text": text}]}


def ev(seq: int, etype: str, data: dict, **extra: object) -> dict:
    return {"seq": seq, "time": T0 + 1000 * seq, "type": etype, "data": data, **extra}


def turn_events() -> list[dict]:
    """One realistic turn: chunks, reasoning, a plugin recall, a tool round trip."""
    return [
        ev(0, "turn/start", {"turn": 1}),
        ev(1, "user/message", user_msg("I prefer dark mode."), surfaceOp="append"),
        ev(2, "step/start", {"turn": 1, "step": 0}),
        ev(3, "user/message", user_msg("<MEMORY_DATA>- likes jazz</MEMORY_DATA>", "plugin")),
        ev(4, "assistant/chunk", {"turn": 1, "step": 0, "delta": {"type": "text", "text": "Dark "}}),
        ev(5, "reasoning-chunks", {"turn": 1, "step": 0, "chunks": ["think"]}),
        ev(6, "assistant/message", {
            "turn": 1, "step": 0,
            "message": {"role": "assistant", "content": [
                {"type": "reasoning", "text": "secret reasoning"}, {"type": "text", "text": "Dark mode it is."}],
                "source": {"kind": "model", "provider": "p", "model": "m"}},
            "usage": {"inputTokens": 10},
        }),
        ev(7, "tool-call-chunks", {"turn": 1, "step": 0, "chunks": ["{"]}),
        ev(8, "tool/call", {"turn": 1, "step": 0, "callId": "c1", "name": "shell", "arguments": '{"command":"ls"}'}),
        ev(9, "tool/result", {"turn": 1, "step": 0, "message": {"source": {"kind": "tool", "callId": "c1"}, "content": [
            {"type": "tool-result", "toolCallId": "c1", "content": [{"type": "text", "text": "a.txt\nb.txt"}], "isError": False}]}}),
        ev(10, "text-chunks", {"turn": 1, "step": 1, "chunks": ["x"]}),
        ev(11, "turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
    ]


def session_dir(tmp_path: Path, project: str = "--home-mira-journal--", sid: str = SID) -> Path:
    d = tmp_path / project / sid
    d.mkdir(parents=True)
    return d


def write_plain(path: Path, objs: list[object], header: dict | None = HEADER) -> Path:
    path.write_bytes((line(header) if header else b"") + b"".join(line(o) for o in objs))
    return path


def write_frames(path: Path, frames: list[list[object]], header: dict | None = HEADER) -> list[int]:
    """Write a multi-frame zstd log; return each frame's start offset (header frame first)."""
    cctx = zstandard.ZstdCompressor(write_checksum=True)
    blobs = ([cctx.compress(line(header))] if header else []) + [
        cctx.compress(b"".join(line(o) for o in batch)) for batch in frames
    ]
    offsets, pos = [], 0
    for blob in blobs:
        offsets.append(pos)
        pos += len(blob)
    path.write_bytes(b"".join(blobs))
    return offsets


def kinds(reader: LogReader) -> list[str]:
    return [i.kind for i in reader.issues]


# -- harness -------------------------------------------------------------------------------


def test_harness_plain_projection_and_text(tmp_path: Path) -> None:
    path = write_plain(session_dir(tmp_path) / "session.jsonl", turn_events())
    reader = LogReader(path)
    events = list(reader.events())

    assert reader.format == "harness" and not reader.compressed
    assert [e.seq for e in events] == [0, 1, 2, 3, 6, 8, 9, 11]
    assert all(e.session_id == SID for e in events)
    assert [e.line for e in events] == [2, 3, 4, 5, 8, 10, 11, 13]
    by_seq = {e.seq: e for e in events}

    user = by_seq[1]
    assert (user.role, user.source_kind, user.text) == ("user", "user", "I prefer dark mode.")
    assert user.data == {"message": user_msg("I prefer dark mode.")}
    assert user.time_ms == T0 + 1000

    plugin = by_seq[3]
    assert (plugin.type, plugin.role, plugin.source_kind) == ("user/message", "user", "plugin")

    reply = by_seq[6]
    assert reply.text == "Dark mode it is."  # reasoning is not text
    assert set(reply.data) == {"message", "turn", "step"} and reply.data["turn"] == 1
    assert (reply.role, reply.source_kind) == ("assistant", "model")

    assert by_seq[8].text == '{"command":"ls"}' and by_seq[8].data["name"] == "shell"
    assert by_seq[9].text == "a.txt\nb.txt" and by_seq[9].source_kind == "tool"
    assert set(by_seq[9].data) == {"message", "turn", "step"}
    assert by_seq[11].data == {"turn": 1, "reason": {"kind": "completed"}} and by_seq[11].text == ""

    assert reader.issues == []
    assert reader.bytes_consumed == path.stat().st_size
    assert reader.lines_consumed == 13


def test_harness_header_is_read_eagerly(tmp_path: Path) -> None:
    header = dict(HEADER, parentSession="parent-1")
    path = write_plain(session_dir(tmp_path) / "session.jsonl", turn_events(), header)
    reader = LogReader(path)
    meta = reader.header
    assert meta is not None
    assert (meta.session_id, meta.preset, meta.created_ms, meta.cwd) == (SID, "companion", T0, "/home/mira/journal")
    assert (meta.project_key, meta.parent_session, meta.format) == ("--home-mira-journal--", "parent-1", "harness")
    assert reader.sessions == {SID: meta}


def test_harness_without_header_uses_folder_name(tmp_path: Path) -> None:
    path = write_plain(session_dir(tmp_path, sid="folder-sid") / "session.jsonl", turn_events(), header=None)
    reader = LogReader(path)
    assert reader.header is None and reader.format == "harness"
    events = list(reader.events())
    assert {e.session_id for e in events} == {"folder-sid"}
    assert events[0].line == 1


def test_harness_zstd_multi_frame_matches_plain(tmp_path: Path) -> None:
    events = turn_events()
    plain = write_plain(session_dir(tmp_path, "--a--") / "session.jsonl", events)
    packed = session_dir(tmp_path, "--b--") / "session.jsonl.zstd"
    write_frames(packed, [events[:3], events[3:7], events[7:]])

    # A one-shot decoder sees only the header frame: the classic multi-frame trap.
    assert zstandard.ZstdDecompressor().decompress(packed.read_bytes(), max_output_size=1 << 20).count(b"\n") == 1

    a, b = LogReader(plain), LogReader(packed)
    assert b.compressed and b.format == "harness" and b.header is not None and b.header.preset == "companion"
    assert list(a.events()) == list(b.events())
    assert b.issues == [] and b.bytes_consumed == packed.stat().st_size and b.lines_consumed == 13


def test_chunk_rows_are_skipped_but_their_seq_counts(tmp_path: Path) -> None:
    evs = [
        ev(0, "turn/start", {"turn": 1}),
        ev(1, "assistant/chunk", {"delta": {"type": "text", "text": "x"}}),
        {"type": "text-chunks", "data": {"chunks": []}, "time": T0, "seq": 2},  # other key order
        ev(3, "future/chunk", {}),
        ev(4, "image-chunks", {}),
        ev(6, "assistant/chunk", {}),  # a gap inside the chunk stream is still a gap
        ev(7, "user/message", user_msg('look: {"type":"assistant/chunk"} is just text')),
    ]
    reader = LogReader(write_plain(tmp_path / "session.jsonl", evs))
    events = list(reader.events())
    assert [e.seq for e in events] == [0, 7]
    assert events[1].text == 'look: {"type":"assistant/chunk"} is just text'
    assert kinds(reader) == ["seq-gap"] and reader.issues[0].line == 7


def test_skipped_types() -> None:
    assert SKIPPED_TYPES == {"assistant/chunk", "text-chunks", "reasoning-chunks", "tool-call-chunks"}
    assert is_skipped_type("x/chunk") and is_skipped_type("audio-chunks")
    assert not is_skipped_type("assistant/message") and not is_skipped_type("chunky")


def test_malformed_and_invalid_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    body = [
        line(HEADER),
        line(ev(0, "turn/start", {"turn": 1})),
        b'{"seq":1,"time":5,"type":"user/mess\n',
        line([1, 2, 3]),
        line({"time": T0, "type": "turn/end", "data": {}}),
        line({"seq": 1, "time": "not a time", "type": "x/y", "data": {}}),
        line({"seq": 1, "time": T0, "data": {}}),
        line({"seq": 1, "time": T0, "type": "x/y", "data": [1]}),
        b"\n",
        line(ev(1, "user/message", user_msg("still here"))),
    ]
    path.write_bytes(b"".join(body))
    reader = LogReader(path)
    events = list(reader.events())
    assert [(e.seq, e.line, e.text) for e in events] == [(0, 2, ""), (1, 10, "still here")]
    assert [(i.kind, i.line) for i in reader.issues] == [
        ("malformed-json", 3), ("invalid-event", 4), ("invalid-event", 5),
        ("invalid-event", 6), ("invalid-event", 7), ("invalid-event", 8),
    ]
    assert all(i.path == str(path) for i in reader.issues)
    assert reader.lines_consumed == 10


def test_seq_gap_kept_and_duplicate_dropped(tmp_path: Path) -> None:
    evs = [ev(0, "turn/start", {}), ev(1, "turn/end", {}), ev(4, "turn/start", {}), ev(4, "turn/end", {}),
           ev(2, "turn/start", {}), ev(5, "turn/end", {})]
    reader = LogReader(write_plain(tmp_path / "session.jsonl", evs))
    assert [e.seq for e in reader.events()] == [0, 1, 4, 5]
    assert [(i.kind, i.line) for i in reader.issues] == [("seq-gap", 4), ("seq-duplicate", 5), ("seq-duplicate", 6)]


def test_seq_must_start_at_zero(tmp_path: Path) -> None:
    reader = LogReader(write_plain(tmp_path / "session.jsonl", [ev(3, "turn/start", {})]))
    assert [e.seq for e in reader.events()] == [3]
    assert kinds(reader) == ["seq-gap"]


# -- zstd damage ---------------------------------------------------------------------------


def test_torn_last_frame_is_reported_and_earlier_frames_kept(tmp_path: Path) -> None:
    evs = turn_events()
    path = tmp_path / "session.jsonl.zstd"
    offsets = write_frames(path, [evs[:4], evs[4:9], evs[9:]])
    data = path.read_bytes()
    path.write_bytes(data[:-7])

    reader = LogReader(path)
    events = list(reader.events())
    assert [e.seq for e in events] == [0, 1, 2, 3, 6, 8]
    assert kinds(reader) == ["torn-frame"]
    assert reader.issues[0].offset == offsets[3]
    assert reader.bytes_consumed == offsets[3] and reader.lines_consumed == 10


def test_corrupt_middle_frame_is_skipped_and_reading_goes_on(tmp_path: Path) -> None:
    evs = turn_events()
    path = tmp_path / "session.jsonl.zstd"
    offsets = write_frames(path, [evs[:4], evs[4:9], evs[9:]])
    data = bytearray(path.read_bytes())
    middle = (offsets[2] + offsets[3]) // 2
    data[middle] ^= 0xFF
    path.write_bytes(bytes(data))

    reader = LogReader(path)
    events = list(reader.events())
    assert [e.seq for e in events] == [0, 1, 2, 3, 9, 11]
    assert kinds(reader) == ["corrupt-frame", "seq-gap"]
    assert reader.issues[0].offset == offsets[2]
    assert reader.bytes_consumed == path.stat().st_size


def test_frame_iterator_reports_garbage_tail(tmp_path: Path) -> None:
    path = tmp_path / "x.zst"
    write_frames(path, [[{"a": 1}]], header=None)
    size = path.stat().st_size
    path.write_bytes(path.read_bytes() + b"not zstd at all")
    with open(path, "rb") as fh:
        items = list(iter_frames(fh, 0))
    assert items[0] == (b'{"a":1}\n', size)
    assert isinstance(items[1], FrameFault) and items[1].kind == "corrupt-frame" and items[1].offset == size


def test_oversized_frame_streams_in_pieces(tmp_path: Path) -> None:
    path = tmp_path / "big.zst"
    payload = b"".join(line({"i": i, "pad": hashlib.sha256(b"%d" % i).hexdigest()}) for i in range(8000))
    path.write_bytes(zstandard.ZstdCompressor().compress(payload))
    with open(path, "rb") as fh:
        items = list(iter_frames(fh, 0, max_buffer=10_000, feed_size=512))
    assert len(items) > 2 and all(end is None for _, end in items[:-1])
    assert items[-1][1] == path.stat().st_size
    assert b"".join(p for p, _ in items) == payload


# -- resume --------------------------------------------------------------------------------


def test_resume_zstd_yields_exactly_the_new_events(tmp_path: Path) -> None:
    evs = turn_events()
    path = session_dir(tmp_path) / "session.jsonl.zstd"
    write_frames(path, [evs[:4], evs[4:9]])
    first = LogReader(path)
    seen = list(first.events())
    assert first.bytes_consumed == path.stat().st_size

    cctx = zstandard.ZstdCompressor(write_checksum=True)
    with open(path, "ab") as fh:
        fh.write(cctx.compress(b"".join(line(o) for o in evs[9:])))
    again = LogReader(path, start_offset=first.bytes_consumed, start_line=first.lines_consumed)
    assert again.header is not None and again.header.preset == "companion"
    rest = list(again.events())

    full = list(LogReader(path).events())
    assert seen + rest == full
    assert [e.seq for e in rest] == [9, 11] and again.issues == []
    assert again.bytes_consumed == path.stat().st_size and again.lines_consumed == 13

    done = LogReader(path, start_offset=again.bytes_consumed, start_line=again.lines_consumed)
    assert list(done.events()) == [] and done.bytes_consumed == path.stat().st_size


def test_resume_plain_and_unterminated_tail(tmp_path: Path) -> None:
    evs = turn_events()
    path = write_plain(tmp_path / "session.jsonl", evs[:6])
    with open(path, "ab") as fh:
        fh.write(orjson.dumps(evs[6]))  # complete JSON, no newline yet
    first = LogReader(path)
    seen = list(first.events())
    assert [e.seq for e in seen] == [0, 1, 2, 3, 6]
    assert first.bytes_consumed == path.stat().st_size - len(orjson.dumps(evs[6]))
    assert first.lines_consumed == 7

    with open(path, "ab") as fh:
        fh.write(b"\n" + b"".join(line(o) for o in evs[7:]))
        fh.write(b'{"seq":12,"time":1,"ty')  # a torn write
    again = LogReader(path, start_offset=first.bytes_consumed, start_line=first.lines_consumed)
    rest = list(again.events())
    assert [(e.seq, e.line) for e in rest] == [(6, 8), (8, 10), (9, 11), (11, 13)]
    assert [(i.kind, i.line) for i in again.issues] == [("malformed-json", 14)]
    assert again.bytes_consumed == path.stat().st_size - len(b'{"seq":12,"time":1,"ty')


_event_st = st.sampled_from(["turn/start", "user/message", "assistant/chunk", "tool/call", "text-chunks", "turn/end"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(types=st.lists(_event_st, min_size=1, max_size=40), cuts=st.lists(st.integers(1, 8), min_size=1, max_size=12),
       keep=st.integers(0, 12))
def test_resume_at_any_frame_boundary_equals_one_read(tmp_path_factory: pytest.TempPathFactory, types: list[str],
                                                      cuts: list[int], keep: int) -> None:
    objs = [ev(i, t, user_msg(f"m{i}") if t == "user/message" else {"turn": 1}) for i, t in enumerate(types)]
    frames, i = [], 0
    for n in cuts:
        if i < len(objs):
            frames.append(objs[i : i + n])
            i += n
    if i < len(objs):
        frames.append(objs[i:])
    keep = min(keep, len(frames))
    path = tmp_path_factory.mktemp("r") / "session.jsonl.zstd"
    write_frames(path, frames[:keep])
    first = LogReader(path)
    head = list(first.events())
    write_frames(path, frames)
    rest = list(LogReader(path, start_offset=first.bytes_consumed, start_line=first.lines_consumed).events())
    assert head + rest == list(LogReader(path).events())


# -- bounding ------------------------------------------------------------------------------


def test_long_text_is_cut_with_marker_in_text_and_data(tmp_path: Path) -> None:
    long = "a" * 120
    evs = [ev(0, "user/message", user_msg(long)), ev(1, "turn/start", {"note": "b" * 120, "n": 3})]
    reader = LogReader(write_plain(tmp_path / "session.jsonl", evs), max_text_chars=50)
    user, other = list(reader.events())
    assert user.truncated and user.text == "a" * 50 + "…[truncated 70 chars]"
    assert user.data["message"]["content"][0]["text"] == user.text
    assert user.data["message"]["role"] == "user"
    assert other.truncated and other.data == {"note": "b" * 50 + "…[truncated 70 chars]", "n": 3}

    short = LogReader(write_plain(tmp_path / "s2.jsonl", [ev(0, "user/message", user_msg("hi"))]), max_text_chars=50)
    assert not next(short.events()).truncated


def test_text_of_several_parts_is_bounded_as_a_whole(tmp_path: Path) -> None:
    msg = {"role": "user", "content": [{"type": "text", "text": "x" * 40}, {"type": "text", "text": "y" * 40}]}
    reader = LogReader(write_plain(tmp_path / "session.jsonl", [ev(0, "user/message", msg)]), max_text_chars=50)
    event = next(reader.events())
    assert event.text == "x" * 40 + "\n" + "y" * 9 + "…[truncated 31 chars]" and event.truncated
    assert event.data["message"]["content"][0]["text"] == "x" * 40


# -- riko L0 lines -------------------------------------------------------------------------


def to_l0(e: LogEvent, iso: bool) -> dict:
    from riko.clock import from_ms, iso as iso_text

    return {"schemaVersion": 1, "sessionId": e.session_id, "seq": e.seq,
            "time": iso_text(from_ms(e.time_ms)) if iso else e.time_ms, "type": e.type, "data": e.data}


def test_l0_round_trip_is_lossless(tmp_path: Path) -> None:
    evs = turn_events()
    evs[1]["data"]["content"][0]["text"] = "long " * 30
    original = list(LogReader(write_plain(session_dir(tmp_path) / "session.jsonl", evs), max_text_chars=60).events())
    assert any(e.truncated for e in original)
    path = tmp_path / "evidence.jsonl"
    path.write_bytes(b"".join(line(to_l0(e, iso=i % 2 == 0)) for i, e in enumerate(original)))

    assert detect_format(path) == "l0"
    back = list(LogReader(path, max_text_chars=60).events())
    strip = lambda e: (e.session_id, e.seq, e.time_ms, e.type, e.role, e.source_kind, e.text, e.data, e.truncated)  # noqa: E731
    assert [strip(e) for e in back] == [strip(e) for e in original]


def test_l0_holds_several_sessions(tmp_path: Path) -> None:
    rows = [
        {"schemaVersion": 1, "sessionId": "s1", "seq": 0, "time": "2026-03-02T08:00:00Z", "type": "user/message",
         "data": {"message": user_msg("one")}},
        {"schemaVersion": 1, "sessionId": "s2", "seq": 5, "time": T0, "type": "user/message",
         "data": {"message": user_msg("two")}},
        {"schemaVersion": 1, "sessionId": "s1", "seq": 3, "time": T0, "type": "assistant/chunk", "data": {}},
        {"schemaVersion": 1, "sessionId": "s1", "seq": 4, "time": T0, "type": "turn/end", "data": {"turn": 1}},
        {"schemaVersion": 1, "sessionId": "s2", "seq": 5, "time": T0, "type": "user/message", "data": {}},
        {"schemaVersion": 2, "sessionId": "s2", "seq": 9, "time": T0, "type": "user/message", "data": {}},
    ]
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"".join(line(r) for r in rows))
    reader = LogReader(path)
    events = list(reader.events())
    assert [(e.session_id, e.seq, e.text) for e in events] == [("s1", 0, "one"), ("s2", 5, "two"), ("s1", 4, "")]
    assert events[0].time_ms == T0
    assert set(reader.sessions) == {"s1", "s2"} and reader.sessions["s1"].format == "l0"
    assert reader.header is None
    assert [(i.kind, i.line) for i in reader.issues] == [("seq-duplicate", 5), ("invalid-event", 6)]


# -- chat transcripts ----------------------------------------------------------------------


def test_chat_json_array(tmp_path: Path) -> None:
    path = tmp_path / "trip-planning.json"
    path.write_text(json.dumps([
        {"role": "system", "content": "You are kind."},
        {"role": "user", "content": "I'm going to Kyoto.", "timestamp": "2026-03-02T08:00:00Z"},
        {"role": "assistant", "content": [{"type": "text", "text": "Lovely!"}, {"type": "image_url", "image_url": {}}],
         "timestamp": 1772438401},
        {"role": "narrator", "content": "?"},
        {"role": "tool", "content": "ok"},
    ], indent=2))
    assert detect_format(path) == "chat"
    reader = LogReader(path)
    events = list(reader.events())
    assert [(e.session_id, e.seq, e.type, e.role, e.source_kind, e.text) for e in events] == [
        ("trip-planning", 0, "system/message", "system", None, "You are kind."),
        ("trip-planning", 1, "user/message", "user", "user", "I'm going to Kyoto."),
        ("trip-planning", 2, "assistant/message", "assistant", "model", "Lovely!"),
        ("trip-planning", 3, "tool/message", "tool", "tool", "ok"),
    ]
    assert events[1].data == {"message": {"role": "user", "content": [{"type": "text", "text": "I'm going to Kyoto."}],
                                          "source": {"kind": "user"}}}
    assert [e.time_ms for e in events] == [0, T0, T0 + 1000, 0]
    assert [(i.kind, i.line) for i in reader.issues] == [("invalid-event", 4)]
    assert reader.bytes_consumed == path.stat().st_size and reader.lines_consumed == 5


def test_chat_jsonl_sessions_and_resume(tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    rows = [
        {"role": "user", "content": "hello", "session_id": "a"},
        {"role": "assistant", "content": "hi", "session_id": "a"},
        {"role": "user", "content": "other", "session_id": "b"},
    ]
    path.write_bytes(b"".join(line(r) for r in rows))
    first = LogReader(path, session_id="fallback")
    assert [(e.session_id, e.seq) for e in first.events()] == [("a", 0), ("a", 1), ("b", 0)]
    assert set(first.sessions) == {"a", "b"} and first.sessions["a"].format == "chat"

    with open(path, "ab") as fh:
        fh.write(line({"role": "user", "content": "again", "session_id": "a"}))
        fh.write(line({"role": "user", "content": "no id"}))
    again = LogReader(path, start_offset=first.bytes_consumed, start_line=first.lines_consumed, session_id="fallback")
    assert [(e.session_id, e.seq, e.line, e.text) for e in again.events()] == [("a", 2, 4, "again"), ("fallback", 0, 5, "no id")]


def test_chat_session_id_defaults_to_file_stem(tmp_path: Path) -> None:
    path = tmp_path / "mira-2026-03.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(line({"role": "user", "content": "hey"})))
    reader = LogReader(path)
    assert reader.compressed and reader.format == "chat"
    assert [e.session_id for e in reader.events()] == ["mira-2026-03"]


def test_chat_messages_object_document(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"session_id": "conv-7", "messages": [{"role": "user", "content": "x"}]}, indent=1))
    reader = LogReader(path)
    assert reader.format == "chat"
    assert [(e.session_id, e.text) for e in reader.events()] == [("conv-7", "x")]


# -- detection and walking -----------------------------------------------------------------


def test_detect_format_sniffs_content_not_name(tmp_path: Path) -> None:
    harness = tmp_path / "whatever.json"
    write_plain(harness, turn_events())
    assert detect_format(harness) == "harness"

    disguised = tmp_path / "plain-looking.jsonl"
    write_frames(disguised, [turn_events()])
    assert detect_format(disguised) == "harness" and LogReader(disguised).compressed

    chat_named_session = tmp_path / "session.jsonl"
    chat_named_session.write_bytes(line({"role": "user", "content": "hi"}))
    assert detect_format(chat_named_session) == "chat"

    empty = session_dir(tmp_path) / "session.jsonl.zstd"
    empty.write_bytes(b"")
    assert detect_format(empty) == "harness"
    assert list(LogReader(empty).events()) == []

    other = tmp_path / "notes.jsonl"
    other.write_bytes(line({"hello": "world"}))
    with pytest.raises(IngestError, match="not a recognised session log"):
        detect_format(other)
    reader = LogReader(other)
    assert reader.format == "unknown" and kinds(reader) == ["unsupported-format"]
    assert list(reader.events()) == []

    with pytest.raises(IngestError):
        LogReader(tmp_path / "missing.jsonl")


def test_iter_log_files_walks_sorted_and_filters(tmp_path: Path) -> None:
    names = ["b/--p--/s2/session.jsonl.zstd", "b/--p--/s1/session.jsonl", "a/chat.json", "a/x.jsonl.zst",
             "a/y.zst", "a/readme.md", "a/.hidden.jsonl", ".git/z.jsonl", "a/deep/er/e.jsonl"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_log_files([tmp_path])]
    assert found == ["a/chat.json", "a/deep/er/e.jsonl", "a/x.jsonl.zst", "a/y.zst",
                     "b/--p--/s1/session.jsonl", "b/--p--/s2/session.jsonl.zstd"]
    explicit = list(iter_log_files([tmp_path / "a" / "readme.md", tmp_path / "a", str(tmp_path / "a" / "chat.json")]))
    assert [p.name for p in explicit] == ["readme.md", "chat.json", "e.jsonl", "x.jsonl.zst", "y.zst"]
    assert [p.name for p in iter_log_files(tmp_path / "a" / "y.zst")] == ["y.zst"]
    with pytest.raises(IngestError):
        list(iter_log_files([tmp_path / "nope"]))


def test_chat_zstd_resume_continues_seq(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl.zst"
    cctx = zstandard.ZstdCompressor(write_checksum=True)
    path.write_bytes(cctx.compress(line({"role": "user", "content": "a"}) + line({"role": "assistant", "content": "b"})))
    first = LogReader(path)
    assert [e.seq for e in first.events()] == [0, 1]
    with open(path, "ab") as fh:
        fh.write(cctx.compress(line({"role": "user", "content": "c"})))
    again = LogReader(path, start_offset=first.bytes_consumed, start_line=first.lines_consumed)
    assert [(e.session_id, e.seq, e.line, e.text) for e in again.events()] == [("chat", 2, 3, "c")]


def test_projection_helpers_agree_with_the_reader() -> None:
    from riko.ingest.projection import bound_text, event_text, project_l0, role_and_source

    data = project_l0("user/message", user_msg("hello", "plugin"))
    assert data == {"message": user_msg("hello", "plugin")}
    assert event_text("user/message", data) == "hello"
    assert role_and_source("user/message", data) == ("user", "plugin")
    assert role_and_source("user/message", {"message": {"content": "x"}}) == ("user", "user")
    assert event_text("tool/call", {"arguments": {"a": 1}}) == '{"a":1}'
    cut, was_cut = bound_text("z" * 30, 10)
    assert was_cut and bound_text(cut, 10) == (cut, True)
