"""Small versioned records shared across stages."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .scope import SCHEMA_VERSION

__all__ = ["EvidenceRef", "parse_ref", "evidence_ref"]

_REF_RE = re.compile(r"^session:(?P<sid>[^/\s]+)/event:(?P<seq>\d+)$")


@dataclass(frozen=True)
class EvidenceRef:
    """A pointer to one L0 event: ``session:<id>/event:<seq>``."""

    session_id: str
    seq: int
    stored: bool = True
    is_user: bool = False
    schema_version: int = SCHEMA_VERSION

    def __str__(self) -> str:
        return evidence_ref(self.session_id, self.seq)


def evidence_ref(session_id: str, seq: int) -> str:
    return f"session:{session_id}/event:{seq}"


def parse_ref(ref: str) -> tuple[str, int] | None:
    """``session:<id>/event:<seq>`` → (id, seq); anything else → None."""
    m = _REF_RE.match(ref.strip())
    return (m.group("sid"), int(m.group("seq"))) if m else None
