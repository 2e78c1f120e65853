"""riko over the Model Context Protocol: ``riko mcp`` (stdio or streamable HTTP), extra ``riko[mcp]``.

The SDK is imported only by :mod:`riko.mcp.server`, so riko works without the extra; see docs/mcp.md.
"""

from __future__ import annotations

from ..errors import ConfigError

__all__ = ["require_sdk"]


def require_sdk() -> None:
    """Fail with a clear error when the ``mcp`` SDK (extra ``riko[mcp]``) is not installed."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ConfigError("mcp", "riko mcp needs the MCP SDK: python -m pip install 'riko[mcp]'") from None
