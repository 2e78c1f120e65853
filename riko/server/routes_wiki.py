"""Management routes: the Wiki snapshot, pages and their transitions, graph, search, Resident."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from ..sensitivity.rules import rank
from ..vocabulary import PAGE_TYPES, SENSITIVITIES
from .context import Ctx, api
from .redact import is_protected, page_list_item, page_row_item, page_view
from .wire import ApiError, body_field, body_time, check_id, json_response, query_bool, query_int

__all__ = ["routes"]

_MAX_GRAPH_NODES = 500
_PAGE_FIELDS: dict[str, type | tuple[type, ...]] = {"description": str, "kind": str, "category": str, "sensitivity": str, "confidence": (int, float),
                                                    "supersedes": str, "expires": str}
_RAW_RETENTION = ("forget removes derived memory (Wiki page, Resident, recall) and keeps the raw "
                  "session evidence; only an enabled, confirmed purge removes a raw session")


def _list_items(mem: Any, rows: list[dict[str, Any]], contested: set[str]) -> list[dict[str, Any]]:
    """Tree entries: readable pages from their rows, protected ones as the full projection."""
    return [page_list_item(mem.page(row["id"]), row["id"] in contested) if is_protected(row["sensitivity"])
            else page_row_item(row, row["id"] in contested) for row in rows]


@api
async def wiki(ctx: Ctx) -> Any:
    """The Wiki tree grouped by type, the four-layer counts, Resident and Dream state."""
    limit = query_int(ctx.request, "limit", 1000, 1, 5000)

    def snapshot(mem: Any) -> dict[str, Any]:
        frame = mem.pages()
        contested = set(mem.conflicts("contested")["page_id"].to_list())
        items = _list_items(mem, frame.head(limit).to_dicts(), contested)
        snap = mem.resident()
        pending = mem.candidates()
        return {
            "profile": ctx.profile,
            "counts": {"sessions": mem.sessions().height, "candidates": pending.height,
                       "pages": frame.height, "injected": len(snap.source_page_ids),
                       "contested": len(contested)},
            "pages": items, "truncated": frame.height > limit,
            "tree": {kind: [i for i in items if i["type"] == kind] for kind in PAGE_TYPES
                     if any(i["type"] == kind for i in items)},
            "resident": {"version": snap.version, "source_page_count": len(snap.source_page_ids),
                         "chars": len(snap.text), "max_chars": snap.max_chars},
            "dream": mem.dream_status(),
            "sync": _sync_state(mem.last_sync),
        }

    return await ctx.run(snapshot)


def _sync_state(report: Any) -> dict[str, Any]:
    """The last sync of the page files (the watcher's, ``POST /wiki/sync``'s or the open's): the
    files it refused, each with path, line, field and message, while the previous version serves."""
    return {"errors": report.to_dict()["errors"] if report is not None else []}


@api
async def get_page(ctx: Ctx) -> Any:
    """One page; a protected body is redacted unless an owner admin asks ``reveal=sensitive``."""
    pid = ctx.path_id("id", "page id")
    reveal = await ctx.reveal("page", pid)
    page = await ctx.run(lambda mem: mem.page(pid))
    if reveal and is_protected(page.sensitivity):
        await ctx.audit("sensitive-content-revealed", "management", "page", pid)
    return page_view(page, reveal)


@api
async def page_versions(ctx: Ctx) -> Any:
    """Earlier versions of a page; their text only when the page is readable (or revealed)."""
    pid = ctx.path_id("id", "page id")
    reveal = await ctx.reveal("page", pid)
    page, versions = await ctx.run(lambda mem: (mem.page(pid), mem.page_versions(pid).to_dicts()))
    protected = is_protected(page.sensitivity)
    if reveal and protected:
        await ctx.audit("sensitive-content-revealed", "management", "page", pid)
    if protected and not reveal:
        versions = [{k: v for k, v in row.items() if k != "text"} | {"redacted": True} for row in versions]
    return {"id": pid, "versions": versions}


def _page_fields(body: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, kind in _PAGE_FIELDS.items():
        value = body_field(body, name, kind=kind)
        if value is not None:
            fields[name] = value
    tags = body.get("tags")
    if tags is not None:
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ApiError(400, "bad-field", "tags must be a list of strings")
        fields["tags"] = tags
    return fields


@api
async def create_page(ctx: Ctx) -> Any:
    """A locked, confirmed canonical page written by management."""
    body = await ctx.body()
    title = body_field(body, "title", required=True)
    text = body_field(body, "body") or ""
    kind = body_field(body, "type") or "concept"
    fields = _page_fields(body)
    page, near = await ctx.run(lambda mem: _governed_create(mem, title, text, kind, fields))
    return json_response({**page_view(page), "overlaps": near}, 201)


def _governed_create(mem: Any, title: str, text: str, kind: str, fields: dict[str, Any]) -> tuple[Any, list[Any]]:
    """Create the page; without ``supersedes``, report the current pages it closely resembles."""
    page = mem.create_page(title, text, type=kind, **fields)
    near = [] if "supersedes" in fields else mem.overlaps("\n".join(filter(None, (title, fields.get("description"), text))),
                                                          exclude=[page.id])
    return page, near


@api
async def create_memory(ctx: Ctx) -> Any:
    """The seed's manual-memory convenience: a confirmed page from one piece of text."""
    body = await ctx.body()
    content = body_field(body, "content", "text", required=True).strip()
    if not content:
        raise ApiError(400, "missing-field", "content must not be empty")
    title = body_field(body, "title") or content.splitlines()[0][:80]
    kind = body_field(body, "type") or "concept"
    fields = _page_fields(body)
    page, near = await ctx.run(lambda mem: _governed_create(mem, title, content, kind, fields))
    return json_response({**page_view(page), "overlaps": near}, 201)


@api
async def edit_page(ctx: Ctx) -> Any:
    """Correct the text and/or set sensitivity (a management-authority, audited change)."""
    pid = ctx.path_id("id", "page id")
    body = await ctx.body()
    content = body_field(body, "content", "body")
    level = body_field(body, "sensitivity")
    if content is None and level is None:
        raise ApiError(400, "missing-field", "send content and/or sensitivity")
    if level is not None and not ctx.principal.owner_admin:
        current = (await ctx.run(lambda mem: mem.page(pid))).sensitivity
        if level in SENSITIVITIES and is_protected(current) and rank(level) < rank(current):
            # loosening would show the text to this caller: the same bar as reveal=sensitive
            await ctx.audit("memory-sensitivity-rejected", "refused", "page", pid)
            raise ApiError(403, "owner-admin-required",
                           "loosening a protected page's sensitivity needs the owner-admin token")

    def edit(mem: Any) -> Any:
        page = mem.correct(pid, content) if content is not None else None
        if level is not None:
            page = mem.set_sensitivity(pid, level, authority="management")
        return page

    return page_view(await ctx.run(edit))


@api
async def temporal(ctx: Ctx) -> Any:
    """Publish a temporal replacement from ``validFrom``; the old interval closes there."""
    pid = ctx.path_id("id", "page id")
    body = await ctx.body()
    content = body_field(body, "content", "body", required=True)
    valid_from = body_time(body, "validFrom", "valid_from", required=True)
    page = await ctx.run(lambda mem: mem.replace(pid, content, valid_from))
    return json_response(page_view(page), 201)


@api
async def supersede(ctx: Ctx) -> Any:
    pid = ctx.path_id("id", "page id")
    body = await ctx.body(required=False)
    by = body_field(body, "by", "supersededBy", "superseded_by")
    if by is not None:
        check_id(by, "superseding page id")
    return page_view(await ctx.run(lambda mem: mem.supersede(pid, by=by)))


@api
async def suppress(ctx: Ctx) -> Any:
    pid = ctx.path_id("id", "page id")
    reason = body_field(await ctx.body(required=False), "reason") or "management-suppression"
    return page_view(await ctx.run(lambda mem: mem.suppress(pid, reason=reason)))


@api
async def restore(ctx: Ctx) -> Any:
    pid = ctx.path_id("id", "page id")
    reason = body_field(await ctx.body(required=False), "reason") or "management-restore"
    return page_view(await ctx.run(lambda mem: mem.restore(pid, reason=reason)))


@api
async def forget(ctx: Ctx) -> Any:
    """Remove derived memory; the raw session evidence is retained."""
    pid = ctx.path_id("id", "page id")
    return await ctx.run(lambda mem: mem.forget(pid))


@api
async def sync(ctx: Ctx) -> Any:
    """Apply edits people made to the page files."""
    return (await ctx.run(lambda mem: mem.sync())).to_dict()


@api
async def graph(ctx: Ctx) -> Any:
    """The link graph, or the ``hop``-neighbourhood of ``root``; protected titles are withheld."""
    root = ctx.request.query_params.get("root") or None
    if root is not None:
        check_id(root, "root")
    hop = query_int(ctx.request, "hop", 1, 0, 2)
    evidence = query_bool(ctx.request, "evidence", "includeEvidence")

    def build(mem: Any) -> dict[str, Any]:
        g = mem.graph(root, hop)  # an unknown root page is a NotFoundError → 404
        ids = sorted(g.nodes)[:_MAX_GRAPH_NODES]
        kept = set(ids)
        frame = mem.pages()
        sensitivity = dict(zip(frame["id"].to_list(), frame["sensitivity"].to_list()))
        nodes = []
        for node in ids:
            attrs = g.nodes[node]
            protected = not attrs.get("broken") and is_protected(sensitivity.get(node))
            item = {"id": node, "type": attrs.get("type"), "status": attrs.get("status"),
                    "broken": bool(attrs.get("broken")), "redacted": protected,
                    "title": None if protected else attrs.get("title")}
            if evidence and not attrs.get("broken") and not protected and node in sensitivity:
                item["sources"] = list(mem.page(node).sources)
            nodes.append(item)
        edges = [{"source": u, "target": v, "rel": d.get("rel"), "broken": bool(d.get("broken"))}
                 for u, v, d in g.edges(data=True) if u in kept and v in kept]
        return {"nodes": nodes, "edges": edges, "truncated": g.number_of_nodes() > len(ids)}

    return await ctx.run(build)


@api
async def search(ctx: Ctx) -> Any:
    """Lexical inspection of readable pages (``mem.retrieve`` on the lexical channel), not live
    recall; protected pages never appear. ``hop`` adds pages linked to the hits."""
    query = (ctx.request.query_params.get("q") or "").strip()
    if not query:
        raise ApiError(400, "missing-query", "q is required")
    limit = query_int(ctx.request, "limit", 20, 1, 100)
    hop = query_int(ctx.request, "hop", 0, 0, 2)

    def run(mem: Any) -> dict[str, Any]:
        rows = {row["id"]: row for row in mem.pages().to_dicts()}
        readable = {pid for pid, row in rows.items() if not is_protected(row["sensitivity"])}
        ranked = mem.retrieve(query, k=limit + len(rows) - len(readable), channels=["lexical"])
        hits = [(pid, score) for pid, score in zip(ranked["page_id"].to_list(), ranked["score"].to_list())
                if pid in readable][:limit]
        results = [{**page_row_item(rows[pid]), "score": round(score, 6), "via": "lexical"} for pid, score in hits]
        if hop and hits:
            for near in mem.linked_pages([pid for pid, _ in hits], hop):
                if near in readable:
                    results.append({**page_row_item(rows[near]), "score": None, "via": "graph"})
        return {"query": query, "results": results}

    return await ctx.run(run)


@api
async def sources(ctx: Ctx) -> Any:
    """Scope-local source metadata: the sessions with persisted evidence and where they came from."""
    frame = await ctx.run(lambda mem: mem.sessions())
    return {"sources": frame.to_dicts()}


@api
async def resident(ctx: Ctx) -> Any:
    """The current bounded Resident, the index layer beside it and the raw-retention disclosure."""
    snap, index = await ctx.run(lambda mem: _with_index(mem.resident()))
    return {**snap.to_dict(), "index": index.to_dict(), "source_page_count": len(snap.source_page_ids),
            "raw_retention": _RAW_RETENTION}


def _with_index(snap: Any) -> tuple[Any, Any]:
    return snap, snap.index


def routes(prefix: str) -> list[Route]:
    return [
        Route(f"{prefix}/wiki", wiki, methods=["GET"]),
        Route(f"{prefix}/wiki/graph", graph, methods=["GET"]),
        Route(f"{prefix}/wiki/search", search, methods=["GET"]),
        Route(f"{prefix}/wiki/sources", sources, methods=["GET"]),
        Route(f"{prefix}/wiki/sync", sync, methods=["POST"]),
        Route(f"{prefix}/wiki/pages", create_page, methods=["POST"]),
        Route(f"{prefix}/wiki/pages/{{id}}", get_page, methods=["GET"]),
        Route(f"{prefix}/wiki/pages/{{id}}", edit_page, methods=["PUT"]),
        Route(f"{prefix}/wiki/pages/{{id}}", forget, methods=["DELETE"]),
        Route(f"{prefix}/wiki/pages/{{id}}/versions", page_versions, methods=["GET"]),
        Route(f"{prefix}/wiki/pages/{{id}}/temporal", temporal, methods=["POST"]),
        Route(f"{prefix}/wiki/pages/{{id}}/supersede", supersede, methods=["POST"]),
        Route(f"{prefix}/wiki/pages/{{id}}/suppress", suppress, methods=["POST"]),
        Route(f"{prefix}/wiki/pages/{{id}}/restore", restore, methods=["POST"]),
        Route(f"{prefix}/memories", create_memory, methods=["POST"]),
        Route(f"{prefix}/memories/{{id}}", forget, methods=["DELETE"]),
        Route(f"{prefix}/resident", resident, methods=["GET"]),
    ]
