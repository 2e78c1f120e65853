"""``riko`` commands for review and the canonical Wiki: candidates, pages, transitions, Resident.

Each command opens the memory, calls one method and renders the result; ``register(sub)``
adds their parsers to the ``riko`` command line.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .main import _common, _wide, command, emit, iso_time, open_memory, resolve_owner, resolve_preset
from ..clock import utc
from ..errors import RikoError, UsageError
from ..vocabulary import CANDIDATE_STATUSES, PAGE_TYPES, RESOLUTIONS, SENSITIVITIES

if TYPE_CHECKING:
    from ..wiki import Page

__all__ = ["register"]


def _page_dict(page: "Page") -> dict[str, Any]:
    """A page as JSON, date-times written the way the page file writes them."""
    data = dataclasses.asdict(page)
    for key, value in data.items():
        if hasattr(value, "isoformat"):
            data[key] = utc(value).isoformat().replace("+00:00", "Z")
    return data


def _emit_page(args: argparse.Namespace, page: "Page", verb: str) -> None:
    from ..wiki import render_page

    emit(args, _page_dict(page), text=f"{verb} {page.id} (version {page.version})\n\n{render_page(page)}")




# -- candidates ---------------------------------------------------------------------------------
@command("candidates")
def cmd_candidates(args: argparse.Namespace) -> int:
    status = None if args.all else args.status
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.candidates(status), table="candidates")
    return 0


@command("propose")
def cmd_propose(args: argparse.Namespace) -> int:
    if not args.title.strip():
        raise UsageError("a candidate needs a non-empty title")
    with open_memory(args) as mem:
        cid = mem.propose(args.title, body=args.body, type=args.type, description=args.description)
    emit(args, {"candidate_id": cid},
         text=f"proposed candidate {cid}" if cid else "dropped: it repeats an existing canonical page")
    return 0


def _wiki_new(args: argparse.Namespace) -> int:
    """``riko wiki new``: a management page, with supersedes / expires, reporting near-matches."""
    if not args.title.strip():
        raise UsageError("a page needs a non-empty title")
    fields: dict[str, Any] = {}
    if args.description:
        fields["description"] = args.description
    if args.supersedes:
        fields["supersedes"] = args.supersedes
    if args.expires:
        fields["expires"] = args.expires
    with open_memory(args) as mem:
        page = mem.create_page(args.title, args.body, type=args.type, **fields)
        near = [] if args.supersedes else mem.overlaps(
            "\n".join(filter(None, (args.title, args.description, args.body))), exclude=[page.id])
    from ..wiki import render_page

    lines = [f"created {page.id} (version {page.version})"]
    if page.supersedes:
        lines.append(f"supersedes {page.supersedes}")
    for o in near:
        lines.append(f"overlaps {o['id']} ({o['title']}, score {o['score']}); if the new page replaces it: "
                     f"riko supersede {o['id']} --by {page.id}")
    emit(args, {"page": _page_dict(page), "overlaps": near}, text="\n".join(lines) + "\n\n" + render_page(page))
    return 0


@command("confirm")
def cmd_confirm(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.confirm(args.id), "confirmed as page")
    return 0


@command("reject")
def cmd_reject(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        mem.reject(args.id)
    emit(args, {"rejected": args.id}, text=f"rejected candidate {args.id}")
    return 0


# -- pages ----------------------------------------------------------------------------------------
@command("pages")
def cmd_pages(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.pages(), table="pages")
    return 0


@command("page")
def cmd_page(args: argparse.Namespace) -> int:
    from ..wiki import render_page

    with open_memory(args, read_only=True) as mem:
        if args.versions:
            mem.page(args.id)  # an unknown id is an error, not an empty table
            emit(args, mem.page_versions(args.id), table="page-versions")
        else:
            page = mem.page(args.id)
            emit(args, _page_dict(page), text=render_page(page))
    return 0


@command("correct")
def cmd_correct(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.correct(args.id, args.content), "corrected")
    return 0


@command("replace")
def cmd_replace(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.replace(args.id, args.content, args.valid_from), f"replaced {args.id} by")
    return 0


@command("supersede")
def cmd_supersede(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.supersede(args.id, by=args.by), "superseded")
    return 0


@command("forget")
def cmd_forget(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.forget(args.id)
    emit(args, result, text=f"forgot page {args.id}; raw session evidence retained")
    return 0


@command("suppress")
def cmd_suppress(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.suppress(args.id), "suppressed")
    return 0


@command("restore")
def cmd_restore(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.restore(args.id), "restored")
    return 0


@command("sensitivity")
def cmd_sensitivity(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.set_sensitivity(args.id, args.level), f"set sensitivity {args.level} on")
    return 0


# -- Resident, conflicts, aliases, graph ----------------------------------------------------------
@command("resident")
def cmd_resident(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        snap = mem.resident()
        if getattr(args, "index", False):
            index = snap.index
            if args.json:
                emit(args, index.to_dict())
            elif not index.enabled:
                print("(index layer off: index_layer_enabled = false)")
            else:
                print(index.text or "(empty index layer: no current page)")
            return 0
    emit(args, snap, text=snap.text or "(empty Resident)")
    return 0


@command("conflicts")
def cmd_conflicts(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.conflicts(args.state), table="conflicts")
    return 0


@command("resolve")
def cmd_resolve(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        _emit_page(args, mem.resolve_conflict(args.id, args.resolution, valid_from=args.valid_from),
                   f"resolved {args.id} ({args.resolution}); page")
    return 0


@command("aliases")
def cmd_aliases(args: argparse.Namespace) -> int:
    with open_memory(args, read_only=True) as mem:
        emit(args, mem.aliases(), table="aliases")
    return 0


@command("graph")
def cmd_graph(args: argparse.Namespace) -> int:
    from ..door import broken_links

    with open_memory(args, read_only=True) as mem:
        graph = mem.graph()
    broken = [{"page_id": source, "target": title} for source, title in broken_links(graph)]
    pages = sum(1 for _, data in graph.nodes(data=True) if not data.get("broken"))
    summary = {"nodes": pages, "edges": graph.number_of_edges(), "broken_links": broken}
    lines = [f"{pages} page(s), {graph.number_of_edges()} link(s), {len(broken)} broken"]
    lines += [f"broken link in {b['page_id']}: [[{b['target']}]]" for b in broken]
    emit(args, summary, text="\n".join(lines))
    return 0


# -- wiki check / sync ----------------------------------------------------------------------------
@command("wiki")
def cmd_wiki(args: argparse.Namespace) -> int:
    if args.wiki_command == "check":
        return _wiki_check(args)
    if args.wiki_command == "new":
        return _wiki_new(args)
    if args.wiki_command == "watch":
        return _wiki_watch(args)
    with open_memory(args) as mem:
        report = mem.last_sync if mem.last_sync is not None else mem.sync()
    lines = [report.summary(), *(str(e) for e in report.errors)]
    emit(args, report, text="\n".join(lines))
    return 1 if report.errors else 0


def _watch_lines(report: Any) -> list[str]:
    """One line per change a sync applied or refused (nothing for a sync that found none)."""
    if isinstance(report, RikoError):
        return [f"riko: error: {report}"]
    if isinstance(report, Exception):
        return [f"riko: error: {type(report).__name__}: {report}"]
    lines = [f"{verb} {page_id}" for verb, ids in (("added", report.added), ("edited", report.edited),
                                                   ("deleted", report.deleted)) for page_id in ids]
    lines += [f"refused {e}; the previous version keeps serving" for e in report.errors]
    return lines


def _wiki_watch(args: argparse.Namespace) -> int:
    """Sync page files as they change and print what each sync did, until interrupted."""
    done = threading.Event()

    def show(report: Any) -> None:
        if args.json and not isinstance(report, Exception):
            if report.changed or report.errors:
                print(json.dumps(report.to_dict(), ensure_ascii=False), flush=True)
            return
        for line in _watch_lines(report):
            print(line, flush=True)

    with open_memory(args) as mem:
        print(f"riko wiki watch: watching {mem.wiki_dir} (Ctrl-C stops)", file=sys.stderr, flush=True)
        mem.watch(on_report=show)
        try:
            done.wait()
        except KeyboardInterrupt:
            pass
    return 0


def _wiki_check(args: argparse.Namespace) -> int:
    """Validate the scope's page files without opening the warehouse (safe as a pre-commit hook)."""
    from ..door import check_wiki
    from ..scope import MemoryScope

    scope = MemoryScope(resolve_owner(args), resolve_preset(args))
    errors, note = check_wiki(Path(args.root).absolute(), scope)
    if note:
        print(f"riko: note: {note}", file=sys.stderr)
    rows = [{"path": str(e.path), "line": e.line, "field": e.field, "message": str(e)} for e in errors]
    emit(args, {"ok": not errors, "errors": rows},
         text="\n".join(str(e) for e in errors) if errors else "wiki check: every page file is valid")
    return 1 if errors else 0


# -- parsers --------------------------------------------------------------------------------------
def register(sub: Any) -> None:
    """Add the review and Wiki commands to the ``riko`` subparsers object ``sub``."""
    p = sub.add_parser("candidates", help="list candidates awaiting review")
    _common(p)
    _wide(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--all", action="store_true", help="every candidate, whatever its status")
    which.add_argument("--status", choices=CANDIDATE_STATUSES, default="pending",
                       help="only this status (default: pending, contested ones included)")

    p = sub.add_parser("propose", help="propose a candidate page (never canon until confirmed)")
    _common(p)
    p.add_argument("title", help="the page title (the subject)")
    p.add_argument("--body", default="", help="Markdown body")
    p.add_argument("--description", default="", help="one-line claim")
    p.add_argument("--type", choices=PAGE_TYPES, default="concept", help="page type (default concept)")

    for name, text in (("confirm", "confirm a candidate as a canonical page (management)"),
                       ("reject", "reject a candidate")):
        p = sub.add_parser(name, help=text)
        _common(p)
        p.add_argument("id", help="candidate id")

    p = sub.add_parser("pages", help="list canonical pages")
    _common(p)
    _wide(p)
    p = sub.add_parser("page", help="show one page file, or its earlier versions")
    _common(p)
    p.add_argument("id", help="page id")
    p.add_argument("--versions", action="store_true", help="list earlier versions instead")
    _wide(p)

    p = sub.add_parser("correct", help="correct a page in place (same id, version + 1)")
    _common(p)
    p.add_argument("id", help="page id")
    p.add_argument("content", help="the corrected claim")
    p = sub.add_parser("replace", help="close a page's interval and publish its successor")
    _common(p)
    p.add_argument("id", help="page id")
    p.add_argument("content", help="the new claim")
    p.add_argument("--valid-from", required=True, type=iso_time, help="ISO date-time the new claim starts")
    p = sub.add_parser("supersede", help="retire a page from future Residents (kept with its evidence)")
    _common(p)
    p.add_argument("id", help="page id")
    p.add_argument("--by", default=None, help="the page that supersedes it")
    for name, text in (("forget", "remove a page from the Wiki and Resident (raw evidence is kept)"),
                       ("suppress", "stop using a page until it is restored"),
                       ("restore", "lift a suppression")):
        p = sub.add_parser(name, help=text)
        _common(p)
        p.add_argument("id", help="page id")
    p = sub.add_parser("sensitivity", help="set a page's sensitivity (management)")
    _common(p)
    p.add_argument("id", help="page id")
    p.add_argument("level", choices=SENSITIVITIES, help="new sensitivity")

    p = sub.add_parser("resident", help="show the Resident block injected before each request")
    _common(p)
    p.add_argument("--index", action="store_true",
                   help="show the index layer beside it instead: one line per current page, within its budget")
    p = sub.add_parser("conflicts", help="list contested and resolved conflict overlays")
    _common(p)
    _wide(p)
    p.add_argument("--state", choices=("contested", "resolved"), default=None, help="only this state")
    p = sub.add_parser("resolve", help="resolve a conflict overlay")
    _common(p)
    p.add_argument("id", help="conflict id")
    p.add_argument("resolution", choices=RESOLUTIONS, help="how the conflict is settled")
    p.add_argument("--valid-from", type=iso_time, default=None,
                   help="start of the new claim for temporal_transition (default now)")
    p = sub.add_parser("aliases", help="list alias edges")
    _common(p)
    _wide(p)
    p = sub.add_parser("graph", help="summarise the link graph and list broken links")
    _common(p)

    p = sub.add_parser("wiki", help="validate or apply hand edits of the page files, or write a new page")
    wiki = p.add_subparsers(dest="wiki_command", metavar="ACTION", required=True)
    q = wiki.add_parser("check", help="validate every page file; exit 1 on any error; changes nothing")
    _common(q)
    q = wiki.add_parser("sync", help="apply edits made to the page files (version, audit, Resident)")
    _common(q)
    q = wiki.add_parser("new", help="write a confirmed, locked canonical page (management); reports near-matches")
    _common(q)
    q.add_argument("title", help="the page title (the subject)")
    q.add_argument("--body", default="", help="Markdown body")
    q.add_argument("--description", default="", help="one-line claim")
    q.add_argument("--type", choices=PAGE_TYPES, default="concept", help="page type (default concept)")
    q.add_argument("--supersedes", default=None, metavar="REF",
                   help="retire this current page in favour of the new one: an id, an id prefix or a distinctive "
                        "fragment of its text")
    q.add_argument("--expires", default=None, metavar="DATE",
                   help="the new page stops being true after this day (YYYY-MM-DD)")
    q = wiki.add_parser("watch", help="apply hand edits as they happen, a line per change, until Ctrl-C")
    _common(q)
