"""Sentence-aligned chunking of long text for indexing.

Fixed-width cutting separates a value from the label that explains it; cutting at sentence
boundaries keeps them together, which is what lets lexical and dense arms complement each
other.
"""

from __future__ import annotations

import re
from ..errors import InvalidArgumentError

__all__ = ["chunk_sentences", "split_sentences"]

# A sentence ends after . ! ? (followed by whitespace or the end), after 。！？ (at once), or
# at a newline; closing quotes and brackets stay with their sentence, and the whitespace
# that follows a sentence belongs to it, so consecutive spans tile the text exactly.
_CLOSERS = re.escape("\"'”’」』）)】]")
_BOUNDARY_RE = re.compile(
    rf"(?:[.!?][{_CLOSERS}]*(?=\s|$)|[。！？][{_CLOSERS}]*|\n)\s*"
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of the sentences of ``text``; together they cover all of it."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY_RE.finditer(text):
        if match.end() > start:
            spans.append((start, match.end()))
            start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _split_long(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut one over-long sentence at the last whitespace that fits, else hard at max_chars."""
    pieces: list[tuple[int, int]] = []
    while end - start > max_chars:
        limit = start + max_chars
        cut = limit
        for i in range(limit, start, -1):
            if text[i - 1].isspace():
                cut = i
                break
        pieces.append((start, cut))
        start = cut
    if end > start:
        pieces.append((start, end))
    return pieces


def chunk_sentences(text: str, max_chars: int = 400, overlap: int = 0) -> list[tuple[int, int, str]]:
    """``(start, end, text[start:end])`` chunks of at most ``max_chars`` characters.

    Sentences are packed greedily; a chunk never ends mid-sentence unless that sentence
    alone is longer than ``max_chars`` (it is then cut at whitespace, or hard). With
    ``overlap > 0`` a chunk also repeats the whole trailing sentences of the previous chunk
    that fit in ``overlap`` characters (and in ``max_chars``). With ``overlap == 0`` the
    chunks tile the text: joined, they give ``text`` back. Blank text has no chunks.

    >>> [c for _, _, c in chunk_sentences("One. Two! 三。四", max_chars=6)]
    ['One. ', 'Two! ', '三。四']
    """
    if max_chars < 1:
        raise InvalidArgumentError(f"max_chars must be at least 1, got {max_chars}")
    if overlap < 0:
        raise InvalidArgumentError(f"overlap must be >= 0, got {overlap}")
    if not text.strip():
        return []
    units: list[tuple[int, int]] = []
    for start, end in split_sentences(text):
        units.extend(_split_long(text, start, end, max_chars))

    chunks: list[tuple[int, int, str]] = []
    i = 0
    previous_first = 0
    while i < len(units):
        first = i
        # Reach back over whole units of the previous chunk that fit in the overlap and
        # still leave room for the next new unit.
        if chunks and overlap:
            room = min(overlap, max_chars - (units[i][1] - units[i][0]))
            while first > previous_first and units[i][0] - units[first - 1][0] <= room:
                first -= 1
        previous_first = i
        start = units[first][0]
        end = units[i][1]
        i += 1
        while i < len(units) and units[i][1] - start <= max_chars:
            end = units[i][1]
            i += 1
        chunks.append((start, end, text[start:end]))
    return chunks
