"""Safe-usage projections: how a page or observation may be used when it is recalled.

A projection is derived from canon (never canonical itself): its ``disclosure`` is the single
raw-text policy the mention gate enforces, and silent use prints only its effects, topic
tags and a non-identifying summary. Projections are rebuilt from pages and observations and
persisted in the ``projections`` table, so other readers see exactly what recall used.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import pyarrow as pa

from ..stores.migrations import RECORD_SCHEMA_VERSION
from ..sensitivity.rules import disclosure_for, sensitive_cue_categories
from ..stores.warehouse import dumps, naive_utc
from ..wiki import Page
from .render import is_non_identifying_summary

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = [
    "Projection", "page_projection", "observation_projection", "evidence_guidance", "persist_projections",
    "rebuild_projections",
    "load_projections",
]

_EFFECTS = {
    "normal": ("preference_alignment", "avoid_repetition"),
    "user_explicit_only": ("tone", "avoid_repetition"),
    "never_explicit": ("tone", "avoid_topic"),
}
_CATEGORY_WORDS = {
    "private": "private", "medical": "health", "psychological": "wellbeing", "sexual": "intimate",
    "credential": "security", "identity": "identity", "financial": "financial",
}


@dataclass(frozen=True)
class Projection:
    """The safe-usage projection of one record (``record_id`` is a page or observation id)."""

    record_id: str
    disclosure: str
    allowed_effects: tuple[str, ...]
    topic_tags: tuple[str, ...]
    summary: str | None
    generated_from_version: str

    def row(self, generated_at: Any) -> dict[str, Any]:
        return {
            "record_id": self.record_id, "disclosure": self.disclosure,
            "allowed_effects": dumps(list(self.allowed_effects)), "topic_tags": dumps(list(self.topic_tags)),
            "summary": self.summary, "generated_from_version": self.generated_from_version,
            "generated_at": naive_utc(generated_at),
        }


def _summary(kind: str, categories: tuple[str, ...], raw: str) -> str | None:
    words = [_CATEGORY_WORDS[c] for c in categories if c in _CATEGORY_WORDS]
    about = f" ({', '.join(dict.fromkeys(words))})" if words else ""
    text = f"A personal {kind} the user shared{about}; handle it with care."
    return text if is_non_identifying_summary(text, raw) else None


def _version(*parts: object) -> str:
    return hashlib.sha256("\0".join(map(str, parts)).encode("utf-8")).hexdigest()[:16]


def page_projection(page: Page) -> Projection:
    """Projection of a canonical page, from its sensitivity, tags and sensitive-cue categories."""
    raw = "\n".join((page.title, page.description, page.body))
    disclosure = disclosure_for(page.sensitivity)
    categories = sensitive_cue_categories(raw) if disclosure != "normal" else ()
    summary = _summary("memory", categories, raw) if disclosure != "normal" else None
    return Projection(
        page.id, disclosure, _EFFECTS[disclosure], tuple(dict.fromkeys([*page.tags, *categories])), summary,
        f"v{page.version}:{_version(page.sensitivity, raw, page.tags, page.usage_policy)}",
    )


def observation_projection(obs: Mapping[str, Any]) -> Projection:
    """Projection of an observation; an unclassified observation fails closed (never_explicit)."""
    text = obs.get("text") or ""
    disclosure = disclosure_for(obs.get("sensitivity"))
    categories = sensitive_cue_categories(text)
    effects = ("tone", "preference_alignment") if disclosure == "normal" else _EFFECTS[disclosure]
    return Projection(
        obs["id"], disclosure, effects, tuple(categories), _summary("pattern", categories, text),
        _version(obs.get("status"), obs.get("sensitivity"), text),
    )


def evidence_guidance(text: str, disclosure: str) -> tuple[tuple[str, ...], str | None]:
    """Allowed effects and a non-identifying summary for silent use of a raw L0 line."""
    if disclosure == "normal":
        return _EFFECTS["normal"], None
    return _EFFECTS[disclosure], _summary("message", sensitive_cue_categories(text), text)


def refresh_projections(ctx: "ScopeContext") -> int:
    """Make the ``projections`` table equal the scope's canon (read-only scopes only read it);
    returns how many projections the table holds."""
    if not ctx.read_only:
        rebuild_projections(ctx, ctx.canon.pages(), ctx.clock.now())
    return len(load_projections(ctx))


def listen(ctx: "ScopeContext") -> None:
    """Subscribe the projections to every canon change, so the table never waits for a recall."""
    ctx.changed.subscribe(lambda: refresh_projections(ctx), kinds={"canon"})


def load_projections(ctx: "ScopeContext") -> dict[str, Projection]:
    """The persisted projections of a scope, by record id."""
    rows = ctx.stores.projections.tuples()
    return {
        r[0]: Projection(r[0], r[1], tuple(json.loads(r[2] or "[]")), tuple(json.loads(r[3] or "[]")), r[4], r[5] or "")
        for r in rows
    }


def rebuild_projections(ctx: "ScopeContext", pages: Iterable[Any], now: Any) -> int:
    """Derive every projection from the canonical ``pages`` (forgotten ones left out) and the
    scope's observations, and make the ``projections`` table equal them; returns rows changed."""

    names, records = ctx.stores.observations.recall_records()
    derived = [page_projection(p) for p in pages if p.status != "forgotten"]
    derived += [observation_projection(dict(zip(names, values))) for values in records]
    return persist_projections(ctx, derived, now)


def persist_projections(ctx: "ScopeContext", projections: Iterable[Projection], now: Any) -> int:
    """Make the ``projections`` table equal ``projections``; returns how many rows changed.

    Only differing rows are rewritten, so an unchanged canon costs one read.
    """
    wanted = {p.record_id: p for p in projections}
    stored = load_projections(ctx)
    changed = [p for rid, p in wanted.items() if stored.get(rid) != p]
    stale = [rid for rid in stored if rid not in wanted]
    if not changed and not stale:
        return 0
    wh, scope_key = ctx.wh, ctx.scope.key
    with wh.transaction():
        ctx.stores.projections.delete([p.record_id for p in changed] + stale)
        if changed:
            rows = [p.row(now) for p in changed]
            columns = {name: [r[name] for r in rows] for name in rows[0]}
            columns["scope_key"] = [scope_key] * len(rows)
            columns["schema_version"] = [RECORD_SCHEMA_VERSION] * len(rows)
            wh.insert_arrow("projections", pa.table(columns))
    return len(changed) + len(stale)
