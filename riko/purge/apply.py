"""Carry out a purge plan: one warehouse transaction for the records, then the owned files.

Raw lines, sessions, sources and jobs of the session are deleted; pages derived only from
it become tombstones (status ``forgotten``, text removed, file deleted); records with mixed
support lose the session's references and stay. Audit rows stay, with their detail scrubbed.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

from ..review.entities import (EntityMap, entity_body, entity_description, is_entity_page, is_live_statement, kin_links,
                        stated_kin, unstated_kin)
from ..stores.audits import scrub_audits
from ..stores.tables import delete_ids, mark_index_degraded
from ..stores.warehouse import dumps, naive_utc
from ..wiki import parse_page, render_page
from .plan import Plan
from ..dense import DenseIndex
from ..wiki.aliases import rebuild_aliases

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["apply_plan", "PURGED_TITLE"]

#: The title a purged page's tombstone keeps (its id stays so audits and links still resolve).
PURGED_TITLE = "[purged]"


def apply_plan(ctx: "ScopeContext", plan: Plan, operation_id: str) -> None:
    """Apply ``plan`` (the caller holds the lease and a snapshot to restore on failure)."""
    wh = ctx.wh
    now = naive_utc(ctx.clock.now())
    kin = _kin_of_removed(ctx, plan)  # read while the session's lines still tell a speaker's log
    with wh.transaction():
        ctx.stores.evidence.purge(plan.session_id, now)
        delete_ids(wh, "sources", "id", plan.sources)
        delete_ids(wh, "jobs", "id", plan.jobs)
        _pages(ctx, plan, operation_id, now, kin)
        _candidates(ctx, plan, now)
        _observations(ctx, plan, now)
        delete_ids(wh, "suppressions", "id", plan.suppressions)
        delete_ids(wh, "activation", "record_id", plan.activation)
        delete_ids(wh, "projections", "record_id", plan.projections)
        delete_ids(wh, "conflicts", "id", plan.conflicts)
        delete_ids(wh, "vectors", "doc_id", plan.vectors)
        delete_ids(wh, "provider_cache", "request_hash", plan.provider_cache)
        _aliases(ctx, plan, now)
        mark_index_degraded(wh, "purge-rebuild-required", now)
        _files(ctx, plan)
        ctx.resident.refresh()
        # last: the steps above append audits of their own, none of which name the session
        scrub_audits(wh, details=list(plan.audits), targets=list(plan.audit_targets),
                     detail=dumps({"scrubbed": f"purge {operation_id}"}), target=f"purge:{operation_id}")


def _kin_of_removed(ctx: "ScopeContext", plan: Plan) -> dict[str, set[tuple[str, str]]]:
    """Owner page id → the kin links (``sister [[Lena]]``) its ``Family and pets:`` line holds
    that the purge may take away: those a removed statement page stated, and those to a removed
    entity page."""
    before = ctx.canon.pages()
    removed = set(plan.pages_removed)
    entities = EntityMap(before)
    titles = {p.title for p in before if p.id in removed and is_entity_page(p)}
    wanted: dict[str, set[tuple[str, str]]] = {}
    for page in before:
        if page.id in removed and is_live_statement(page):
            words = page.description or page.title
            owner, pairs = stated_kin(words, entities, multi_party=ctx.review.multi_party(page.sources, words))
            if owner is not None and pairs:
                wanted.setdefault(owner, set()).update(pairs)
        elif is_entity_page(page) and page.id not in removed:
            linked = {pair for pair in kin_links(page.body) if pair[1] in titles}
            if linked:
                wanted.setdefault(page.id, set()).update(linked)
    return wanted


def _pages(ctx: "ScopeContext", plan: Plan, operation_id: str, now: Any,
           kin: dict[str, set[tuple[str, str]]]) -> None:
    store = ctx.stores.pages
    removed = set(plan.pages_removed)
    after = [p for p in ctx.canon.pages() if p.id not in removed]
    # the kin links no statement left after the purge states: derived from the purged session only
    unlinked = {owner: gone for owner, pairs in kin.items() if owner not in removed
                for gone in (unstated_kin(ctx.canon.get(owner), pairs, after, ctx.review.multi_party),) if gone}
    for pid in plan.pages_removed:
        store.tombstone(pid, PURGED_TITLE, now)
    for pid in sorted({*plan.pages_scrubbed, *unlinked}):
        page = ctx.canon.get(pid)
        if page.status == "forgotten":
            store.set_sources(pid, dumps(plan.pages_scrubbed.get(pid, list(page.sources))), now)
            continue
        gone = {" ".join(t.casefold().split()) for t in plan.tags_removed.get(pid, [])}
        tags = [t for t in page.tags if " ".join(t.casefold().split()) not in gone]
        drop = unlinked.get(pid, [])
        if (tags != page.tags or drop) and is_entity_page(page):  # the names and kin the session gave it go with it
            page = page.replace(tags=tags, description=entity_description(page.title, page.kind or "other", tags),
                                body=entity_body(tags, page.body, drop=drop))
        ctx.canon.save(page.replace(sources=plan.pages_scrubbed.get(pid, page.sources), version=page.version + 1),
                       authority="management", audit_kind="page-purge-scrubbed", detail={"operation": operation_id})
    for pid, version in plan.versions_removed:
        store.drop_version(pid, version)
    for (pid, version), text in plan.versions_rewritten.items():
        store.rewrite_version(pid, version, _without_kin(text, unlinked.get(pid, [])))


def _without_kin(text: str, drop: list[tuple[str, str]]) -> str:
    """An earlier version's text without the kin links the purge took away."""
    if not drop:
        return text
    page = parse_page(text)
    return render_page(page.replace(body=entity_body(page.tags, page.body, drop=drop)))


def _candidates(ctx: "ScopeContext", plan: Plan, now: Any) -> None:
    store = ctx.stores.candidates
    delete_ids(ctx.wh, "candidates", "id", plan.candidates_removed)
    for cid, (evidence, sessions) in plan.candidates_scrubbed.items():
        store.scrub(cid, dumps(sorted(evidence)), dumps(sorted(sessions)), now)
    for cid in plan.candidates_unconflicted:
        store.unconflict(cid, now)


def _observations(ctx: "ScopeContext", plan: Plan, now: Any) -> None:
    store = ctx.stores.observations
    delete_ids(ctx.wh, "observations", "id", plan.observations_removed)
    for oid, (anchors, sessions, contradictions) in plan.observations_scrubbed.items():
        store.scrub(oid, dumps(anchors), dumps(sessions), dumps(contradictions), now)


def _aliases(ctx: "ScopeContext", plan: Plan, now: Any) -> None:
    store = ctx.stores.aliases
    delete_ids(ctx.wh, "aliases", "id", plan.aliases_removed)
    for aid, refs in plan.aliases_scrubbed.items():
        store.set_refs(aid, dumps(refs), now)
    rebuild_aliases(ctx.wh, ctx.scope, ctx.clock, ctx.canon.pages())


def _files(ctx: "ScopeContext", plan: Plan) -> None:
    """Delete removed page files and the session's exports; strip its vectors from the index."""
    for pid in plan.pages_removed:
        rel = plan.page_files.get(pid)
        if rel:
            (ctx.wiki_dir / rel).unlink(missing_ok=True)
    for path in plan.export_paths:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    if plan.dense_dir is not None and plan.dense_dir.is_dir():

        index = DenseIndex(plan.dense_dir, None)
        index.drop_documents(set(plan.dense_doc_ids))
        index.invalidate("purge-rebuild-required")
