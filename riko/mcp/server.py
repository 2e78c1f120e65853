"""The six memory tools and the Resident over the Model Context Protocol (the official SDK).

One server is bound to one scope. Each client connection gets its own agent session (or all
share the one given with ``--session``); scope and session never appear as tool arguments, so
a model cannot address another memory. A tool call runs :class:`riko.tools.ToolBox` exactly
as an in-process host would: ``memory_remember`` still needs the claim in the latest raw user
message of that session, which the *host* captures (``riko capture`` or ``POST /capture`` in
HTTP mode) — never a tool the model could call.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any, Mapping

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .. import __version__
from ..errors import InvalidArgumentError, RikoError
from ..server.auth import AuthPolicy
from ..server.wire import ApiError
from ..tools import TOOL_NAMES, ToolBox, tool_schemas

if TYPE_CHECKING:
    from ..memory import Memory

__all__ = ["SERVER_NAME", "RESOURCES", "MemoryMcp", "build_server", "serve_stdio", "http_app"]

SERVER_NAME = "riko"
#: Read-only resources: the bounded Resident block, and the session this connection writes to.
RESOURCES = {
    "riko://resident": ("resident", "The bounded <persistent-memory> block for the next prompt."),
    "riko://index": ("index", "The index layer: one line per current memory (id prefix and title), so the "
                              "model knows what exists; the body comes by recall."),
    "riko://session": ("session", "The agent session id this connection is bound to; capture the "
                                  "user's messages into it so memory_remember can find them."),
}


#: The header an HTTP client names its agent session with.
SESSION_HEADER = "x-riko-session"


class MemoryMcp:
    """The session binding and the handlers behind the MCP server of one open memory.

    ``session_id`` fixes one session for every call. Without it an HTTP request names its
    session with the ``x-riko-session`` header, or is bound by its MCP session
    (``mcp-session-id``, handshake-era clients) to ``mcp-<id>``; a stdio server (one
    client per process) and header-less stateless requests share the server's own
    ``mcp-<uuid>``, readable as ``riko://session``.
    """

    def __init__(self, mem: "Memory", session_id: str | None = None) -> None:
        self.mem = mem
        self.session_id = session_id
        self.default_session = session_id or f"mcp-{uuid.uuid4().hex[:12]}"
        # riko's stages are synchronous and take turns on the scope's file; one call at a time
        # keeps two clients from interleaving inside one transition.
        self._lock = anyio.Lock()

    def session_for(self, ctx: Any) -> str:
        """The riko session id a request is bound to (see the class docstring)."""
        if self.session_id:
            return self.session_id
        request = getattr(ctx, "request", None)
        headers = getattr(request, "headers", None)
        if headers is not None:
            named = (headers.get(SESSION_HEADER) or "").strip()
            if named:
                return _session_id(named)
            mcp_session = (headers.get("mcp-session-id") or "").strip()
            if mcp_session:
                return _session_id(f"mcp-{mcp_session}")
        return self.default_session

    # -- handlers -------------------------------------------------------------------------
    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        tools = [types.Tool(name=s["name"], description=s["description"], input_schema=s["input_schema"])
                 for s in tool_schemas("anthropic")]
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOL_NAMES:
            raise MCPError(code=INVALID_PARAMS,
                           message=f"unknown tool {params.name!r}; expected one of {', '.join(TOOL_NAMES)}")
        session = self.session_for(ctx)
        arguments: Mapping[str, Any] = params.arguments or {}
        async with self._lock:
            outcome = await anyio.to_thread.run_sync(self._call, session, params.name, dict(arguments))
        return outcome

    def _call(self, session: str, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        try:
            result = ToolBox(self.mem, session).call(name, arguments)
        except RikoError as exc:
            return _error(str(exc))
        data = {**result.to_dict(), "sessionId": session}
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text())],
                                    structured_content=data, is_error=not result.ok)

    async def list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=name, description=text, mime_type="text/plain")
            for uri, (name, text) in RESOURCES.items()])

    async def read_resource(self, ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri not in RESOURCES:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown resource {uri!r}; expected one of {', '.join(RESOURCES)}")
        if uri == "riko://session":
            text = self.session_for(ctx)
        else:
            async with self._lock:
                text = await anyio.to_thread.run_sync(self._resident_text if uri == "riko://resident" else self._index_text)
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text,
                                                                                 mime_type="text/plain")])

    def _resident_text(self) -> str:
        return self.mem.resident().text

    def _index_text(self) -> str:
        index = self.mem.resident().index
        return index.text if index is not None else ""

    def capture(self, event: Mapping[str, Any]) -> dict[str, Any]:
        """Capture one host event (HTTP mode's ``POST /capture``); its session defaults to the bound one."""
        if not isinstance(event, Mapping):
            raise _bad("the body must be one JSON object: a session event")
        if not (event.get("session_id") or event.get("sessionId")):
            event = {**event, "session_id": self.default_session}
        ref = self.mem.capture(event)
        return {"ok": True, "ref": str(ref)}


def _session_id(value: str) -> str:
    if len(value) > 128 or any(ch.isspace() or not ch.isprintable() for ch in value):
        raise MCPError(code=INVALID_PARAMS, message=f"{SESSION_HEADER} must be 1-128 printable characters without spaces")
    return value


def _bad(message: str) -> RikoError:
    return InvalidArgumentError(message)


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"Not done: {message}")],
                                structured_content={"ok": False, "error": message}, is_error=True)


def build_server(mem: "Memory", session_id: str | None = None) -> tuple[Server[Any], MemoryMcp]:
    """An MCP server exposing the six tools and the read-only resources of ``mem``."""
    handlers = MemoryMcp(mem, session_id)
    server: Server[Any] = Server(
        SERVER_NAME, version=__version__,
        instructions=("riko long-term memory for this agent persona. Read riko://resident before a "
                      "request; call memory_remember only with words the user typed in their latest "
                      "message."),
        on_list_tools=handlers.list_tools, on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources, on_read_resource=handlers.read_resource,
    )
    return server, handlers


async def serve_stdio(mem: "Memory", session_id: str | None = None) -> None:
    """Serve one client over this process's stdin/stdout until it closes the connection."""
    server, _ = build_server(mem, session_id or f"mcp-{uuid.uuid4().hex[:12]}")
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http_app(mem: "Memory", *, session_id: str | None = None, host: str = "127.0.0.1", path: str = "/mcp") -> Any:
    """The streamable-HTTP MCP endpoint at ``path`` plus the host's ``POST /capture``, both
    behind the same authentication as ``riko serve`` (bearer token, or on loopback with no
    token configured the profile header) for the memory's own preset."""
    server, handlers = build_server(mem, session_id)
    policy = AuthPolicy(mem.config, host)

    async def capture(request: Request) -> JSONResponse:
        try:
            body = await request.body()
            try:
                event = json.loads(body or b"null")
            except ValueError as exc:
                raise _bad(f"the body is not valid JSON ({exc})") from None
            async with handlers._lock:
                out = await anyio.to_thread.run_sync(handlers.capture, event)
        except RikoError as exc:
            return JSONResponse({"error": type(exc).__name__, "message": str(exc)}, status_code=400)
        return JSONResponse(out, status_code=201)

    app = server.streamable_http_app(streamable_http_path=path, host=host,
                                     custom_starlette_routes=[Route("/capture", capture, methods=["POST"])])

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            client = scope.get("client")
            try:
                principal = policy.authenticate(headers, client[0] if client else None)
                if principal.profile != mem.scope.preset and not principal.owner_admin:
                    raise ApiError(403, "wrong-profile",
                                   f"this MCP server serves profile {mem.scope.preset!r}, not {principal.profile!r}")
            except ApiError as exc:
                response = JSONResponse({"error": exc.code, "message": exc.message}, status_code=exc.status)
                await response(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded
