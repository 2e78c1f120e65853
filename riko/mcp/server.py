"""The six memory tools, recall and the Resident over the Model Context Protocol (the official SDK).

One server is bound to one scope. Each client connection gets its own agent session (or all
share the one given with ``--session``); scope and session never appear as tool arguments, so
a model cannot address another memory. A tool call runs :class:`riko.tools.ToolBox` exactly
as an in-process host would: ``memory_remember`` still needs the claim in the latest raw user
message of that session, which the *host* captures (``riko capture`` or ``POST /capture`` in
HTTP mode) — never a tool the model could call.

Beside the six tools of :mod:`riko.tools` an MCP host gets ``memory_recall``: the read path an
in-process host runs itself (``mem.recall`` before a turn) is a tool here, because the MCP host
cannot call Python. It changes no memory (a recall only records which pages it used, as everywhere) and follows the one rule of recall on every surface:
``recall_enabled`` (default off) gates it, and while it is off the call is refused naming it.
"""

from __future__ import annotations

import json
import sys
import uuid
from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .. import __version__
from ..errors import InvalidArgumentError, RikoError
from ..server.auth import AuthPolicy
from ..server.wire import ApiError, jsonable
from ..tools import TOOL_NAMES, ToolBox, tool_schemas

if TYPE_CHECKING:
    from anyio.streams.memory import MemoryObjectSendStream

    from ..memory import Memory

__all__ = ["SERVER_NAME", "RESOURCES", "RECALL_TOOL", "MCP_TOOL_NAMES", "CAPTURE_TYPES", "MemoryMcp",
           "build_server", "check_capture", "envelope_error", "serve_stdio", "http_app"]

SERVER_NAME = "riko"
#: Read-only resources: the bounded Resident block, and the session this connection writes to.
RESOURCES = {
    "riko://resident": ("resident", "The bounded <persistent-memory> block for the next prompt."),
    "riko://index": ("index", "The index layer: one line per current memory (id prefix and title), so the "
                              "model knows what exists; the body comes by the memory_recall tool."),
    "riko://session": ("session", "The agent session id this connection is bound to; capture the "
                                  "user's messages into it so memory_remember can find them."),
}


#: The MCP-only read tool: query-time recall (``Memory.recall``), gated by ``recall_enabled``.
RECALL_TOOL = "memory_recall"
RECALL_OFF = (f"{RECALL_TOOL} is off (recall_enabled = false); set recall_enabled = true in riko.toml "
              "or RIKO_RECALL_ENABLED=1 and restart riko mcp")
RECALL_SCHEMA: dict[str, Any] = {
    "name": RECALL_TOOL,
    "description": ("Recall memories that are not in the Resident, for the user's current request: the "
                    "bodies of pages listed in riko://index, older facts, what the user said before. "
                    "Changes no memory. Works only when the memory has recall_enabled = true."),
    "input_schema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The user's request, or what to look up, in their words."},
            "atTime": {"type": "string",
                       "description": "ISO date or date-time to recall what was true then (e.g. 2024-03-01)."},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}
#: Every tool this server lists: the six memory tools, then recall.
MCP_TOOL_NAMES = (*TOOL_NAMES, RECALL_TOOL)


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
                 for s in [*tool_schemas("anthropic"), RECALL_SCHEMA]]
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in MCP_TOOL_NAMES:
            raise MCPError(code=INVALID_PARAMS,
                           message=f"unknown tool {params.name!r}; expected one of {', '.join(MCP_TOOL_NAMES)}")
        session = self.session_for(ctx)
        arguments: Mapping[str, Any] = params.arguments or {}
        async with self._lock:
            outcome = await anyio.to_thread.run_sync(self._call, session, params.name, dict(arguments))
        return outcome

    def _call(self, session: str, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if name == RECALL_TOOL:
            return self._recall(session, arguments)
        try:
            result = ToolBox(self.mem, session).call(name, arguments)
        except RikoError as exc:
            return _error(str(exc))
        data = {**result.to_dict(), "sessionId": session}
        return types.CallToolResult(content=[types.TextContent(type="text", text=result.text())],
                                    structured_content=data, is_error=not result.ok)

    def _recall(self, session: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """``memory_recall``: ``Memory.recall`` for one query; refused while ``recall_enabled`` is off."""
        known = RECALL_SCHEMA["input_schema"]["properties"]
        unknown = sorted(str(k) for k in arguments if k not in known)
        if unknown:
            return _error(f"{RECALL_TOOL} does not accept argument(s) {', '.join(map(repr, unknown))}; "
                          f"accepted: {', '.join(known)}")
        query, at_time = arguments.get("query"), arguments.get("atTime")
        if not isinstance(query, str) or not query.strip():
            return _error(f"{RECALL_TOOL} needs 'query': the user's request as a non-empty string")
        if at_time is not None and not isinstance(at_time, str):
            return _error(f"{RECALL_TOOL} 'atTime' must be an ISO date string, got {type(at_time).__name__}")
        if not self.mem.config.recall_enabled:
            return _error(RECALL_OFF)
        try:
            result = self.mem.recall(query, at_time=at_time or None)
        except RikoError as exc:
            return _error(str(exc))
        # only what recall injected reaches the model: the rows the gates kept, never the rejected ones
        memories = [{k: row.get(k) for k in ("id", "kind", "decision", "text", "session_id", "seq")}
                    for row in jsonable(result.results) if row.get("injected")]
        text = result.context or "Nothing recalled for this request."
        data = {"ok": True, "tool": RECALL_TOOL, "scopeKey": self.mem.scope.key, "context": result.context,
                "memories": memories, "sessionId": session}
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=data, is_error=False)

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
        check_capture(event)
        if not (event.get("session_id") or event.get("sessionId")):
            event = {**event, "session_id": self.default_session}
        ref = self.mem.capture(event)
        return {"ok": True, "ref": str(ref)}


#: The events a host captures over ``POST /capture``: the turns of a conversation.
CAPTURE_TYPES = ("user/message", "assistant/message", "tool/call", "tool/result", "tool/message")
CAPTURE_FIELDS = ("session_id", "sessionId", "type", "data", "seq", "time", "preset", "agentPreset")


def check_capture(event: Any) -> None:
    """Refuse a ``POST /capture`` body that is not one conversation event, naming the field, so
    a typo is answered 400 instead of being stored as evidence no stage reads."""
    if not isinstance(event, Mapping):
        raise _bad(f"the body must be one JSON object (a session event), got {_json_kind(event)}")
    unknown = sorted(str(k) for k in event if k not in CAPTURE_FIELDS)
    if unknown:
        raise _bad(f"unknown field(s) {', '.join(map(repr, unknown))}; an event takes {', '.join(CAPTURE_FIELDS)}")
    etype = event.get("type")
    if etype not in CAPTURE_TYPES:
        got = "it is missing" if etype is None else f"got {etype!r}"
        raise _bad(f"'type' must be one of {', '.join(CAPTURE_TYPES)}; {got}")
    data = event.get("data")
    if not isinstance(data, Mapping) or not data:
        raise _bad(f"'data' must be a non-empty JSON object (the {etype} itself), got {_json_kind(data)}")
    if etype == "user/message" and "content" not in data and "message" not in data:
        raise _bad("'data' of a user/message needs 'content' (the user's words) or 'message'")
    for name in ("session_id", "sessionId"):
        sid = event.get(name)
        if sid is not None and (not isinstance(sid, str) or not sid.strip()):
            raise _bad(f"'{name}' must be a non-empty string, got {sid!r}")


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


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
    """An MCP server exposing the six tools, ``memory_recall`` and the read-only resources of ``mem``."""
    handlers = MemoryMcp(mem, session_id)
    server: Server[Any] = Server(
        SERVER_NAME, version=__version__,
        instructions=("riko long-term memory for this agent persona. Read riko://resident before a "
                      "request; call memory_recall for what it and riko://index do not hold; call "
                      "memory_remember only with words the user typed in their latest message."),
        on_list_tools=handlers.list_tools, on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources, on_read_resource=handlers.read_resource,
    )
    return server, handlers


def _lone_surrogate(value: Any, path: str) -> str | None:
    """The JSON path of the first string (or key) holding a lone UTF-16 surrogate, else None."""
    if isinstance(value, str):
        return path if any("\ud800" <= ch <= "\udfff" for ch in value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key, f"{path} (a key)") or _lone_surrogate(item, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}[{i}]")
            if found:
                return found
    return None


def _request_id(message: Any) -> str | int | None:
    """The id to answer a malformed message with: its own when it is a valid id, else null."""
    rid = message.get("id") if isinstance(message, dict) else None
    return rid if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)) else None


def envelope_error(line: bytes) -> types.JSONRPCError | None:
    """The JSON-RPC error answering one stdio line that is not a valid MCP message, or None.

    The SDK drops such a line without a word, which leaves the host waiting for an answer that
    never comes; this names what is wrong: -32700 for bytes that are not JSON text, -32600 for
    a message that is not a JSON-RPC 2.0 request, notification or response, -32602 for params
    that are not one object of valid text.
    """
    def error(code: int, message: str, rid: str | int | None = None) -> types.JSONRPCError:
        return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message))

    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return error(PARSE_ERROR, f"Parse error: the line is not UTF-8 text (byte {exc.start})")
    if not text.strip():
        return None
    try:
        message = json.loads(text)
    except ValueError as exc:
        return error(PARSE_ERROR, f"Parse error: not valid JSON ({exc})")
    if not isinstance(message, dict):
        return error(INVALID_REQUEST, f"Invalid request: a message must be one JSON object, got "
                                      f"{'an array (batches are not supported)' if isinstance(message, list) else type(message).__name__}")
    rid = _request_id(message)
    if message.get("jsonrpc") != "2.0":
        return error(INVALID_REQUEST, f"Invalid request: 'jsonrpc' must be \"2.0\", got {message.get('jsonrpc')!r}", rid)
    if "id" in message and rid is None and (message["id"] is not None or "method" in message):
        return error(INVALID_REQUEST, f"Invalid request: 'id' must be a string or an integer, got {message['id']!r}")
    if "method" not in message:
        if "result" in message or "error" in message:
            return None  # a response to a request of the server: the SDK reads it
        return error(INVALID_REQUEST, "Invalid request: 'method' is missing (and it is no response either)", rid)
    method = message["method"]
    if not isinstance(method, str) or not method:
        return error(INVALID_REQUEST, f"Invalid request: 'method' must be a non-empty string, got {method!r}", rid)
    where = _lone_surrogate({k: v for k, v in message.items() if k != "params"}, "$")
    if where:
        return error(INVALID_REQUEST, f"Invalid request: {where} holds a lone UTF-16 surrogate, which is not text", rid)
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return error(INVALID_PARAMS, f"Invalid params of {method!r}: 'params' must be an object, got "
                                     f"{'an array' if isinstance(params, list) else type(params).__name__}", rid)
    where = _lone_surrogate(params, "params")
    if where:
        return error(INVALID_PARAMS, f"Invalid params of {method!r}: {where} holds a lone UTF-16 surrogate, "
                                     "which is not text", rid)
    return None


class _CheckedLines:
    """This process's stdin as the SDK's stdio reader takes it, each malformed line answered
    (:func:`envelope_error`) instead of being handed on; a notification gets no answer."""

    def __init__(self, replies: "MemoryObjectSendStream[SessionMessage]") -> None:
        self._lines = anyio.wrap_file(sys.stdin.buffer)
        self._replies = replies

    async def __aiter__(self) -> AsyncIterator[str]:
        async with self._replies:
            async for line in self._lines:
                problem = envelope_error(line)
                if problem is None:
                    yield line.decode("utf-8")
                elif problem.id is not None or not _is_notification(line):
                    await self._replies.send(SessionMessage(problem))


def _is_notification(line: bytes) -> bool:
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and "id" not in message and "method" in message


async def serve_stdio(mem: "Memory", session_id: str | None = None) -> None:
    """Serve one client over this process's stdin/stdout until it closes the connection; a
    line that is not a valid message is answered with a JSON-RPC error."""
    server, _ = build_server(mem, session_id or f"mcp-{uuid.uuid4().hex[:12]}")
    send_reply, replies = anyio.create_memory_object_stream[SessionMessage](64)
    stdin = _CheckedLines(send_reply)
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]

        async def answer_malformed() -> None:
            async with replies:
                async for reply in replies:
                    await write_stream.send(reply)

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_malformed)
            await server.run(read_stream, write_stream, server.create_initialization_options())
            tg.cancel_scope.cancel()


def _refusal(exc: ApiError, *, mcp: bool) -> JSONResponse:
    """The answer to a request the authentication refused: riko's ``{"error", "message"}`` for
    ``/capture``, a JSON-RPC error (same status) for ``/mcp``, which is what an MCP client reads
    and shows, where a plain body leaves it a generic "-32603 Server returned an error"."""
    if not mcp:
        return JSONResponse({"error": exc.code, "message": exc.message}, status_code=exc.status)
    message = f"{exc.status} {exc.code}: {exc.message}"
    body = {"jsonrpc": "2.0", "id": None,
            "error": {"code": INVALID_REQUEST, "message": message, "data": {"status": exc.status, "error": exc.code}}}
    return JSONResponse(body, status_code=exc.status)


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
                await _refusal(exc, mcp=scope.get("path") != "/capture")(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded
