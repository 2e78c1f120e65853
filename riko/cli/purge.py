"""``riko purge SESSION``: dry run by default; ``--execute --confirmation TOKEN`` to purge."""

from __future__ import annotations

import argparse
from typing import Any

from .main import _common, command, emit, open_memory
from ..errors import PurgeError

__all__ = ["register", "cmd_purge"]


def register(sub: Any) -> None:
    """Add the ``purge`` command to the ``riko`` subparsers."""
    p = sub.add_parser(
        "purge", help="purge one raw session and everything derived only from it (dry run unless --execute)",
        description="Without --execute, print the impact plan and the confirmation token. With --execute "
                    "--confirmation TOKEN, purge the session in a journaled, verified transaction.")
    _common(p)
    p.add_argument("session", help="session id to purge")
    p.add_argument("--execute", action="store_true", help="carry out the purge (needs --confirmation)")
    p.add_argument("--confirmation", metavar="TOKEN", default=None, help="the token printed by the dry run")


@command("purge")
def cmd_purge(args: argparse.Namespace) -> int:
    if args.execute and not args.confirmation:
        raise PurgeError("--execute needs --confirmation TOKEN; run `riko purge SESSION` first to get it")
    with open_memory(args, read_only=not args.execute) as mem:
        report = mem.purge(args.session, dry_run=not args.execute, confirmation=args.confirmation)
    emit(args, report, text=_text(report, args))
    return 0


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_count(v) for k, v in value.items() if k != "dense")
    if isinstance(value, list):
        return len(value)
    return int(value) if isinstance(value, (int, bool)) else 0


def _text(report: dict[str, Any], args: argparse.Namespace) -> str:
    impact = report["impact"]
    lines = [f"session {report['sessionId']}:"]
    for name, value in impact.items():
        if name in ("files", "residentRebuild"):
            continue
        if isinstance(value, dict):
            parts = ", ".join(f"{k} {len(v) if isinstance(v, list) else v}" for k, v in value.items())
            lines.append(f"  {name}: {parts}")
        elif _count(value):
            lines.append(f"  {name}: {_count(value)}")
    files = impact["files"]
    lines.append(f"  files: {len(files['pages'])} page file(s), {len(files['exports'])} export(s)"
                 + (", dense index marked purge-rebuild-required" if files["dense"] else ""))
    lines.append(f"  Resident rebuild: {'yes' if report['residentRebuild'] else 'no'}")
    for path in report.get("gitTrackedPaths", []):
        lines.append(f"  tracked by git (history may still hold the text): {path}")
    for path in report.get("sourcePaths", []):
        lines.append(f"  input log outside riko's storage (delete it yourself): {path}")
    for blocker in report.get("blockers", []):
        lines.append(f"  blocked: {blocker}")
    if report["dryRun"]:
        lines.append(f"confirmation: {report['confirmation']}")
        lines.append(f"to purge: riko purge {report['sessionId']} --execute --confirmation {report['confirmation']}"
                     + (f" --preset {args.preset}" if args.preset else ""))
    else:
        lines.append(f"purged and verified (operation {report['operationId']})")
    return "\n".join(lines)
