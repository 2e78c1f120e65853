"""Revocable alias edges: an alias points at an entity page; it never merges or edits canon."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import polars as pl

from .clock import Clock
from .errors import NotFoundError
from .scope import MemoryScope
from .warehouse import Warehouse, dumps, naive_utc
from .wiki import Page, normalize_title

__all__ = ["upsert_alias", "invalidate_alias", "invalidate_entity_aliases", "resolve_alias", "rebuild_aliases",
           "explicit_coreferences", "aliases_frame", "RESOLUTION_KINDS"]

RESOLUTION_KINDS = ("explicit_coreference", "management", "derived_inference")


def _alias_id(scope: MemoryScope, entity_id: str, normalized: str) -> str:
    return "a-" + hashlib.sha256(f"{scope.key}:{entity_id}:{normalized}".encode()).hexdigest()[:16]


def upsert_alias(wh: Warehouse, scope: MemoryScope, clock: Clock, entity_id: str, alias: str, *,
                 resolution_kind: str, confidence: float = 1.0, source_refs: tuple[str, ...] = ()) -> str:
    """Add an alias edge; an edge with the same normalized alias to another entity is replaced.

    ``derived_inference`` edges are always ``contested``; explicit and management edges are active.
    """
    if resolution_kind not in RESOLUTION_KINDS:
        raise ValueError(f"resolution_kind must be one of {', '.join(RESOLUTION_KINDS)}")
    normalized = normalize_title(alias)
    status = "contested" if resolution_kind == "derived_inference" else "active"
    now = naive_utc(clock.now())
    ident = _alias_id(scope, entity_id, normalized)
    with wh.transaction():
        wh.con.execute("DELETE FROM aliases WHERE scope_key = ? AND normalized_alias = ? AND (entity_id <> ? OR id = ?)",
                       [scope.key, normalized, entity_id, ident])
        wh.insert_rows("aliases", [{
            "id": ident, "entity_id": entity_id, "alias": alias, "normalized_alias": normalized, "confidence": confidence,
            "source_refs": dumps(list(source_refs)), "resolution_kind": resolution_kind, "status": status, "reason": None,
            "valid_from": None, "valid_to": None, "created_at": now, "updated_at": now}])
        wh.audit("alias-upserted", "management" if resolution_kind == "management" else "deterministic_rule", ident,
                 {"entity": entity_id, "alias": alias, "status": status})
    return ident


def invalidate_alias(wh: Warehouse, scope: MemoryScope, clock: Clock, alias_id: str, reason: str) -> None:
    row = wh.fetchone("SELECT status FROM aliases WHERE scope_key = ? AND id = ?", [scope.key, alias_id])
    if row is None:
        raise NotFoundError("alias", alias_id)
    with wh.transaction():
        wh.con.execute("UPDATE aliases SET status = 'invalidated', reason = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                       [reason, naive_utc(clock.now()), scope.key, alias_id])
        wh.audit("alias-invalidated", "management", alias_id, {"reason": reason})


def invalidate_entity_aliases(wh: Warehouse, scope: MemoryScope, clock: Clock, entity_id: str,
                              reason: str = "canonical entity forgotten") -> int:
    ids = [r[0] for r in wh.fetchall("SELECT id FROM aliases WHERE scope_key = ? AND entity_id = ? AND status <> 'invalidated'",
                                     [scope.key, entity_id])]
    for ident in ids:
        invalidate_alias(wh, scope, clock, ident, reason)
    return len(ids)


def resolve_alias(wh: Warehouse, scope: MemoryScope, clock: Clock, alias: str) -> str | None:
    """The entity id of an exact normalized alias that is active and currently valid."""
    now = naive_utc(clock.now())
    row = wh.fetchone(
        "SELECT entity_id FROM aliases WHERE scope_key = ? AND normalized_alias = ? AND status = 'active' "
        "AND (valid_from IS NULL OR valid_from <= ?) AND (valid_to IS NULL OR valid_to > ?) ORDER BY confidence DESC LIMIT 1",
        [scope.key, normalize_title(alias), now, now])
    return row[0] if row else None


def rebuild_aliases(wh: Warehouse, scope: MemoryScope, clock: Clock, pages: list[Page]) -> int:
    """Recreate derived edges from canonical titles, tags and wikilink aliases (contested by rule)."""
    live = [p for p in pages if p.status == "confirmed"]
    with wh.transaction():
        wh.con.execute("DELETE FROM aliases WHERE scope_key = ? AND resolution_kind = 'derived_inference'", [scope.key])
        count = 0
        by_title = {normalize_title(p.title): p for p in live}
        for page in live:
            for tag in page.tags:
                if normalize_title(tag) != normalize_title(page.title) and page.type == "entity":
                    upsert_alias(wh, scope, clock, page.id, tag, resolution_kind="derived_inference", confidence=0.5)
                    count += 1
            for link in page.links():
                target = by_title.get(normalize_title(link.target))
                if target is not None and link.alias and normalize_title(link.alias) != normalize_title(target.title):
                    upsert_alias(wh, scope, clock, target.id, link.alias, resolution_kind="derived_inference", confidence=0.6)
                    count += 1
    return count


_PAREN = re.compile(r"([^\s()（）]+(?:\s[^\s()（）]+)?)\s*[(（]\s*([^()（）]+?)\s*[)）]")


def explicit_coreferences(sentence: str, entities: list[Page]) -> list[tuple[str, str]]:
    """``Title(Alias)`` or ``Alias Title`` forms in one sentence, when exactly one entity and one alias match."""
    found: list[tuple[str, str]] = []
    people = [p for p in entities if p.type == "entity" and p.status == "confirmed"]
    for m in _PAREN.finditer(sentence):
        left, right = m.group(1).strip(), m.group(2).strip()
        hits = [p for p in people if normalize_title(p.title) in (normalize_title(left), normalize_title(right))]
        if len(hits) == 1:
            alias = right if normalize_title(hits[0].title) == normalize_title(left) else left
            found.append((hits[0].id, alias))
    if not found:
        words = sentence.split()
        hits = [(i, p) for p in people for i in range(1, len(words)) if normalize_title(words[i].strip(".,!?")) == normalize_title(p.title)]
        if len(hits) == 1:
            i, page = hits[0]
            alias = words[i - 1].strip(".,!?")
            if alias[:1].isupper() and normalize_title(alias) != normalize_title(page.title):
                found.append((page.id, alias))
    return found


def aliases_frame(wh: Warehouse, scope: MemoryScope) -> pl.DataFrame:
    return wh.frame("SELECT id, entity_id, alias, resolution_kind, status, confidence, reason, created_at, updated_at "
                    "FROM aliases WHERE scope_key = ? ORDER BY alias", [scope.key])
