"""Journaled raw-session purge: dry run with an impact plan and a confirmation token, then a
leased, snapshotted, verified transaction that leaves no trace of the session in the scope.

    >>> report = mem.purge("3f2a…")                                   # doctest: +SKIP
    >>> mem.purge("3f2a…", dry_run=False, confirmation=report["confirmation"])  # doctest: +SKIP

docs/purge.md describes what is removed, what is scrubbed and what stays.
"""

from __future__ import annotations

from .journal import FAULT_ENV, KILL_ENV, LEASE_SECONDS, purge_session, recover_interrupted
from .needles import Needles
from .plan import Plan, build_plan

__all__ = ["purge_session", "recover_interrupted", "build_plan", "Plan", "Needles", "FAULT_ENV", "KILL_ENV",
           "LEASE_SECONDS"]
