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
