"""Revocable alias edges: an alias points at an entity page; it never merges or edits canon."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import polars as pl

from ..clock import Clock
from ..errors import InvalidArgumentError, NotFoundError
from ..language.text import EN_STOPWORDS
from ..scope import MemoryScope
from ..stores.aliases import AliasStore
from ..stores.warehouse import Warehouse, dumps, naive_utc
from . import Page, normalize_title

__all__ = ["upsert_alias", "upsert_aliases", "repoint_aliases", "invalidate_alias", "invalidate_entity_alias", "invalidate_entity_aliases", "resolve_alias", "rebuild_aliases",
           "explicit_coreferences", "aliases_frame", "RESOLUTION_KINDS"]

RESOLUTION_KINDS = ("explicit_coreference", "management", "derived_inference")


def _alias_id(scope: MemoryScope, entity_id: str, normalized: str) -> str:
    return "a-" + hashlib.sha256(f"{scope.key}:{entity_id}:{normalized}".encode()).hexdigest()[:16]


def _store(wh: Warehouse) -> AliasStore:
    """The alias store over ``wh``: the functions here take the bare warehouse that Memory,
    riko.tools, the canon, the review and tests pass, so this is where it becomes the store."""
    return AliasStore(wh)


def upsert_alias(wh: Warehouse, scope: MemoryScope, clock: Clock, entity_id: str, alias: str, *,
                 resolution_kind: str, confidence: float = 1.0, source_refs: tuple[str, ...] = ()) -> str:
    """Add an alias edge; an edge with the same normalized alias (to any entity) is replaced.

    ``derived_inference`` edges are always ``contested``; explicit and management edges are
    active. A derived edge never replaces an explicit or management decision, nor an edge a
    person invalidated: the existing edge's id is returned and nothing changes.
    """
    if resolution_kind not in RESOLUTION_KINDS:
        raise InvalidArgumentError(f"resolution_kind must be one of {', '.join(RESOLUTION_KINDS)}")
    normalized = normalize_title(alias)
    if not normalized:
        raise InvalidArgumentError("an alias must not be empty")
    status = "contested" if resolution_kind == "derived_inference" else "active"
    now = naive_utc(clock.now())
    ident = _alias_id(scope, entity_id, normalized)
    store = _store(wh)
    with wh.transaction():
        if resolution_kind == "derived_inference":
            kept = store.decided(normalized)
            if kept is not None:
                return kept
        store.replace({
            "id": ident, "entity_id": entity_id, "alias": alias, "normalized_alias": normalized, "confidence": confidence,
            "source_refs": dumps(list(source_refs)), "resolution_kind": resolution_kind, "status": status, "reason": None,
            "valid_from": None, "valid_to": None, "created_at": now, "updated_at": now})
        wh.audit("alias-upserted", "management" if resolution_kind == "management" else "deterministic_rule", ident,
                 {"entity": entity_id, "alias": alias, "status": status, "resolution_kind": resolution_kind})
    return ident


def upsert_aliases(wh: Warehouse, scope: MemoryScope, clock: Clock,
                   edges: Sequence[tuple[str, str, str, float, tuple[str, ...]]]) -> list[str]:
    """:func:`upsert_alias` for many ``(entity id, alias, resolution kind, confidence, source refs)``
    edges in a few statements, leaving the rows and audits the calls one after another would leave
    (a later edge of the same alias replaces an earlier one; a derived edge never replaces a
    decided one, including one decided earlier in ``edges``). Returns the edge id of each."""
    if not edges:
        return []
    keys = []
    for _, alias, kind, _, _ in edges:
        if kind not in RESOLUTION_KINDS:
            raise InvalidArgumentError(f"resolution_kind must be one of {', '.join(RESOLUTION_KINDS)}")
        normalized = normalize_title(alias)
        if not normalized:
            raise InvalidArgumentError("an alias must not be empty")
        keys.append(normalized)
    now = naive_utc(clock.now())
    with wh.transaction():
        store = _store(wh)
        derived = sorted({k for k, e in zip(keys, edges) if e[2] == "derived_inference"})
        decided = store.decided_many(derived)
        out: list[str] = []
        rows: dict[str, dict[str, Any]] = {}
        audits: list[tuple[str, str, str | None, str | None]] = []
        for (entity_id, alias, kind, confidence, refs), normalized in zip(edges, keys):
            if kind == "derived_inference" and normalized in decided:
                out.append(decided[normalized])
                continue
            status = "contested" if kind == "derived_inference" else "active"
            ident = _alias_id(scope, entity_id, normalized)
            if kind != "derived_inference":
                decided[normalized] = ident  # the only edge of its alias now, and a decided one
            rows.pop(normalized, None)  # the later edge of an alias replaces the earlier one
            rows[normalized] = {
                "id": ident, "entity_id": entity_id, "alias": alias, "normalized_alias": normalized,
                "confidence": confidence, "source_refs": dumps(list(refs)), "resolution_kind": kind,
                "status": status, "reason": None, "valid_from": None, "valid_to": None, "created_at": now,
                "updated_at": now}
            audits.append(("alias-upserted", "management" if kind == "management" else "deterministic_rule", ident,
                           dumps({"entity": entity_id, "alias": alias, "status": status, "resolution_kind": kind})))
            out.append(ident)
        store.replace_many(list(rows.values()))
        wh.audit_many(audits)
    return out


def repoint_aliases(wh: Warehouse, scope: MemoryScope, clock: Clock, from_id: str, to_id: str) -> int:
    """The alias edges a candidate collected (other wordings merged into it) follow it to the page
    it was admitted as or absorbed into; audited. Returns the edges moved."""
    with wh.transaction():
        ids = _store(wh).repoint(from_id, to_id, naive_utc(clock.now()))
        for ident in ids:
            wh.audit("alias-repointed", "deterministic_rule", ident, {"from": from_id, "to": to_id})
    return len(ids)


def invalidate_alias(wh: Warehouse, scope: MemoryScope, clock: Clock, alias_id: str, reason: str) -> None:
    store = _store(wh)
    if store.status(alias_id) is None:
        raise NotFoundError("alias", alias_id)
    with wh.transaction():
        store.invalidate(alias_id, reason, naive_utc(clock.now()))
        wh.audit("alias-invalidated", "management", alias_id, {"reason": reason})


def invalidate_entity_alias(wh: Warehouse, scope: MemoryScope, clock: Clock, entity_id: str, alias: str,
                            reason: str) -> bool:
    """Invalidate the edge ``alias`` → ``entity_id`` if there is a live one; whether there was."""
    ident = _alias_id(scope, entity_id, normalize_title(alias))
    if _store(wh).status(ident) in (None, "invalidated"):
        return False
    invalidate_alias(wh, scope, clock, ident, reason)
    return True


def invalidate_entity_aliases(wh: Warehouse, scope: MemoryScope, clock: Clock, entity_id: str,
                              reason: str = "canonical entity forgotten") -> int:
    ids = _store(wh).live_ids_of(entity_id)
    for ident in ids:
        invalidate_alias(wh, scope, clock, ident, reason)
    return len(ids)


def resolve_alias(wh: Warehouse, scope: MemoryScope, clock: Clock, alias: str) -> str | None:
    """The entity id of an exact normalized alias that is active and currently valid."""
    now = naive_utc(clock.now())
    return _store(wh).resolve(normalize_title(alias), now)


def rebuild_aliases(wh: Warehouse, scope: MemoryScope, clock: Clock, pages: list[Page]) -> int:
    """Recreate derived edges from canonical entity titles, their tags and aliased wikilinks
    (``[[Title|alias]]``); derived edges are contested by rule. Returns the edges written."""
    live = [p for p in pages if p.status == "confirmed" and p.superseded_by is None]
    entities = {normalize_title(p.title): p for p in live if p.type == "entity"}
    edges: dict[str, tuple[str, str, float]] = {}
    for page in live:
        if page.type == "entity":
            for tag in page.tags:
                if normalize_title(tag) and normalize_title(tag) not in entities:
                    edges.setdefault(normalize_title(tag), (page.id, tag, 0.5))
        for link in page.links():
            target = entities.get(normalize_title(link.target))
            if target is not None and link.alias and normalize_title(link.alias) not in entities:
                edges.setdefault(normalize_title(link.alias), (target.id, link.alias, 0.6))
    written = 0
    with wh.transaction():
        store = _store(wh)
        kept = {n: e for n, e in edges.items() if store.decided(n) is None}
        if store.derived() == {_alias_id(scope, e[0], n): (e[0], e[1], e[2]) for n, e in kept.items()}:
            return len(kept)  # already what canon says (a re-run, a resumed purge): nothing to write or audit
        store.drop_derived()
        for normalized in sorted(edges):
            if store.decided(normalized) is not None:
                continue
            entity_id, alias, confidence = edges[normalized]
            upsert_alias(wh, scope, clock, entity_id, alias, resolution_kind="derived_inference", confidence=confidence)
            written += 1
    return written


_PAREN_AFTER = re.compile(r"\s*[(（]\s*([^()（）]+?)\s*[)）]")
_PAREN_AROUND = re.compile(r"(\S+)\s*[(（]\s*$")  # "Alias (" right before a title written in parentheses
_PAREN_CLOSE = re.compile(r"\s*[)）]")
_EDGE_PUNCT = ".,;:!?\"'“”‘’「」『』，。！？"


# Capitalised words that are not names: time words, greetings and discourse markers.
_NOT_NAMES = frozenset("""
yesterday today tomorrow tonight morning evening afternoon night weekend week month year
monday tuesday wednesday thursday friday saturday sunday january february march april may june july
august september october november december hi hello hey thanks thank dear oh ah well so and but then
also ok okay yes no please sorry maybe now later soon after before when while since because if
""".split())


def _not_a_name(word: str) -> bool:
    folded = word.casefold()
    return folded in _NOT_NAMES or folded in EN_STOPWORDS


def explicit_coreferences(sentence: str, entities: list[Page]) -> list[tuple[str, str]]:
    """``Title(Alias)``, ``Alias(Title)`` or ``Alias Title`` in one sentence: ``[(entity_id, alias)]`` when exactly
    one confirmed entity and one alias match, else ``[]`` (an ambiguous sentence teaches nothing)."""
    people = [p for p in entities if p.type == "entity" and p.status == "confirmed" and p.title.strip()]
    titles = {normalize_title(p.title) for p in people}
    found: dict[tuple[str, str], str] = {}
    for page in people:
        pattern = re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in page.title.split()) + r"(?!\w)",
                             re.IGNORECASE)
        for m in pattern.finditer(sentence):
            after = _PAREN_AFTER.match(sentence, m.end())
            opened = _PAREN_AROUND.search(sentence[:m.start()])
            inside = opened if opened and _PAREN_CLOSE.match(sentence, m.end()) else None
            if after:
                alias = after.group(1).strip()
            elif inside:
                alias = inside.group(1).strip(_EDGE_PUNCT)
            else:
                before = sentence[:m.start()].split()
                alias = before[-1].strip(_EDGE_PUNCT) if before else ""
                # "Uncle Joe" mid-sentence; never the sentence's first word or a function word
                if len(before) < 2 or not alias[:1].isupper() or _not_a_name(alias):
                    continue
            if alias and normalize_title(alias) not in titles:
                found.setdefault((page.id, normalize_title(alias)), alias)
    if len({e for e, _ in found}) == 1 and len({a for _, a in found}) == 1:
        (entity_id, _), alias = next(iter(found.items()))
        return [(entity_id, alias)]
    return []


def aliases_frame(wh: Warehouse, scope: MemoryScope) -> pl.DataFrame:
    return _store(wh).rows()
