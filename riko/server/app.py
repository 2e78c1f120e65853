"""The control API and review page as one Starlette app under ``api_path`` (default ``/memory/v1``).

    >>> app = create_app("demo-root")                         # doctest: +SKIP
    >>> uvicorn.run(app, host="127.0.0.1", port=8765)          # doctest: +SKIP

Every data route authenticates (see :mod:`riko.server.auth`) and makes one call into the
caller's :class:`riko.Memory`; the HTML page is public and calls the same routes.
"""

from __future__ import annotations

import html
import logging
import os
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Mapping

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..clock import Clock, as_clock
from ..config import RikoConfig, load_config
from ..errors import RikoError
from . import routes_admin, routes_audit, routes_review, routes_wiki
from .access_log import install_access_log_filter
from .auth import PROFILE_HEADERS, AuthPolicy
from .context import Server
from .scheduler import DreamScheduler
from .scopes import Scopes
from .wire import MAX_BODY_BYTES, ApiError, error_response, status_for

__all__ = ["create_app", "STATIC_FILES"]

log = logging.getLogger("riko.server")

#: The only files the page route serves (no path from a request ever reaches the filesystem).
STATIC_FILES = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}

_PAGE_HEADERS = {
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
}
_CORS = {
    "access-control-allow-origin": "null",
    "access-control-allow-methods": "GET, POST, PUT, DELETE, OPTIONS",
    "access-control-allow-headers": ", ".join(("authorization", "content-type", *PROFILE_HEADERS)),
    "access-control-max-age": "600",
    "cache-control": "no-store",
}


def _static(name: str) -> str:
    return resources.files("riko.server").joinpath("static", name).read_text(encoding="utf-8")


def _page_route(api_path: str) -> Callable[[Request], Any]:
    page = _static("index.html").replace("__API_PATH__", html.escape(api_path, quote=True))

    async def review_page(request: Request) -> Response:
        """The dependency-free review page (public; its data calls authenticate)."""
        return Response(page, media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)

    return review_page


async def _static_file(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC_FILES:
        return error_response(404, "not-found", "no such file")
    return Response(_static(name), media_type=STATIC_FILES[name], headers=_PAGE_HEADERS)


async def _preflight(request: Request) -> Response:
    """CORS preflight: 204 with the fixed origin ``null`` (no authentication)."""
    return Response(status_code=204, headers=_CORS)


async def _unknown(request: Request) -> Response:
    return error_response(404, "not-found", "no such route")


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    response = error_response(exc.status, exc.code, exc.message)
    if exc.status == 401:
        response.headers["www-authenticate"] = "Bearer"
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own 404 / 405 answers, as JSON like every other error."""
    assert isinstance(exc, HTTPException)
    codes = {404: "not-found", 405: "method-not-allowed"}
    response = error_response(exc.status_code, codes.get(exc.status_code, "invalid"), str(exc.detail))
    for name, value in (exc.headers or {}).items():
        response.headers[name] = value
    return response


async def _riko_error(request: Request, exc: Exception) -> Response:
    status, code = status_for(exc)
    message = exc.render("http") if isinstance(exc, RikoError) else str(exc)
    return error_response(status, code, message)


async def _value_error(request: Request, exc: Exception) -> Response:
    return error_response(400, "invalid", str(exc))


async def _missing_module(request: Request, exc: Exception) -> Response:
    name = getattr(exc, "name", "") or ""
    if name.startswith("riko."):
        return error_response(501, "not-available", f"this riko has no {name}")
    log.exception("missing module", exc_info=exc)
    return error_response(500, "internal", "internal server error")


class _ContainErrors:
    """An error no handler expected becomes a logged JSON 500 that ends there.

    Starlette's own last-resort handler answers 500 and then raises the error again, so the
    server drops the connection and a keep-alive client's next request is reset. Caught here,
    inside that handler, the connection stays usable like after any other error answer.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            log.error("unhandled error on %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
            if started:
                raise  # half a response went out: only closing the connection is honest
            await error_response(500, "internal", "internal server error")(scope, receive, send)


def create_app(
    root: str | os.PathLike[str] = ".",
    config: RikoConfig | Mapping[str, Any] | None = None,
    clock: Clock | Callable[[], Any] | None = None,
    *,
    host: str = "127.0.0.1",
    max_body_bytes: int = MAX_BODY_BYTES,
    watch: bool = False,
    schedule: bool = False,
) -> Starlette:
    """The control API and review page for every profile of the owner under ``root``.

    ``config`` overrides ``<root>/riko.toml`` and ``RIKO_*``; ``host`` is where it will be
    served: a non-loopback host with no token configured raises :class:`~riko.errors.ConfigError`.
    Each profile's Memory opens on first use and closes at shutdown (``app.state.riko.scopes``);
    with ``watch`` each open profile syncs hand edits of its page files as they happen; with
    ``schedule`` (what ``riko serve`` runs) each open profile's Dream runs on its own,
    ``debounce_ms`` after new evidence and every ``dream_interval_ms`` (:mod:`riko.server.scheduler`).
    """
    root_path = Path(root).absolute()
    cfg = load_config(root_path, overrides=config)
    install_access_log_filter()  # a token sent as ?token= never reaches the access log
    server = Server(
        config=cfg,
        auth=AuthPolicy(cfg, host),
        scopes=Scopes(root_path, cfg, as_clock(clock) if clock is not None else None, watch=watch),
        max_body_bytes=max_body_bytes,
    )
    prefix = cfg.api_path
    page = _page_route(prefix)
    routes: list[Route] = [
        Route(prefix, page, methods=["GET"]),
        Route(f"{prefix}/", page, methods=["GET"]),
        Route(f"{prefix}/ui", page, methods=["GET"]),
        Route(f"{prefix}/static/{{name}}", _static_file, methods=["GET"]),
        Route(prefix, _preflight, methods=["OPTIONS"]),
        Route(f"{prefix}/{{rest:path}}", _preflight, methods=["OPTIONS"]),
        *routes_admin.routes(prefix),
        *routes_wiki.routes(prefix),
        *routes_review.routes(prefix),
        *routes_audit.routes(prefix),
        Route(f"{prefix}/{{rest:path}}", _unknown, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        scheduler = DreamScheduler(server.scopes, cfg.debounce_ms, cfg.dream_interval_ms) if schedule else None
        app.state.dream_scheduler = scheduler
        if scheduler is not None:
            scheduler.start()
        try:
            yield
        finally:
            if scheduler is not None:
                scheduler.stop()
            server.scopes.close_all()

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            RikoError: _riko_error,
            ValueError: _value_error,
            ModuleNotFoundError: _missing_module,
        },
        middleware=[Middleware(_ContainErrors)],
    )
    app.state.riko = server
    return app
