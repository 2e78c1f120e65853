"""Audit routes: audits, sessions and their evidence, the purge journal, purge and recall."""

from __future__ import annotations

import json
from typing import Any

from starlette.routing import Route

from ..contracts import evidence_ref
from ..errors import NotFoundError
from ..sensitivity.rules import LEVELS, can_transition
from .context import Ctx, api
from .redact import audit_view, is_protected, session_detail
from .wire import ApiError, body_field, body_time, check_id, jsonable, query_int

__all__ = ["routes"]


def _detail(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


@api
async def audits(ctx: Ctx) -> Any:
    """The newest ``limit`` scope-local audit rows (oldest first), optionally of one ``kind``."""
    kind = ctx.request.query_params.get("kind") or None
    limit = query_int(ctx.request, "limit", 200, 1, 5000)

    def read(mem: Any) -> tuple[int, list[dict[str, Any]], set[str]]:
        frame = mem.audits(kind)
        rows = frame.tail(limit).to_dicts()
        levels = dict(mem.pages().select("id", "sensitivity").iter_rows())
        levels.update(mem.candidates(None).select("id", "sensitivity").iter_rows())
        for target in {r["target"] for r in rows if r.get("target")} - set(levels):
            if target.startswith("p-"):
                try:  # a forgotten page is no longer listed by pages()
                    levels[target] = mem.page(target).sensitivity
                except NotFoundError:
                    pass
        return frame.height, rows, {ident for ident, level in levels.items() if is_protected(level)}

    total, rows, protected = await ctx.run(read)
    return {"audits": [audit_view(row, _detail(row.get("detail")), protected) for row in rows], "total": total}


@api
async def sessions(ctx: Ctx) -> Any:
    frame = await ctx.run(lambda mem: mem.sessions())
    return {"sessions": frame.to_dicts()}


@api
async def session(ctx: Ctx) -> Any:
    """Redacted L0 metadata and lines; ``reveal=sensitive`` (owner admin, audited) shows all text."""
    sid = ctx.path_id("id", "session id")
    reveal = await ctx.reveal("session", sid)
    offset = query_int(ctx.request, "offset", 0, 0, 10_000_000)
    limit = query_int(ctx.request, "limit", 500, 1, 5000)

    def read(mem: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        rows = mem.sessions().to_dicts()
        match = [row for row in rows if row["session_id"] == sid]
        if not match:
            raise NotFoundError("session", sid, listing="sessions")
        return match[0], mem.evidence(sid).to_dicts()

    meta, lines = await ctx.run(read)
    if reveal:
        await ctx.audit("sensitive-content-revealed", "management", "session", sid)
    return session_detail(meta, lines, reveal=reveal, offset=offset, limit=limit)


@api
async def line_sensitivity(ctx: Ctx) -> Any:
    """Mark one L0 line's sensitivity: tightening is open to the caller; relaxing needs the owner-admin
    token (the line's text would then be shown); every attempt is audited."""
    sid = ctx.path_id("id", "session id")
    seq = ctx.path_id("seq", "event sequence number")
    if not seq.isdigit():
        raise ApiError(400, "bad-path", f"event sequence number must be a non-negative integer; got {seq!r}")
    level = body_field(await ctx.body(), "sensitivity", required=True)
    ref = evidence_ref(sid, int(seq))

    def mark(mem: Any) -> Any:
        authority = "management"
        if not ctx.principal.owner_admin:
            lines = mem.evidence(sid)
            found = lines.filter(lines["seq"] == int(seq))["sensitivity"].to_list()
            current = found[0] if found else None
            if level in LEVELS and not can_transition(current, level, "model_proposal"):
                authority = "refused"
        if authority == "refused":
            return None
        return mem.mark_evidence_sensitivity(ref, level, authority=authority)

    result = await ctx.run(mark)
    if result is None:
        await ctx.audit("memory-sensitivity-rejected", "refused", "evidence", ref)
        raise ApiError(403, "owner-admin-required", "relaxing an evidence line's sensitivity needs the owner-admin token")
    return result


@api
async def purges(ctx: Ctx) -> Any:
    """The scope-local purge journal: operation, session, status, impact summary (no content)."""
    frame = await ctx.run(lambda mem: mem.purges(impact=True))
    return {"purges": [{**row, "impact": _detail(row.get("impact"))} for row in frame.to_dicts()]}


@api
async def purge(ctx: Ctx) -> Any:
    """Purge one raw session: a dry run returns the plan; execution needs its confirmation token."""
    if not ctx.config.purge_enabled:
        raise ApiError(404, "not-found", "purge is disabled (purge_enabled = false)")
    body = await ctx.body()
    sid = check_id(body_field(body, "sessionId", "session_id", required=True), "session id")
    dry_run = bool(body_field(body, "dryRun", "dry_run", kind=bool))
    confirmation = body_field(body, "confirmation")
    result = await ctx.run(lambda mem: mem.purge(sid, dry_run=dry_run, confirmation=confirmation))
    return jsonable(result)


async def _recall(ctx: Ctx, *, debug: bool = False) -> Any:
    if not ctx.config.recall_enabled:
        raise ApiError(404, "recall-disabled",
                       "recall over HTTP is off (recall_enabled = false); set recall_enabled = true in riko.toml "
                       "or RIKO_RECALL_ENABLED=1 and restart riko serve (mem.recall and riko recall need it too)")
    body = await ctx.body()
    query = body_field(body, "query", required=True)
    at_time = body_time(body, "atTime", "at_time")
    history = bool(body_field(body, "history", kind=bool))
    # only a real injection counts as an access: the debug route inspects, it never injects
    options = {"record_activation": False} if debug else {}
    return await ctx.run(lambda mem: mem.recall(query, at_time=at_time, history=history, **options))


@api
async def recall(ctx: Ctx) -> Any:
    """Bounded query-time recall: the rendered context, its result rows and the trace."""
    result = await _recall(ctx)
    return {"context": result.context, "results": jsonable(result.results), "trace": jsonable(result.trace)}


@api
async def recall_debug(ctx: Ctx) -> Any:
    """The sanitized recall plan, channels, gates and degraded modes (no rendered text)."""
    result = await _recall(ctx, debug=True)
    return {"trace": jsonable(result.trace), "plan": result.plan.sanitized()}


def routes(prefix: str) -> list[Route]:
    return [
        Route(f"{prefix}/audits", audits, methods=["GET"]),
        Route(f"{prefix}/sessions", sessions, methods=["GET"]),
        Route(f"{prefix}/sessions/{{id}}", session, methods=["GET"]),
        Route(f"{prefix}/sessions/{{id}}/events/{{seq}}/sensitivity", line_sensitivity, methods=["PUT"]),
        Route(f"{prefix}/purges", purges, methods=["GET"]),
        Route(f"{prefix}/purge", purge, methods=["POST"]),
        Route(f"{prefix}/recall", recall, methods=["POST"]),
        Route(f"{prefix}/recall/debug", recall_debug, methods=["POST"]),
    ]
