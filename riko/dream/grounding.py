"""Whether a proposed page is carried by what the user said, and which user turns carry it.

A provider's answer is untrusted: a model may cite the wrong turn, cite an assistant line, or
state something nobody said. Before a page is stored riko finds its evidence itself — the
cited turns that are user lines of the transcript, else the user lines that quote its
description or title, else those holding most of its words — and checks that the user's words
there hold at least 60 % of the content words of its title and description together, and half of
those of its body (link brackets removed), so a paraphrase passes and an added claim does not. A page that fails is not stored: an invented fact
never becomes a candidate, let alone canon. Conversation summaries (``source`` pages) make no
claim about the user and are only located.

    >>> from riko.dream.transcript import TranscriptLine
    >>> lines = [TranscriptLine(3, "user", "My sister Lena moved to Berlin last May.")]
    >>> ground("Lena lives in Berlin", "Lena moved to Berlin in May.", "", (3,), lines).supported
    True
    >>> ground("Lena is a doctor", "Lena works as a doctor.", "", (3,), lines).supported
    False
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..review.authority import normalize_claim
from ..review.entities import ENTITY_CATEGORY
from ..language.statement import resolve_dates
from ..language.text import tokenize
from ..language.derive import KIND_CATEGORIES, KIND_PAGE_TYPES, derive
from .protocol import ProposedPage
from .transcript import TranscriptLine

__all__ = ["BODY_SUPPORT", "SUPPORT", "Grounding", "ground", "rederive", "support_share"]

#: Page types riko keeps as proposed: it has no derivation for feelings or conversation summaries.
KEPT_TYPES = frozenset({"emotion", "source"})

SUPPORT = 0.6            #: share of the fact's (title and description) content words the evidence must hold
BODY_SUPPORT = 0.5       #: the same for the body, which may explain or link
MAX_EVIDENCE = 5
_ONE_STATEMENT = 200     #: an evidence line this short is read whole for the derivation
_LINK = re.compile(r"\[\[(?:[^\[\]|:\n]*::)?([^\[\]|\n]+)(?:\|[^\[\]\n]*)?\]\]")
_IGNORED = frozenset({"user", "用户"})


@dataclass(frozen=True)
class Grounding:
    """The user turns (sequence numbers) that carry a page and whether they hold its words."""

    turns: tuple[int, ...]
    supported: bool
    share: float                    #: the share of the fact's words the evidence holds
    cited_elsewhere: tuple[int, ...] = ()   #: cited turns that are not user lines of the transcript


@lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    """Content words of ``text`` (cached: every page of a session is checked against the same lines)."""
    return frozenset(t for t in tokenize(_LINK.sub(r"\1", text)) if t not in _IGNORED)


def _share(words: frozenset[str], held: frozenset[str] | set[str]) -> float:
    """Share of ``words`` that ``held`` holds, a word also matching one it shares a stem-like
    prefix of 4+ characters with ("drinker" / "drink"), since stems do not join every form."""
    if not words:
        return 1.0
    found = 0
    for word in words:
        if word in held or (len(word) >= 4 and any(len(h) >= 4 and (h.startswith(word) or word.startswith(h))
                                                   for h in held)):
            found += 1
    return found / len(words)


def support_share(text: str, evidence: Sequence[str]) -> float:
    """Share of the content words of ``text`` found in ``evidence`` (1.0 for a text without any)."""
    held: set[str] = set()
    for line in evidence:
        held |= _words(line)
    return _share(_words(text), held)


class _Lines:
    """The user lines of one transcript as :func:`ground` reads them, and their normalized text
    (computed on first use): every page of a session is checked against the same lines."""

    __slots__ = ("users", "known", "_normalized", "said")

    def __init__(self, lines: Sequence[TranscriptLine]) -> None:
        self.users = {line.seq: line.text for line in lines if line.role == "user" and line.text.strip()}
        self.known = {line.seq for line in lines}
        # what a user line says, its relative dates also as the days they mean at the line's time
        # ("yesterday", said on 2023-05-08, holds 2023-05-07): a stated date is the user's too
        self.said = dict(self.users)
        for line in lines:
            if line.seq in self.users and line.time is not None:
                resolved = resolve_dates(line.text, line.time)
                if resolved != line.text:
                    self.said[line.seq] = f"{line.text}\n{resolved}"
        self._normalized: dict[int, str] | None = None

    def normalized(self) -> dict[int, str]:
        if self._normalized is None:
            self._normalized = {seq: normalize_claim(text) for seq, text in self.users.items()}
        return self._normalized


_LAST_VIEW: tuple[tuple[TranscriptLine, ...], _Lines] | None = None


def _view(lines: Sequence[TranscriptLine]) -> _Lines:
    """:class:`_Lines` of ``lines``, kept for the last transcript seen (a tuple cannot change)."""
    global _LAST_VIEW
    last = _LAST_VIEW
    if last is not None and last[0] is lines:
        return last[1]
    view = _Lines(lines)
    if type(lines) is tuple:
        _LAST_VIEW = (lines, view)
    return view


def ground(title: str, description: str, body: str, cited: Sequence[int], lines: Sequence[TranscriptLine], *,
           claim: bool = True, quote: str = "") -> Grounding:
    """Locate and check one page against the user lines of ``lines``.

    ``cited`` are the turns the proposer named, ``quote`` the words it says the user used;
    ``claim=False`` (a summary page) only locates.
    """
    view = _view(lines)
    users, known, said = view.users, view.known, view.said
    fact = _words(f"{title}\n{description}")
    turns = tuple(dict.fromkeys(seq for seq in cited if seq in users))
    elsewhere = tuple(seq for seq in dict.fromkeys(cited) if seq not in users and seq in known)
    if turns and claim:
        # the cited user turns that share the fact's words, when together they carry it
        turns = tuple(seq for seq in turns if _share(fact, _words(said[seq])) > 0)
        if support_share(f"{title}\n{description}", [said[seq] for seq in turns]) < SUPPORT:
            turns = ()
    if not turns:
        needles = [n for n in (normalize_claim(quote), normalize_claim(description), normalize_claim(title)) if n]
        turns = tuple(seq for seq, text in view.normalized().items() if any(n in text for n in needles))
    if not turns:
        scored = sorted(((_share(fact, _words(text)), seq) for seq, text in said.items() if fact),
                        key=lambda pair: (-pair[0], pair[1]))
        turns = tuple(seq for share, seq in scored if share >= SUPPORT)
    turns = turns[-MAX_EVIDENCE:]
    evidence = [said[seq] for seq in turns]
    if not claim:
        return Grounding(turns, True, 1.0, elsewhere)
    if not evidence:
        return Grounding((), False, 0.0, elsewhere)
    share = support_share(f"{title}\n{description}", evidence)
    supported = share >= SUPPORT and support_share(body, evidence) >= BODY_SUPPORT
    return Grounding(turns, supported, share, elsewhere)


def _said(page: ProposedPage, evidence: Sequence[str]) -> str:
    """The user's words a page's derivation reads: its quote where an evidence line holds it, else
    the one short evidence line it came from, else its title or description."""
    lines = [normalize_claim(text) for text in evidence]
    if page.quote.strip() and any(normalize_claim(page.quote) in x for x in lines):
        return page.quote
    if len(evidence) == 1 and len(evidence[0]) <= _ONE_STATEMENT:
        return evidence[0]
    title = page.title if any(normalize_claim(page.title) in x for x in lines) else ""
    return title or page.description or page.title


def rederive(page: ProposedPage, evidence: Sequence[str]) -> ProposedPage | None:
    """``page`` with riko's own type, kind, category, slot and entities, derived from the user's
    words: its quote (or title) where an evidence line holds it, else its description. None for a
    proposer's entity page: riko names entities from its own derivation of the facts.

    The heuristic already derived its pages from the same words, so this changes only what a
    model claimed.
    """
    if page.type == "entity" and page.category == ENTITY_CATEGORY:
        return None
    derived = derive(_said(page, evidence))
    if page.type in KEPT_TYPES:
        return dataclasses.replace(page, slot=derived.slot, entities=derived.entities)
    return dataclasses.replace(page, type=KIND_PAGE_TYPES[derived.kind], kind=derived.kind,
                               category=KIND_CATEGORIES[derived.kind], slot=derived.slot, entities=derived.entities)
