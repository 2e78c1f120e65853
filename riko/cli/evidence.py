"""``riko capture`` (live events from a host, one JSON object a line) and ``riko mark-evidence REF
LEVEL`` (one raw L0 line's sensitivity after capture, audited)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .main import _common, command, emit, open_memory
from ..errors import IngestError, InvalidArgumentError, ScopeError
from ..vocabulary import SENSITIVITIES as LEVELS

__all__ = ["cmd_capture", "cmd_mark_evidence", "register"]


def register(sub: Any) -> None:
    """Add the ``capture`` and ``mark-evidence`` commands to the ``riko`` subparsers."""
    c = sub.add_parser(
        "capture", help="capture live session events (one JSON object a line on stdin, or --event)",
        description="Each event is what Memory.capture takes: {\"session_id\", \"type\", \"data\"} (see "
                    "docs/tools.md). An MCP or other out-of-process host captures the user's messages this way "
                    "so memory_remember can find them. Lines before a bad one stay captured.")
    _common(c)
    c.add_argument("--event", help="one event as JSON instead of reading stdin")
    c.add_argument("--session", help="session id for events that name none")
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


@command("capture")
def cmd_capture(args: argparse.Namespace) -> int:
    lines = [args.event] if args.event is not None else sys.stdin
    refs: list[str] = []
    with open_memory(args, create=True) as mem:
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = "--event" if args.event is not None else f"stdin line {n}"
            try:
                event = json.loads(line)
            except ValueError as exc:
                raise InvalidArgumentError(f"{where}: not valid JSON ({exc}); {len(refs)} event(s) captured before it") from None
            if not isinstance(event, dict):
                raise InvalidArgumentError(f"{where}: an event must be a JSON object, got {type(event).__name__}")
            if args.session and not (event.get("session_id") or event.get("sessionId")):
                event["session_id"] = args.session
            try:
                refs.append(str(mem.capture(event)))
            except (IngestError, ScopeError, InvalidArgumentError) as exc:
                raise type(exc)(f"{where}: {exc}; {len(refs)} event(s) captured before it") from None
    emit(args, refs, text="\n".join(refs) if refs else "(no events)")
    return 0
