"""Captured conversation turns for tests: the event shape a host sends for a user message."""

from __future__ import annotations

from typing import Any


def user_message(session: str, text: str, **extra: Any) -> dict[str, Any]:
    """One live ``user/message`` event of ``session`` saying ``text``."""
    return {"session_id": session, "type": "user/message",
            "data": {"message": {"role": "user", "content": text}}, **extra}


def say(mem: Any, session: str, text: str, **extra: Any) -> str:
    """Capture one user message and return its evidence reference."""
    ref = mem.capture(user_message(session, text, **extra))
    return str(getattr(ref, "ref", ref))


def proposed_quotes(lines: list[str]) -> set[str]:
    """The user's words each fact page quotes when the heuristic Dream reads ``lines`` as one session
    of user turns (entity pages left out)."""
    from riko.dream import HeuristicProvider, Transcript, TranscriptLine, parse_file_blocks

    t = Transcript("s1", tuple(TranscriptLine(i + 1, "user", text) for i, text in enumerate(lines)))
    pages = parse_file_blocks(HeuristicProvider().extract(t), max_pages=64, allow_empty=True).pages
    return {p.quote for p in pages if p.type != "entity"}
