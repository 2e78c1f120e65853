"""Sample logs: deterministic bytes, the harness layout and frames, and readable realistic content."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import zstandard

from riko.ingest.readers import LogReader, detect_format
from riko.ingest.zstd_frames import iter_frames
from riko.evaluation.samples import (
    SAMPLE_FACTS,
    SAMPLE_FACTS_BY_PRESET,
    SAMPLE_INJECTIONS,
    generate_samples,
    generate_synthetic_log,
)

JAN_2026 = 1_767_225_600_000
JAN_2027 = 1_798_761_600_000
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_other_seed_other_ids(tmp_path: Path) -> None:
    a = generate_samples(tmp_path / "a")
    generate_samples(tmp_path / "b")
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    assert len(a) == 5 and a == sorted(a)
    generate_samples(tmp_path / "c", seed=1)
    assert set(snapshot(tmp_path / "c")).isdisjoint(snapshot(tmp_path / "a"))


def test_layout_header_frame_and_batches(tmp_path: Path) -> None:
    paths = generate_samples(tmp_path)
    presets = []
    for path in paths:
        project, sid, name = path.relative_to(tmp_path).parts
        assert name == "session.jsonl.zstd" and UUID.match(sid) and re.match(r"^[a-z0-9][a-z0-9-]*$", project)
        with open(path, "rb") as fh:
            frames = list(iter_frames(fh))
        assert len(frames) >= 4 and all(isinstance(f, tuple) for f in frames)
        header_lines = frames[0][0].splitlines()
        assert len(header_lines) == 1
        header = orjson.loads(header_lines[0])
        assert header["type"] == "session" and header["id"] == sid and header["version"] == 4
        assert JAN_2026 <= header["createdAt"] < JAN_2027
        presets.append(header["agentPreset"])
        assert detect_format(path) == "harness"
    assert sorted(presets) == ["companion"] * 3 + ["work"] * 2


def test_samples_read_cleanly_with_every_event_kind(tmp_path: Path) -> None:
    user_texts: dict[str, list[str]] = {"companion": [], "work": []}
    plugin_texts = []
    readers = sorted((LogReader(p) for p in generate_samples(tmp_path)), key=lambda r: r.header.created_ms)
    for reader in readers:
        path = reader.path
        events = list(reader.events())
        assert reader.issues == [] and reader.bytes_consumed == path.stat().st_size
        project = path.parent.parent.name
        assert not project.startswith("-"), "a shell must read the folder as a name, not an option"
        assert reader.header is not None and reader.header.project_key == f"--{project}--"
        types = {e.type for e in events}
        assert {"turn/start", "user/message", "assistant/message", "tool/call", "tool/result", "turn/end"} <= types
        assert all(JAN_2026 <= e.time_ms < JAN_2027 for e in events)
        assert [e.seq for e in events] == sorted(e.seq for e in events)
        raw = zstandard.ZstdDecompressor().stream_reader(path.read_bytes(), read_across_frames=True).read()
        assert b'"type":"assistant/chunk"' in raw and raw.count(b"\n") > len(events) + 1
        for e in events:
            if e.type == "user/message" and e.source_kind == "user":
                user_texts[reader.header.preset].append(e.text)
            elif e.type == "user/message":
                assert e.source_kind == "plugin"
                plugin_texts.append(e.text)
        assert any(e.source_kind == "plugin" for e in events)
        replies = [e for e in events if e.type == "assistant/message"]
        assert replies and all(e.text and "The user said:" not in e.text for e in replies)
        assert all(e.data["message"]["content"][0]["type"] == "reasoning" for e in replies)
    assert tuple(user_texts["companion"]) == SAMPLE_FACTS_BY_PRESET["companion"]
    assert tuple(user_texts["work"]) == SAMPLE_FACTS_BY_PRESET["work"]
    assert sorted(plugin_texts) == sorted(SAMPLE_INJECTIONS)


def test_sample_facts_cover_the_scenarios() -> None:
    companion = " ".join(SAMPLE_FACTS_BY_PRESET["companion"])
    for needle in ("dark mode", "Mira", "乌龙茶", "oolong", "Lena", "Berlin", "Kyoto in April", "Maybe I'll switch to a standing desk",
                   "don't bring up my ex", "B-417", "migraines"):
        assert needle in companion, needle
    work = " ".join(SAMPLE_FACTS_BY_PRESET["work"])
    assert "PostgreSQL 16" in work and "pnpm" in work and "B-417" not in work
    assert set(SAMPLE_FACTS) == set(SAMPLE_FACTS_BY_PRESET["companion"]) | set(SAMPLE_FACTS_BY_PRESET["work"])
    assert any("<MEMORY_DATA>" in t for t in SAMPLE_INJECTIONS)
    assert not set(SAMPLE_INJECTIONS) & set(SAMPLE_FACTS)
    # A recalled "fact" in an injection must not be something the user said.
    assert "Anna" not in " ".join(SAMPLE_FACTS) and any("Anna" in t for t in SAMPLE_INJECTIONS)


def test_synthetic_log_shape(tmp_path: Path) -> None:
    path = generate_synthetic_log(tmp_path / "bench" / "session.jsonl.zstd", events=1000, session_id="bench-1",
                                  preset="work", chunk_ratio=0.8, frame_events=100, seed=3)
    with open(path, "rb") as fh:
        frames = list(iter_frames(fh))
    assert len(frames) == 11
    reader = LogReader(path)
    events = list(reader.events())
    assert reader.issues == [] and reader.header is not None and reader.header.preset == "work"
    assert reader.lines_consumed == 1001 and 120 <= len(events) <= 280
    assert {e.session_id for e in events} == {"bench-1"}

    again = generate_synthetic_log(tmp_path / "again.jsonl.zstd", events=1000, session_id="bench-1",
                                   preset="work", chunk_ratio=0.8, frame_events=100, seed=3)
    assert again.read_bytes() == path.read_bytes()

    plain = generate_synthetic_log(tmp_path / "plain.jsonl", events=50, session_id="p", preset="work", chunk_ratio=0.0)
    plain_reader = LogReader(plain)
    assert not plain_reader.compressed and len(list(plain_reader.events())) == 50
