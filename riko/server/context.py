"""The per-request view a route sees: the authenticated caller and a door to its scope's Memory.

Routes are written as ``@api async def route(ctx)``: authentication has already happened, and
``await ctx.run(lambda mem: mem.<method>(...))`` is the only way to reach storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TypeVar

from starlette.requests import Request
from starlette.responses import Response

from ..config import RikoConfig
from ..errors import MissingScopeError
from .auth import AuthPolicy, Principal
from .redact import target_hash
from .scopes import Scopes
from .wire import ApiError, check_id, json_response, read_json

__all__ = ["Server", "Ctx", "api"]

T = TypeVar("T")


@dataclass
class Server:
    """Everything the routes share: configuration, authentication and the open scopes."""

    config: RikoConfig
    auth: AuthPolicy
    scopes: Scopes
    max_body_bytes: int


@dataclass
class Ctx:
    request: Request
    principal: Principal
    server: Server

    @property
    def profile(self) -> str:
        return self.principal.profile

    @property
    def config(self) -> RikoConfig:
        """The server's configuration (a scope's saved Dream settings: ``mem.dream_config()``)."""
        return self.server.config

    async def run(self, fn: Callable[[Any], T]) -> T:
        """``fn(memory)`` on this caller's scope, serialised with every other call into it.

        Reads (GET, HEAD) never create a scope: a profile with no warehouse answers 404.
        """
        creating = self.request.method not in ("GET", "HEAD")
        return await self.server.scopes.run(self.profile, fn, create=creating)

    async def body(self, *, required: bool = True) -> dict[str, Any]:
        return await read_json(self.request, limit=self.server.max_body_bytes, required=required)

    def path_id(self, name: str = "id", kind: str = "id") -> str:
        return check_id(self.request.path_params[name], kind)

    async def reveal(self, kind: str, ident: str) -> bool:
        """Whether ``reveal=sensitive`` was asked and granted; a refused ask is audited and 403."""
        raw = self.request.query_params.get("reveal")
        if raw is None or raw == "":
            return False
        if raw != "sensitive":
            raise ApiError(400, "bad-query", "reveal accepts only 'sensitive'")
        if not self.principal.owner_admin:
            await self.audit("sensitive-content-reveal-rejected", "refused", kind, ident)
            raise ApiError(403, "reveal-forbidden", "reveal=sensitive requires the owner-admin token")
        return True

    async def audit(self, event: str, authority: str, kind: str, ident: str) -> None:
        """One audit row about a record, naming it only by its target hash."""
        route = self.request.scope.get("route")
        detail = {"record_kind": kind, "route": getattr(route, "path", None), "auth_mode": self.principal.mode}

        def write(mem: Any) -> None:
            mem.audit(event, authority, target_hash(mem.scope.key, kind, ident), detail)

        try:
            await self.run(write)
        except MissingScopeError:
            pass  # a read about a scope that does not exist: there is no record, and nothing is created


def api(route: Callable[[Ctx], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """Authenticate, build the :class:`Ctx`, call the route, and render a non-Response as JSON."""

    async def endpoint(request: Request) -> Response:
        server: Server = request.app.state.riko
        client = request.client.host if request.client else None
        principal = server.auth.authenticate(request.headers, client)
        result = await route(Ctx(request, principal, server))
        return result if isinstance(result, Response) else json_response(result)

    endpoint.__name__ = route.__name__
    endpoint.__doc__ = route.__doc__
    return endpoint
