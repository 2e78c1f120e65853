"""What a purge looks for: the session's id and references, content fragments and fingerprints.

Fragments are the distinct lines and sentences (at least :data:`MIN_FRAGMENT_CHARS` long) of
the session's user and assistant texts (never plugin injections, which quote memory from
elsewhere), with their JSON-escaped spellings; fingerprints are the ``content_hash`` values of
its evidence rows. Anything another session's raw evidence also holds is left out: it is not
this session's to erase. Matching many needles at once uses polars' Aho-Corasick search, so
its cost grows with the text searched, not with text times needles.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import polars as pl

from ..stores.evidence import EvidenceStore
from ..stores.warehouse import Warehouse

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["Needles", "MIN_FRAGMENT_CHARS", "fragments_of", "re2_escape"]

#: Shorter lines ("ok", "thanks!") are shared by every conversation and identify nothing.
MIN_FRAGMENT_CHARS = 12
# Characters that may touch a session id inside an identifier; anything else is a boundary.
_ID_CHARS = "A-Za-z0-9_.-"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_SPACE = re.compile(r"\s+")
# Files are searched in windows of this many bytes (overlapping by the longest needle).
_WINDOW = 8 << 20
_BATCH_ROWS = 50_000


def re2_escape(text: str) -> str:
    """Escape ``text`` as a literal that means the same to RE2 (DuckDB), Rust (polars) and Python."""
    out = []
    for ch in text:
        if ch in "\\.^$|?*+()[]{}-/":
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def fragments_of(text: str) -> set[str]:
    """The distinct lines and sentences of ``text`` long enough to identify it."""
    found: set[str] = set()
    for line in text.splitlines():
        for piece in (line, *_SENTENCE.split(line)):
            for variant in (piece.strip(), _SPACE.sub(" ", piece).strip()):
                if len(variant) >= MIN_FRAGMENT_CHARS:
                    found.add(variant)
    return found


def _spellings(fragment: str) -> set[str]:
    """The fragment as written, and as a JSON string body (with and without ASCII escapes)."""
    return {fragment, json.dumps(fragment, ensure_ascii=False)[1:-1], json.dumps(fragment)[1:-1]}


def _latin1(text: str) -> str:
    """UTF-8 bytes seen one byte per character: how file windows are searched."""
    return text.encode("utf-8").decode("latin-1")


@dataclass(frozen=True)
class Needles:
    """The search terms of one purge; ``content`` holds fragments and fingerprints."""

    session_id: str
    fragments: tuple[str, ...] = ()
    hashes: tuple[str, ...] = ()

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def of(cls, ctx: "ScopeContext", session_id: str) -> "Needles":
        """Collect the needles of ``session_id`` from its evidence rows still in the scope."""
        return cls._collect(ctx.stores.evidence, session_id)

    @classmethod
    def from_warehouse(cls, wh: Warehouse, scope_key: str, session_id: str) -> "Needles":
        """:meth:`of` for a bare warehouse (``scope_key`` is kept for its callers and not read)."""
        return cls._collect(EvidenceStore(wh), session_id)

    @classmethod
    def _collect(cls, evidence: EvidenceStore, session_id: str) -> "Needles":
        raw: set[str] = set()
        for (text,) in evidence.session_texts(session_id):
            raw |= fragments_of(text)
        raw -= _shared_text(evidence, session_id, raw)
        fragments = set().union(*(_spellings(f) for f in raw)) if raw else set()
        hashes = evidence.own_hashes(session_id)
        return cls(session_id, tuple(sorted(fragments)), tuple(sorted(hashes)))

    # -- persistence (the working file of an unfinished purge) -------------------------------
    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"session_id": self.session_id, "fragments": self.fragments, "hashes": self.hashes}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> "Needles":
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(data["session_id"], tuple(data["fragments"]), tuple(data["hashes"]))

    # -- patterns ---------------------------------------------------------------------------
    @property
    def content(self) -> tuple[str, ...]:
        return self.fragments + self.hashes

    def token_pattern(self, *, latin1: bool = False) -> str:
        """The session id standing alone (not inside a longer identifier), for RE2/Rust/Python."""
        sid = _latin1(self.session_id) if latin1 else self.session_id
        return f"(^|[^{_ID_CHARS}]){re2_escape(sid)}($|[^{_ID_CHARS}])"

    def sql_token(self, expr: str) -> str:
        """A SQL predicate: ``expr`` names the session (DuckDB evaluates this one fast)."""
        return f"regexp_matches({expr}, '{self.token_pattern().replace(chr(39), chr(39) * 2)}')"

    @cached_property
    def _token(self) -> re.Pattern[str]:
        return re.compile(self.token_pattern())

    @cached_property
    def _content_latin1(self) -> list[str]:
        return [_latin1(n) for n in self.content]

    # -- matching ---------------------------------------------------------------------------
    def mask(self, values: pl.Series, *, references: bool = True) -> pl.Series:
        """Per value: does it name the session or hold a content needle (nulls: False)."""
        values = values.cast(pl.String)
        hit = pl.Series(values.name, [False] * len(values), dtype=pl.Boolean)
        if references:
            hit = hit | values.str.contains(self.token_pattern()).fill_null(False)
        if self.content:
            hit = hit | values.str.contains_any(list(self.content)).fill_null(False)
        return hit

    def mentions(self, value: Any) -> bool:
        """Whether one text (or JSON-able value) names the session or holds a content needle."""
        if value is None:
            return False
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        return bool(self._token.search(text)) or any(n in text for n in self.content)

    def is_ref(self, ref: Any) -> bool:
        """Whether a list entry (evidence reference, session id, anchor) points into this session."""
        return ref == self.session_id or self.mentions(ref)

    def scan_bytes(self, data: bytes | memoryview, *, references: bool = True) -> list[str]:
        """What ``data`` holds of the session: ``reference`` and/or ``content``."""
        longest = max((len(n) for n in self._content_latin1), default=0)
        overlap = max(longest, len(_latin1(self.session_id)) + 2)
        found: set[str] = set()
        start, size = 0, len(data)
        while start < size:
            window = pl.Series([bytes(data[start:start + _WINDOW + overlap]).decode("latin-1")])
            if references and "reference" not in found and window.str.contains(self.token_pattern(latin1=True)).any():
                found.add("reference")
            if self._content_latin1 and "content" not in found and window.str.contains_any(self._content_latin1).any():
                found.add("content")
            start += _WINDOW
        return sorted(found)


def _shared_text(evidence: EvidenceStore, session_id: str, fragments: Iterable[str]) -> set[str]:
    """The fragments that other sessions' raw evidence also holds, in text or data."""
    values = sorted(set(fragments))
    if not values:
        return set()
    shared: set[str] = set()
    spelled = {s: f for f in values for s in _spellings(f)}
    patterns = list(spelled)
    reader = evidence.other_sessions_batches(session_id, _BATCH_ROWS)
    for batch in reader:
        frame: Any = pl.from_arrow(batch)
        for column in ("text", "data"):
            found = frame.get_column(column).cast(pl.String).str.extract_many(patterns, overlapping=True)
            shared.update(spelled[s] for s in found.explode().drop_nulls().unique().to_list())
    return shared
