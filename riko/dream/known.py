"""Which existing pages a model should see beside a transcript: those about what it names.

A model asked to add, update or skip facts (mem0-style) needs the pages already kept about the
same people, pets, places and things — not the whole Wiki. The names are found in the user's
own lines (riko's derived entities and their aliases, capitalised words, CJK runs), and a page is related when its title or
description mentions one of them; pages sharing more names come first.

    >>> from riko.dream.transcript import Transcript, TranscriptLine
    >>> t = Transcript("s", (TranscriptLine(1, "user", "My sister Lena is visiting."),))
    >>> pages = [KnownPage("Lena lives in Berlin", "relationship"), KnownPage("Likes jazz", "concept")]
    >>> [p.title for p in related_pages(t, pages)]
    ['Lena lives in Berlin']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..language.lexicon import CJK
from ..language.text import STOPWORDS
from ..language.derive import derive
from .prompt import MAX_KNOWN_PAGES, KnownPage
from .transcript import Transcript

__all__ = ["names_in", "related_pages"]

_CAPITALISED = re.compile(r"(?<![\w'])[A-Z][\w'\-]{2,}")
_CJK_RUN = re.compile(CJK + "{2,}")
_COMMON = frozenset({"i'm", "i've", "i'll", "i'd", "yes", "hey", "hello", "thanks", "thank", "sorry", "please",
                     "okay", "sure", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})


def names_in(text: str) -> set[str]:
    """Casefolded names a text may be about: the entities riko derives from it with their aliases
    ("my sister", 妹妹, 柏林), capitalised words that are not common words, and CJK runs."""
    out = {m.casefold() for m in _CAPITALISED.findall(text)}
    out = {w for w in out if w not in STOPWORDS and w not in _COMMON}
    out |= set(_CJK_RUN.findall(text))
    out |= {n.casefold() for e in derive(text).entities for n in e.names() if len(n) >= 2}
    return out


def related_pages(transcript: Transcript, pages: Sequence[KnownPage], limit: int = MAX_KNOWN_PAGES,
                  ) -> tuple[KnownPage, ...]:
    """The pages whose title or description names something the user's lines name (most shared names first)."""
    names: set[str] = set()
    for line in transcript.lines:
        if line.role == "user":
            names |= names_in(line.text)
    if not names:
        return ()
    scored = []
    for index, page in enumerate(pages):
        text = f"{page.title}\n{page.description}".casefold()
        shared = sum(1 for n in names if (re.search(rf"\b{re.escape(n)}\b", text) if n.isascii() else n in text))
        if shared:
            scored.append((-shared, index, page))
    scored.sort(key=lambda item: item[:2])
    return tuple(page for _, _, page in scored[:limit])
