"""What a purge looks for: the session's id and references, content fragments and fingerprints.

Fragments are the distinct lines and sentences (at least :data:`MIN_FRAGMENT_CHARS` long) of
the session's user and assistant texts (never plugin injections, which quote memory from
elsewhere), with their JSON-escaped spellings; fingerprints are
the ``content_hash`` values of its evidence rows. Anything another session's raw evidence
also holds is left out: it is not this session's to erase.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa

from ..warehouse import Warehouse

__all__ = ["Needles", "MIN_FRAGMENT_CHARS", "fragments_of", "re2_escape"]

#: Shorter lines ("ok", "thanks!") are shared by every conversation and identify nothing.
MIN_FRAGMENT_CHARS = 12
# Characters that may touch a session id inside an identifier; anything else is a boundary.
_ID_CHARS = "A-Za-z0-9_.-"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_SPACE = re.compile(r"\s+")
# Regex alternations are compiled in chunks so no single pattern grows past the engine's limits.
_CHUNK = 200


def re2_escape(text: str) -> str:
    """Escape ``text`` as a literal that means the same to RE2 (DuckDB) and to Python ``re``."""
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
        pieces = [line, *_SENTENCE.split(line)]
        for piece in pieces:
            for variant in (piece.strip(), _SPACE.sub(" ", piece).strip()):
                if len(variant) >= MIN_FRAGMENT_CHARS:
                    found.add(variant)
    return found


def _spellings(fragment: str) -> set[str]:
    """The fragment as written, and as a JSON string body (with and without ASCII escapes)."""
    return {fragment, json.dumps(fragment, ensure_ascii=False)[1:-1], json.dumps(fragment)[1:-1]}


@dataclass(frozen=True)
class Needles:
    """The search terms of one purge; ``content`` holds fragments and fingerprints."""

    session_id: str
    fragments: tuple[str, ...] = ()
    hashes: tuple[str, ...] = ()

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def from_warehouse(cls, wh: Warehouse, scope_key: str, session_id: str) -> "Needles":
        """Collect the needles of ``session_id`` from its evidence rows still in the warehouse."""
        rows = wh.fetchall(
            "SELECT text, content_hash FROM evidence WHERE scope_key = ? AND session_id = ? "
            "AND (is_user OR role = 'assistant') AND text IS NOT NULL",
            [scope_key, session_id],
        )
        fragments: set[str] = set()
        for text, _ in rows:
            for fragment in fragments_of(text):
                fragments |= _spellings(fragment)
        hashes = {r[0] for r in wh.fetchall(
            "SELECT DISTINCT content_hash FROM evidence WHERE scope_key = ? AND session_id = ?", [scope_key, session_id])}
        fragments -= _shared(wh, scope_key, session_id, fragments, "text", "data")
        hashes -= _shared(wh, scope_key, session_id, hashes, "content_hash")
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

    # -- matching ---------------------------------------------------------------------------
    @property
    def content(self) -> tuple[str, ...]:
        return self.fragments + self.hashes

    @property
    def ref_prefix(self) -> str:
        return f"session:{self.session_id}/"

    def token_pattern(self) -> str:
        """The session id standing alone (not inside a longer identifier)."""
        return f"(^|[^{_ID_CHARS}]){re2_escape(self.session_id)}($|[^{_ID_CHARS}])"

    def patterns(self, *, references: bool = True) -> list[str]:
        """Regular expressions, valid for RE2 and Python, that together find every needle."""
        content = sorted(self.content, key=len, reverse=True)
        chunks = ["|".join(re2_escape(n) for n in content[i:i + _CHUNK]) for i in range(0, len(content), _CHUNK)]
        return ([self.token_pattern()] if references else []) + chunks

    def sql_mentions(self, column: str, *, references: bool = True) -> str:
        """A SQL predicate: ``column`` holds one of the needles."""
        parts = [f"regexp_matches({column}, '{p.replace(chr(39), chr(39) * 2)}')" for p in self.patterns(references=references)]
        return "(" + " OR ".join(parts) + ")" if parts else "false"

    @cached_property
    def _compiled(self) -> list[re.Pattern[str]]:
        return [re.compile(p) for p in self.patterns()]

    def mentions(self, value: Any) -> bool:
        """Whether a text (or JSON-able value) holds the session id or any content needle."""
        if value is None:
            return False
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        return any(p.search(text) for p in self._compiled)

    def is_ref(self, ref: str) -> bool:
        """Whether an evidence reference (or session id list entry) points into this session."""
        return ref == self.session_id or self.mentions(ref)

    def byte_patterns(self, *, references: bool = True) -> list[re.Pattern[bytes]]:
        return [re.compile(p.encode("utf-8")) for p in self.patterns(references=references)]


def _shared(wh: Warehouse, scope_key: str, session_id: str, needles: Iterable[str], *columns: str) -> set[str]:
    """The needles that other sessions' raw evidence also holds.

    One regular-expression pass per chunk finds the few rows worth a closer look, so the
    cost grows with the evidence size, not with evidence size times needle count.
    """
    values = sorted(set(needles))
    if not values:
        return set()
    if columns == ("content_hash",):
        wh.con.register("_riko_purge_shared", pa.table({"needle": values}))
        try:
            return {r[0] for r in wh.fetchall(
                "SELECT DISTINCT content_hash FROM evidence WHERE scope_key = ? AND session_id <> ? "
                "AND content_hash IN (SELECT needle FROM _riko_purge_shared)", [scope_key, session_id])}
        finally:
            wh.con.unregister("_riko_purge_shared")
    probe = Needles(session_id, tuple(values))
    shared: set[str] = set()
    for pattern in probe.patterns(references=False):
        literal = pattern.replace("'", "''")
        cond = " OR ".join(f"regexp_matches({c}, '{literal}')" for c in columns)
        for row in wh.fetchall(f"SELECT {', '.join(columns)} FROM evidence WHERE scope_key = ? AND session_id <> ? "
                               f"AND ({cond})", [scope_key, session_id]):
            shared.update(n for n in values if any(v is not None and n in v for v in row))
    return shared
