"""Configuration and Dream routes: safe settings view, non-secret Dream settings, queued Dream."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import anyio.to_thread
from starlette.background import BackgroundTask
from starlette.routing import Route

from ..clock import SystemClock
from ..config import camel_name, looks_like_secret, safe_view
from ..errors import NotFoundError
from .context import Ctx, api
from .wire import ApiError, JSONResponse, body_field, check_id, jsonable

__all__ = ["routes", "DREAM_SETTINGS"]

#: The settings POST /config may change: endpoint, model, limits and the credential *reference*.
DREAM_SETTINGS = ("dream_provider", "dream_api_url", "dream_model", "dream_max_tokens",
                  "dream_timeout_ms", "dream_credential_ref")
_BY_NAME = {**{name: name for name in DREAM_SETTINGS}, **{camel_name(name): name for name in DREAM_SETTINGS}}
_SECRET_KEYS = ("apikey", "secret", "password", "token", "bearer", "authorization", "privatekey", "accesskey")


def _config_view(ctx: Ctx) -> dict[str, Any]:
    cfg = ctx.config
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
    """Safe settings: endpoints, models and credential *status*; never a token or a key."""
    return _config_view(ctx)


def _dream_changes(body: dict[str, Any]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for key, value in body.items():
        folded = str(key).lower().replace("_", "").replace("-", "")
        if key not in _BY_NAME and any(word in folded for word in _SECRET_KEYS):
            raise ApiError(400, "secret-rejected",
                           f"{key} looks like a secret: riko never stores keys; put the key in an environment "
                           "variable and send dream_credential_ref with that variable's name")
        name = _BY_NAME.get(key)
        if name is None:
            raise ApiError(400, "unknown-setting",
                           f"{key} is not a Dream setting; allowed: {', '.join(DREAM_SETTINGS)}")
        if isinstance(value, str) and looks_like_secret(value):
            raise ApiError(400, "secret-rejected",
                           f"{name} holds a secret-shaped value; send the name of the environment variable instead")
        if name in changes:
            raise ApiError(400, "bad-field", f"{name} is given twice")
        changes[name] = value
    if not changes:
        raise ApiError(400, "missing-field", f"send at least one of {', '.join(DREAM_SETTINGS)}")
    return changes


@api
async def post_config(ctx: Ctx) -> Any:
    """Update this profile's non-secret Dream settings (validated; raw keys are refused)."""
    changes = _dream_changes(await ctx.body())
    if ctx.server.scopes.dream_state(ctx.profile).state != "idle":
        raise ApiError(409, "dream-busy", "a Dream of this profile is running; change its settings when it is done")
    await anyio.to_thread.run_sync(ctx.server.scopes.reconfigure, ctx.profile, changes)
    return _config_view(ctx)


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
    state = ctx.server.scopes.dream_state(ctx.profile)
    if state.state != "idle":
        raise ApiError(409, "dream-busy", f"a Dream of this profile is already {state.state}")
    clock = ctx.server.scopes.clock or SystemClock()
    state.state, state.queued_at = "queued", clock.now()

    async def run() -> None:
        state.state, state.started_at = "running", clock.now()
        try:
            report = await ctx.server.scopes.run(
                ctx.profile, lambda mem: mem.dream(sessions=[sid] if sid else None, progress=False), exclusive=False)
            state.last_report, state.last_error = jsonable(report), None
        except Exception as exc:  # the failure is shown in the UI, and the server keeps serving
            state.last_error = f"{type(exc).__name__}: {exc}"[:500]
        finally:
            state.state, state.finished_at = "idle", clock.now()

    return JSONResponse({"queued": True, "profile": ctx.profile, "session_id": sid}, status_code=202,
                        background=BackgroundTask(run))


def routes(prefix: str) -> list[Route]:
    return [
        Route(f"{prefix}/config", get_config, methods=["GET"]),
        Route(f"{prefix}/config", post_config, methods=["POST"]),
        Route(f"{prefix}/dream", dream, methods=["POST"]),
    ]
