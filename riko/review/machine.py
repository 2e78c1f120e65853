"""The review state machine: candidates → canonical pages, and every later transition.

Exactly two things make canon: raw user evidence (read from L0) or a management action.
Every transition is audited with its authority and reflected in the page file.
"""

from __future__ import annotations

import hashlib
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator, Sequence

import polars as pl

from ..wiki.aliases import invalidate_entity_alias, repoint_aliases, upsert_alias, upsert_aliases
from .authority import (
    UserEvent,
    UserLines,
    claim_in_latest,
    grounded_event,
    latest_user_message,
    normalize_claim,
    user_grounded_match,
)
from ..wiki.canon import Canon
from ..clock import Clock, utc
from ..config import RikoConfig
from ..contracts import parse_ref
from .conflicts import relation
from ..wiki.corrections import claim_changed, corrected_title, retire_evidence
from .governance import HeldLines, govern_lines, held_lines, lineage_refs, reapply_suppressed
from .consolidate import Facts, SlotIndex, TypedSlots, facts
from ..language.derive import Entity, could_be_name, derive, derived_fields, given_name
from ..language.atoms import multi_party, split_speaker
from ..language.content import carries_content
from ..language.vocabulary import Vocabulary
from ..stores.evidence import EvidenceStore
from .entities import (ENTITY_CATEGORY, SELF_KIND, EntityMap, entity_body, entity_description, grounded_in,
                        is_entity_page, kin_of, stated_kin, unstated_kin,
                        link_line, named_entities, said_in)
from ..errors import AuthorityError, InvalidArgumentError, InvalidTypeError, NotFoundError, StateError
from ..scope import MemoryScope
from ..sensitivity.rules import AUTHORITIES as SENSITIVITY_AUTHORITIES
from ..sensitivity.rules import can_transition, classify_text, protected_title, rank
from ..stores.overlay import covering
from ..stores.warehouse import Warehouse, dumps, naive_utc
from ..wiki import PAGE_TYPES, SENSITIVITIES, Page, make_page_id

__all__ = ["Review", "ProposalOutcome", "candidate_fingerprint", "CANDIDATE_STATUSES", "RESOLUTIONS",
           "AUTO_CONFIRM_POLICIES"]

from ..vocabulary import CANDIDATE_STATUSES, RESOLUTIONS  # noqa: E402
AUTO_CONFIRM_POLICIES = ("off", "user_grounded", "all")
#: A repeat adds its user line to a page's evidence until the page holds this many sources.
MAX_REPEAT_EVIDENCE = 8
CONFIRMING_AUTHORITIES = ("user", "management")
_CURRENT_STATE_TYPES = ("entity", "concept", "relationship", "emotion", "synthesis")
# Fields a proposer may write that only review can set; a proposal carrying them is stored without them.
_REVIEW_ONLY_FIELDS = frozenset({"status", "consent", "locked", "version", "id", "page_id", "superseded_by",
                                 "supersedes", "usage_policy", "authority_claim"})


def _proposal_authority(authority: str) -> str:
    """The sensitivity authority of a proposer: a model proposal unless a person proposed it."""
    return authority if authority in ("user", "management") else "model_proposal"


def candidate_fingerprint(type_: str, title: str) -> str:
    """Identity of a proposal: its type and normalized title (the subject it speaks about)."""
    return hashlib.sha256(f"{type_}\0{normalize_claim(title)}".encode()).hexdigest()[:24]


def current_by_claim(pages: Iterable[Page]) -> dict[tuple[str, str], Page]:
    """The confirmed, current pages by (type, normalized title); the first of pages with equal claims."""
    index: dict[tuple[str, str], Page] = {}
    for page in pages:
        if page.status == "confirmed" and page.superseded_by is None:
            index.setdefault((page.type, normalize_claim(page.title)), page)
    return index


def find_current(index: dict[tuple[str, str], Page], type_: str, title: str, said: str = "") -> Page | None:
    """The page of ``index`` of this type titled ``title``, else the one titled ``said``.

    ``said`` is a Dream proposal's description, the speaker's words: a page admitted from the
    user's words is titled with them, so riko's wording of the same line finds it by them."""
    return index.get((type_, normalize_claim(title))) or (
        index.get((type_, normalize_claim(said))) if said.strip() else None)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _claim_parts(content: str) -> tuple[str, str]:
    """(description, body) of a page whose whole content is ``content``."""
    first = _one_line(content.splitlines()[0]) if content.strip() else ""
    multi = "\n" in content.strip() or len(first) > 240
    return first[:240], (content.strip() if multi else "")


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
        self.stores = canon.stores  # Memory builds the review before its context: the canon's bundle
        self.cands, self.overlay, self.evidence = self.stores.candidates, self.stores.overlay, self.stores.evidence
        self._batch_owner: int | None = None
        self._lines: UserLines | None = None
        self._held: HeldLines | None = None
        self._sessions: set[str] | None = None
        # multi-party sessions by session ids, for the batch's snapshot of user lines they were read with
        self._multi: tuple[UserLines | None, dict[tuple[str, ...], bool]] = (None, {})
        #: the words of the scope's evidence (:meth:`scope_words`)
        self._scope_words = _ScopeWords(self.evidence)
        #: during an admission pass: (thread, the pass's candidates that have alias edges)
        self._edged: tuple[int, set[str]] | None = None

    # -- one unit of work of the writer -----------------------------------------------------------
    @contextmanager
    def batch(self) -> Iterator[None]:
        """A run of proposals and admissions (one Dream batch, under the scope's lock): the pages
        and the user lines are read once for all of them instead of once per proposal."""
        me = threading.get_ident()
        mine = self._batch_owner is None
        if mine:
            self._batch_owner = me
            self._scope_words.stale()
        try:
            with self.canon.batch():
                yield
        finally:
            if mine:
                self._batch_owner, self._lines, self._sessions, self._held = None, None, None, None

    def _user_lines(self) -> UserLines | None:
        """The snapshot of the scope's user lines of this thread's open batch (None outside one)."""
        if self._batch_owner != threading.get_ident():
            return None
        if self._lines is None:
            self._lines = UserLines(self.wh, self.held().texts)
        return self._lines

    def held(self) -> HeldLines:
        """The lines forgets, suppressions and governance requests hold out of admission
        (:func:`riko.review.governance.held_lines`; read once per batch)."""
        if self._batch_owner != threading.get_ident():
            return held_lines(self.stores)
        if self._held is None:
            self._held = held_lines(self.stores)
        return self._held

    def _governed(self, refs: Iterable[str], hold: str) -> None:
        """Hold ``refs`` as ``hold``; a batch reads its lines and holds again."""
        govern_lines(self.evidence, refs, hold)
        self._lines, self._held = None, None

    def _has_session(self, session_id: str) -> bool:
        """Whether the scope stores ``session_id`` (a batch reads the scope's sessions once: none
        comes or goes while the writer holds the scope)."""
        if self._batch_owner != threading.get_ident():
            return self.evidence.has_session(session_id)
        if self._sessions is None:
            self._sessions = set(self.evidence.watermarks())
        return session_id in self._sessions

    def scope_words(self) -> Vocabulary:
        """The words of the scope's evidence, every session's user and assistant lines, where a
        Title-Case phrase also written in lower case names no entity (:func:`heading_words`): kept
        from call to call, read on first use and after that only as far as lines are new (all
        again after a purge), once per batch."""
        if self._batch_owner != threading.get_ident():
            self._scope_words.stale()
        return self._scope_words

    def multi_party(self, refs: Iterable[str], text: str) -> bool:
        """Whether ``text`` (a user line or a fact of one, evidenced by ``refs``) is a speaker's line
        of a multi-party log: it starts ``Name: `` and its sessions' user lines are such a log
        (:func:`riko.language.atoms.multi_party`). Read once per batch for each set of sessions."""
        speaker = split_speaker(text)[0]
        if speaker is None or not could_be_name(speaker):
            return False
        sessions = tuple(sorted({parsed[0] for parsed in map(parse_ref, refs) if parsed}))
        if not sessions:
            return False
        lines = self._user_lines()
        if lines is None or self._multi[0] is not lines:
            self._multi = (lines, {})
        known = self._multi[1]
        if sessions not in known:
            known[sessions] = multi_party(row[2] for row in self.evidence.user_lines(list(sessions), inside=True).fetchall())
        return known[sessions]

    def grounded_match(self, description: str, session_ids: Iterable[str] = ()) -> UserEvent | None:
        """:func:`riko.authority.user_grounded_match`, from the batch's snapshot when one is open."""
        lines = self._user_lines()
        return user_grounded_match(self.wh, self.scope, description, session_ids, lines=lines,
                                   held=self.held().texts if lines is None else frozenset())

    def _line_time(self, session_id: str, seq: int) -> Any:
        lines = self._user_lines()
        if lines is not None:
            known, when = lines.time_of(session_id, seq)
            if known:
                return when
        return self.evidence.line_time(session_id, seq)

    # -- candidates -----------------------------------------------------------------------------
    def candidates(self, status: str | None = "pending") -> pl.DataFrame:
        """Candidates by status: ``pending`` (with ``pending_conflict``), any one status, or all (None)."""
        if status is not None and status not in CANDIDATE_STATUSES:
            raise InvalidArgumentError(f"status must be one of {', '.join(CANDIDATE_STATUSES)} or None; got {status!r}")
        return self.cands.rows(status)

    def candidate(self, candidate_id: str) -> dict[str, Any]:
        row = self.cands.get(candidate_id)
        if row is None:
            raise NotFoundError("candidate", candidate_id, listing="candidates")
        return row

    def _known_refs(self, refs: Iterable[str]) -> list[str]:
        """The references that point at something real in this scope (a stored event or page)."""
        kept: set[str] = set()
        lines = self._user_lines()
        for ref in refs:
            ref = str(ref).strip()
            parsed = parse_ref(ref)
            if parsed is not None:
                if (lines is not None and lines.has(*parsed)) or self.evidence.has_line(parsed[0], parsed[1]):
                    kept.add(ref)
            elif ref.startswith("page:") and self.canon.exists(ref[5:]):
                kept.add(ref)
            elif ref.startswith("manual:") and len(ref) > 7:
                kept.add(ref)
        return sorted(kept)

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
        **ignored: Any,
    ) -> ProposalOutcome:
        """Store a proposal as a candidate, merging by fingerprint; never writes canon.

        Review-only fields a proposer writes (``status``, ``consent``, ``locked``, ``version`` …)
        are dropped; evidence references and a session id that name nothing stored in this scope
        are dropped too. A malformed sensitivity label fails closed as ``provisional_sensitive``.
        """
        unknown = sorted(set(ignored) - _REVIEW_ONLY_FIELDS)
        if unknown:
            raise InvalidTypeError(f"propose() got unexpected field(s): {', '.join(unknown)}")
        if type not in PAGE_TYPES:
            raise InvalidArgumentError(f"type must be one of {', '.join(PAGE_TYPES)}; got {type!r}")
        title = _one_line(title)
        if not title:
            raise InvalidArgumentError("a candidate needs a non-empty title")
        fp = candidate_fingerprint(type, title)
        now = naive_utc(self.clock.now())
        sessions = [session_id] if session_id and self._has_session(session_id) else []
        refs = self._known_refs(evidence)
        baseline = sensitivity if sensitivity in SENSITIVITIES else "provisional_sensitive"
        # a proposer may only tighten: the conservative classifier runs over what it proposed
        sensitivity = classify_text(f"{title}\n{description}\n{body}", baseline)
        conflict_id = None
        tighten: Page | None = None
        with self.canon.transaction():
            canon_match = self._canonical_match(type, title, description if source == "dream" else "")
            if canon_match is not None:
                claim = description or body
                related = relation(canon_match.title, canon_match.summary(), title, claim) if claim.strip() else "paraphrase"
                if related == "paraphrase" or not self._is_current_state(canon_match):
                    self.wh.audit("candidate-dropped-duplicate", authority, canon_match.id,
                                  {"source": source, "title": title})
                    if canon_match.category != ENTITY_CATEGORY:
                        self._add_grounding(canon_match, description or title, sessions)
                    if rank(sensitivity) > rank(canon_match.sensitivity):
                        tighten = canon_match  # the repeat is dropped, its tighter reading is not
                    else:
                        return ProposalOutcome(None, "dropped-duplicate")
                elif related == "addition":
                    canon_match = None  # another fact about the subject: nothing is contested
        if tighten is not None:
            self.set_sensitivity(tighten.id, sensitivity, authority=_proposal_authority(authority))
            return ProposalOutcome(None, "dropped-duplicate")
        with self.canon.transaction():
            existing = self.cands.pending_of(fp)
            if existing is not None:
                self._merge_into(existing, tags, sessions, refs, confidence, sensitivity, now)
                self.wh.audit("candidate-merged", authority, existing[0], {"source": source, "session_id": session_id})
                return ProposalOutcome(existing[0], "merged")
            same_slot = self._pending_slot_match(type, title) if (
                canon_match is None and source == "dream" and category != ENTITY_CATEGORY) else None
            if same_slot is not None:
                related, row = same_slot
                cid = row[0]
                self._merge_into((cid, *row[4:]), tags, sessions, refs, confidence, sensitivity, now)
                self.wh.audit("candidate-merged", authority, cid, {"source": source, "session_id": session_id,
                                                                     "relation": related, "title": title})
                if related == "alias":  # the other wording, kept as a revocable edge to the candidate
                    upsert_alias(self.wh, self.scope, self.clock, cid, title, resolution_kind="derived_inference",
                                 confidence=0.8, source_refs=tuple(refs))
                return ProposalOutcome(cid, "merged")
            seed = f"{self.scope.key}:{fp}:{now.isoformat()}:{self.cands.count_fingerprint(fp)}"
            cid = "c-" + hashlib.sha256(seed.encode()).hexdigest()[:16]
            status = "pending_conflict" if canon_match is not None else "pending"
            self.cands.insert({
                "id": cid, "fingerprint": fp, "type": type, "title": title,
                "description": description[:120] if source == "dream" else description,
                "body": body, "tags": dumps(sorted(set(tags))), "confidence": confidence, "kind": kind,
                "category": category, "sensitivity": sensitivity, "status": status, "source": source,
                "source_sessions": dumps(sessions), "evidence": dumps(refs), "links": dumps(list(links)),
                "conflict_page_id": canon_match.id if canon_match is not None else None, "page_id": None,
                "created_at": now, "updated_at": now,
            })
            if canon_match is not None:
                conflict_id = self._open_conflict(canon_match, cid)
            detail: dict[str, Any] = {"source": source, "title": title, "status": status}
            if ignored:
                detail["ignored_fields"] = sorted(ignored)
            self.wh.audit("candidate-proposed", authority, cid, detail)
        if conflict_id:
            self._on_change()  # the old page is now contested and leaves the Resident
        return ProposalOutcome(cid, "conflict" if conflict_id else "created", conflict_id)

    def _merge_into(self, stored: tuple, tags: Sequence[str], sessions: Sequence[str], refs: Sequence[str],
                    confidence: float | None, sensitivity: str, now: datetime | None) -> None:
        """Fold a repeat into the open candidate ``stored`` = (id, tags, source_sessions, evidence,
        confidence, sensitivity): lists united, the higher confidence, the stricter sensitivity."""
        cid, old_tags, old_sessions, old_evidence, old_conf, old_sens = stored
        merged_conf = max([c for c in (old_conf, confidence) if c is not None], default=None)
        old_level = old_sens if old_sens in SENSITIVITIES else "provisional_sensitive"
        stricter = old_level if rank(old_level) >= rank(sensitivity) else sensitivity
        self.cands.merge(cid, tags=dumps(sorted(set(json.loads(old_tags or "[]")) | set(tags))),
                         source_sessions=dumps(sorted(set(json.loads(old_sessions or "[]")) | set(sessions))),
                         evidence=dumps(sorted(set(json.loads(old_evidence or "[]")) | set(refs))),
                         confidence=merged_conf, sensitivity=stricter, now=now)

    def _pending_slot_match(self, type_: str, title: str) -> tuple[str, tuple] | None:
        """The pending Dream candidate of the same type and slot that ``title`` states again."""
        rows = self.cands.pending_statements()
        hit = TypedSlots((r[0], r[2], r[3]) for r in rows).same_or_alias(type_, title)
        if hit is None:
            return None
        return hit[0], next(r for r in rows if r[0] == hit[1])

    def _add_grounding(self, page: Page, claim: str, sessions: Sequence[str]) -> None:
        """A repeat the user really said again adds that user event to the page's evidence."""
        if len(page.sources) >= MAX_REPEAT_EVIDENCE:
            return  # a page names enough of the times it was said; later repeats are only audited
        match = self.grounded_match(claim, sessions)
        if match is None or match.ref in page.sources:
            return
        self.canon.save(page.replace(sources=sorted({*page.sources, match.ref}), version=page.version + 1),
                        authority="user", audit_kind="page-evidence-added", previous=page,
                        detail={"evidence": match.ref, "relation": "same"})

    def _canonical_match(self, type_: str, title: str, said: str = "") -> Page | None:
        """The confirmed, current page of this type titled ``title``, else ``said`` (:func:`find_current`)."""
        return find_current(current_by_claim(self.canon.pages()), type_, title, said)

    @staticmethod
    def _is_current_state(page: Page) -> bool:
        return page.type in _CURRENT_STATE_TYPES and page.valid_to is None and page.superseded_by is None

    # -- confirm / reject -----------------------------------------------------------------------
    def confirm(self, candidate_id: str, *, authority: str = "management", session_id: str | None = None,
                grounded: UserEvent | None = None, audit_kind: str = "candidate-confirmed",
                mode: str | None = None) -> Page:
        """Make a candidate canonical. ``authority`` is ``management``, or ``user`` with the claim in
        the latest raw user message of ``session_id`` (or a ``grounded`` user event)."""
        page = self._confirm(candidate_id, authority=authority, session_id=session_id, grounded=grounded,
                             audit_kind=audit_kind, mode=mode)
        self._on_change()
        return page

    def _confirm(self, candidate_id: str, *, authority: str, session_id: str | None = None,
                 grounded: UserEvent | None = None, audit_kind: str = "candidate-confirmed",
                 mode: str | None = None, entities: EntityMap | None = None,
                 cand: dict[str, Any] | None = None) -> Page:
        """:meth:`confirm` inside the caller's unit of work; ``cand``: the candidate's row, when just read."""
        cand = cand if cand is not None else self.candidate(candidate_id)
        if cand["status"] == "pending_conflict":
            raise StateError(
                f"candidate {candidate_id} contradicts page {cand['conflict_page_id']}; resolve it with "
                "mem.resolve_conflict(conflict_id, 'correction' | 'temporal_transition' | 'management')")
        if cand["status"] != "pending":
            raise StateError(f"candidate {candidate_id} is {cand['status']}, not pending")
        evidence: UserEvent | None = None
        if authority == "user":
            if grounded is not None:
                lines = self._user_lines()
                if not (lines is not None and lines.holds(grounded)) and not grounded_event(self.evidence, grounded):
                    self._refuse("candidate-confirm-refused", authority, candidate_id,
                                 f"grounding event {grounded.ref} is not a stored user message of this scope")
                evidence = grounded
            else:
                latest = latest_user_message(self.wh, self.scope, session_id) if session_id else None
                claim = cand["description"] or cand["body"] or cand["title"]
                if not claim_in_latest(claim, latest):
                    self._refuse("candidate-confirm-refused", authority, candidate_id,
                                 "confirming requires the claim in the latest raw user message of the session")
                evidence = latest
        elif authority != "management":
            self._refuse("candidate-confirm-refused", authority, candidate_id,
                         f"authority {authority!r} cannot confirm; only user evidence or management can")
        page = self._page_from_candidate(cand, grounded)
        if entities is None and not is_entity_page(page):
            entities = self._admit_own_page(page, authority)
        page = self._with_entity_links(page, entities)
        if evidence is not None and evidence.ref not in page.sources:
            page = page.replace(sources=sorted({*page.sources, evidence.ref}))
        detail: dict[str, Any] = {"candidate": candidate_id}
        if evidence is not None:
            detail["evidence"] = evidence.ref
        if mode is not None:
            detail["mode"] = mode
        with self.canon.transaction():
            self.canon.save(page, authority=authority, audit_kind=audit_kind, detail=detail,
                            source_candidates=[candidate_id])
            self._repoint(candidate_id, page.id)
            self.cands.accept(candidate_id, page.id, naive_utc(self.clock.now()))
        return page

    def _repoint(self, candidate_id: str, page_id: str) -> None:
        """The candidate's alias edges follow it to ``page_id``; an admission pass knows which of
        its candidates have any (it creates no edge to a candidate), so the rest ask nothing."""
        edged = self._edged
        if edged is not None and edged[0] == threading.get_ident() and candidate_id not in edged[1]:
            return
        repoint_aliases(self.wh, self.scope, self.clock, candidate_id, page_id)

    def _page_from_candidate(self, cand: dict[str, Any], grounded: UserEvent | None) -> Page:
        now = self.clock.now()
        pid = make_page_id(f"{self.scope.key}:{cand['fingerprint']}")
        if self.canon.exists(pid):
            pid = make_page_id(f"{self.scope.key}:{cand['fingerprint']}:{cand['id']}")
        sources = json.loads(cand["evidence"] or "[]")
        if grounded is not None:
            # The user's exact words become the page; what the proposer added or typed is dropped.
            text = grounded.text.strip()
            sources = sorted(set(sources) | {grounded.ref})
            level = classify_text(text, cand["sensitivity"] if cand["sensitivity"] in SENSITIVITIES else "provisional_sensitive")
            title = _one_line(text)[:200] if level == "normal" else protected_title(text, grounded.ref)
            # riko's own derivation from the user's words decides type, kind and slot; the proposer's do not
            # (a multi-party line "Name: text" is its speaker's: the speaker is the slot's subject)
            speaker, said = split_speaker(text) if self.multi_party(sources, text) else (None, text)
            derived = derive(said, speaker=speaker) if speaker else derive(text)
            return Page(id=pid, type=derived.page_type, title=title, description=_one_line(text),
                        body=text if "\n" in text else "", status="confirmed", consent=True, locked=False,
                        sensitivity=level, version=1, sources=sources, confidence=cand["confidence"],
                        kind=derived.kind, category=derived.category, observed_at=self._observed_at(sources),
                        recorded_at=now, extra=derived_fields(derived))
        derived = derive(cand["description"] or cand["title"])
        return Page(
            id=pid, type=cand["type"], title=cand["title"], description=cand["description"] or "",
            body=cand["body"] or "", status="confirmed", consent=True, locked=False,
            sensitivity=cand["sensitivity"] if cand["sensitivity"] in SENSITIVITIES else "provisional_sensitive",
            version=1, tags=json.loads(cand["tags"] or "[]"), sources=sources, confidence=cand["confidence"],
            kind=cand["kind"], category=cand["category"], observed_at=self._observed_at(sources), recorded_at=now,
            extra=derived_fields(derived),
        )

    def _with_entity_links(self, page: Page, entities: EntityMap | None) -> Page:
        """``page`` with a line of ``[[wikilinks]]`` to the entity pages its words name (riko's own
        derivation from the page's words, never the proposer's links)."""
        if is_entity_page(page):
            return page
        words = page.description or page.title
        if entities is None:
            entities = EntityMap(self.canon.pages())
        line = link_line(named_entities(words, multi_party=self.multi_party(page.sources, words)), entities, words)
        if not line or line in page.body:
            return page
        return page.replace(body=f"{page.body}\n\n{line}".strip())

    def _admit_own_page(self, page: Page, authority: str) -> EntityMap:
        """A person confirms the name the user gave ("My name is Mira"): the user's own page takes
        it as an alias (and is written, if no fact wrote it yet), as automatic admission does, so
        the name never stands for a stranger. Returns the scope's entity pages."""
        state = _Consolidation(self, index=False)
        words = page.description or page.title
        ref = next((parsed for parsed in map(parse_ref, page.sources) if parsed), None)
        if ref is not None:
            own = [e for e in named_entities(words, multi_party=self.multi_party(page.sources, words))
                   if e.kind == SELF_KIND and e.aliases]
            if own:
                state.admit_entities(own, UserEvent(ref[0], ref[1], words), authority=authority)
        return state.entities

    def _observed_at(self, refs: Iterable[str]) -> datetime | None:
        times = []
        for ref in refs:
            parsed = parse_ref(ref)
            if parsed:
                when = self._line_time(parsed[0], parsed[1])
                if when is not None:
                    times.append(utc(when))
        return min(times) if times else None

    def reject(self, candidate_id: str, *, authority: str = "management") -> None:
        """Reject a pending candidate; a contested overlay it opened is resolved as rejected."""
        cand = self.candidate(candidate_id)
        if cand["status"] not in ("pending", "pending_conflict"):
            raise StateError(f"candidate {candidate_id} is {cand['status']}, not pending")
        if authority not in CONFIRMING_AUTHORITIES:
            self._refuse("candidate-reject-refused", authority, candidate_id,
                         f"authority {authority!r} cannot reject; only user evidence or management can")
        now = naive_utc(self.clock.now())
        with self.wh.transaction():
            self.cands.reject(candidate_id, now)
            self.overlay.resolve_for_candidate(candidate_id, "rejected", now)
            self.wh.audit("candidate-rejected", authority, candidate_id, {"title": cand["title"]})
        self._on_change()

    def auto_confirm(self, candidate_ids: Iterable[str], policy: str) -> list[str]:
        """Apply ``candidate_auto_confirm`` to pending candidates; returns the confirmed page ids.

        ``off`` admits nothing. ``user_grounded`` admits a normal-sensitivity candidate whose
        description equals one user-authored L0 event, and the page then holds exactly that
        user text. ``all`` admits every pending candidate (controlled dogfooding only).
        Contested candidates stay pending either way.
        """
        if policy not in AUTO_CONFIRM_POLICIES:
            raise InvalidArgumentError(f"policy must be one of {', '.join(AUTO_CONFIRM_POLICIES)}; got {policy!r}")
        if policy == "off":
            return []
        ids = list(candidate_ids)
        rows = self.cands.get_many(list(dict.fromkeys(ids)))  # one read; a row this loop changed is read again
        outer, self._edged = self._edged, (threading.get_ident(), self.stores.aliases.entities_among(list(rows)))
        try:
            return self._auto_confirm(ids, rows, policy)
        finally:
            self._edged = outer

    def _auto_confirm(self, ids: list[str], rows: dict[str, dict[str, Any]], policy: str) -> list[str]:
        """:meth:`auto_confirm` over ``ids`` (their rows as read before the pass)."""
        done: list[str] = []
        state: _Consolidation | None = None  # built on the first grounded candidate
        contested = False
        touched: set[str] = set()
        held = self.held()  # read once: admitting changes no hold
        for cid in ids:
            cand = rows[cid] if cid in rows and cid not in touched else self.candidate(cid)
            touched.add(cid)
            if cand["status"] != "pending":
                continue
            if held.holds_candidate(json.loads(cand["evidence"] or "[]"), cand["description"], cand["body"]):
                continue  # it stands on a line a forget, suppression or governance request holds
            if policy == "all":
                done.append(self._confirm(cid, authority="management", audit_kind="candidate-auto-confirmed",
                                          mode=policy, cand=cand).id)
                continue
            match = self.grounded_match(cand["description"] or "", json.loads(cand["source_sessions"] or "[]"))
            if match is None:
                continue
            if not carries_content(match.text):
                continue  # agreeing, thanking, greeting, encouraging: never canon without a person
            baseline = cand["sensitivity"] if cand["sensitivity"] in SENSITIVITIES else "provisional_sensitive"
            if classify_text(f"{cand['title']}\n{cand['description'] or ''}\n{cand['body'] or ''}\n{match.text}",
                             baseline) != "normal":
                continue  # only normal candidates are admitted without a person
            if state is None:
                state = _Consolidation(self)
            known = state.said.get(normalize_claim(match.text))
            if known is not None:  # the very words of a live page: the user said it again
                self._absorb(cid, self.canon.get(known), match)
                continue
            said = state.facts(match)
            outcome = next(state.index.matches(said, candidates=False), None)
            multi = self.multi_party([match.ref], match.text)
            if outcome is not None and outcome[0] in ("same", "alias"):
                touched.update(state.admit_entities(named_entities(
                    match.text, multi_party=multi, session=self.scope_words()), match))
                touched.update(state.admit_kin(match, multi))
                self._absorb(cid, self.canon.get(outcome[1]), match, relation=outcome[0])
                continue
            if outcome is not None:
                self._contest(cid, self.canon.get(outcome[1]), outcome[0])
                contested = True
                continue
            accepted = state.admit_entities(named_entities(
                match.text, multi_party=multi, session=self.scope_words()), match)
            accepted += state.admit_kin(match, multi)
            touched.update(accepted)
            page = self._confirm(cid, authority="user", grounded=match, audit_kind="candidate-auto-confirmed",
                                 mode=policy, entities=state.entities, cand=None if cid in accepted else cand)
            state.index.add(page.id, said, is_page=True)
            state.said.setdefault(normalize_claim(page.description), page.id)
            done.append(page.id)
        if done or contested:
            self._on_change()
        return done

    def _absorb(self, candidate_id: str, page: Page, match: UserEvent, *, relation: str = "same") -> None:
        """The user said it again (``same``), or said it in other words or another language
        (``alias``): the candidate is accepted into the existing page, whose evidence grows; an
        alias also gets a revocable alias edge from its wording to the page. No duplicate page."""
        with self.wh.transaction():
            if match.ref not in page.sources and (relation != "same" or len(page.sources) < MAX_REPEAT_EVIDENCE):
                self.canon.save(page.replace(sources=sorted({*page.sources, match.ref}), version=page.version + 1),
                                authority="user", audit_kind="page-evidence-added", previous=page,
                                detail={"candidate": candidate_id, "evidence": match.ref, "relation": relation})
            self.cands.accept(candidate_id, page.id, naive_utc(self.clock.now()))
            self._repoint(candidate_id, page.id)
            if relation == "alias":
                upsert_alias(self.wh, self.scope, self.clock, page.id, _one_line(match.text)[:200],
                             resolution_kind="derived_inference", confidence=0.8, source_refs=(match.ref,))
            self.wh.audit("candidate-merged-into-page", "user", candidate_id,
                          {"page": page.id, "evidence": match.ref, "relation": relation})

    def _contest(self, candidate_id: str, page: Page, relation: str) -> str:
        """The candidate gives the page's slot another value (``replacement``) or the opposite
        polarity (``contradiction``): it waits for review as a contested overlay, and the page is
        never overwritten (a replacement resolves as a temporal transition, a contradiction as
        a correction or by management)."""
        with self.wh.transaction():
            self.cands.contest(candidate_id, page.id, naive_utc(self.clock.now()))
            conflict_id = self._open_conflict(page, candidate_id, predicate=relation)
            self.wh.audit("candidate-contests-page", "deterministic_rule", candidate_id,
                          {"page": page.id, "relation": relation, "conflict": conflict_id})
        return conflict_id

    def _refuse(self, kind: str, authority: str, target: str, message: str) -> None:
        """Audit a refused attempt (with the authority it claimed), then raise."""
        with self.wh.transaction():
            self.wh.audit(kind, str(authority), target, {"reason": message})
        raise AuthorityError(message)

    # -- management pages -----------------------------------------------------------------------
    def create_page(self, title: str, body: str = "", *, type: str = "concept", authority: str = "management",
                    audit_kind: str = "page-created", **fields: Any) -> Page:
        """A confirmed canonical page written by management (locked) or by the user's own words.

        Without an explicit ``sensitivity`` the conservative classifier decides it.
        """
        if type not in PAGE_TYPES:
            raise InvalidArgumentError(f"type must be one of {', '.join(PAGE_TYPES)}; got {type!r}")
        if authority not in CONFIRMING_AUTHORITIES:
            self._refuse("page-create-refused", authority, _one_line(title),
                         f"authority {authority!r} cannot create a page; only user evidence or management can")
        now = self.clock.now()
        pid = fields.pop("id", None) or make_page_id(f"{self.scope.key}:{type}:{normalize_claim(title)}:{now.isoformat()}")
        if self.canon.exists(pid):
            raise StateError(f"page {pid} already exists; change it with correct() or replace()")
        explicit = fields.pop("sensitivity", None)
        if explicit is not None and explicit not in SENSITIVITIES:
            raise InvalidArgumentError(f"sensitivity must be one of {', '.join(SENSITIVITIES)}; got {explicit!r}")
        text = f"{title}\n{fields.get('description', '')}\n{body}"
        sensitivity = explicit if explicit is not None else classify_text(text, "normal")
        page = Page(id=pid, type=type, title=_one_line(title), body=body, status="confirmed", consent=True,
                    locked=authority == "management", sensitivity=sensitivity, version=1,
                    recorded_at=fields.pop("recorded_at", now), **fields)
        self.canon.save(page, authority=authority, audit_kind=audit_kind)
        self._on_change()
        return page

    def correct(self, page_id: str, content: str, *, authority: str = "management", evidence: str | None = None,
                request: str | None = None) -> Page:
        """Same page identity, version + 1, previous version kept; the old claim's evidence is invalidated.

        ``request``: the user's own line that asked for the correction, held out of Dream and
        admission for good (a request is never a memory itself)."""
        page = self._correct(page_id, content, authority=authority, evidence=[evidence] if evidence else [])
        if request:
            with self.wh.transaction():
                self._governed([request], "request")
        self._on_change()
        return page

    def _correct(self, page_id: str, content: str, *, authority: str, evidence: Sequence[str] = ()) -> Page:
        self._require_authority("page-correct-refused", authority, page_id)
        old = self._live_page(page_id)
        if not content.strip():
            raise InvalidArgumentError("a correction needs non-empty content")
        description, body = _claim_parts(content)
        new_refs = self._known_refs(evidence)
        # the review page edits the body (or the description when there is none): any of them may be the claim
        same_claim = any(not claim_changed(text.strip(), content.strip())
                         for text in (old.body, old.description, f"{old.description}\n{old.body}") if text.strip())
        # an edit that keeps the claim (a typo fix) keeps the evidence behind it
        stale = [] if same_claim else [ref for ref in old.sources if parse_ref(ref) and ref not in new_refs]
        sources = sorted({*(ref for ref in old.sources if ref not in stale), *new_refs})
        level = classify_text(content, old.sensitivity)
        # a title that restated the corrected claim must not keep the wrong value
        title = corrected_title(old.title, f"{old.description}\n{old.body}", content, level, old.id)
        extra = old.extra
        if "slot" in extra or "entities" in extra:  # a derivation follows the corrected words
            extra = {k: v for k, v in extra.items() if k not in ("slot", "entities")}
            extra.update(derived_fields(derive(description or body)))
        new = old.replace(title=title, description=description, body=body, version=old.version + 1,
                          sensitivity=level, sources=sources, recorded_at=self.clock.now(), extra=extra)
        with self.canon.transaction():
            self._invalidate_evidence(stale)
            self.canon.save(new, authority=authority, audit_kind="page-corrected", previous=old,
                            detail={"previous_version": old.version, "invalidated_evidence": stale})
            self._withdraw_given_names(old, description or body, authority)
            self._withdraw_kin(old, authority, stale)
        return new

    def _withdraw_given_names(self, old: Page, kept: str | None, authority: str) -> None:
        """``old`` (a statement page now forgotten, or corrected to ``kept``) gave its subject's page
        a name ("My name is Mira" → the ``User`` page, also called Mira): the name leaves that
        page and its alias edge is invalidated, unless the corrected words or another live page
        still give it."""
        if is_entity_page(old):
            return
        words = old.description or old.title
        given = [e for e in named_entities(words, multi_party=self.multi_party(old.sources, words)) if e.aliases]
        if not given:
            return

        def names_of(page: Page | None, text: str) -> set[str]:
            refs = page.sources if page is not None else old.sources
            return {" ".join(n.casefold().split()) for e in named_entities(text, multi_party=self.multi_party(refs, text))
                    for n in e.aliases}

        pages = self.canon.pages()
        still = names_of(None, kept) if kept else set()
        names = [n for e in given for n in e.aliases]
        for other in pages:
            if (other.id != old.id and other.status == "confirmed" and other.superseded_by is None
                    and other.valid_to is None and not is_entity_page(other)):
                text = other.description or other.title
                # only a page that says one of the names can still give it: the rest are not derived
                if any(said_in(n, text) for n in names) and given_name(derive(split_speaker(text)[1])) is not None:
                    still |= names_of(other, text)
        entities = EntityMap(pages)
        for entity in given:
            found = entities.find(Entity(entity.name, entity.kind))
            if found is None:
                continue
            page = found
            gone = [n for n in entity.aliases if " ".join(n.casefold().split()) not in still]
            folded = {" ".join(n.casefold().split()) for n in gone}
            tags = [t for t in page.tags if " ".join(t.casefold().split()) not in folded]
            if tags != page.tags:
                self.canon.save(page.replace(tags=tags, version=page.version + 1,
                                             description=entity_description(page.title, page.kind or entity.kind, tags),
                                             body=entity_body(tags, page.body)),
                                authority=authority, audit_kind="entity-aliases-removed", previous=page,
                                detail={"page": old.id, "aliases": [t for t in page.tags if t not in tags]})
            for name in gone:
                invalidate_entity_alias(self.wh, self.scope, self.clock, page.id, name,
                                        f"the statement that gave it ({old.id}) was withdrawn")

    def _withdraw_kin(self, old: Page, authority: str, refs: Iterable[str]) -> None:
        """``old`` (a statement page now forgotten, corrected, replaced or superseded) tied a
        relative or pet to its owner ("My sister Lena" → the ``User`` page's ``Family and pets:``
        line): the link leaves the owner's page, with ``refs`` (the removed line's evidence),
        unless another live statement page still states it. The kin line is derived from them."""
        if is_entity_page(old):
            return
        words = old.description or old.title
        pages = self.canon.pages()
        owner_id, pairs = stated_kin(words, EntityMap(pages), multi_party=self.multi_party(old.sources, words))
        if owner_id is None or not pairs:
            return
        owner = self.canon.get(owner_id)
        gone = unstated_kin(owner, pairs, pages, self.multi_party)
        if not gone:
            return
        dropped = set(refs)
        self.canon.save(owner.replace(body=entity_body(owner.tags, owner.body, drop=gone), version=owner.version + 1,
                                      sources=[ref for ref in owner.sources if ref not in dropped]),
                        authority=authority, audit_kind="entity-kin-unlinked", previous=owner,
                        detail={"page": old.id, "kin": [f"{r} {t}" for r, t in gone]})

    def _invalidate_evidence(self, refs: Iterable[str]) -> None:
        self._lines = None  # invalidated lines ground nothing: the snapshot is read again
        for ref in refs:
            parsed = parse_ref(ref)
            if parsed:
                self.evidence.invalidate(parsed[0], parsed[1])

    def replace(self, page_id: str, content: str, valid_from: datetime | str, *, authority: str = "management",
                evidence: str | None = None) -> Page:
        """Temporal replacement: close the old interval at ``valid_from``, publish a new page that supersedes it."""
        page = self._replace(page_id, content, valid_from, authority=authority, evidence=[evidence] if evidence else [])
        self._on_change()
        return page

    def _replace(self, page_id: str, content: str, valid_from: datetime | str, *, authority: str,
                 evidence: Sequence[str] = (), tags: Sequence[str] | None = None) -> Page:
        self._require_authority("page-replace-refused", authority, page_id)
        old = self._live_page(page_id)
        if old.superseded_by:
            raise StateError(f"page {page_id} was already replaced by {old.superseded_by}; replace that page instead")
        if not content.strip():
            raise InvalidArgumentError("a replacement needs non-empty content")
        start = utc(valid_from, where="valid_from")
        if old.valid_from is not None and start <= old.valid_from:
            raise StateError(f"valid_from {start.isoformat()} must be after the current interval's start {old.valid_from.isoformat()}")
        if old.valid_to is not None and start > old.valid_to:
            raise StateError(f"valid_from {start.isoformat()} is after page {page_id} already ended ({old.valid_to.isoformat()})")
        description, body = _claim_parts(content)
        sources = self._known_refs(evidence)
        level = classify_text(content, old.sensitivity)
        pid = make_page_id(f"{old.id}:{start.isoformat()}")
        title = corrected_title(old.title, f"{old.description}\n{old.body}", content, level, pid)
        new = Page(id=pid, type=old.type, title=title,
                   description=description, body=body, status="confirmed", consent=True, locked=old.locked,
                   sensitivity=level, version=1,
                   tags=list(old.tags if tags is None else tags), sources=sources, confidence=old.confidence,
                   kind=old.kind, category=old.category, observed_at=self._observed_at(sources),
                   recorded_at=self.clock.now(), valid_from=start, supersedes=old.id)
        closed = old.replace(valid_to=start, superseded_by=new.id, version=old.version + 1)
        self._lines = None
        with self.canon.transaction():
            retire_evidence(self.evidence, old.sources)
            self.canon.save(closed, authority=authority, audit_kind="page-temporally-closed", previous=old,
                            supersede_reason="temporal", detail={"superseded_by": new.id, "valid_to": start.isoformat()})
            self.canon.save(new, authority=authority, audit_kind="page-replaced",
                            detail={"supersedes": old.id, "valid_from": start.isoformat()})
            self._withdraw_kin(old, authority, old.sources)
        return new

    def supersede(self, page_id: str, *, by: str | None = None, authority: str = "management") -> Page:
        """Retire a page from future Residents, keeping it and its evidence trail."""
        self._require_authority("page-supersede-refused", authority, page_id)
        old = self._live_page(page_id)
        if by is not None:
            if by == page_id:
                raise InvalidArgumentError("a page cannot supersede itself")
            self.canon.get(by)
        new = old.replace(status="superseded", superseded_by=by, version=old.version + 1)
        self._lines = None
        with self.canon.transaction():
            retire_evidence(self.evidence, old.sources)
            self.canon.save(new, authority=authority, audit_kind="page-superseded", previous=old,
                            supersede_reason="other", detail={"superseded_by": by})
            self._withdraw_kin(old, authority, old.sources)
        self._on_change()
        return new

    def forget(self, page_id: str, *, authority: str = "management", invalidate_aliases: Callable[[str], int] | None = None,
               request: str | None = None) -> dict[str, Any]:
        """Remove from Resident, recall and the Wiki files; keep the audit and the raw evidence.

        The raw lines stay in L0 but leave explicit recall: the page's sources (recall hides
        the lines a forgotten page stood on) and ``request``, the user's own "forget this" line.
        Every line that ever stated the page, and ``request``, is held out of Dream and
        admission for good, and the pending candidates resting on them are dismissed.
        """
        self._require_authority("page-forget-refused", authority, page_id)
        old = self.canon.get(page_id)
        if old.status == "forgotten":
            raise StateError(f"page {page_id} is already forgotten")
        with self.canon.transaction():
            self.canon.save(old.replace(status="forgotten", version=old.version + 1), authority=authority,
                            audit_kind="page-forgotten", previous=old, detail={"raw_session_retained": True})
            if request:
                self._cover_evidence(page_id, [request], naive_utc(self.clock.now()))
                self._governed([request], "request")
            self._governed(lineage_refs(old, self.canon.versions(page_id)["text"].to_list()), "forgotten")
            aliases = self.canon.release_forgotten(page_id)
            self._dismiss_held(page_id, authority)
            if invalidate_aliases is not None:
                aliases += invalidate_aliases(page_id)
            self._withdraw_given_names(old, None, authority)
            self._withdraw_kin(old, authority, old.sources)
        self._on_change()
        return {"id": page_id, "forgotten": True, "raw_session_retained": True, "aliases_invalidated": aliases}

    def suppress(self, page_id: str, *, reason: str = "management-suppression", authority: str = "management",
                 request: str | None = None) -> Page:
        """Keep a page but stop using it (Resident and recall) until it is restored.

        The L0 lines the page stands on, and ``request`` (the user's own "stop mentioning
        this" line), are suppressed with it: kept in L0, out of explicit recall on every
        channel until :meth:`restore` brings all of them back. They are held out of Dream and
        admission too (``request`` for good), and pending candidates resting on them dismissed.
        """
        self._require_authority("page-suppress-refused", authority, page_id)
        old = self._live_page(page_id)
        if old.usage_policy == "suppressed":
            raise StateError(f"page {page_id} is already suppressed")
        now = naive_utc(self.clock.now())
        new = old.replace(usage_policy="suppressed", version=old.version + 1)
        with self.canon.transaction():
            count = self.overlay.suppression_count(page_id)
            ident = "s-" + hashlib.sha256(f"{self.scope.key}:{page_id}:{count}".encode()).hexdigest()[:16]
            self.overlay.suppress(ident, page_id, "page", reason, now)
            covered = self._cover_evidence(page_id, [*old.sources, *([request] if request else [])], now)
            self.canon.save(new, authority=authority, audit_kind="page-suppressed", previous=old,
                            detail={"reason": reason, "evidence_suppressed": covered})
            if request:
                self._governed([request], "request")
            self._governed(lineage_refs(old, self.canon.versions(page_id)["text"].to_list()), "suppressed")
            self._dismiss_held(page_id, authority)
        self._on_change()
        return new

    def _cover_evidence(self, page_id: str, refs: Iterable[str], now: datetime) -> list[str]:
        """Suppress the L0 lines behind a hidden page (``evidence`` suppressions that cover it,
        lifted together by restore); returns the refs newly covered."""
        covered, already = [], self.overlay.covered_refs(page_id)
        for ref in dict.fromkeys(refs):
            if not parse_ref(ref) or ref in already:
                continue
            count = self.overlay.suppression_count(ref)
            ident = "s-" + hashlib.sha256(f"{self.scope.key}:{page_id}:{ref}:{count}".encode()).hexdigest()[:16]
            self.overlay.suppress(ident, ref, "evidence", covering(page_id), now)
            covered.append(ref)
        return covered

    def restore(self, page_id: str, *, reason: str = "management-restore", authority: str = "management",
                request: str | None = None) -> Page:
        """Lift a suppression; a page that is not suppressed is a StateError. The lines it held
        are Dream's again unless another suppressed page stands on them; ``request`` (the
        user's own "you can mention it again" line) is held for good."""
        self._require_authority("page-restore-refused", authority, page_id)
        old = self.canon.get(page_id)
        if old.status == "forgotten":
            raise StateError(f"page {page_id} is forgotten")
        if not self.overlay.is_suppressed(page_id) and old.usage_policy != "suppressed":
            raise StateError(f"page {page_id} is not suppressed; nothing to restore")
        now = naive_utc(self.clock.now())
        new = old.replace(usage_policy="normal", version=old.version + 1) if old.usage_policy != "normal" else old
        with self.canon.transaction():
            self.overlay.lift(page_id, reason, now)
            self.overlay.lift_covered(page_id, reason, now)
            self.canon.save(new, authority=authority, audit_kind="page-restored", detail={"reason": reason},
                            previous=old if new is not old else None)
            reapply_suppressed(self.evidence, self.canon.pages(), lambda pid: self.canon.versions(pid)["text"].to_list())
            if request:
                self._governed([request], "request")
            self._lines, self._held = None, None
        self._on_change()
        return new

    def _dismiss_held(self, page_id: str, authority: str) -> list[str]:
        """Reject the pending candidates that rest on held lines only, or state held words: what
        Dream drew from the lines of a memory now forgotten or suppressed is that memory too."""
        held = self.held()
        now = naive_utc(self.clock.now())
        dismissed = []
        for row in self.cands.records("pending"):
            refs = json.loads(row["evidence"] or "[]")
            if (refs and all(ref in held.refs for ref in refs)) or held.holds_text(row["description"]) \
                    or held.holds_text(row["body"]):
                self.cands.reject(row["id"], now)
                self.overlay.resolve_for_candidate(row["id"], "rejected", now)
                self.wh.audit("candidate-rejected", authority, row["id"],
                              {"title": row["title"], "reason": "governed-evidence", "page": page_id})
                dismissed.append(row["id"])
        return dismissed

    def set_sensitivity(self, page_id: str, level: str, *, authority: str = "management") -> Page:
        """Tighten always; loosen only with ``user`` or ``management``; every attempt is audited."""
        old = self.canon.get(page_id)
        if old.status == "forgotten":
            raise StateError(f"page {page_id} is forgotten")
        if level not in SENSITIVITIES:
            raise InvalidArgumentError(f"sensitivity must be normal, provisional_sensitive or sensitive; got {level!r}")
        allowed = authority in SENSITIVITY_AUTHORITIES and can_transition(old.sensitivity, level, authority)
        if not allowed:
            with self.wh.transaction():
                self.wh.audit("memory-sensitivity-rejected", str(authority), page_id, {"from": old.sensitivity, "to": level})
            raise AuthorityError(f"changing sensitivity of {page_id} from {old.sensitivity} to {level} needs user "
                                 f"or management authority (got {authority!r}); only a tightening needs none")
        if level == old.sensitivity:
            with self.wh.transaction():
                self.wh.audit("memory-sensitivity-changed", authority, page_id,
                              {"from": old.sensitivity, "to": level, "unchanged": True})
            return old
        history = json.loads(self.canon.row(page_id)["sensitivity_history"] or "[]")
        history.append({"from": old.sensitivity, "to": level, "authority": authority, "at": self.clock.now().isoformat()})
        new = old.replace(sensitivity=level, version=old.version + 1)
        self.canon.save(new, authority=authority, audit_kind="memory-sensitivity-changed", previous=old,
                        sensitivity_history=history, detail={"from": old.sensitivity, "to": level})
        self._on_change()
        return new

    def _require_authority(self, kind: str, authority: str, target: str) -> None:
        if authority not in CONFIRMING_AUTHORITIES:
            self._refuse(kind, authority, target,
                         f"authority {authority!r} cannot change canonical pages; only user evidence or management can")

    def _live_page(self, page_id: str) -> Page:
        page = self.canon.get(page_id)
        if page.status in ("forgotten", "superseded"):
            raise StateError(f"page {page_id} is {page.status}")
        return page

    # -- conflicts ------------------------------------------------------------------------------
    def _open_conflict(self, page: Page, candidate_id: str, predicate: str | None = None) -> str:
        cid = "k-" + hashlib.sha256(f"{self.scope.key}:{page.id}:{candidate_id}".encode()).hexdigest()[:16]
        self.overlay.open_conflict({"id": cid, "state": "contested", "subject": normalize_claim(page.title),
                                    "predicate": predicate or page.kind or page.type, "page_id": page.id,
                                    "candidate_id": candidate_id, "resolution": None,
                                    "created_at": naive_utc(self.clock.now()), "resolved_at": None})
        self.wh.audit("conflict-opened", "deterministic_rule", cid, {"page": page.id, "candidate": candidate_id})
        return cid

    def conflicts(self, state: str | None = None) -> pl.DataFrame:
        return self.overlay.conflicts(state)

    def contested_page_ids(self) -> set[str]:
        return self.overlay.contested_ids()

    def resolve_conflict(self, conflict_id: str, resolution: str, *, authority: str = "management",
                         valid_from: datetime | str | None = None) -> Page:
        """Resolve an overlay and accept its candidate: ``correction`` edits the old page (its
        evidence is invalidated), ``temporal_transition`` replaces it from ``valid_from`` (default
        now), ``management`` keeps the old page and accepts the candidate as a page of its own."""
        if resolution not in RESOLUTIONS:
            raise InvalidArgumentError(f"resolution must be one of {', '.join(RESOLUTIONS)}; got {resolution!r}")
        row = self.overlay.conflict(conflict_id)
        if row is None:
            raise NotFoundError("conflict", conflict_id, listing="conflicts")
        page_id, cand_id, state = row
        if state != "contested":
            raise StateError(f"conflict {conflict_id} is already {state}")
        self._require_authority("conflict-resolve-refused", authority, conflict_id)
        cand = self.candidate(cand_id)
        text = cand["description"] or cand["body"] or cand["title"]
        if cand["description"] and cand["body"]:
            text = f"{cand['description']}\n\n{cand['body']}"
        refs = json.loads(cand["evidence"] or "[]")
        now = naive_utc(self.clock.now())
        with self.canon.transaction():
            self.overlay.resolve(conflict_id, resolution, now)
            if resolution == "correction":
                page = self._correct(page_id, text, authority=authority, evidence=refs)
            elif resolution == "temporal_transition":
                tags = sorted(set(self.canon.get(page_id).tags) | set(json.loads(cand["tags"] or "[]")))
                page = self._replace(page_id, text, valid_from or self.clock.now(), authority=authority,
                                     evidence=refs, tags=tags)
            else:
                self.cands.reopen(cand_id)
                page = self._confirm(cand_id, authority=authority)
            self.cands.accept(cand_id, page.id, now)
            self.wh.audit("conflict-resolved", authority, conflict_id,
                          {"resolution": resolution, "page": page.id, "candidate": cand_id})
        self._on_change()
        return page


class _Consolidation:
    """What one automatic admission pass consults: the live pages by slot and the entity pages."""

    def __init__(self, review: Review, *, index: bool = True) -> None:
        """``index=False``: the entity pages only (to admit entities), without the slot index."""
        self.review = review
        pages = [p for p in review.canon.pages()
                 if p.status == "confirmed" and p.superseded_by is None and p.valid_to is None]
        self.entities = EntityMap(pages)
        if not index:
            pages = []
        #: live pages by their normalized words (the first page holding them wins, as before)
        self.said: dict[str, str] = {}
        for page in sorted(pages, key=lambda p: p.id):
            self.said.setdefault(normalize_claim(page.description), page.id)
        self.index = SlotIndex()
        for page in pages:
            if not is_entity_page(page) and (page.description or page.title).strip():
                self.index.add(page.id, facts(page.description or page.title, page.observed_at), is_page=True)

    def facts(self, event: UserEvent) -> Facts:
        return facts(event.text, self.review._line_time(event.session_id, event.seq))

    def admit_entities(self, named: Iterable[Entity], event: UserEvent, *, authority: str = "user") -> list[str]:
        """Create or extend the entity page of every entity the user's words name (admitted like
        the fact that names it, with its ``authority``); an alias the words tie to the name is an
        explicit coreference, a name riko only knows from its place list is a contested derived
        alias. Returns the entity candidates accepted into those pages."""

        review = self.review
        accepted: list[str] = []
        for entity in named:
            if not grounded_in(entity, event.text):
                continue
            page = self.entities.find(entity)
            known = {" ".join(n.casefold().split()) for n in ((page.title, *page.tags) if page else ())}
            new_names = [n for n in entity.names() if " ".join(n.casefold().split()) not in known]
            if page is not None and not new_names:
                continue
            with review.wh.transaction():
                if page is None:
                    aliases = [n for n in entity.aliases if n.strip()]
                    pid = make_page_id(f"{review.scope.key}:entity:{entity.kind}:{normalize_claim(entity.name)}")
                    if review.canon.exists(pid):
                        pid = make_page_id(f"{review.scope.key}:entity:{entity.kind}:{normalize_claim(entity.name)}:{event.ref}")
                    page = Page(id=pid, type="entity", title=_one_line(entity.name)[:120],
                                description=entity_description(entity.name, entity.kind, aliases),
                                body=entity_body(aliases),
                                status="confirmed", consent=True, locked=False,
                                sensitivity=classify_text("\n".join(entity.names()), "normal"), version=1,
                                tags=aliases, sources=[event.ref], kind=entity.kind, category=ENTITY_CATEGORY,
                                observed_at=review._observed_at([event.ref]), recorded_at=review.clock.now())
                    review.canon.save(page, authority=authority, audit_kind="entity-page-created",
                                      detail={"evidence": event.ref, "entity": entity.name, "kind": entity.kind})
                    new_names = aliases
                else:
                    tags = [*page.tags, *(n for n in new_names if n not in page.tags)]
                    updated = page.replace(tags=tags, sources=sorted({*page.sources, event.ref}),
                                           description=entity_description(page.title, page.kind or entity.kind, tags),
                                           body=entity_body(tags, page.body),
                                           version=page.version + 1)
                    review.canon.save(updated, authority=authority, audit_kind="entity-aliases-added", previous=page,
                                      detail={"evidence": event.ref, "aliases": new_names})
                    page = updated
                upsert_aliases(review.wh, review.scope, review.clock, [
                    (page.id, name, "explicit_coreference" if tied else "derived_inference", 1.0 if tied else 0.5,
                     (event.ref,)) for name in new_names for tied in (said_in(name, event.text),)])
                for cid in review.cands.pending_ids(candidate_fingerprint("entity", entity.name), ENTITY_CATEGORY):
                    review.cands.accept(cid, page.id, naive_utc(review.clock.now()))
                    review.wh.audit("candidate-merged-into-page", authority, cid, {"page": page.id, "evidence": event.ref})
                    accepted.append(cid)
            self.entities.replace(page)
        return accepted

    def admit_kin(self, event: UserEvent, multi_party: bool, *, authority: str = "user") -> list[str]:
        """Link the relatives and pets the user's words tie to their owner from the owner's page
        (``Family and pets: sister [[Lena]] · cat [[Luna]]`` on the ``User`` page, or on a speaker's
        page in a multi-party log), writing the owner's page if no fact wrote it yet. Returns the
        entity candidates accepted into pages."""
        owner, kin = kin_of(event.text, multi_party=multi_party)
        pairs = [(relation, page.title) for relation, entity in kin
                 for page in (self.entities.find(entity),) if page is not None]
        if not pairs:
            return []
        accepted: list[str] = []
        page = self.entities.find(owner)
        if page is None:
            accepted = self.admit_entities([owner], event, authority=authority)
            page = self.entities.find(owner)
            if page is None:
                return accepted
        body = entity_body(page.tags, page.body, pairs)
        if body != page.body:
            review = self.review
            with review.wh.transaction():
                updated = page.replace(body=body, sources=sorted({*page.sources, event.ref}), version=page.version + 1)
                review.canon.save(updated, authority=authority, audit_kind="entity-kin-linked", previous=page,
                                  detail={"evidence": event.ref, "kin": [f"{r} {t}" for r, t in pairs]})
            self.entities.replace(updated)
        return accepted


class _ScopeWords(Vocabulary):
    """The running words of a scope's evidence: on first use after :meth:`stale`, the lines stored
    since the last read are counted in; when lines were purged since, all are read again."""

    def __init__(self, evidence: EvidenceStore) -> None:
        super().__init__()
        self._evidence = evidence
        self._upto = -1      # the last rowid read (the first line's is 0)
        self._count = 0      # how many lines were stored at or before it when read
        self._stale = True
        self._lock = threading.Lock()

    def stale(self) -> None:
        self._stale = True

    def _ready(self) -> None:
        if not self._stale:
            return
        with self._lock:
            if not self._stale:
                return
            if self._upto >= 0 and self._evidence.count_upto(self._upto) != self._count:
                Vocabulary.__init__(self)  # lines were purged: their words go too
                self._upto = -1
            rows = self._evidence.prose_since(self._upto)
            if rows:
                self.add((role, text) for _, role, text in rows)
                self._upto = rows[-1][0]
                self._count = self._evidence.count_upto(self._upto)
            self._stale = False
