"""The review state machine: candidates → canonical pages, and every later transition.

Exactly two things make canon: raw user evidence (read from L0) or a management action.
Every transition is audited with its authority and reflected in the page file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable, Sequence

import polars as pl

from .authority import UserEvent, claim_in_latest, latest_user_message, normalize_claim, user_grounded_match
from .canon import Canon
from .clock import Clock, utc
from .config import RikoConfig
from .contracts import parse_ref
from .errors import AuthorityError, NotFoundError, StateError
from .scope import MemoryScope
from .sensitivity import can_transition, classify_text, rank
from .warehouse import Warehouse, dumps, naive_utc
from .wiki import PAGE_TYPES, Page, make_page_id

__all__ = ["Review", "candidate_fingerprint", "CANDIDATE_STATUSES", "RESOLUTIONS"]

CANDIDATE_STATUSES = ("pending", "pending_conflict", "accepted", "rejected")
RESOLUTIONS = ("correction", "temporal_transition", "management")
_CURRENT_STATE_TYPES = ("entity", "concept", "relationship", "emotion", "synthesis")


def candidate_fingerprint(type_: str, title: str) -> str:
    """Identity of a proposal: its type and normalized title (the subject it speaks about)."""
    return hashlib.sha256(f"{type_}\0{normalize_claim(title)}".encode()).hexdigest()[:24]


@dataclass
class ProposalOutcome:
    candidate_id: str | None
    action: str  # created | merged | dropped-duplicate | conflict
    conflict_id: str | None = None


class Review:
    """Candidates, confirmations and page transitions of one scope."""

    def __init__(self, wh: Warehouse, scope: MemoryScope, canon: Canon, config: RikoConfig, clock: Clock,
                 on_change: Callable[[], Any]) -> None:
        self.wh, self.scope, self.canon, self.config, self.clock = wh, scope, canon, config, clock
        self._on_change = on_change

    # -- candidates -----------------------------------------------------------------------------
    def candidates(self, status: str | None = "pending") -> pl.DataFrame:
        sql = ("SELECT id, status, type, title, description, body, tags, confidence, sensitivity, source, "
               "source_sessions, evidence, conflict_page_id, page_id, created_at, updated_at FROM candidates WHERE scope_key = ?")
        params: list[Any] = [self.scope.key]
        if status == "pending":
            sql += " AND status IN ('pending', 'pending_conflict')"
        elif status is not None:
            sql += " AND status = ?"
            params.append(status)
        return self.wh.frame(sql + " ORDER BY created_at, id", params)

    def candidate(self, candidate_id: str) -> dict[str, Any]:
        cur = self.wh.con.execute("SELECT * FROM candidates WHERE scope_key = ? AND id = ?", [self.scope.key, candidate_id])
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
        if not rows:
            raise NotFoundError("candidate", candidate_id, "list candidates with mem.candidates()")
        return dict(zip(names, rows[0]))

    def propose(
        self,
        *,
        title: str,
        type: str = "concept",
        description: str = "",
        body: str = "",
        tags: Sequence[str] = (),
        confidence: float | None = None,
        kind: str | None = None,
        category: str | None = None,
        sensitivity: str = "normal",
        links: Sequence[str] = (),
        source: str = "manual",
        session_id: str | None = None,
        evidence: Sequence[str] = (),
        authority: str = "management",
    ) -> ProposalOutcome:
        """Store a proposal as a candidate, merging by fingerprint; never writes canon."""
        if type not in PAGE_TYPES:
            raise ValueError(f"type must be one of {', '.join(PAGE_TYPES)}; got {type!r}")
        title = " ".join(title.split())
        if not title:
            raise ValueError("a candidate needs a non-empty title")
        fp = candidate_fingerprint(type, title)
        now = naive_utc(self.clock.now())
        sessions = [session_id] if session_id else []
        # a model may only tighten: the conservative classifier runs over what it proposed
        sensitivity = classify_text(f"{title}\n{description}\n{body}", sensitivity if sensitivity in ("normal", "provisional_sensitive", "sensitive") else "normal")
        with self.wh.transaction():
            canon_match = self._canonical_match(type, title)
            if canon_match is not None:
                same = normalize_claim(canon_match.description or canon_match.summary()) == normalize_claim(description or body or title)
                if same or not self._is_current_state(canon_match):
                    return ProposalOutcome(None, "dropped-duplicate")
            existing = self.wh.fetchone(
                "SELECT id, tags, source_sessions, evidence, confidence, status, sensitivity FROM candidates "
                "WHERE scope_key = ? AND fingerprint = ? AND status IN ('pending', 'pending_conflict')",
                [self.scope.key, fp],
            )
            if existing is not None:
                cid, old_tags, old_sessions, old_evidence, old_conf, status, old_sens = existing
                merged_conf = max([c for c in (old_conf, confidence) if c is not None], default=None)
                stricter = old_sens if rank(old_sens or "normal") >= rank(sensitivity) else sensitivity
                self.wh.con.execute(
                    "UPDATE candidates SET tags = ?, source_sessions = ?, evidence = ?, confidence = ?, sensitivity = ?, updated_at = ? "
                    "WHERE scope_key = ? AND id = ?",
                    [dumps(sorted(set(json.loads(old_tags or "[]")) | set(tags))),
                     dumps(sorted(set(json.loads(old_sessions or "[]")) | set(sessions))),
                     dumps(sorted(set(json.loads(old_evidence or "[]")) | set(evidence))),
                     merged_conf, stricter, now, self.scope.key, cid],
                )
                self.wh.audit("candidate-merged", authority, cid, {"source": source, "session_id": session_id})
                return ProposalOutcome(cid, "merged")
            cid = "c-" + hashlib.sha256(f"{self.scope.key}:{fp}:{now.isoformat()}".encode()).hexdigest()[:16]
            status = "pending"
            conflict_id = None
            if canon_match is not None:
                status = "pending_conflict"
            self.wh.insert_rows("candidates", [{
                "id": cid, "fingerprint": fp, "type": type, "title": title, "description": description[:120] if source == "dream" else description,
                "body": body, "tags": dumps(sorted(set(tags))), "confidence": confidence, "kind": kind,
                "category": category, "sensitivity": sensitivity, "status": status, "source": source,
                "source_sessions": dumps(sessions), "evidence": dumps(sorted(set(evidence))), "links": dumps(list(links)),
                "conflict_page_id": canon_match.id if canon_match is not None else None, "page_id": None,
                "created_at": now, "updated_at": now,
            }])
            if canon_match is not None:
                conflict_id = self._open_conflict(canon_match, cid)
            self.wh.audit("candidate-proposed", authority, cid, {"source": source, "title": title, "status": status})
        if conflict_id:
            self._on_change()  # the old page is now contested and leaves the Resident
        return ProposalOutcome(cid, "conflict" if conflict_id else "created", conflict_id)

    def _canonical_match(self, type_: str, title: str) -> Page | None:
        target = normalize_claim(title)
        for page in self.canon.pages():
            if page.type == type_ and page.status == "confirmed" and normalize_claim(page.title) == target:
                return page
        return None

    @staticmethod
    def _is_current_state(page: Page) -> bool:
        return page.type in _CURRENT_STATE_TYPES and page.valid_to is None and page.superseded_by is None

    # -- confirm / reject -----------------------------------------------------------------------
    def confirm(self, candidate_id: str, *, authority: str = "management", session_id: str | None = None,
                grounded: UserEvent | None = None, audit_kind: str = "candidate-confirmed") -> Page:
        """Make a candidate canonical. ``authority`` is ``management`` or ``user`` (with evidence)."""
        cand = self.candidate(candidate_id)
        if cand["status"] == "pending_conflict":
            raise StateError(
                f"candidate {candidate_id} contradicts page {cand['conflict_page_id']}; resolve it with "
                "mem.resolve_conflict(conflict_id, 'correction' | 'temporal_transition' | 'management')")
        if cand["status"] != "pending":
            raise StateError(f"candidate {candidate_id} is {cand['status']}, not pending")
        if authority == "user":
            latest = latest_user_message(self.wh, self.scope, session_id) if session_id else None
            claim = cand["description"] or cand["body"] or cand["title"]
            if grounded is None and not claim_in_latest(claim, latest):
                self._refuse("candidate-confirm-refused", candidate_id,
                             "confirming requires the claim in the latest raw user message of the session")
        elif authority != "management":
            self._refuse("candidate-confirm-refused", candidate_id,
                         f"authority {authority!r} cannot confirm; only user evidence or management can")
        page = self._page_from_candidate(cand, grounded)
        with self.wh.transaction():
            self.canon.save(page, authority=authority, audit_kind=audit_kind,
                            detail={"candidate": candidate_id, **({"evidence": grounded.ref} if grounded else {})},
                            source_candidates=[candidate_id])
            self.wh.con.execute("UPDATE candidates SET status = 'accepted', page_id = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                                [page.id, naive_utc(self.clock.now()), self.scope.key, candidate_id])
        self._on_change()
        return page

    def _page_from_candidate(self, cand: dict[str, Any], grounded: UserEvent | None) -> Page:
        now = self.clock.now()
        pid = make_page_id(f"{self.scope.key}:{cand['fingerprint']}")
        if self.canon.exists(pid):
            pid = make_page_id(f"{self.scope.key}:{cand['fingerprint']}:{cand['id']}")
        description = cand["description"] or ""
        sources = json.loads(cand["evidence"] or "[]")
        if grounded is not None:
            description = grounded.text  # the user's exact words are the canonical text
            sources = sorted(set(sources) | {grounded.ref})
        observed = self._observed_at(sources)
        return Page(
            id=pid, type=cand["type"], title=cand["title"], description=description, body=cand["body"] or "",
            status="confirmed", consent=True, locked=False, sensitivity=cand["sensitivity"] or "normal", version=1,
            tags=json.loads(cand["tags"] or "[]"), sources=sources, confidence=cand["confidence"],
            kind=cand["kind"], category=cand["category"], observed_at=observed, recorded_at=now,
        )

    def _observed_at(self, refs: Iterable[str]) -> datetime | None:
        times = []
        for ref in refs:
            parsed = parse_ref(ref)
            if parsed:
                row = self.wh.fetchone("SELECT time FROM evidence WHERE scope_key = ? AND session_id = ? AND seq = ?",
                                       [self.scope.key, parsed[0], parsed[1]])
                if row and row[0] is not None:
                    times.append(utc(row[0]))
        return min(times) if times else None

    def reject(self, candidate_id: str, *, authority: str = "management") -> None:
        cand = self.candidate(candidate_id)
        if cand["status"] not in ("pending", "pending_conflict"):
            raise StateError(f"candidate {candidate_id} is {cand['status']}, not pending")
        with self.wh.transaction():
            self.wh.con.execute("UPDATE candidates SET status = 'rejected', updated_at = ? WHERE scope_key = ? AND id = ?",
                                [naive_utc(self.clock.now()), self.scope.key, candidate_id])
            self.wh.con.execute("UPDATE conflicts SET state = 'resolved', resolution = 'rejected', resolved_at = ? "
                                "WHERE scope_key = ? AND candidate_id = ? AND state = 'contested'",
                                [naive_utc(self.clock.now()), self.scope.key, candidate_id])
            self.wh.audit("candidate-rejected", authority, candidate_id, {"title": cand["title"]})
        self._on_change()

    def auto_confirm(self, candidate_ids: Iterable[str], policy: str) -> list[str]:
        """Apply ``candidate_auto_confirm``: off | user_grounded | all; returns confirmed page ids."""
        done: list[str] = []
        if policy == "off":
            return done
        for cid in candidate_ids:
            cand = self.candidate(cid)
            if cand["status"] != "pending":
                continue
            if policy == "all":
                done.append(self.confirm(cid, authority="management", audit_kind="candidate-auto-confirmed").id)
                continue
            match = user_grounded_match(self.wh, self.scope, cand["description"] or "", json.loads(cand["source_sessions"] or "[]"))
            if match is not None:
                done.append(self.confirm(cid, authority="user", grounded=match, audit_kind="candidate-auto-confirmed").id)
        return done

    def _refuse(self, kind: str, target: str, message: str) -> None:
        with self.wh.transaction():
            self.wh.audit(kind, "refused", target, {"reason": message})
        raise AuthorityError(message)

    # -- management pages -----------------------------------------------------------------------
    def create_page(self, title: str, body: str = "", *, type: str = "concept", authority: str = "management",
                    audit_kind: str = "page-created", **fields: Any) -> Page:
        """A confirmed canonical page written by management (locked) or by the user's own words."""
        if type not in PAGE_TYPES:
            raise ValueError(f"type must be one of {', '.join(PAGE_TYPES)}; got {type!r}")
        now = self.clock.now()
        pid = fields.pop("id", None) or make_page_id(f"{self.scope.key}:{type}:{normalize_claim(title)}:{now.isoformat()}")
        sensitivity = fields.pop("sensitivity", "normal")
        sensitivity = classify_text(f"{title}\n{fields.get('description', '')}\n{body}", sensitivity)
        page = Page(id=pid, type=type, title=" ".join(title.split()), body=body, status="confirmed", consent=True,
                    locked=authority == "management", sensitivity=sensitivity, version=1,
                    recorded_at=fields.pop("recorded_at", now), **fields)
        self.canon.save(page, authority=authority, audit_kind=audit_kind)
        self._on_change()
        return page

    def correct(self, page_id: str, content: str, *, authority: str = "management", evidence: str | None = None) -> Page:
        """Same page identity, version + 1, previous version kept; the old claim's evidence is invalidated."""
        old = self._live_page(page_id)
        content = content.strip()
        if not content:
            raise ValueError("a correction needs non-empty content")
        first = content.splitlines()[0]
        sources = list(old.sources) + ([evidence] if evidence and evidence not in old.sources else [])
        new = old.replace(description=first[:240], body=content if "\n" in content or len(first) > 240 else old.body if old.body and old.body != old.description else "",
                          version=old.version + 1, sensitivity=classify_text(content, old.sensitivity),
                          sources=sources, recorded_at=self.clock.now())
        with self.wh.transaction():
            self._invalidate_evidence(old.sources)
            self.canon.save(new, authority=authority, audit_kind="page-corrected", previous=old,
                            detail={"previous_version": old.version})
        self._on_change()
        return new

    def _invalidate_evidence(self, refs: Iterable[str]) -> None:
        for ref in refs:
            parsed = parse_ref(ref)
            if parsed:
                self.wh.con.execute("UPDATE evidence SET correction_invalidated = true WHERE scope_key = ? AND session_id = ? AND seq = ?",
                                    [self.scope.key, parsed[0], parsed[1]])

    def replace(self, page_id: str, content: str, valid_from: datetime | str, *, authority: str = "management",
                evidence: str | None = None) -> Page:
        """Temporal replacement: close the old interval at ``valid_from``, publish a new page that supersedes it."""
        old = self._live_page(page_id)
        start = utc(valid_from)
        if old.valid_from is not None and start <= old.valid_from:
            raise StateError(f"valid_from {start.isoformat()} must be after the current interval's start {old.valid_from.isoformat()}")
        content = content.strip()
        new = Page(id=make_page_id(f"{old.id}:{start.isoformat()}"), type=old.type, title=old.title,
                   description=content.splitlines()[0][:240], body=content if "\n" in content else "",
                   status="confirmed", consent=True, locked=old.locked, sensitivity=classify_text(content, old.sensitivity),
                   version=1, tags=list(old.tags), sources=[evidence] if evidence else [], confidence=old.confidence,
                   kind=old.kind, category=old.category, recorded_at=self.clock.now(), valid_from=start,
                   supersedes=old.id)
        closed = old.replace(valid_to=start, superseded_by=new.id, version=old.version + 1)
        with self.wh.transaction():
            self.canon.save(closed, authority=authority, audit_kind="page-temporally-closed", previous=old,
                            supersede_reason="temporal", detail={"superseded_by": new.id})
            self.canon.save(new, authority=authority, audit_kind="page-replaced", detail={"supersedes": old.id})
        self._on_change()
        return new

    def supersede(self, page_id: str, *, by: str | None = None, authority: str = "management") -> Page:
        old = self._live_page(page_id)
        new = old.replace(status="superseded", superseded_by=by, version=old.version + 1)
        self.canon.save(new, authority=authority, audit_kind="page-superseded", previous=old, supersede_reason="other")
        self._on_change()
        return new

    def forget(self, page_id: str, *, authority: str = "management", invalidate_aliases: Callable[[str], int] | None = None) -> dict[str, Any]:
        """Remove from Resident, recall and the Wiki files; keep the audit and the raw evidence."""
        old = self.canon.get(page_id)
        if old.status == "forgotten":
            raise StateError(f"page {page_id} is already forgotten")
        with self.wh.transaction():
            self.canon.save(old.replace(status="forgotten", version=old.version + 1), authority=authority,
                            audit_kind="page-forgotten", previous=old, detail={"raw_session_retained": True})
            aliases = invalidate_aliases(page_id) if invalidate_aliases else 0
        self._on_change()
        return {"id": page_id, "forgotten": True, "raw_session_retained": True, "aliases_invalidated": aliases}

    def suppress(self, page_id: str, *, reason: str = "management-suppression", authority: str = "management") -> Page:
        old = self._live_page(page_id)
        if old.usage_policy == "suppressed":
            raise StateError(f"page {page_id} is already suppressed")
        now = naive_utc(self.clock.now())
        new = old.replace(usage_policy="suppressed")
        with self.wh.transaction():
            self.wh.insert_rows("suppressions", [{"id": f"s-{page_id}-{now.timestamp():.0f}", "target_id": page_id, "target_kind": "page",
                                                  "reason": reason, "active": True, "created_at": now, "restored_at": None, "restore_reason": None}])
            self.canon.save(new, authority=authority, audit_kind="page-suppressed", detail={"reason": reason})
        self._on_change()
        return new

    def restore(self, page_id: str, *, reason: str = "management-restore", authority: str = "management") -> Page:
        old = self.canon.get(page_id)
        active = self.wh.fetchone("SELECT id FROM suppressions WHERE scope_key = ? AND target_id = ? AND active",
                                  [self.scope.key, page_id])
        if active is None and old.usage_policy != "suppressed":
            raise StateError(f"page {page_id} is not suppressed; nothing to restore")
        now = naive_utc(self.clock.now())
        with self.wh.transaction():
            self.wh.con.execute("UPDATE suppressions SET active = false, restored_at = ?, restore_reason = ? "
                                "WHERE scope_key = ? AND target_id = ? AND active", [now, reason, self.scope.key, page_id])
            self.canon.save(old.replace(usage_policy="normal"), authority=authority, audit_kind="page-restored",
                            detail={"reason": reason})
        self._on_change()
        return self.canon.get(page_id)

    def set_sensitivity(self, page_id: str, level: str, *, authority: str = "management") -> Page:
        """Tighten always; loosen only with ``user`` or ``management``; every attempt is audited."""
        old = self.canon.get(page_id)
        if level not in ("normal", "provisional_sensitive", "sensitive"):
            raise ValueError(f"sensitivity must be normal, provisional_sensitive or sensitive; got {level!r}")
        if not can_transition(old.sensitivity, level, authority):
            with self.wh.transaction():
                self.wh.audit("memory-sensitivity-rejected", authority, page_id, {"from": old.sensitivity, "to": level})
            raise AuthorityError(f"loosening sensitivity of {page_id} from {old.sensitivity} to {level} needs user or management authority")
        history = json.loads(self.canon.row(page_id)["sensitivity_history"] or "[]")
        history.append({"from": old.sensitivity, "to": level, "authority": authority, "at": self.clock.now().isoformat()})
        new = old.replace(sensitivity=level, version=old.version + 1)
        self.canon.save(new, authority=authority, audit_kind="memory-sensitivity-changed", previous=old,
                        sensitivity_history=history, detail={"from": old.sensitivity, "to": level})
        self._on_change()
        return new

    def _live_page(self, page_id: str) -> Page:
        page = self.canon.get(page_id)
        if page.status in ("forgotten", "superseded"):
            raise StateError(f"page {page_id} is {page.status}")
        return page

    # -- conflicts ------------------------------------------------------------------------------
    def _open_conflict(self, page: Page, candidate_id: str) -> str:
        cid = "k-" + hashlib.sha256(f"{self.scope.key}:{page.id}:{candidate_id}".encode()).hexdigest()[:16]
        self.wh.insert_rows("conflicts", [{"id": cid, "state": "contested", "subject": normalize_claim(page.title),
                                           "predicate": page.kind or page.type, "page_id": page.id,
                                           "candidate_id": candidate_id, "resolution": None,
                                           "created_at": naive_utc(self.clock.now()), "resolved_at": None}])
        self.wh.audit("conflict-opened", "deterministic_rule", cid, {"page": page.id, "candidate": candidate_id})
        return cid

    def conflicts(self, state: str | None = None) -> pl.DataFrame:
        sql = "SELECT id, state, subject, predicate, page_id, candidate_id, resolution, created_at, resolved_at FROM conflicts WHERE scope_key = ?"
        params: list[Any] = [self.scope.key]
        if state:
            sql += " AND state = ?"
            params.append(state)
        return self.wh.frame(sql + " ORDER BY created_at, id", params)

    def contested_page_ids(self) -> set[str]:
        return {r[0] for r in self.wh.fetchall("SELECT page_id FROM conflicts WHERE scope_key = ? AND state = 'contested'", [self.scope.key])}

    def resolve_conflict(self, conflict_id: str, resolution: str, *, authority: str = "management",
                         valid_from: datetime | str | None = None) -> Page:
        """Resolve an overlay: ``correction`` edits the old page, ``temporal_transition`` replaces it,
        ``management`` accepts the candidate as a page of its own."""
        if resolution not in RESOLUTIONS:
            raise ValueError(f"resolution must be one of {', '.join(RESOLUTIONS)}; got {resolution!r}")
        row = self.wh.fetchone("SELECT page_id, candidate_id, state FROM conflicts WHERE scope_key = ? AND id = ?", [self.scope.key, conflict_id])
        if row is None:
            raise NotFoundError("conflict", conflict_id, "list conflicts with mem.conflicts()")
        page_id, cand_id, state = row
        if state != "contested":
            raise StateError(f"conflict {conflict_id} is already {state}")
        cand = self.candidate(cand_id)
        text = cand["description"] or cand["body"] or cand["title"]
        now = naive_utc(self.clock.now())
        with self.wh.transaction():
            self.wh.con.execute("UPDATE conflicts SET state = 'resolved', resolution = ?, resolved_at = ? WHERE scope_key = ? AND id = ?",
                                [resolution, now, self.scope.key, conflict_id])
            if resolution == "correction":
                page = self.correct(page_id, text, authority=authority)
            elif resolution == "temporal_transition":
                page = self.replace(page_id, text, valid_from or self.clock.now(), authority=authority)
            else:
                self.wh.con.execute("UPDATE candidates SET status = 'pending' WHERE scope_key = ? AND id = ?", [self.scope.key, cand_id])
                page = self.confirm(cand_id, authority=authority)
            self.wh.con.execute("UPDATE candidates SET status = 'accepted', page_id = ?, updated_at = ? WHERE scope_key = ? AND id = ?",
                                [page.id, now, self.scope.key, cand_id])
            self.wh.audit("conflict-resolved", authority, conflict_id, {"resolution": resolution, "page": page.id})
        self._on_change()
        return page
