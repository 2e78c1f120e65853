"""Review routes: candidates (confirm / reject), observations and contested conflicts."""

from __future__ import annotations

from typing import Any, Callable

from starlette.routing import Route

from ..errors import StateError
from ..vocabulary import CANDIDATE_STATUSES
from .context import Ctx, api
from .redact import candidate_view, is_protected, observation_view, page_view
from .wire import ApiError, body_field, body_time, json_response

__all__ = ["routes", "facade"]

_OBSERVATION_ACTIONS = {
    "activate": "activate_observation",
    "invalidate": "invalidate_observation",
    "suppress": "suppress_observation",
}


def facade(mem: Any, name: str) -> Callable[..., Any]:
    """``mem.<name>``, or 501 when this version of the Memory facade has no such method."""
    method = getattr(mem, name, None)
    if method is None:
        raise ApiError(501, "not-available", f"this riko has no Memory.{name}()")
    return method


@api
async def candidates(ctx: Ctx) -> Any:
    """Pending candidates (``status=all`` or one status for others); protected ones projected."""
    status = ctx.request.query_params.get("status") or "pending"
    if status not in (*CANDIDATE_STATUSES, "all"):
        raise ApiError(400, "bad-query", f"status must be all or one of {', '.join(CANDIDATE_STATUSES)}")
    frame = await ctx.run(lambda mem: mem.candidates(None if status == "all" else status))
    return {"candidates": [candidate_view(row) for row in frame.to_dicts()]}


@api
async def candidate_action(ctx: Ctx) -> Any:
    """Confirm (management authority: a canonical page) or reject one candidate."""
    action = ctx.request.path_params["action"]
    if action not in ("confirm", "reject"):
        raise ApiError(404, "not-found", "candidate actions are confirm and reject")
    cid = ctx.path_id("id", "candidate id")
    if action == "confirm":
        page = await ctx.run(lambda mem: mem.confirm(cid))
        return {"candidate_id": cid, "status": "accepted", "page": page_view(page)}
    await ctx.run(lambda mem: mem.reject(cid))
    return {"candidate_id": cid, "status": "rejected"}


@api
async def observations(ctx: Ctx) -> Any:
    """Inferred observations with statuses (never canon); protected ones projected."""
    status = ctx.request.query_params.get("status") or None
    frame = await ctx.run(lambda mem: mem.observations(status))
    return {"observations": [observation_view(row) for row in frame.to_dicts()]}


@api
async def create_observation(ctx: Ctx) -> Any:
    """An anchored observation candidate (anchors are evidence references)."""
    body = await ctx.body()
    text = body_field(body, "text", required=True)
    anchors = body.get("anchors")
    if not isinstance(anchors, list) or not anchors or not all(isinstance(a, str) for a in anchors):
        raise ApiError(400, "bad-field", "anchors must be a non-empty list of evidence references")
    options: dict[str, Any] = {}
    confidence = body_field(body, "confidence", kind=(int, float))
    if confidence is not None:
        options["confidence"] = confidence
    created = await ctx.run(lambda mem: facade(mem, "add_observation")(text, anchors=anchors, **options))
    return json_response({"observation": created}, 201)


@api
async def observation_action(ctx: Ctx) -> Any:
    action = ctx.request.path_params["action"]
    if action not in _OBSERVATION_ACTIONS:
        raise ApiError(404, "not-found", "observation actions are activate, invalidate and suppress")
    oid = ctx.path_id("id", "observation id")
    result = await ctx.run(lambda mem: facade(mem, _OBSERVATION_ACTIONS[action])(oid))
    return {"id": oid, "action": action, "result": result}


@api
async def conflicts(ctx: Ctx) -> Any:
    state = ctx.request.query_params.get("state") or None
    if state not in (None, "contested", "resolved"):
        raise ApiError(400, "bad-query", "state must be contested or resolved")
    def read(mem: Any) -> list[dict[str, Any]]:
        rows = mem.conflicts(state).to_dicts()
        levels = dict(zip(mem.pages(include_forgotten=True)["id"], mem.pages(include_forgotten=True)["sensitivity"]))
        for row in rows:
            if is_protected(levels.get(row["page_id"])):
                # the subject is the page's title: a protected page keeps it to itself
                row.update(subject=None, redacted=True)
        return rows

    return {"conflicts": await ctx.run(read)}


@api
async def resolve_conflict(ctx: Ctx) -> Any:
    """Resolve a contested overlay: correction, temporal_transition or management.

    Another resolution value is 400; an unknown or already resolved conflict is 404 (no state change).
    """
    kid = ctx.path_id("id", "conflict id")
    body = await ctx.body()
    resolution = body_field(body, "resolution", required=True)
    valid_from = body_time(body, "validFrom", "valid_from")
    try:
        page = await ctx.run(lambda mem: mem.resolve_conflict(kid, resolution, valid_from=valid_from))
    except StateError as exc:
        raise ApiError(404, "not-found", str(exc)) from None
    return {"conflict_id": kid, "resolution": resolution, "page": page_view(page)}


def routes(prefix: str) -> list[Route]:
    return [
        Route(f"{prefix}/candidates", candidates, methods=["GET"]),
        Route(f"{prefix}/candidates/{{id}}/{{action}}", candidate_action, methods=["POST"]),
        Route(f"{prefix}/wiki/candidates/{{id}}/{{action}}", candidate_action, methods=["POST"]),
        Route(f"{prefix}/observations", observations, methods=["GET"]),
        Route(f"{prefix}/observations", create_observation, methods=["POST"]),
        Route(f"{prefix}/observations/{{id}}/{{action}}", observation_action, methods=["POST"]),
        Route(f"{prefix}/conflicts", conflicts, methods=["GET"]),
        Route(f"{prefix}/conflicts/{{id}}/resolve", resolve_conflict, methods=["POST"]),
    ]
