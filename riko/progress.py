"""When to draw a progress bar: only for a person watching (a terminal or a notebook).

Logs, pipes and CI capture stderr as files, where bars are noise; ``progress=True`` then
draws nothing.
"""

from __future__ import annotations

import sys

__all__ = ["progress_enabled"]


def progress_enabled(wanted: bool) -> bool:
    """``wanted`` and stderr is a terminal (or riko runs inside a Jupyter kernel)."""
    if not wanted:
        return False
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False
    return "ipykernel" in sys.modules
