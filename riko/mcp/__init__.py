"""riko over the Model Context Protocol: ``riko mcp`` (stdio or streamable HTTP), extra ``riko[mcp]``.

The SDK is imported only here, so riko works without the extra; see docs/mcp.md.
"""

from __future__ import annotations

__all__ = ["build_server", "serve_stdio", "http_app", "require_sdk"]


def require_sdk() -> None:
    """Fail with a clear error when the ``mcp`` SDK (extra ``riko[mcp]``) is not installed."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        from ..errors import ConfigError

        raise ConfigError("mcp", "riko mcp needs the MCP SDK: python -m pip install 'riko[mcp]'") from None


def __getattr__(name: str):  # the SDK loads only when a server is built
    if name in ("build_server", "serve_stdio", "http_app"):
        require_sdk()
        from . import server

        return getattr(server, name)
    raise AttributeError(name)
