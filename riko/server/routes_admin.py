"""Configuration and Dream routes: safe settings view, non-secret Dream settings, queued Dream."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from starlette.background import BackgroundTask
from starlette.routing import Route

from ..config import RikoConfig, safe_view
from ..errors import MissingScopeError, NotFoundError
from .context import Ctx, api
from .wire import ApiError, JSONResponse, body_field, check_id

__all__ = ["routes"]


def _config_view(ctx: Ctx, cfg: RikoConfig) -> dict[str, Any]:
    view = safe_view(cfg)
    view.update({
        "profile": ctx.profile,
        "scope_binding": ctx.server.auth.scope_binding,
        "auth_mode": ctx.server.auth.mode,
        "owner_admin": ctx.principal.owner_admin,
        "credentials": {
            "dream": {"ref": cfg.dream_credential_ref, "present": bool(os.environ.get(cfg.dream_credential_ref))},
            "embedding": {"ref": cfg.embedding_credential_ref,
                          "present": bool(os.environ.get(cfg.embedding_credential_ref))},
        },
    })
    return view


@api
async def get_config(ctx: Ctx) -> Any:
    """Safe settings with the scope's saved Dream settings: endpoints, models and credential
    *status*; never a token or a key."""
    try:
        cfg = await ctx.run(lambda mem: mem.dream_config())
    except MissingScopeError:  # no scope yet: nothing saved, the server's settings are in force
        cfg = ctx.config
    return _config_view(ctx, cfg)


@api
async def post_config(ctx: Ctx) -> Any:
    """Save this profile's non-secret Dream settings (``mem.set_dream_settings``: validated,
    persisted, audited; raw keys are refused)."""
    body = await ctx.body()

    def save(mem: Any) -> RikoConfig:
        if mem.dream_status()["state"] != "idle":
            raise ApiError(409, "dream-busy", "a Dream of this profile is running; change its settings when it is done")
        mem.set_dream_settings(**body)
        return mem.dream_config()

    return _config_view(ctx, await ctx.run(save))


@api
async def dream(ctx: Ctx) -> Any:
    """Queue a Dream of one session (``sessionId``) or of the whole profile; answers 202."""
    if importlib.util.find_spec("riko.dream.runner") is None:
        raise ApiError(501, "not-available", "this riko has no Dream runner")
    body = await ctx.body(required=False)
    sid = body_field(body, "sessionId", "session_id")
    if sid is not None:
        check_id(sid, "session id")

        def exists(mem: Any) -> None:
            if sid not in mem.sessions()["session_id"].to_list():
                raise NotFoundError("session", sid, listing="sessions")

        await ctx.run(exists)
    if not await ctx.run(lambda mem: mem.queue_dream()):
        raise ApiError(409, "dream-busy", "a Dream of this profile is already queued or running")

    async def run() -> None:
        try:
            await ctx.server.scopes.run(
                ctx.profile, lambda mem: mem.dream(sessions=[sid] if sid else None, progress=False), exclusive=False)
        except Exception:  # the failure is in the Dream state the UI shows; the server keeps serving
            pass

    return JSONResponse({"queued": True, "profile": ctx.profile, "session_id": sid}, status_code=202,
                        background=BackgroundTask(run))


def routes(prefix: str) -> list[Route]:
    return [
        Route(f"{prefix}/config", get_config, methods=["GET"]),
        Route(f"{prefix}/config", post_config, methods=["POST"]),
        Route(f"{prefix}/dream", dream, methods=["POST"]),
    ]
