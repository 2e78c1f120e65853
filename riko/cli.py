"""``riko`` command line: each command opens the memory, calls one method, renders the result."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from .errors import RikoError

__all__ = ["main", "build_parser"]

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}


def command(name: str) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    def register(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = fn
        return fn

    return register


# -- rendering ----------------------------------------------------------------------------------
def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_dicts"):
        return value.to_dicts()
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


def emit(args: argparse.Namespace, value: Any, *, text: str | None = None) -> None:
    """Print ``value`` as JSON with ``--json``, else as a readable table or text."""
    if getattr(args, "json", False):
        print(json.dumps(_jsonable(value), ensure_ascii=False, indent=2, default=str))
        return
    if text is not None:
        print(text)
        return
    if hasattr(value, "to_dicts"):
        import polars as pl

        with pl.Config(tbl_rows=200, tbl_cols=20, fmt_str_lengths=80, tbl_width_chars=200):
            print(value)
        return
    print(value)


def open_memory(args: argparse.Namespace, *, read_only: bool = False) -> Any:
    import riko

    return riko.open(args.root, owner=args.owner, preset=args.preset, read_only=read_only)


# -- commands -----------------------------------------------------------------------------------
@command("init")
def cmd_init(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        emit(args, {"scope": mem.scope.key, "root": str(mem.root), "warehouse": str(mem.warehouse_dir),
                    "wiki": str(mem.wiki_dir)},
             text=f"initialised scope {mem.scope.key} under {mem.root}")
    return 0


@command("ingest")
def cmd_ingest(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        report = mem.ingest(args.paths, preset=args.assign_preset, progress=not args.json and not args.quiet)
        emit(args, report, text=_ingest_text(report))
    return 1 if args.strict and (report.issue_rows or report.refused) else 0


def _ingest_text(report: Any) -> str:
    lines = [repr(report)]
    for r in report.refused:
        lines.append(f"refused {r['path']}: {r['reason']}")
    for i in report.issue_rows[:20]:
        where = f"{i['path']}:{i['line']}" if i["line"] is not None else f"{i['path']}@{i['offset']}"
        lines.append(f"{i['kind']} {where}: {i['message']}")
    if len(report.issue_rows) > 20:
        lines.append(f"… {len(report.issue_rows) - 20} more issue(s); use --json for all")
    return "\n".join(lines)


@command("sessions")
def cmd_sessions(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.sessions())
    return 0


@command("evidence")
def cmd_evidence(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.evidence(args.session, user_only=args.user_only))
    return 0


@command("audits")
def cmd_audits(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.audits(args.kind))
    return 0


@command("export")
def cmd_export(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        out = mem.export_evidence(args.out, format=args.format)
        emit(args, {"exported": str(out), "format": args.format}, text=f"exported evidence to {out}")
    return 0


@command("samples")
def cmd_samples(args: argparse.Namespace) -> int:
    from .samples import generate_samples

    paths = generate_samples(args.out)
    emit(args, [str(p) for p in paths], text="\n".join(str(p) for p in paths))
    return 0


@command("demo")
def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(Path(args.root), owner=args.owner, preset=args.preset or "companion", as_json=args.json)


# -- parser -------------------------------------------------------------------------------------
def _common(p: argparse.ArgumentParser, *, preset_required: bool = True) -> None:
    p.add_argument("--root", default=os.environ.get("RIKO_ROOT", "."), help="data root (env RIKO_ROOT; default .)")
    p.add_argument("--owner", default=os.environ.get("RIKO_OWNER", "local"), help="owner namespace (default local)")
    p.add_argument("--preset", default=os.environ.get("RIKO_PRESET"),
                   help="stable agent preset of the scope (env RIKO_PRESET); required")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="riko", description="Durable, reviewable, bounded memory for an agent persona.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("init", help="create the scope's warehouse and Wiki folders")
    _common(p)
    p = sub.add_parser("ingest", help="read exported session logs into L0 evidence")
    _common(p)
    p.add_argument("paths", nargs="+", help="log files or directories (walked)")
    p.add_argument("--assign-preset", metavar="PRESET", default=None,
                   help="assign logs without (or with another) agentPreset to this scope's preset explicitly")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--strict", action="store_true", help="exit 1 when any line was reported and skipped, or any log refused")
    p = sub.add_parser("sessions", help="list sessions with persisted evidence")
    _common(p)
    p = sub.add_parser("evidence", help="show the L0 lines of one session")
    _common(p)
    p.add_argument("session", nargs="?", default=None, help="session id (default: all)")
    p.add_argument("--user-only", action="store_true", help="only user-typed messages")
    p = sub.add_parser("audits", help="show the audit log")
    _common(p)
    p.add_argument("--kind", default=None, help="only audits of this kind")
    p = sub.add_parser("export", help="export evidence (Parquet partitioned by session, or L0 JSONL)")
    _common(p)
    p.add_argument("what", choices=["evidence"], help="what to export")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--format", choices=["parquet", "jsonl"], default="parquet")
    p = sub.add_parser("samples", help="write the sample session logs to a directory")
    p.add_argument("out", help="output directory")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("demo", help="run riko end to end on the sample logs")
    _common(p)

    import importlib

    for name in EXTENSION_MODULES:
        importlib.import_module(name).register(sub)
    return parser


#: Modules adding the commands of later stages; each has ``register(subparsers)``.
EXTENSION_MODULES: tuple[str, ...] = ("riko.cli_wiki", "riko.cli_dream", "riko.cli_recall", "riko.cli_serve", "riko.cli_purge", "riko.cli_eval")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        return COMMANDS[args.command](args)
    except (RikoError, ValueError, OSError) as exc:  # bad input: one line, never a traceback
        print(f"riko: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("riko: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
