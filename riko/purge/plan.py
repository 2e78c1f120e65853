"""The purge plan: every record and file a raw-session purge removes or scrubs, and its token.

The plan is computed the same way for a dry run and for the execution, so the confirmation
token (first 32 hex of SHA-256 over scope key, session id and the confirmed part of the impact)
only matches while what the purge deletes is unchanged. Bookkeeping that ordinary use keeps
moving (recall counts, audit rows, caches, index state) is purged whatever it holds at the
execution and is not part of what a person confirms.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import unquote

import polars as pl

from ..wiki.corrections import claim_changed
from ..errors import WikiFormatError
from ..stores.tables import count_matching, index_names, mentioning, text_columns
from ..wiki import parse_page, render_page
from .needles import Needles
from ..dense.store import InvalidGeneration, read_generation, read_pointer

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["Plan", "build_plan", "text_columns", "column_hits", "EXPORTS_DIR", "UNCONFIRMED", "plan_changes"]

#: Evidence exports purge knows about: ``<root>/exports/<storage-key>/``.
EXPORTS_DIR = "exports"
#: Impact entries the confirmation does not cover: derived bookkeeping that a recall, a Dream
#: pass, an index build or an audit moves between a dry run and its execution. The execution
#: removes whatever it finds of them, so a token need not pin their counts.
UNCONFIRMED = ("jobs", "audits", "vectors", "denseDocuments", "activation", "projections", "indexMetadata",
               "providerCache", "residentRebuild")


def column_hits(frame: pl.DataFrame, columns: list[str], needles: Needles) -> pl.Series:
    """Per row: does any of ``columns`` name the session or hold a content needle."""
    if not columns or frame.height == 0:
        return pl.Series([False] * frame.height, dtype=pl.Boolean)
    joined = frame.select(pl.concat_str(columns, separator="\x01", ignore_nulls=True)).to_series()
    return needles.mask(joined)


def _loads(value: str | None) -> list[Any]:
    try:
        data = json.loads(value) if value else []
    except ValueError:
        return []
    return data if isinstance(data, list) else []


def _split(items: list[Any], needles: Needles) -> tuple[list[Any], list[Any]]:
    """(items pointing into the session, the others)."""
    mine, others = [], []
    for item in items:
        (mine if needles.is_ref(item if isinstance(item, str) else json.dumps(item)) else others).append(item)
    return mine, others


@dataclass
class Plan:
    """What purging one session changes; ``impact()`` is the part a person confirms."""

    needles: Needles
    evidence: int = 0
    session_row: bool = False
    child_sessions: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    source_paths: list[str] = field(default_factory=list)
    pages_removed: list[str] = field(default_factory=list)
    pages_scrubbed: dict[str, list[str]] = field(default_factory=dict)
    page_files: dict[str, str] = field(default_factory=dict)
    versions_removed: list[tuple[str, int]] = field(default_factory=list)
    versions_rewritten: dict[tuple[str, int], str] = field(default_factory=dict)
    candidates_removed: list[str] = field(default_factory=list)
    candidates_scrubbed: dict[str, tuple[list[Any], list[Any]]] = field(default_factory=dict)
    candidates_unconflicted: list[str] = field(default_factory=list)
    observations_removed: list[str] = field(default_factory=list)
    observations_scrubbed: dict[str, tuple[list[Any], list[Any], list[Any]]] = field(default_factory=dict)
    jobs: list[str] = field(default_factory=list)
    audits: list[int] = field(default_factory=list)
    audit_targets: list[int] = field(default_factory=list)
    suppressions: list[str] = field(default_factory=list)
    activation: list[str] = field(default_factory=list)
    projections: list[str] = field(default_factory=list)
    aliases_removed: list[str] = field(default_factory=list)
    aliases_scrubbed: dict[str, list[Any]] = field(default_factory=dict)
    #: names a scrubbed entity page holds only because the session gave them (their edges go)
    tags_removed: dict[str, list[str]] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)
    vectors: list[str] = field(default_factory=list)
    provider_cache: list[str] = field(default_factory=list)
    index_meta: list[str] = field(default_factory=list)
    dense_dir: Path | None = None
    dense_doc_ids: list[str] = field(default_factory=list)
    export_paths: list[Path] = field(default_factory=list)
    resident_rebuild: bool = False
    blockers: list[str] = field(default_factory=list)
    git_tracked: list[str] = field(default_factory=list)
    #: version of every page the purge tombstones or scrubs: an edit of one voids the confirmation
    page_versions: dict[str, int] = field(default_factory=dict)

    @property
    def session_id(self) -> str:
        return self.needles.session_id

    @property
    def removed_ids(self) -> set[str]:
        """Ids of records the purge deletes or tombstones (audits naming them are scrubbed)."""
        return set(self.pages_removed + self.candidates_removed + self.observations_removed + self.aliases_removed
                   + self.conflicts + self.suppressions + self.jobs + self.sources)

    @property
    def empty(self) -> bool:
        """Nothing of the session is left: no raw line, no record, no file names it."""
        impact = self.impact()
        for key in ("indexMetadata", "residentRebuild"):
            impact.pop(key)
        impact["files"].pop("dense")
        return _total(summary(impact)) == 0

    def impact(self) -> dict[str, Any]:
        """Counts and ids of everything affected, deterministic for the same state."""
        return {
            "evidence": self.evidence,
            "sessions": int(self.session_row),
            "childSessions": len(self.child_sessions),
            "sources": len(self.sources),
            "pages": {"removed": sorted(self.pages_removed), "scrubbed": sorted(self.pages_scrubbed)},
            "pageVersions": {"removed": len(self.versions_removed), "rewritten": len(self.versions_rewritten)},
            "candidates": {"removed": sorted(self.candidates_removed), "scrubbed": sorted(self.candidates_scrubbed),
                           "unconflicted": sorted(self.candidates_unconflicted)},
            "observations": {"removed": sorted(self.observations_removed),
                             "scrubbed": sorted(self.observations_scrubbed)},
            "jobs": len(self.jobs),
            "audits": len(self.audits),
            "vectors": len(self.vectors),
            "denseDocuments": len(self.dense_doc_ids),
            "activation": len(self.activation),
            "suppressions": len(self.suppressions),
            "aliases": {"removed": sorted(self.aliases_removed), "scrubbed": sorted(self.aliases_scrubbed)},
            "projections": len(self.projections),
            "conflicts": sorted(self.conflicts),
            "indexMetadata": sorted(self.index_meta),
            "providerCache": len(self.provider_cache),
            "files": {"pages": sorted(self.page_files.values()),
                      "exports": sorted(p.name for p in self.export_paths),
                      "dense": self.dense_dir is not None},
            "residentRebuild": self.resident_rebuild,
        }

    def confirmed(self) -> dict[str, Any]:
        """What a confirmation covers: the impact without :data:`UNCONFIRMED` bookkeeping, the
        version of each affected page, and a digest of the session's content (no text)."""
        impact = self.impact()
        for key in UNCONFIRMED:
            impact.pop(key)
        impact["files"].pop("dense")
        content = json.dumps([sorted(self.needles.fragments), sorted(self.needles.hashes)], ensure_ascii=False)
        return {"impact": impact, "pageVersions": dict(sorted(self.page_versions.items())),
                "content": hashlib.sha256(content.encode("utf-8")).hexdigest()[:32]}

    def token(self, scope_key: str) -> str:
        """The confirmation token: first 32 hex of SHA-256(scope key, session id, confirmed impact)."""
        body = json.dumps(self.confirmed(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(f"{scope_key}\n{self.session_id}\n{body}".encode()).hexdigest()[:32]


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"pages.removed": [...], "evidence": 3, ...}`` of a nested impact."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict):
            out.update(_flat(item, name + "."))
        else:
            out[name] = item
    return out


#: How :func:`plan_changes` names the lists and counts of a confirmed impact.
_LABELS = {
    "sessions": "session rows", "childSessions": "child sessions", "sources": "ingested sources",
    "pageVersions.removed": "page versions deleted", "pageVersions.rewritten": "page versions rewritten",
    "candidates.removed": "candidates deleted", "candidates.scrubbed": "candidates scrubbed",
    "candidates.unconflicted": "candidates released from a conflict",
    "observations.removed": "observations deleted", "observations.scrubbed": "observations scrubbed",
    "suppressions": "suppressions deleted", "aliases.removed": "aliases deleted",
    "aliases.scrubbed": "aliases scrubbed", "conflicts": "conflicts deleted", "files.pages": "page files",
    "files.exports": "export entries",
}


def plan_changes(before: dict[str, Any], after: dict[str, Any], session_id: str) -> list[str]:
    """What differs between two :meth:`Plan.confirmed` states, in words ("2 evidence rows added
    to session 's1'", "page p-1 changed (version 1 → 2)"); ids and counts only, never text."""
    changes: list[str] = []
    was, now = before.get("impact", {}), after.get("impact", {})
    rows = int(now.get("evidence", 0)) - int(was.get("evidence", 0))
    if rows:
        changes.append(f"{abs(rows)} evidence row{'s' if abs(rows) != 1 else ''} "
                       f"{'added to' if rows > 0 else 'removed from'} session {session_id!r}")
    elif before.get("content") != after.get("content"):
        changes.append(f"the evidence of session {session_id!r} changed (edited, or another session now holds "
                       "some of its lines)")
    old_versions, new_versions = before.get("pageVersions", {}), after.get("pageVersions", {})
    old_pages, new_pages = was.get("pages", {}), now.get("pages", {})

    def fate(pages: dict[str, Any], page_id: str) -> str:
        return "tombstoned" if page_id in pages.get("removed", []) else "scrubbed"

    for page_id in sorted(set(old_versions) | set(new_versions)):
        old, new = old_versions.get(page_id), new_versions.get(page_id)
        if old is None:
            changes.append(f"page {page_id} is now {fate(new_pages, page_id)} by the purge")
        elif new is None:
            changes.append(f"page {page_id} changed and is no longer part of the purge")
        else:
            edit = f" (version {old} → {new})" if old != new else ""
            moved = fate(old_pages, page_id) != fate(new_pages, page_id)
            if edit or moved:
                changes.append(f"page {page_id} changed{edit}" + (
                    f"; it is now {fate(new_pages, page_id)}" if moved else ""))
    flat_was, flat_now = _flat(was), _flat(now)
    for name in sorted(set(flat_was) | set(flat_now)):
        if name in ("evidence", "pages.removed", "pages.scrubbed"):
            continue
        old, new = flat_was.get(name), flat_now.get(name)
        if old == new:
            continue
        label = _LABELS.get(name, name)
        if isinstance(old, list) or isinstance(new, list):
            added = sorted(set(new or []) - set(old or []))
            gone = sorted(set(old or []) - set(new or []))
            parts = ([f"{', '.join(map(str, added))} added"] if added else []) + (
                [f"{', '.join(map(str, gone))} gone"] if gone else [])
            changes.append(f"{label}: {'; '.join(parts)}")
        else:
            changes.append(f"{label}: {old} → {new}")
    return changes


def summary(impact: dict[str, Any]) -> dict[str, Any]:
    """The impact reduced to counts: what the journal may keep (no ids, no text)."""
    out: dict[str, Any] = {}
    for key, value in impact.items():
        if isinstance(value, dict):
            out[key] = summary(value)
        elif isinstance(value, list):
            out[key] = len(value)
        else:
            out[key] = value
    return out


def _total(counts: Any) -> int:
    if isinstance(counts, dict):
        return sum(_total(v) for v in counts.values())
    return int(counts)


class _Planner:
    def __init__(self, ctx: "ScopeContext", needles: Needles) -> None:
        self.mem, self.wh, self.key, self.needles = ctx, ctx.wh, ctx.scope.key, needles
        self.plan = Plan(needles)

    def rows(self, table: str, extra: str = "false", params: Iterable[Any] = ()) -> list[dict[str, Any]]:
        """Rows of ``table`` that mention the session in any text column, or match ``extra``."""
        frame = mentioning(self.wh, table, extra, list(params))
        hit = column_hits(frame, text_columns(self.wh, table), self.needles)
        return frame.filter(hit | frame.get_column("_riko_extra")).drop("_riko_extra").to_dicts()

    def hit(self, row: dict[str, Any], skip: Iterable[str] = ()) -> bool:
        """Whether any text column of ``row`` other than ``skip`` mentions the session."""
        skip = set(skip) | {"scope_key"}
        return any(isinstance(v, str) and k not in skip and self.needles.mentions(v) for k, v in row.items())

    def run(self) -> Plan:
        self.raw()
        self.pages()
        self.candidates()
        self.observations()
        self.derived()
        self.audits()
        self.files()
        return self.plan

    def raw(self) -> None:
        p, sid = self.plan, self.needles.session_id
        p.evidence = count_matching(self.wh, "evidence", "session_id = ?", [sid])
        for r in self.rows("sessions", "session_id = ? OR parent_session = ?", [sid, sid]):
            if r["session_id"] == sid:
                p.session_row = True
            elif r["parent_session"] == sid and not self.hit(r, skip=("parent_session",)):
                p.child_sessions.append(r["session_id"])
            else:
                p.blockers.append(f"session {r['session_id']} (another session's metadata names this session)")
        for r in self.rows("sources", "session_id = ?", [sid]):
            p.sources.append(r["id"])
            if r["path"]:
                p.source_paths.append(r["path"])
        others = count_matching(
            self.wh, "evidence", f"session_id <> ? AND ({self.needles.sql_token('text')} OR "
            f"{self.needles.sql_token('data')})", [sid])
        if others:
            p.blockers.append(f"{others} evidence line(s) of other sessions name this session")
        p.jobs = [r["id"] for r in self.rows("jobs", "session_id = ?", [sid]) if r["kind"] != "purge-lease"]

    def pages(self) -> None:
        p = self.plan
        # a page whose earlier version cited the session and said the same claim derives from it,
        # whatever its sources say now (an edit that kept the claim is not a new claim)
        lineage: dict[str, list[str]] = {}
        for r in self.rows("page_versions"):
            lineage.setdefault(r["page_id"], []).append(r["text"])
        for r in self.rows("pages", "list_contains(?::VARCHAR[], id)", [sorted(lineage)]):
            mine, others = _split(_loads(r["sources"]), self.needles)
            if not mine and r["status"] != "forgotten" and self._same_claim_as(r, lineage.get(r["id"], [])):
                mine = ["(earlier version)"]
            if self.hit(r, skip=("sources",)) or (mine and not others):
                p.pages_removed.append(r["id"])
            elif mine:
                p.pages_scrubbed[r["id"]] = others
            else:
                continue
            p.page_versions[r["id"]] = int(r["version"])
            if r["path"]:
                p.page_files[r["id"]] = r["path"]
        removed = set(p.pages_removed)
        for r in self.rows("page_versions", "list_contains(?::VARCHAR[], page_id)", [sorted(removed)]):
            ident = (r["page_id"], int(r["version"]))
            if r["page_id"] in removed:
                p.versions_removed.append(ident)
                continue
            text = self._rewritten_version(r["text"])
            if text is None:
                p.versions_removed.append(ident)
            else:
                p.versions_rewritten[ident] = text

    def _same_claim_as(self, row: dict[str, Any], versions: list[str]) -> bool:
        claim = f"{row.get('description') or ''}\n{row.get('body') or ''}".strip()
        for text in versions:
            try:
                page = parse_page(text)
            except WikiFormatError:
                continue
            if _split(list(page.sources), self.needles)[0] and not claim_changed(
                    f"{page.description}\n{page.body}".strip(), claim):
                return True
        return False

    def _rewritten_version(self, text: str) -> str | None:
        """An earlier page version without the session's refs, or None when it must go."""
        try:
            page = parse_page(text)
        except WikiFormatError:
            return None
        mine, others = _split(list(page.sources), self.needles)
        if mine and not others:
            return None
        fresh = render_page(page.replace(sources=others))
        return None if self.needles.mentions(fresh) else fresh

    def candidates(self) -> None:
        p, removed_pages = self.plan, sorted(self.plan.pages_removed)
        for r in self.rows("candidates", "list_contains(?::VARCHAR[], page_id) OR list_contains(?::VARCHAR[], conflict_page_id)",
                           [removed_pages, removed_pages]):
            ev_mine, ev_other = _split(_loads(r["evidence"]), self.needles)
            ss_mine, ss_other = _split(_loads(r["source_sessions"]), self.needles)
            derived_only = (ev_mine or ss_mine) and not ev_other and not ss_other
            if self.hit(r, skip=("evidence", "source_sessions")) or derived_only or r["page_id"] in removed_pages:
                p.candidates_removed.append(r["id"])
                continue
            if ev_mine or ss_mine:
                p.candidates_scrubbed[r["id"]] = (ev_other, ss_other)
            if r["conflict_page_id"] in removed_pages:
                p.candidates_unconflicted.append(r["id"])

    def observations(self) -> None:
        p = self.plan
        minimum = max(1, int(self.mem.config.min_observation_evidence))
        for r in self.rows("observations"):
            a_mine, a_other = _split(_loads(r["anchors"]), self.needles)
            s_mine, s_other = _split(_loads(r["session_ids"]), self.needles)
            c_mine, c_other = _split(_loads(r["contradictions"]), self.needles)
            lists = ("anchors", "session_ids", "contradictions")
            too_few = bool(a_mine) and len({json.dumps(a, sort_keys=True) for a in a_other}) < minimum
            if self.hit(r, skip=lists) or too_few or (s_mine and not s_other and not a_other):
                p.observations_removed.append(r["id"])
            elif a_mine or s_mine or c_mine:
                p.observations_scrubbed[r["id"]] = (a_other, s_other, c_other)

    def derived(self) -> None:
        p = self.plan
        pages = sorted(p.pages_removed)
        gone = sorted(set(p.pages_removed + p.observations_removed + p.candidates_removed))
        touched = sorted(set(gone) | set(p.pages_scrubbed) | set(p.observations_scrubbed))
        p.suppressions = [r["id"] for r in self.rows("suppressions", "list_contains(?::VARCHAR[], target_id)", [gone])]
        p.activation = [r["record_id"] for r in self.rows("activation", "list_contains(?::VARCHAR[], record_id)", [gone])]
        p.projections = [r["record_id"] for r in self.rows("projections", "list_contains(?::VARCHAR[], record_id)", [touched])]
        for r in self.rows("aliases", "list_contains(?::VARCHAR[], entity_id)", [pages]):
            mine, others = _split(_loads(r["source_refs"]), self.needles)
            if r["entity_id"] in pages or self.hit(r, skip=("source_refs",)) or (mine and not others):
                p.aliases_removed.append(r["id"])
                if r["entity_id"] in p.pages_scrubbed:
                    p.tags_removed.setdefault(r["entity_id"], []).append(r["alias"])
            elif mine:
                p.aliases_scrubbed[r["id"]] = others
        p.conflicts = [r["id"] for r in self.rows(
            "conflicts", "list_contains(?::VARCHAR[], page_id) OR list_contains(?::VARCHAR[], candidate_id)",
            [pages, sorted(p.candidates_removed)])]
        p.vectors = sorted({r["doc_id"] for r in self.rows(
            "vectors", "list_contains(?::VARCHAR[], doc_id) OR list_contains(?::VARCHAR[], source_id)", [gone, gone])})
        p.provider_cache = [r["request_hash"] for r in self.rows("provider_cache")]
        p.index_meta = index_names(self.wh)
        self.dense(set(gone))

    def dense(self, gone: set[str]) -> None:

        directory = self.mem.warehouse_dir / "dense"
        if not directory.is_dir():
            return
        self.plan.dense_dir = directory
        try:
            pointer = read_pointer(directory)
        except InvalidGeneration:
            return
        seen: set[str] = set()
        for gen_id in (pointer or {}).get("active"), (pointer or {}).get("previous"):
            if not gen_id:
                continue
            try:
                gen = read_generation(directory / "generations" / gen_id)
            except InvalidGeneration:
                continue
            ids = pl.Series(gen.doc_ids, dtype=pl.String)
            seen.update(ids.filter(self.needles.mask(ids) | ids.is_in(sorted(gone))).to_list())
        self.plan.dense_doc_ids = sorted(seen)

    def audits(self) -> None:
        gone = sorted(self.plan.removed_ids)
        rows = self.rows("audits", "list_contains(?::VARCHAR[], target)", [gone])
        self.plan.audits = sorted(int(r["id"]) for r in rows)
        self.plan.audit_targets = sorted(int(r["id"]) for r in rows if self.needles.mentions(r["target"]))

    def files(self) -> None:
        p, mem = self.plan, self.mem
        exports = mem.root / EXPORTS_DIR / mem.scope.storage_key
        if exports.is_dir():
            for entry in sorted(exports.iterdir()):
                name = entry.name
                if entry.is_dir() and name.startswith("session_id=") and unquote(name.split("=", 1)[1]) == p.session_id:
                    p.export_paths.append(entry)
                elif entry.is_file() and name == f"{p.session_id}.jsonl":
                    p.export_paths.append(entry)
        stored = mem.resident.stored()
        touched = set(p.pages_removed) | set(p.pages_scrubbed)
        if stored is not None:
            listed = set(stored.source_page_ids) | set(stored.omitted_page_ids)
            p.resident_rebuild = bool(listed & touched) or self.needles.mentions(stored.text)
        resident = mem.canon.resident_path()
        changed = [mem.wiki_dir / rel for rel in p.page_files.values()]
        if p.resident_rebuild:
            changed.append(resident)
        p.git_tracked = git_tracked(mem.wiki_dir, changed)


def git_tracked(directory: Path, paths: list[Path]) -> list[str]:
    """Which of ``paths`` git tracks (their history may still hold the text); [] without git."""
    if not paths or not directory.is_dir():
        return []
    try:
        out = subprocess.run(
            ["git", "-C", str(directory), "ls-files", "-z", "--", *[str(p.relative_to(directory)) for p in paths]],
            capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError, ValueError):
        return []
    if out.returncode != 0:
        return []
    return sorted(str((directory / name).resolve()) for name in out.stdout.decode("utf-8", "replace").split("\0") if name)


def build_plan(ctx: "ScopeContext", needles: Needles) -> Plan:
    """Compute the plan of purging ``needles.session_id`` from ``mem`` as it is now."""
    return _Planner(ctx, needles).run()
