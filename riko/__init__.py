"""riko: durable, reviewable, bounded long-term memory for an AI agent persona.

    >>> import riko
    >>> mem = riko.open("demo-root", preset="companion")   # doctest: +SKIP
    >>> mem.ingest("exports/")                               # doctest: +SKIP

``riko.Memory`` is the one door; the CLI and the HTTP server are thin layers over it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .clock import FixedClock, SystemClock
from .errors import RikoError
from .scope import MemoryScope

__version__ = "0.1.0"
__all__ = ["Memory", "open", "MemoryScope", "RikoError", "FixedClock", "SystemClock", "__version__"]

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Mapping
    from datetime import datetime

    from .clock import Clock
    from .config import RikoConfig
    from .memory import Memory


def __getattr__(name: str) -> Any:
    # Memory pulls in duckdb/polars; keep `import riko` cheap for the CLI's fast paths.
    if name == "Memory":
        from .memory import Memory

        return Memory
    if name in ("tools", "evaluation", "server"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'riko' has no attribute {name!r}")


def open(  # noqa: A001 - mirrors builtins.open on purpose: riko.open(root, ...)
    root: "str | os.PathLike[str]" = ".",
    owner: str | None = None,
    preset: str | None = None,
    config: "RikoConfig | Mapping[str, object] | None" = None,
    clock: "Clock | Callable[[], datetime] | None" = None,
    read_only: bool = False,
    watch: bool = False,
) -> "Memory":
    """Open (creating if needed) the memory of one scope under ``root``.

    ``preset`` is required: a missing or empty preset fails closed. ``owner`` defaults to
    ``owner_namespace`` (``RIKO_OWNER`` / ``RIKO_OWNER_NAMESPACE``, else ``riko.toml``, else
    ``"local"``), the owner ``riko serve`` uses on the same root; an explicit owner that differs
    from a configured one opens that owner's scope with a :class:`riko.scope.ScopeWarning`.
    ``watch=True`` syncs hand edits of the page files as they happen (see :meth:`Memory.watch`).
    """
    from .memory import Memory

    return Memory(root, owner=owner, preset=preset, config=config, clock=clock, read_only=read_only, watch=watch)
