"""Authority checks: what the user really typed, read from L0 — never from model text."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Container, Iterable

from ..contracts import evidence_ref
from ..scope import MemoryScope
from ..stores.evidence import EvidenceStore
from ..stores.warehouse import Warehouse

__all__ = ["normalize_claim", "latest_user_message", "claim_in_latest", "UserEvent", "user_grounded_match",
           "grounded_event", "AUTHORITIES", "UserLines"]

AUTHORITIES = ("user", "management", "deterministic_rule", "model_proposal", "ingest")
_TRAIL = re.compile(r"[\s.,;:!?。，；：！？、…\"'“”‘’()（）]+$")
_LEAD = re.compile(r"^[\s\"'“”‘’(（]+")


_CACHED_CHARS = 400  # titles and facts repeat across a batch; long messages are normalized once


def normalize_claim(text: str) -> str:
    """NFKC, casefold, collapsed whitespace, no surrounding quotes or trailing punctuation."""
    return _normalized(text) if len(text) <= _CACHED_CHARS else _normalize(text)


def _normalize(text: str) -> str:
    text = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return _LEAD.sub("", _TRAIL.sub("", text))


_normalized = lru_cache(maxsize=1 << 15)(_normalize)


@dataclass(frozen=True)
class UserEvent:
    """One user-authored L0 line: where it sits and its exact text (what grounds an admission)."""

    session_id: str
    seq: int
    text: str

    @property
    def ref(self) -> str:
        return evidence_ref(self.session_id, self.seq)


def latest_user_message(wh: Warehouse, scope: MemoryScope, session_id: str) -> UserEvent | None:
    """The latest raw user-typed message of ``session_id`` (plugin injections never count)."""
    row = EvidenceStore(wh).latest_user_line(session_id)
    return UserEvent(session_id, int(row[0]), row[1] or "") if row else None


def claim_in_latest(claim: str, latest: UserEvent | None) -> bool:
    """True when the non-empty ``claim`` appears in the latest raw user message."""
    c = normalize_claim(claim)
    return bool(c) and latest is not None and c in normalize_claim(latest.text)


class UserLines:
    """The scope's valid user lines by normalized text, read in one query for many look-ups.

    A snapshot: hold it only while the evidence cannot change under it (one unit of work of
    the writer, such as one Dream batch). Governed lines are not among them, nor (``held``) a
    line whose normalized words a forget, suppression or governance request holds.
    """

    def __init__(self, wh: Warehouse, held: Container[str] = frozenset()) -> None:
        self._by_text: dict[str, list[tuple[str, int, str]]] = {}
        self._lines: dict[tuple[str, int], tuple[str, Any]] = {}  # (session, seq) -> (text, stored time)
        cur = EvidenceStore(wh).user_line_index()
        while rows := cur.fetchmany(4096):
            for sid, seq, text, when in rows:  # in session order, as user_grounded_match reads them
                seq = int(seq)
                key = normalize_claim(text)
                if key in held:
                    continue
                self._by_text.setdefault(key, []).append((sid, seq, text))
                self._lines[(sid, seq)] = (text, when)

    def has(self, session_id: str, seq: int) -> bool:
        return (session_id, seq) in self._lines

    def time_of(self, session_id: str, seq: int) -> tuple[bool, Any]:
        """``(known, stored time)`` of a valid user line; ``known`` is False for any other address."""
        line = self._lines.get((session_id, seq))
        return (False, None) if line is None else (True, line[1])

    def holds(self, event: UserEvent) -> bool:
        """True when ``event`` is one of these lines, with that exact text (else: ask the warehouse)."""
        line = self._lines.get((event.session_id, event.seq))
        return line is not None and line[0] == event.text

    def match(self, description: str, session_ids: Iterable[str] = ()) -> UserEvent | None:
        """:func:`user_grounded_match` answered from the snapshot."""
        target = normalize_claim(description)
        found = self._by_text.get(target) if target else None
        if not found:
            return None
        own = set(session_ids)
        sid, seq, text = next((line for line in found if line[0] in own), found[0])
        return UserEvent(sid, seq, text)


def user_grounded_match(
    wh: Warehouse, scope: MemoryScope, description: str, session_ids: Iterable[str] = (),
    lines: UserLines | None = None, held: Container[str] = frozenset(),
) -> UserEvent | None:
    """The user-authored L0 event of the scope whose normalized full text equals ``description``.

    The candidate's own sessions are searched first, then the rest of the scope. Evidence a
    correction invalidated, a governed line and words ``held`` (normalized) ground nothing.
    ``lines``: a snapshot of the scope's user lines that answers without a query.
    """
    if lines is not None:
        return lines.match(description, session_ids)
    target = normalize_claim(description)
    if not target or target in held:
        return None
    sids = sorted(set(session_ids))
    store = EvidenceStore(wh)
    # Only a whole line grounds an admission (the seed's rule): one fact split out of a longer
    # message, or a pronoun riko resolved, is no longer exactly what the user typed, so such a
    # candidate waits for review like any other.
    for inside in (True, False) if sids else (False,):
        cur = store.user_lines(sids, inside=inside)
        while rows := cur.fetchmany(2048):
            for sid, seq, text in rows:
                if normalize_claim(text) == target:
                    return UserEvent(sid, int(seq), text)
    return None


def grounded_event(evidence: EvidenceStore, event: UserEvent) -> bool:
    """True when ``event`` really is a stored, user-authored L0 line with that exact text (in ``evidence``)."""
    row = evidence.user_line_text(event.session_id, event.seq)
    return row is not None and row[0] == event.text
