"""``riko serve``: run the control API and review page with uvicorn.

A non-loopback ``--host`` is refused unless a token (``api_token``, ``api_tokens`` or
``owner_admin_token``) is configured. Once listening it prints the page's address, with the
real port when ``--port 0`` asked the system for a free one.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Sequence

from .main import command, resolve_owner

__all__ = ["register", "main", "DEFAULT_HOST", "DEFAULT_PORT"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def listening_server(config: Any, line: Callable[[str], str], file: Any = None) -> Any:
    """A uvicorn server that prints ``line(base_url)`` once its sockets are open (with the real
    port when ``--port 0`` asked the system for a free one); ``file`` defaults to stdout."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            for server in getattr(self, "servers", []):
                for sock in server.sockets:
                    host, port = sock.getsockname()[:2]
                    shown = f"[{host}]" if ":" in host else host
                    print(line(f"http://{shown}:{port}"), file=file or sys.stdout, flush=True)

    return Server(config)


@command("serve")
def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from ..server import create_app

    # the owner every profile is served under: the rule riko.open and the other commands apply
    owner = resolve_owner(args)
    app = create_app(args.root, {"owner_namespace": owner}, host=args.host, watch=not args.no_watch, schedule=True)
    api_path = app.state.riko.config.api_path
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level,
                            access_log=args.access_log, lifespan="on")
    listening_server(config, lambda base: f"riko serve: listening on {base}{api_path}/ui (scopes {owner}:<profile>)").run()
    return 0


def register(sub: Any) -> None:
    """Add ``serve`` to the ``riko`` subcommands."""
    p = sub.add_parser("serve", help="serve the authenticated control API and review page")
    p.add_argument("--root", default=os.environ.get("RIKO_ROOT", "."), help="data root (env RIKO_ROOT; default .)")
    p.add_argument("--owner", default=None,
                   help="owner namespace every profile is served under (default: owner_namespace from "
                        "RIKO_OWNER / RIKO_OWNER_NAMESPACE, else the root's riko.toml, else local)")
    p.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to bind (default {DEFAULT_HOST}); a non-loopback host needs a configured token")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn log level (default warning)")
    p.add_argument("--access-log", action="store_true", help="log every request")
    p.add_argument("--no-watch", action="store_true",
                   help="do not sync hand edits of page files as they happen (POST /wiki/sync still does)")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m riko.cli.serve [options]``: the ``serve`` command on its own."""
    from ..errors import RikoError

    parser = argparse.ArgumentParser(prog="riko")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    try:
        return cmd_serve(args)
    except RikoError as exc:
        print(f"riko: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
