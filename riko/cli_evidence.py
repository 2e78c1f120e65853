"""``riko mark-evidence REF LEVEL``: set one raw L0 line's sensitivity after capture (audited)."""

from __future__ import annotations

import argparse
from typing import Any

from .cli import _common, command, emit, open_memory
from .sensitivity import LEVELS

__all__ = ["cmd_mark_evidence", "register"]


def register(sub: Any) -> None:
    """Add the ``mark-evidence`` command to the ``riko`` subparsers."""
    p = sub.add_parser(
        "mark-evidence", help="mark one raw session line normal, provisional_sensitive or sensitive",
        description="Tightening is always allowed; relaxing a line (or marking an unclassified line normal) "
                    "needs user or management authority. Every attempt is audited.")
    _common(p)
    p.add_argument("ref", help="the line, as session:<id>/event:<seq>")
    p.add_argument("level", choices=LEVELS, help="the new sensitivity")
    p.add_argument("--authority", choices=("user", "management"), default="user",
                   help="who decides (default user)")


@command("mark-evidence")
def cmd_mark_evidence(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        out = mem.mark_evidence_sensitivity(args.ref, args.level, authority=args.authority)
    emit(args, out, text=f"{out['ref']}: {out['from']} -> {out['to']} ({out['authority']})"
                         + ("" if out["changed"] else "; unchanged"))
    return 0
