"""``riko`` command line: each command opens the memory, calls one method, renders the result.

Module imports stay light (no polars, duckdb or providers) so ``riko --help`` starts fast;
commands import what they need when they run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

from ..config import resolve_owner as _resolve_owner
from ..errors import RikoError, ScopeError
from ..scope import ScopeWarning

__all__ = ["main", "build_parser", "TABLES"]

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {}

#: The short table of each listing command: its columns, and the id columns that are never cut.
TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sessions": (("session_id", "format", "event_count", "user_event_count", "created_at"), ("session_id",)),
    "evidence": (("session_id", "seq", "type", "text"), ("session_id", "seq")),
    "audits": (("id", "recorded_at", "kind", "authority", "target", "detail"), ("id", "kind", "authority")),
    "candidates": (("id", "status", "type", "title"), ("id",)),
    "pages": (("id", "type", "version", "title"), ("id",)),
    "page-versions": (("version", "authority", "recorded_at", "text"), ("version",)),
    "observations": (("id", "status", "confidence", "text"), ("id",)),
    "conflicts": (("id", "state", "page_id", "candidate_id", "subject"), ("id", "page_id", "candidate_id")),
    "aliases": (("id", "entity_id", "alias", "status"), ("id", "entity_id")),
    "dream-jobs": (("session_id", "status", "cursor", "attempts", "last_error"), ("session_id",)),
    "retrieve": (("doc_id", "kind", "score", "channels"), ("doc_id",)),
}


def command(name: str) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    def register(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = fn
        return fn

    return register


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error printed as one line that points at ``--help``."""

    def error(self, message: str) -> Any:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


# -- rendering ----------------------------------------------------------------------------------
def _jsonable(value: Any) -> Any:
    from ..rows import decode_rows

    if hasattr(value, "to_dicts"):
        return decode_rows(value.to_dicts())
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return value


def emit(args: argparse.Namespace, value: Any, *, text: str | None = None, table: str | None = None) -> None:
    """Print ``value`` as JSON with ``--json``, else as text, a short table, or (``--wide``) every column."""
    if getattr(args, "json", False):
        print(json.dumps(_jsonable(value), ensure_ascii=False, indent=2, default=str))
        return
    if text is not None:
        print(text)
        return
    if hasattr(value, "to_dicts"):
        print(_frame_text(value, table, wide=getattr(args, "wide", False)))
        return
    print(value)


def _frame_text(frame: Any, table: str | None, *, wide: bool) -> str:
    if frame.height == 0:
        return f"(no {table or 'rows'})"
    if wide or table not in TABLES:
        import polars as pl

        with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=2000, tbl_width_chars=60_000,
                       tbl_hide_dataframe_shape=True):
            return str(frame)
    from ..rows import text_table

    columns, whole = TABLES[table]
    shown = [c for c in columns if c in frame.columns]
    width = shutil.get_terminal_size((120, 24)).columns
    out = text_table(frame.select(shown).to_dicts(), shown, width=width, whole=whole)
    hidden = len(frame.columns) - len(shown)
    footer = f"{frame.height} row(s)" + (f"; {hidden} more column(s) with --wide, all of it with --json"
                                        if hidden else "")
    return out + "\n" + footer


def iso_time(text: str) -> str:
    """An argparse type: ``text`` when it is an ISO date-time inside the calendar riko keeps."""
    from ..clock import utc
    from ..errors import InvalidArgumentError

    try:
        utc(text)
    except InvalidArgumentError as exc:  # argparse names the flag: "argument --at: ..."
        raise argparse.ArgumentTypeError(getattr(exc, "reason", str(exc))) from None
    return text


def progress_wanted(args: argparse.Namespace) -> bool:
    """Progress bars only for a person watching: not with --json or --quiet, and stderr a terminal."""
    return not getattr(args, "json", False) and not getattr(args, "quiet", False) and sys.stderr.isatty()


def resolve_preset(args: argparse.Namespace) -> str:
    """``--preset`` / ``RIKO_PRESET``, else the root's recorded default; none fails closed."""
    from ..root_preset import read_root_preset

    preset = args.preset or read_root_preset(args.root)
    if not preset:
        raise ScopeError("memory scope requires a stable agent preset").with_remedy("preset")
    return str(preset)


def resolve_owner(args: argparse.Namespace) -> str:
    """``--owner``, else ``owner_namespace`` (``RIKO_OWNER`` / ``RIKO_OWNER_NAMESPACE``, then the root's
    ``riko.toml``), else ``local``: the rule :func:`riko.open` and ``riko serve`` apply. An explicit
    owner that leaves the configured scope is said on stderr, in one line."""
    choice = _resolve_owner(args.root, getattr(args, "owner", None))
    if choice.conflict:
        print(f"riko: warning: {choice.conflict}", file=sys.stderr)
    return choice.owner


def open_memory(args: argparse.Namespace, *, read_only: bool = False, create: bool = False) -> Any:
    """Open the scope of ``args``; only ``create`` commands (init, ingest) may make a new one."""
    import riko

    preset = resolve_preset(args)
    owner = resolve_owner(args)
    if not create and not read_only:
        from ..scope import MemoryScope, require_memory

        require_memory(args.root, MemoryScope(owner, preset))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScopeWarning)  # said once above, in the command line's words
        return riko.open(args.root, owner=owner, preset=preset, read_only=read_only)


# -- commands -----------------------------------------------------------------------------------
@command("init")
def cmd_init(args: argparse.Namespace) -> int:
    from ..root_preset import read_root_preset, record_root_preset

    with open_memory(args, create=True) as mem:
        mem.wiki_dir.mkdir(parents=True, exist_ok=True)
        recorded = None
        if read_root_preset(args.root) != mem.scope.preset:
            recorded = record_root_preset(mem.root, mem.scope.preset)
        data = {"scope": mem.scope.key, "root": str(mem.root), "warehouse": str(mem.warehouse_dir),
                "wiki": str(mem.wiki_dir), "default_preset": mem.scope.preset}
        lines = [f"initialised scope {mem.scope.key} under {mem.root}",
                 f"  warehouse {mem.warehouse_dir}", f"  wiki      {mem.wiki_dir}"]
        if recorded is not None:
            lines.append(f"  default preset {mem.scope.preset!r} recorded in {recorded}; "
                         "commands on this root now need no --preset")
        emit(args, data, text="\n".join(lines))
    return 0


@command("ingest")
def cmd_ingest(args: argparse.Namespace) -> int:
    with open_memory(args, create=True) as mem:
        report = mem.ingest(args.paths, preset=args.assign_preset, progress=progress_wanted(args))
        emit(args, report, text=_ingest_text(report))
    return 1 if args.strict and (report.issue_rows or report.refused) else 0


def refused_lines(refused: Sequence[dict[str, Any]]) -> list[str]:
    """One line per log left for another scope, its remedy phrased for the command line."""
    from ..errors import phrase

    lines = []
    for r in refused:
        remedy = f"; {phrase(r['remedy'], 'cli', **r['remedy_fields'])}" if r.get("remedy") else ""
        message = str(r.get("message", r["reason"]))
        prefix = f"{r['path']}: "
        lines.append(f"  left {prefix}{message[len(prefix):] if message.startswith(prefix) else message}{remedy}")
    return lines


def _ingest_text(report: Any) -> str:
    """The ingest report for a person: what was read and stored, then what was left or skipped."""
    read = f"read {report.files} log file(s)"
    if report.files_unchanged or report.files_resumed:
        read += f" ({report.files_unchanged} unchanged since the last ingest, {report.files_resumed} resumed)"
    lines = [f"{read}: {report.events} new event(s) in {report.sessions} session(s); "
             f"{report.duplicates} duplicate(s), {report.truncated} truncated, {len(report.issue_rows)} issue(s), "
             f"{len(report.refused)} log(s) left for other presets; {report.seconds:.2f} s"]
    if report.refused:
        lines.append(f"{len(report.refused)} log(s) belong to other presets and were left for them:")
        lines += refused_lines(report.refused)
    for i in report.issue_rows[:20]:
        where = f"{i['path']}:{i['line']}" if i["line"] is not None else f"{i['path']}@{i['offset']}"
        lines.append(f"{i['kind']} {where}: {i['message']}")
    if len(report.issue_rows) > 20:
        lines.append(f"… {len(report.issue_rows) - 20} more issue(s); use --json for all")
    return "\n".join(lines)


@command("sessions")
def cmd_sessions(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.sessions(), table="sessions")
    return 0


@command("evidence")
def cmd_evidence(args: argparse.Namespace) -> int:
    from ..errors import NotFoundError

    with open_memory(args, read_only=True) as mem:
        frame = mem.evidence(args.session, user_only=args.user_only)
        if args.session is not None and frame.height == 0 and args.session not in mem.sessions()["session_id"]:
            raise NotFoundError("session", args.session, listing="sessions")
        emit(args, frame, table="evidence")
    return 0


@command("audits")
def cmd_audits(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        frame = mem.audits(args.kind)
        if not args.json and not args.wide:
            frame = _audit_view(frame)
        emit(args, frame, table="audits")
    return 0


def _audit_view(frame: Any) -> Any:
    """The audit log as the short table reads it: time to the second, kind and authority whole,
    a long path target by its last two parts, and the detail as ``key=value`` with the reason first."""
    import polars as pl

    def target(value: str | None) -> str | None:
        if value and "/" in value and len(value) > 40:
            return "…/" + "/".join(value.rstrip("/").split("/")[-2:])
        return value

    def detail(value: str | None) -> str:
        try:
            data = json.loads(value) if value else {}
        except ValueError:
            return value or ""
        if not isinstance(data, dict):
            return str(data)
        keys = sorted(data, key=lambda k: (k not in ("reason", "action", "mode", "status"), k))
        return "; ".join(f"{k}={v if not isinstance(v, (dict, list)) else json.dumps(v, ensure_ascii=False)}"
                         for k, v in ((k, data[k]) for k in keys) if v not in (None, "", [], {}))

    return frame.with_columns(
        pl.col("recorded_at").dt.strftime("%Y-%m-%d %H:%M:%S"),
        pl.col("target").map_elements(target, return_dtype=pl.Utf8),
        pl.col("detail").map_elements(detail, return_dtype=pl.Utf8),
    )


@command("export")
def cmd_export(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        out = mem.export_evidence(args.out, format=args.format)
        emit(args, {"exported": str(out), "format": args.format}, text=f"exported evidence to {out}")
    return 0


@command("samples")
def cmd_samples(args: argparse.Namespace) -> int:
    from ..evaluation.samples import generate_samples

    paths = generate_samples(args.out)
    emit(args, [str(p) for p in paths], text="\n".join(str(p) for p in paths))
    return 0


@command("demo")
def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(Path(args.root), owner=resolve_owner(args), preset=args.preset or "companion", as_json=args.json)


# -- parser -------------------------------------------------------------------------------------
def _common(p: argparse.ArgumentParser, *, preset_required: bool = True) -> None:
    p.add_argument("--root", default=os.environ.get("RIKO_ROOT", "."), help="data root (env RIKO_ROOT; default .)")
    p.add_argument("--owner", default=None,
                   help="owner namespace of the scope (default: owner_namespace from RIKO_OWNER / "
                        "RIKO_OWNER_NAMESPACE, else the root's riko.toml, else local)")
    p.add_argument("--preset", default=os.environ.get("RIKO_PRESET"),
                   help="stable agent preset of the scope (env RIKO_PRESET; default: the root's preset "
                        "recorded by `riko init --preset P`; there is no global default)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")


def _wide(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wide", action="store_true", help="print every column (the default table is short, ids first)")


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = Parser(prog="riko", description="Durable, reviewable, bounded memory for an agent persona.")
    parser.add_argument("--version", action="version", version=f"riko {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("init", help="create the scope's warehouse and Wiki folders; record the root's default preset")
    _common(p)
    p = sub.add_parser("ingest", help="read exported session logs into L0 evidence")
    _common(p)
    p.add_argument("paths", nargs="+", help="log files or directories (walked)")
    p.add_argument("--assign-preset", metavar="PRESET", default=None,
                   help="assign logs without (or with another) agentPreset to this scope's preset explicitly")
    p.add_argument("--quiet", action="store_true", help="no progress bar (there is none unless stderr is a terminal)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when any line was reported and skipped or any log was left for another preset")
    p = sub.add_parser("sessions", help="list sessions with persisted evidence")
    _common(p)
    _wide(p)
    p = sub.add_parser("evidence", help="show the L0 lines of one session")
    _common(p)
    _wide(p)
    p.add_argument("session", nargs="?", default=None, help="session id (default: all)")
    p.add_argument("--user-only", action="store_true", help="only user-typed messages")
    p = sub.add_parser("audits", help="show the audit log",
                       description="The short table keeps the kind and authority whole, a long path target "
                                   "by its last two parts, and the detail as key=value (reason first), cut to "
                                   "the terminal width; --wide prints every field whole, --json as stored.")
    _common(p)
    _wide(p)
    p.add_argument("--kind", default=None, help="only audits of this kind")
    p = sub.add_parser("export", help="export evidence (Parquet partitioned by session, or L0 JSONL)")
    _common(p)
    p.add_argument("what", choices=["evidence"], help="what to export")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--format", choices=["parquet", "jsonl"], default="parquet")
    p = sub.add_parser("samples", help="write the sample session logs to a directory")
    p.add_argument("out", help="output directory")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p = sub.add_parser("demo", help="run riko end to end on the sample logs (writes ./samples, ./warehouse, ./wiki)")
    _common(p)

    import importlib

    for name in EXTENSION_MODULES:
        importlib.import_module(name).register(sub)
    return parser


#: Modules adding the commands of later stages; each has ``register(subparsers)``.
EXTENSION_MODULES: tuple[str, ...] = ("riko.cli.wiki", "riko.cli.dream", "riko.cli.recall", "riko.cli.serve", "riko.cli.purge", "riko.cli.eval", "riko.cli.evidence", "riko.cli.mcp")


def _one_line(text: str) -> str:
    return " | ".join(part.strip() for part in text.splitlines() if part.strip())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not args.command:
            parser.print_help()
            return 2
        return COMMANDS[args.command](args)
    except RikoError as exc:
        print(f"riko: error: {_one_line(exc.render('cli'))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`riko page ID | head`): stop quietly, as other Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except ValueError as exc:  # a bad argument some library below riko refused: still one line
        print(f"riko: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path the user named cannot be read or written
        where = f": {exc.filename}" if exc.filename else ""
        print(f"riko: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("riko: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
