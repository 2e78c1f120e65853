"""The closed word lists riko's records use (statuses, types, channels), in one import-free module.

The command line builds its parsers from these without importing the stages that use them,
so ``riko --help`` stays fast.
"""

from __future__ import annotations

__all__ = [
    "CANDIDATE_STATUSES",
    "RESOLUTIONS",
    "PAGE_TYPES",
    "SENSITIVITIES",
    "OBSERVATION_STATUSES",
    "CHANNEL_ORDER",
]

CANDIDATE_STATUSES = ("pending", "pending_conflict", "accepted", "rejected")
RESOLUTIONS = ("correction", "temporal_transition", "management")
PAGE_TYPES = ("source", "entity", "concept", "episode", "emotion", "relationship", "synthesis")
SENSITIVITIES = ("normal", "provisional_sensitive", "sensitive")
OBSERVATION_STATUSES = ("candidate", "active", "weakened", "invalidated", "suppressed")
#: recall channels in their fixed fusion order
CHANNEL_ORDER = ("lexical", "exact", "rawEvidence", "observation", "graph", "dense")
