"""The bounded session transcript that a Dream pass reads.

A transcript holds only user and assistant text, in sequence order. It is bounded by
characters before it reaches a provider; when it is too long the newest lines win, because
the cursor moves forward and older lines were already offered to an earlier pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..errors import InvalidArgumentError

__all__ = ["TranscriptLine", "Transcript", "ROLES"]

ROLES = ("user", "assistant")
_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")


@dataclass(frozen=True)
class TranscriptLine:
    """One user or assistant message, with the L0 sequence number it came from and the time it
    was said (None when unknown): a relative date in it ("yesterday") is read against that time."""

    seq: int
    role: str
    text: str
    time: datetime | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise InvalidArgumentError(f"transcript role must be one of {ROLES}, got {self.role!r}")

    def render(self, numbered: bool = False) -> str:
        """``<role>: <text>`` on a single line (inner line breaks become spaces); ``numbered``
        puts the turn's sequence number first (``[12] user: ...``) so a model can cite it."""
        line = f"{self.role}: {_LINE_BREAKS.sub(' ', self.text.strip())}"
        return f"[{self.seq}] {line}" if numbered else line


@dataclass(frozen=True)
class Transcript:
    """The lines of one session, oldest first.

    >>> t = Transcript("s1", (TranscriptLine(1, "user", "I like tea"),))
    >>> t.render(100)
    'user: I like tea'
    """

    session_id: str
    lines: tuple[TranscriptLine, ...]

    def is_empty(self) -> bool:
        """True when no line carries any text (such a session needs no provider call)."""
        return not any(line.text.strip() for line in self.lines)

    def tail(self, max_chars: int, numbered: bool = False) -> Transcript:
        """The newest lines whose rendering fits in ``max_chars``, never cutting a line.

        Lines are taken newest first until the next older one would not fit. A single line
        that alone exceeds the budget is skipped rather than truncated, so one huge paste does
        not blank out the whole transcript.
        """
        kept: list[TranscriptLine] = []
        used = 0
        for line in reversed(self.lines):
            if not line.text.strip():
                continue
            size = len(line.render(numbered)) + (1 if kept else 0)
            if used + size > max_chars:
                if kept:
                    break
                continue
            kept.append(line)
            used += size
        return Transcript(self.session_id, tuple(reversed(kept)))

    def render(self, max_chars: int, numbered: bool = False) -> str:
        """``<role>: <text>`` lines joined by newlines, at most ``max_chars`` characters
        (each led by ``[seq]`` when ``numbered``)."""
        return "\n".join(line.render(numbered) for line in self.tail(max_chars, numbered).lines)
