"""The bounded session transcript that a Dream pass reads.

A transcript holds only user and assistant text, in sequence order. It is bounded by
characters before it reaches a provider; when it is too long the newest lines win. A single
message longer than the whole budget is split at sentence and paragraph boundaries, so its
newest part is read instead of none of it; the transcript counts what it split and what it
left unread, so the Dream report can say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from datetime import datetime

from ..errors import InvalidArgumentError
from ..recall.chunking import chunk_sentences, split_sentences

__all__ = ["TranscriptLine", "Transcript", "ROLES"]

ROLES = ("user", "assistant")
_LINE_BREAKS = re.compile(r"(?<!\s)\s*[\r\n]+\s*")  # tried where a run of space starts, once a run


def _units(text: str, room: int) -> list[str]:
    """``text`` as whole sentences, a sentence longer than ``room`` cut at whitespace."""
    units: list[str] = []
    for start, end in split_sentences(text):
        sentence = text[start:end]
        units.extend(c for _, _, c in chunk_sentences(sentence, max(1, room))) if len(sentence) > room \
            else units.append(sentence)
    return units


def _newest_sentences(text: str, room: int) -> str:
    """The longest tail of ``text`` made of whole sentences (a sentence longer than ``room`` cut
    at whitespace) that fits in ``room`` characters."""
    units = _units(text, room)
    taken: list[str] = []
    size = 0
    for unit in reversed(units):
        if size + len(unit) > room:
            break
        taken.append(unit)
        size += len(unit)
    return "".join(reversed(taken))


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
    #: Messages that alone exceeded the budget of :meth:`tail` and were split into parts.
    split: int = 0
    #: Characters of message text that :meth:`tail` left out for the budget.
    unread: int = 0

    def is_empty(self) -> bool:
        """True when no line carries any text (such a session needs no provider call)."""
        return not any(line.text.strip() for line in self.lines)

    def tail(self, max_chars: int, numbered: bool = False) -> Transcript:
        """The newest lines whose rendering fits in ``max_chars``, never cutting a sentence.

        Lines are taken newest first until the next older one would not fit. A single line
        that alone exceeds the budget is split at sentence and paragraph boundaries into parts
        of the same sequence number, and its newest parts that fit are kept, so one huge paste
        neither blanks out the transcript nor vanishes unread. ``split`` and ``unread`` count
        what was split and left out.
        """
        kept: list[TranscriptLine] = []
        used = 0
        split = unread = 0
        lines = [line for line in self.lines if line.text.strip()]
        full = False
        for n in range(len(lines) - 1, -1, -1):
            line = lines[n]
            if full:
                unread += len(line.text)
                continue
            size = len(line.render(numbered)) + (1 if kept else 0)
            if used + size <= max_chars:
                kept.append(line)
                used += size
                continue
            if len(line.render(numbered)) <= max_chars:  # an older line that does not fit: stop
                full = True
                unread += len(line.text)
                continue
            # one message longer than the whole budget: its newest sentences that fit
            split += 1
            full = True
            room = max_chars - used - (1 if kept else 0) - len(TranscriptLine(line.seq, line.role, "").render(numbered))
            taken = _newest_sentences(line.text, room)
            if taken.strip():
                kept.append(TranscriptLine(line.seq, line.role, taken.strip(), line.time))
                used += len(kept[-1].render(numbered)) + (1 if len(kept) > 1 else 0)
            unread += len(line.text) - len(taken)
        return Transcript(self.session_id, tuple(reversed(kept)), self.split + split, self.unread + unread)

    def windows(self, max_chars: int, numbered: bool = False) -> tuple[Transcript, ...]:
        """Every line, in consecutive windows oldest first, each rendering in ``max_chars``.

        For a reader that must leave no evidence unread however long the session: a transcript
        that fits is one window holding what :meth:`tail` keeps, and a message longer than the
        budget is split at sentence boundaries into parts of the same sequence number, each
        part in a window, none dropped. Computed once per budget (a provider asks for its cache
        key, its answer and its page bound).
        """
        key = (max_chars, numbered)
        if key not in self._windows:
            self._windows[key] = self._pack(self._pieces(max_chars, numbered), max_chars, numbered)
        return self._windows[key]

    @cached_property
    def _windows(self) -> dict[tuple[int, bool], tuple[Transcript, ...]]:
        return {}

    def _pieces(self, max_chars: int, numbered: bool) -> list[TranscriptLine]:
        """The non-blank lines, each longer than ``max_chars`` split into sentence parts that fit."""
        pieces: list[TranscriptLine] = []
        for line in self.lines:
            if not line.text.strip():
                continue
            if len(line.render(numbered)) <= max_chars:
                pieces.append(line)
                continue
            room = max(1, max_chars - len(TranscriptLine(line.seq, line.role, "").render(numbered)))
            part = ""
            for unit in _units(line.text, room):
                if part and len(part) + len(unit) > room:
                    pieces.append(TranscriptLine(line.seq, line.role, part.strip(), line.time))
                    part = ""
                part += unit
            if part.strip():
                pieces.append(TranscriptLine(line.seq, line.role, part.strip(), line.time))
        return pieces

    def _pack(self, pieces: list[TranscriptLine], max_chars: int, numbered: bool) -> tuple[Transcript, ...]:
        """``pieces`` in order, as many to a window as render (newline-joined) in ``max_chars``."""
        windows: list[Transcript] = []
        current: list[TranscriptLine] = []
        used = 0
        for piece in pieces:
            size = len(piece.render(numbered))
            if current and used + 1 + size > max_chars:
                windows.append(Transcript(self.session_id, tuple(current)))
                current, used = [], 0
            used += size + (1 if current else 0)
            current.append(piece)
        if current or not windows:
            windows.append(Transcript(self.session_id, tuple(current)))
        return tuple(windows)

    def render(self, max_chars: int, numbered: bool = False) -> str:
        """``<role>: <text>`` lines joined by newlines, at most ``max_chars`` characters
        (each led by ``[seq]`` when ``numbered``)."""
        return "\n".join(line.render(numbered) for line in self.tail(max_chars, numbered).lines)
