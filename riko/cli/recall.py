"""``riko`` commands for query-time recall: ``recall``, ``retrieve`` and ``index``.

Each command opens the memory, calls one method and renders the result; ``register(sub)``
adds their parsers to the ``riko`` command line.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from .main import _common, _wide, command, emit, iso_time, open_memory, progress_wanted
from ..vocabulary import CHANNEL_ORDER

__all__ = ["register"]


def _recall_text(result: Any, debug: bool) -> str:
    lines = [repr(result)]
    if result.context:
        lines += ["", result.context]
    else:
        lines.append("(nothing to inject)")
    if debug:
        plan = result.plan.sanitized()
        lines += ["", "plan: " + json.dumps(plan, ensure_ascii=False, default=str),
                  "trace: " + json.dumps(result.trace, ensure_ascii=False, default=str)]
        for row in result.rows:
            ranks = {k[5:]: v for k, v in row.items() if k.startswith("rank_") and v is not None}
            lines.append(f"  {row['decision']:<10} {row['reason']:<32} {row['kind']:<11} {row['id']}  "
                         f"score={row['score']:.5f} ranks={ranks}{'  injected' if row['injected'] else ''}")
    return "\n".join(lines)


@command("recall")
def cmd_recall(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        # --debug inspects: it records no activation (only a real injection is an access)
        result = mem.recall(args.query, at_time=args.at, history=args.history, debug=args.debug,
                            record_activation=not args.debug)
        if args.json:
            data = result.to_dict()
            if args.debug:
                data["plan"] = result.plan.sanitized()
            if not args.debug:
                data["results"] = [r for r in data["results"] if r["decision"] != "rejected"]
            emit(args, data)
        else:
            emit(args, result, text=_recall_text(result, args.debug))
    return 0


@command("retrieve")
def cmd_retrieve(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.retrieve(args.query, k=args.k, channels=args.channel or None), table="retrieve")
    return 0


def _index_text(stats: dict[str, Any]) -> str:
    if stats["status"] == "fresh":
        return (f"dense index is up to date: {stats['count']} vectors, model {stats['model']}, "
                f"generation {stats['active_generation']}")
    return (f"built generation {stats['generation_id']} ({stats['reason']}): {stats['total']} documents, "
            f"{stats['embedded']} embedded, {stats['reused']} reused, {stats['seconds']} s, "
            f"model {stats['model']}, {stats['bytes_on_disk']} bytes on disk")


@command("index")
def cmd_index(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        stats = mem.index(progress=progress_wanted(args), force=args.force, executor=args.executor,
                          address=args.address)
        emit(args, stats, text=_index_text(stats))
    return 0


def register(sub: Any) -> None:
    """Add ``recall``, ``retrieve`` and ``index`` to the ``riko`` subcommands."""
    p = sub.add_parser("recall", help="planner-gated recall for one user turn (prints the <MEMORY_DATA> block)",
                       description="Planner-gated recall for one user turn. Like every recall surface it needs "
                                   "recall_enabled = true (default off).")
    _common(p)
    p.add_argument("query", help="the user's turn")
    p.add_argument("--at", default=None, metavar="TIME", type=iso_time, help="recall as of this ISO date-time (at mode)")
    p.add_argument("--history", action="store_true", help="include retained lineage (history mode)")
    p.add_argument("--debug", action="store_true", help="show the plan, the trace and every candidate's gate")
    p = sub.add_parser("retrieve", help="ungated research ranking over every channel (raw evidence included)")
    _common(p)
    _wide(p)
    p.add_argument("query", help="the query text")
    p.add_argument("-k", type=int, default=10, help="results to return (default 10)")
    p.add_argument("--channel", action="append", choices=CHANNEL_ORDER, default=None,
                   help="restrict to this channel (repeatable; default all)")
    p = sub.add_parser("index", help="build or refresh the dense vector generation ahead of the first dense recall, which would build it (incremental)")
    _common(p)
    p.add_argument("--force", action="store_true", help="build a new generation even when it is up to date")
    p.add_argument("--executor", choices=["local", "ray"], default="local",
                   help="where passage batches are embedded: here, or as Ray tasks (extra riko[ray])")
    p.add_argument("--address", default=None, metavar="ADDR", help="Ray cluster address (default: a local cluster)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
