"""A message longer than ``max_session_chars`` is split at sentence boundaries: a model reads its
newest part and the Dream report says what the budget left unread; the offline heuristic reads
every line of a session, window by window, so nothing is left unread or dropped in silence."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime
from pathlib import Path

import pytest

import riko
from dream_stub import CREDENTIAL_REF, StubServer, dream_config, user_event
from riko.cli.main import main
from riko.dream.transcript import Transcript, TranscriptLine

FILLER = " ".join(f"Note {i}: the quarterly numbers looked ordinary again." for i in range(60))
FACT = "I prefer green tea in the evening."
PASTE = FILLER + "\n\n" + FACT


def test_tail_splits_a_message_longer_than_the_budget_at_sentence_boundaries() -> None:
    t = Transcript("s", (TranscriptLine(1, "user", "I like tea."), TranscriptLine(2, "user", PASTE)))
    kept = t.tail(1000, numbered=True)
    rendered = kept.render(1000, numbered=True)
    assert len(rendered) <= 1000 and rendered.endswith(FACT)
    assert [line.seq for line in kept.lines] == [2]
    # whole sentences only: the kept part starts where a sentence starts
    assert kept.lines[0].text.startswith("Note ") and kept.lines[0].text in PASTE
    assert kept.split == 1
    assert kept.unread == len(PASTE) - len(kept.lines[0].text) + len("I like tea.")
    # within the budget nothing is split or counted
    small = Transcript("s", (TranscriptLine(1, "user", "I like tea."),)).tail(1000)
    assert (small.split, small.unread, small.lines[0].text) == (0, 0, "I like tea.")


def test_the_kept_part_of_a_split_message_keeps_the_time_it_was_said() -> None:
    said = datetime(2023, 5, 8, 9, 30)
    kept = Transcript("s", (TranscriptLine(2, "user", PASTE, said),)).tail(1000)
    assert kept.split == 1 and kept.lines[0].time == said  # "yesterday" in it is read against this time


def test_tail_cuts_a_sentence_longer_than_the_budget_at_whitespace() -> None:
    word_run = " ".join(["word"] * 600)
    kept = Transcript("s", (TranscriptLine(5, "user", word_run),)).tail(1000)
    assert kept.split == 1 and kept.lines and len(kept.render(1000)) <= 1000
    assert set(kept.lines[0].text.split()) == {"word"}


def test_a_model_reads_the_newest_part_of_an_over_long_message_and_the_report_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(PASTE) > 3000
    monkeypatch.setenv(CREDENTIAL_REF, "sk-test-long-messages")
    stub = StubServer()
    try:
        with riko.open(tmp_path, preset="companion", config=dream_config(stub, max_session_chars=1000)) as mem:
            mem.capture(user_event("s1", PASTE))
            report = mem.dream(progress=False)
            assert report.provider_calls == 1, "the message was dropped whole: no provider call"
            prompt = stub.extraction_requests()[0]["body"]["messages"][0]["content"]
            assert FACT in prompt and "Note 0:" not in prompt  # the newest sentences, within the budget
            assert report.messages_split == 1 and report.chars_unread > 2000
            assert report.jobs["outcome"].to_list() == ["dreamed"]
            assert report.jobs["split_messages"].to_list() == [1]
            assert any("green tea" in title for title in mem.candidates(None)["title"].to_list())
            summary = report.summary()
            assert "1 message(s) longer than max_session_chars split" in summary
            assert f"{report.chars_unread} character(s) of new evidence past the budget not read" in summary
            assert report.to_dict()["messages_split"] == 1
    finally:
        stub.close()


FIRST = "I play the clarinet in a community band."
LAST = "My sister Ana lives in Porto."


def test_the_heuristic_reads_every_line_of_a_session_longer_than_the_budget(tmp_path: Path) -> None:
    # the offline Dream has no context to overflow: a long session is read window by window,
    # so the oldest statement is proposed as surely as the newest, and nothing is reported unread
    middle = [f"Note {i}: the quarterly numbers for region {i} looked ordinary again." for i in range(1500)]
    texts = [FIRST, *middle, PASTE, LAST]
    assert sum(map(len, texts)) > 2 * 40_000
    with riko.open(tmp_path, preset="companion", config={"max_session_chars": 1000}) as mem:
        for text in texts:
            mem.capture(user_event("s1", text))
        report = mem.dream(progress=False)
        titles = " | ".join(mem.candidates(None)["title"].to_list())
        # titles are normalized statements ("The user plays the clarinet..."), so match their content
        for said in ("clarinet in a community band", "green tea in the evening", "Ana lives in Porto"):
            assert said in titles, f"{said!r} was left unread: {titles}"
        assert (report.messages_split, report.chars_unread) == (0, 0)
        assert report.jobs["unread_chars"].to_list() == [0]


def test_windows_hold_every_line_in_order_within_the_budget() -> None:
    lines = tuple(TranscriptLine(n, "user", f"Line {n} says something quite ordinary. " * 3) for n in range(1, 200))
    t = Transcript("s", (*lines, TranscriptLine(200, "user", PASTE)))
    windows = t.windows(1000, numbered=True)
    assert len(windows) > 10 and all(len(w.render(10**9, numbered=True)) <= 1000 for w in windows)
    seqs = [line.seq for w in windows for line in w.lines]
    assert seqs == sorted(seqs) and set(seqs) == set(range(1, 201))
    # the long message is split into sentence parts, none dropped, the newest part ending the last window
    parts = [line.text for w in windows for line in w.lines if line.seq == 200]
    assert len(parts) > 1 and " ".join(parts).split() == PASTE.split()
    assert windows[-1].lines[-1].text.endswith(FACT)
    # a transcript that fits is one window holding what tail keeps
    short = Transcript("s", lines[:3])
    assert short.windows(1000) == (short.tail(1000),)


def test_cli_dream_reads_a_long_message_whole_with_the_heuristic(tmp_path: Path) -> None:
    (tmp_path / "riko.toml").write_text('preset = "companion"\nmax_session_chars = 1000\n')
    with riko.open(tmp_path, preset="companion") as mem:
        assert mem.config.max_session_chars == 1000
        mem.capture(user_event("s1", PASTE))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["dream", "--root", str(tmp_path), "--quiet"])
    assert code == 0 and "split" not in out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["dream-jobs", "--root", str(tmp_path), "--json"])
    job = json.loads(out.getvalue())[0]
    assert job["status"] == "succeeded"
