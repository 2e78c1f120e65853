"""What one process knows about the Dream runs of a scope it has open: queued, running, idle.

The state lives on the scope context (one per open Memory); this name stays for its callers.
"""

from __future__ import annotations

from ..context import DreamState

__all__ = ["DreamState"]
