"""``riko mcp``: the six memory tools, recall (gated by recall_enabled) and the Resident for an MCP host (stdio, or streamable HTTP).

Over stdio (the default) the host launches ``riko mcp`` and speaks MCP on its stdin/stdout;
``--http`` serves ``/mcp`` on loopback behind the same authentication as ``riko serve``, with
``POST /capture`` for the host's own events. Nothing but the protocol goes to stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .main import _common, command, open_memory
from .serve import listening_server
from ..mcp import require_sdk

__all__ = ["register", "cmd_mcp", "DEFAULT_MCP_PORT"]

DEFAULT_MCP_PORT = 8766


def register(sub: Any) -> None:
    """Add ``mcp`` to the ``riko`` subcommands."""
    p = sub.add_parser(
        "mcp", help="serve the six memory tools, recall and the Resident over the Model Context Protocol",
        description="Bound to one scope and one agent session (given with --session, else one per client "
                    "connection). The host must capture the user's messages into that session (riko capture, "
                    "or POST /capture in --http mode) for memory_remember to accept a claim.")
    _common(p)
    p.add_argument("--session", default=os.environ.get("RIKO_SESSION"),
                   help="agent session id every call is bound to (env RIKO_SESSION; default: one per connection)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="address for --http (default 127.0.0.1)")
    p.add_argument("--no-watch", action="store_true", help="do not sync hand edits of page files as they happen")
    p.add_argument("--port", type=int, default=DEFAULT_MCP_PORT,
                   help=f"port for --http (default {DEFAULT_MCP_PORT}; 0 picks a free one)")


@command("mcp")
def cmd_mcp(args: argparse.Namespace) -> int:
    require_sdk()
    import anyio

    from ..mcp.server import http_app, serve_stdio
    from ..server.auth import check_startable

    with open_memory(args) as mem:
        if not args.no_watch:
            mem.watch()  # hand edits of the page files reach the tools and the Resident live
        if not args.http:
            anyio.run(serve_stdio, mem, args.session)
            return 0
        import uvicorn

        check_startable(mem.config, args.host)
        app = http_app(mem, session_id=args.session, host=args.host)
        config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", lifespan="on")
        listening_server(config, lambda base: f"riko mcp: listening on {base}/mcp", file=sys.stderr).run()
    return 0
