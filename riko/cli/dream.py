"""``riko`` commands for Dream and observations: ``dream``, ``dream-jobs``, ``observations``, ``observation``.

Each command opens the memory, calls one method and renders the result; ``register(sub)``
adds their parsers to the ``riko`` command line.
"""

from __future__ import annotations

import argparse
from typing import Any

from .main import _common, _wide, command, emit, open_memory, progress_wanted
from ..vocabulary import OBSERVATION_STATUSES

__all__ = ["register"]


def _shard(text: str) -> str:
    from ..door import parse_shard
    from ..errors import ConfigError

    try:
        parse_shard(text)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _dream_text(report: Any) -> str:
    lines = [report.summary()]
    for row in report.rows:
        if row["status"] == "failed":
            lines.append(f"failed {row['session_id']}: {row['error']}")
    return "\n".join(lines)


@command("dream")
def cmd_dream(args: argparse.Namespace) -> int:
    options: dict[str, Any] = {
        "shard": args.shard, "use_cache": not args.no_cache, "replay_only": args.replay_only,
        "rescan": args.rescan, "url": args.url, "model": args.model, "credential_ref": args.credential_ref,
        "executor": args.executor, "address": args.address,
    }
    if args.reflect is not None:
        options["reflection"] = args.reflect
    with open_memory(args) as mem:
        report = mem.dream(sessions=args.session or None, provider=args.provider, workers=args.workers,
                           progress=progress_wanted(args), **options)
    emit(args, report, text=_dream_text(report))
    return 1 if args.strict and report.failed else 0


@command("dream-jobs")
def cmd_dream_jobs(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        frame = mem.dream_jobs()
        if args.status:
            frame = frame.filter(status=args.status)
        emit(args, frame, table="dream-jobs")
    return 0


@command("observations")
def cmd_observations(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.observations(args.status), table="observations")
    return 0


@command("observation")
def cmd_observation(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.action == "activate":
            row = mem.activate_observation(args.id)
        elif args.action == "invalidate":
            row = mem.invalidate_observation(args.id, reason=args.reason or "management-invalidation")
        elif args.action == "suppress":
            row = mem.suppress_observation(args.id, reason=args.reason or "management-suppression")
        else:
            row = mem.restore_observation(args.id, reason=args.reason or "management-restore")
    emit(args, row, text=f"observation {row['id']} is now {row['status']}")
    return 0


def register(sub: Any) -> None:
    """Add the Dream and observation commands to the ``riko`` subparsers."""
    p = sub.add_parser("dream", help="propose candidates from sessions whose evidence moved past their cursor")
    _common(p)
    p.add_argument("--session", action="append", metavar="ID",
                   help="dream only this session (repeatable); default: every session with new evidence")
    p.add_argument("--provider", default=None,
                   help="heuristic, openai-compatible, anthropic, google or auto, or a chain such as google,heuristic (default: dream_provider setting)")
    p.add_argument("--url", default=None, help="provider endpoint URL (default: dream_api_url setting)")
    p.add_argument("--model", default=None, help="model name (default: dream_model setting)")
    p.add_argument("--credential-ref", default=None, metavar="ENV_VAR",
                   help="name of the environment variable holding the API key (never the key itself)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="concurrent provider calls, 1-64 (default: dream_workers setting)")
    p.add_argument("--shard", type=_shard, default=None, metavar="I/N",
                   help="only the sessions of shard I of N (0-based), so several machines can share a batch")
    p.add_argument("--executor", choices=["local", "ray"], default="local",
                   help="where provider calls run: here, or as Ray tasks while this process applies (riko[ray])")
    p.add_argument("--address", default=None, metavar="ADDR", help="Ray cluster address (default: a local cluster)")
    p.add_argument("--no-cache", action="store_true", help="ignore cached provider answers (still store new ones)")
    p.add_argument("--replay-only", action="store_true",
                   help="answer only from the cache; a session without a cached answer fails (cache-miss)")
    p.add_argument("--rescan", action="store_true", help="ignore cursors and re-read whole sessions")
    reflect = p.add_mutually_exclusive_group()
    reflect.add_argument("--reflect", dest="reflect", action="store_true", default=None,
                         help="run reflection after each successful pass (overrides reflection_enabled)")
    reflect.add_argument("--no-reflect", dest="reflect", action="store_false", help="skip reflection")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--strict", action="store_true", help="exit 1 when any session failed")

    p = sub.add_parser("dream-jobs", help="show the Dream job records (cursor, status, attempts, last error)")
    _common(p)
    _wide(p)
    p.add_argument("--status", choices=["queued", "running", "succeeded", "failed"], default=None)

    p = sub.add_parser("observations", help="list inferred observations (never canon)")
    _common(p)
    _wide(p)
    p.add_argument("--status", choices=list(OBSERVATION_STATUSES), default=None)

    p = sub.add_parser("observation", help="activate, invalidate, suppress or restore one observation")
    _common(p)
    p.add_argument("action", choices=["activate", "invalidate", "suppress", "restore"])
    p.add_argument("id", help="observation id (see riko observations)")
    p.add_argument("--reason", default=None, help="reason recorded in the audit")
