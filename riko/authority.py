"""Authority checks: what the user really typed, read from L0 — never from model text."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from .contracts import evidence_ref
from .scope import MemoryScope
from .warehouse import Warehouse

__all__ = ["normalize_claim", "latest_user_message", "claim_in_latest", "UserEvent", "user_grounded_match", "AUTHORITIES"]

AUTHORITIES = ("user", "management", "deterministic_rule", "model_proposal", "ingest")
_TRAIL = re.compile(r"[\s.,;:!?。，；：！？、…\"'“”‘’()（）]+$")
_LEAD = re.compile(r"^[\s\"'“”‘’(（]+")


def normalize_claim(text: str) -> str:
    """NFKC, casefold, collapsed whitespace, no surrounding quotes or trailing punctuation."""
    text = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return _LEAD.sub("", _TRAIL.sub("", text))


@dataclass(frozen=True)
class UserEvent:
    session_id: str
    seq: int
    text: str

    @property
    def ref(self) -> str:
        return evidence_ref(self.session_id, self.seq)


def latest_user_message(wh: Warehouse, scope: MemoryScope, session_id: str) -> UserEvent | None:
    """The latest raw user-typed message of ``session_id`` (plugin injections never count)."""
    row = wh.fetchone(
        "SELECT seq, text FROM evidence WHERE scope_key = ? AND session_id = ? AND is_user "
        "ORDER BY seq DESC LIMIT 1",
        [scope.key, session_id],
    )
    return UserEvent(session_id, int(row[0]), row[1] or "") if row else None


def claim_in_latest(claim: str, latest: UserEvent | None) -> bool:
    """True when the non-empty ``claim`` appears in the latest raw user message."""
    c = normalize_claim(claim)
    return bool(c) and latest is not None and c in normalize_claim(latest.text)


def user_grounded_match(
    wh: Warehouse, scope: MemoryScope, description: str, session_ids: Iterable[str]
) -> UserEvent | None:
    """The user-authored L0 event whose normalized text equals ``description``, if any."""
    target = normalize_claim(description)
    sids = sorted(set(session_ids))
    if not target or not sids:
        return None
    marks = ", ".join("?" for _ in sids)
    for sid, seq, text in wh.fetchall(
        f"SELECT session_id, seq, text FROM evidence WHERE scope_key = ? AND is_user AND session_id IN ({marks}) "
        "ORDER BY session_id, seq",
        [scope.key, *sids],
    ):
        if normalize_claim(text or "") == target:
            return UserEvent(sid, int(seq), text)
    return None
