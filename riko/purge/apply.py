"""Carry out a purge plan: one warehouse transaction for the records, then the owned files.

Raw lines, sessions, sources and jobs of the session are deleted; pages derived only from
it become tombstones (status ``forgotten``, text removed, file deleted); records with mixed
support lose the session's references and stay. Audit rows stay, with their detail scrubbed.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

from ..warehouse import dumps, naive_utc
from .plan import Plan

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["apply_plan", "PURGED_TITLE"]

#: The title a purged page's tombstone keeps (its id stays so audits and links still resolve).
PURGED_TITLE = "[purged]"


def _delete(mem: "ScopeContext", table: str, column: str, ids: list[Any]) -> None:
    if ids:
        mem.wh.con.execute(f"DELETE FROM {table} WHERE scope_key = ? AND list_contains(?, {column})",
                            [mem.scope.key, list(ids)])


def apply_plan(mem: "ScopeContext", plan: Plan, operation_id: str) -> None:
    """Apply ``plan`` (the caller holds the lease and a snapshot to restore on failure)."""
    wh, key, sid = mem.wh, mem.scope.key, plan.session_id
    now = naive_utc(mem.clock.now())
    with wh.transaction():
        con = wh.con
        con.execute("DELETE FROM evidence WHERE scope_key = ? AND session_id = ?", [key, sid])
        con.execute("DELETE FROM sessions WHERE scope_key = ? AND session_id = ?", [key, sid])
        con.execute("UPDATE sessions SET parent_session = NULL, updated_at = ? WHERE scope_key = ? AND parent_session = ?",
                    [now, key, sid])
        _delete(mem, "sources", "id", plan.sources)
        _delete(mem, "jobs", "id", plan.jobs)
        _pages(mem, plan, operation_id, now)
        _candidates(mem, plan, now)
        _observations(mem, plan, now)
        _delete(mem, "suppressions", "id", plan.suppressions)
        _delete(mem, "activation", "record_id", plan.activation)
        _delete(mem, "projections", "record_id", plan.projections)
        _delete(mem, "conflicts", "id", plan.conflicts)
        _delete(mem, "vectors", "doc_id", plan.vectors)
        _delete(mem, "provider_cache", "request_hash", plan.provider_cache)
        _aliases(mem, plan, now)
        con.execute("UPDATE index_meta SET degraded_reason = 'purge-rebuild-required', updated_at = ? WHERE scope_key = ?",
                    [now, key])
        _files(mem, plan)
        mem.resident.refresh()
        # last: the steps above append audits of their own, none of which name the session
        if plan.audits:
            con.execute("UPDATE audits SET detail = ? WHERE scope_key = ? AND list_contains(?, id)",
                        [dumps({"scrubbed": f"purge {operation_id}"}), key, plan.audits])
        if plan.audit_targets:
            con.execute("UPDATE audits SET target = ? WHERE scope_key = ? AND list_contains(?, id)",
                        [f"purge:{operation_id}", key, plan.audit_targets])


def _pages(mem: "ScopeContext", plan: Plan, operation_id: str, now: Any) -> None:
    con, key = mem.wh.con, mem.scope.key
    for pid in plan.pages_removed:
        con.execute(
            "UPDATE pages SET status = 'forgotten', title = ?, description = '', body = '', tags = '[]', sources = '[]', "
            "kind = NULL, category = NULL, sensitivity_history = '[]', supersede_reason = NULL, path = NULL, "
            "file_hash = NULL, source_candidates = '[]', extra = '{}', version = version + 1, updated_at = ? "
            "WHERE scope_key = ? AND id = ?", [PURGED_TITLE, now, key, pid])
    for pid, kept in plan.pages_scrubbed.items():
        page = mem.canon.get(pid)
        if page.status == "forgotten":
            con.execute("UPDATE pages SET sources = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                        [dumps(kept), now, key, pid])
        else:
            mem.canon.save(page.replace(sources=kept, version=page.version + 1), authority="management",
                            audit_kind="page-purge-scrubbed", detail={"operation": operation_id})
    for pid, version in plan.versions_removed:
        con.execute("DELETE FROM page_versions WHERE scope_key = ? AND page_id = ? AND version = ?", [key, pid, version])
    for (pid, version), text in plan.versions_rewritten.items():
        con.execute("UPDATE page_versions SET text = ? WHERE scope_key = ? AND page_id = ? AND version = ?",
                    [text, key, pid, version])


def _candidates(mem: "ScopeContext", plan: Plan, now: Any) -> None:
    con, key = mem.wh.con, mem.scope.key
    _delete(mem, "candidates", "id", plan.candidates_removed)
    for cid, (evidence, sessions) in plan.candidates_scrubbed.items():
        con.execute("UPDATE candidates SET evidence = ?, source_sessions = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                    [dumps(sorted(evidence)), dumps(sorted(sessions)), now, key, cid])
    for cid in plan.candidates_unconflicted:
        # the page it contradicted is gone, so it is an ordinary proposal again
        con.execute("UPDATE candidates SET conflict_page_id = NULL, status = CASE WHEN status = 'pending_conflict' "
                    "THEN 'pending' ELSE status END, updated_at = ? WHERE scope_key = ? AND id = ?", [now, key, cid])


def _observations(mem: "ScopeContext", plan: Plan, now: Any) -> None:
    con, key = mem.wh.con, mem.scope.key
    _delete(mem, "observations", "id", plan.observations_removed)
    for oid, (anchors, sessions, contradictions) in plan.observations_scrubbed.items():
        con.execute("UPDATE observations SET anchors = ?, session_ids = ?, contradictions = ?, updated_at = ? "
                    "WHERE scope_key = ? AND id = ?",
                    [dumps(anchors), dumps(sessions), dumps(contradictions), now, key, oid])


def _aliases(mem: "ScopeContext", plan: Plan, now: Any) -> None:
    from ..aliases import rebuild_aliases

    con, key = mem.wh.con, mem.scope.key
    _delete(mem, "aliases", "id", plan.aliases_removed)
    for aid, refs in plan.aliases_scrubbed.items():
        con.execute("UPDATE aliases SET source_refs = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                    [dumps(refs), now, key, aid])
    rebuild_aliases(mem.wh, mem.scope, mem.clock, mem.canon.pages())


def _files(mem: "ScopeContext", plan: Plan) -> None:
    """Delete removed page files and the session's exports; strip its vectors from the index."""
    for pid in plan.pages_removed:
        rel = plan.page_files.get(pid)
        if rel:
            (mem.wiki_dir / rel).unlink(missing_ok=True)
    for path in plan.export_paths:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    if plan.dense_dir is not None and plan.dense_dir.is_dir():
        from ..dense import DenseIndex

        index = DenseIndex(plan.dense_dir, None)
        index.drop_documents(set(plan.dense_doc_ids))
        index.invalidate("purge-rebuild-required")
