"""A message longer than ``max_session_chars`` is split at sentence boundaries and read, and the
Dream report (and the CLI) says what the budget left unread; it is never dropped in silence."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime
from pathlib import Path

import riko
from dream_stub import user_event
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


def test_dream_reads_the_newest_part_of_an_over_long_message_and_reports_it(tmp_path: Path) -> None:
    assert len(PASTE) > 3000
    with riko.open(tmp_path, preset="companion", config={"max_session_chars": 1000}) as mem:
        mem.capture(user_event("s1", PASTE))
        report = mem.dream(progress=False)
        assert report.provider_calls == 1, "the message was dropped whole: no provider call"
        assert report.messages_split == 1 and report.chars_unread > 2000
        assert report.jobs["outcome"].to_list() == ["dreamed"]
        assert report.jobs["split_messages"].to_list() == [1]
        assert any("green tea" in title for title in mem.candidates(None)["title"].to_list())
        summary = report.summary()
        assert "1 message(s) longer than max_session_chars split" in summary
        assert f"{report.chars_unread} character(s) of new evidence past the budget not read" in summary
        assert report.to_dict()["messages_split"] == 1


def test_cli_dream_says_a_message_was_split(tmp_path: Path) -> None:
    (tmp_path / "riko.toml").write_text('preset = "companion"\nmax_session_chars = 1000\n')
    with riko.open(tmp_path, preset="companion") as mem:
        assert mem.config.max_session_chars == 1000
        mem.capture(user_event("s1", PASTE))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["dream", "--root", str(tmp_path), "--quiet"])
    assert code == 0 and "1 message(s) longer than max_session_chars split" in out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["dream-jobs", "--root", str(tmp_path), "--json"])
    assert json.loads(out.getvalue())[0]["status"] == "succeeded"
