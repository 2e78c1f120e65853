"""Storing a batch of Dream proposals with a few bulk statements instead of several per page.

A batch is folded in memory the way :meth:`riko.review.machine.Review.propose` would store it item
by item: a new subject becomes a pending candidate, a repeat merges into the pending
candidate with its fingerprint (tags, sessions and evidence united, the higher confidence,
the stricter sensitivity), and a repeat of a confirmed page is dropped. Those rows and their
audits are written with one Arrow insert or update each. The one case that changes the Wiki
(a proposal contradicting a confirmed page, which opens a conflict) goes through
``Review.propose`` itself, after the bulk writes. The test suite checks that both paths
store identical candidates and audits.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..wiki.aliases import upsert_aliases
from ..language.statement import clip
from ..language.vocabulary import Vocabulary
from ..review.authority import normalize_claim
from ..review.conflicts import relation
from ..errors import RikoError
from ..stores.migrations import RECORD_SCHEMA_VERSION
from ..review.machine import (MAX_REPEAT_EVIDENCE, ProposalOutcome, candidate_fingerprint, current_by_claim,
                              find_current)
from ..sensitivity.rules import classify_text, rank
from ..stores.warehouse import dumps, naive_utc
from ..wiki import PAGE_TYPES, SENSITIVITIES, Page
from ..review.entities import ENTITY_CATEGORY, SELF_KIND, entity_description, named_entities
from ..review.consolidate import TypedSlots
from .protocol import ProposedPage

__all__ = ["Proposal", "propose_batch", "with_entities"]

SOURCE = "dream"
AUTHORITY = "model_proposal"
# Page types whose current-state pages a differing proposal contests (review's rule).
_CURRENT_STATE_TYPES = ("entity", "concept", "relationship", "emotion", "synthesis")
#: A candidate's description is cut here (the protocol's limit), at a clause boundary, never
#: dropping a negation (:func:`riko.language.statement.clip`).
_DESCRIPTION_CHARS = 120
_TEXT_COLUMNS = ("id", "fingerprint", "type", "title", "description", "body", "tags", "kind", "category",
                 "sensitivity", "status", "source", "source_sessions", "evidence", "links", "conflict_page_id",
                 "page_id")


@dataclass(frozen=True)
class Proposal:
    """One parsed page proposed for one session, with the stored evidence refs that carry it."""

    page: ProposedPage
    session_id: str
    evidence: tuple[str, ...] = ()


def _review_kwargs(p: Proposal) -> dict[str, Any]:
    page = p.page
    return dict(title=page.title, type=page.type, description=page.description, body=page.body,
                tags=list(page.tags), confidence=page.confidence, kind=page.kind, category=page.category,
                sensitivity=page.sensitivity, links=list(page.links), source=SOURCE, session_id=p.session_id,
                evidence=list(p.evidence), authority=AUTHORITY)


def _level(value: Any) -> str:
    return value if value in SENSITIVITIES else "provisional_sensitive"


def _is_current_state(page: Page) -> bool:
    return page.type in _CURRENT_STATE_TYPES and page.valid_to is None and page.superseded_by is None


class _Batch:
    """The in-memory fold of one batch: new rows, merged rows, audits and the items left to review."""

    def __init__(self, review: Any, fingerprints: list[str]) -> None:
        self.review, self.wh, self.scope_key = review, review.wh, review.scope.key
        self.now = naive_utc(review.clock.now())
        self.canon = current_by_claim(review.canon.pages())
        self.pending: dict[str, dict[str, Any]] = {}
        self.earlier: dict[str, int] = {}
        self.store = review.stores.candidates
        for fp, cid, tags, sessions, evidence, conf, sens, status, _ in self.store.by_fingerprints(
                sorted(set(fingerprints))):
            self.earlier[fp] = self.earlier.get(fp, 0) + 1
            if status in ("pending", "pending_conflict") and fp not in self.pending:
                self.pending[fp] = {"id": cid, "tags": set(json.loads(tags or "[]")),
                                    "source_sessions": set(json.loads(sessions or "[]")),
                                    "evidence": set(json.loads(evidence or "[]")), "confidence": conf,
                                    "sensitivity": _level(sens), "new": False, "touched": False}
        # plain pending candidates by type and slot: a proposal that states one again merges into it
        self.statements = {r[0]: r for r in self.store.pending_statements()}
        self.slots = TypedSlots((r[0], r[2], r[3]) for r in self.statements.values())
        self.new_rows: list[dict[str, Any]] = []
        self.alias_edges: list[tuple[str, str, tuple[str, ...]]] = []  # candidate, other wording, refs
        self.audits: list[tuple[str, str, str]] = []  # kind, target, detail json
        self.review_items: list[int] = []
        self.review_prints: set[str] = set()

    def fold(self, i: int, p: Proposal, fp: str) -> ProposalOutcome | None:
        """Fold one proposal; None when it must go through review (a conflict with canon)."""
        page = p.page
        title = " ".join(page.title.split())
        sensitivity = classify_text(f"{title}\n{page.description}\n{page.body}", _level(page.sensitivity))
        if fp in self.review_prints:
            return None
        # a page admitted from the user's words is titled with them: a statement whose title is
        # riko's wording of the same line finds the page by its description
        match = find_current(self.canon, page.type, title, page.description)
        if match is not None:
            claim = page.description or page.body
            related = relation(match.title, match.summary(), title, claim) if claim.strip() else "paraphrase"
            repeat = related == "paraphrase" or not _is_current_state(match)
            if repeat and match.category != ENTITY_CATEGORY and self._grounds_new_evidence(
                    match, page.description or title, p.session_id):
                self.review_prints.add(fp)  # the user said it again: review adds the evidence to the page
                return None
            if repeat and rank(sensitivity) <= rank(match.sensitivity):
                self.audits.append(("candidate-dropped-duplicate", match.id, dumps({"source": SOURCE, "title": title})))
                return ProposalOutcome(None, "dropped-duplicate")
            if repeat or related != "addition":
                self.review_prints.add(fp)  # a tightening or a contested claim: review decides
                return None
        row = self.pending.get(fp)
        if row is not None:
            row["tags"] |= set(page.tags)
            row["source_sessions"].add(p.session_id)
            row["evidence"] |= set(p.evidence)
            row["confidence"] = max([c for c in (row["confidence"], page.confidence) if c is not None], default=None)
            row["sensitivity"] = row["sensitivity"] if rank(row["sensitivity"]) >= rank(sensitivity) else sensitivity
            row["touched"] = True
            self.audits.append(("candidate-merged", row["id"], dumps({"source": SOURCE, "session_id": p.session_id})))
            return ProposalOutcome(row["id"], "merged")
        # slots are read from the speaker's words (the description), not from a title in riko's wording
        said = " ".join(page.description.split()) or title
        same_slot = self.slots.same_or_alias(page.type, said) if page.category != ENTITY_CATEGORY else None
        if same_slot is not None:
            related, cid = same_slot
            row = self._pending_row(cid)
            row["tags"] |= set(page.tags)
            row["source_sessions"].add(p.session_id)
            row["evidence"] |= set(p.evidence)
            row["confidence"] = max([c for c in (row["confidence"], page.confidence) if c is not None], default=None)
            row["sensitivity"] = row["sensitivity"] if rank(row["sensitivity"]) >= rank(sensitivity) else sensitivity
            row["touched"] = True
            self.audits.append(("candidate-merged", cid, dumps({"source": SOURCE, "session_id": p.session_id,
                                                                "relation": related, "title": title})))
            if related == "alias":
                self.alias_edges.append((cid, title, tuple(self.review._known_refs(p.evidence))))
            return ProposalOutcome(cid, "merged")
        seed = f"{self.scope_key}:{fp}:{self.now.isoformat()}:{self.earlier.get(fp, 0)}"
        cid = "c-" + hashlib.sha256(seed.encode()).hexdigest()[:16]
        self.pending[fp] = {"id": cid, "tags": set(page.tags), "source_sessions": {p.session_id},
                            "evidence": set(p.evidence), "confidence": page.confidence, "sensitivity": sensitivity,
                            "new": True, "touched": False}
        self.new_rows.append({
            "id": cid, "fingerprint": fp, "type": page.type, "title": title,
            "description": clip(page.description, _DESCRIPTION_CHARS),
            "body": page.body, "kind": page.kind, "category": page.category, "status": "pending", "source": SOURCE,
            "links": dumps(list(page.links)), "conflict_page_id": None, "page_id": None, "_fp": fp,
        })
        if page.category != ENTITY_CATEGORY:
            self.slots.add(cid, page.type, said)
        self.audits.append(("candidate-proposed", cid,
                            dumps({"source": SOURCE, "title": title, "status": "pending"})))
        return ProposalOutcome(cid, "created")

    def _pending_row(self, cid: str) -> dict[str, Any]:
        """The in-memory state of pending candidate ``cid`` (loaded from its stored row on first use)."""
        for state in self.pending.values():
            if state["id"] == cid:
                return state
        _, fp, _, _, tags, sessions, evidence, conf, sens = self.statements[cid]
        state = {"id": cid, "tags": set(json.loads(tags or "[]")), "source_sessions": set(json.loads(sessions or "[]")),
                 "evidence": set(json.loads(evidence or "[]")), "confidence": conf, "sensitivity": _level(sens),
                 "new": False, "touched": False}
        self.pending.setdefault(fp, state)
        return state

    def _grounds_new_evidence(self, page: Page, claim: str, session_id: str) -> bool:
        """True when a user event not yet among ``page``'s sources says ``claim`` again."""
        if len(page.sources) >= MAX_REPEAT_EVIDENCE:
            return False
        match = self.review.grounded_match(claim, [session_id])
        return match is not None and match.ref not in page.sources

    def write(self) -> None:
        """Insert the new rows, update the merged ones and append the audits."""
        if self.new_rows:
            for row in self.new_rows:
                state = self.pending[row.pop("_fp")]
                row.update(tags=dumps(sorted(state["tags"])), source_sessions=dumps(sorted(state["source_sessions"])),
                           evidence=dumps(sorted(state["evidence"])), confidence=state["confidence"],
                           sensitivity=state["sensitivity"])
            n = len(self.new_rows)
            self.store.insert_arrow(pa.table({
                "scope_key": pa.array([self.scope_key] * n, pa.string()),
                "schema_version": pa.array([RECORD_SCHEMA_VERSION] * n, pa.int32()),
                **{c: pa.array([r[c] for r in self.new_rows], pa.string()) for c in _TEXT_COLUMNS},
                "confidence": pa.array([r["confidence"] for r in self.new_rows], pa.float64()),
                "created_at": pa.array([self.now] * n, pa.timestamp("us")),
                "updated_at": pa.array([self.now] * n, pa.timestamp("us")),
            }))
        merged = [s for s in self.pending.values() if s["touched"] and not s["new"]]
        if merged:
            update = pa.table({
                "id": pa.array([s["id"] for s in merged], pa.string()),
                "tags": pa.array([dumps(sorted(s["tags"])) for s in merged], pa.string()),
                "source_sessions": pa.array([dumps(sorted(s["source_sessions"])) for s in merged], pa.string()),
                "evidence": pa.array([dumps(sorted(s["evidence"])) for s in merged], pa.string()),
                "confidence": pa.array([s["confidence"] for s in merged], pa.float64()),
                "sensitivity": pa.array([s["sensitivity"] for s in merged], pa.string()),
            })
            self.store.merge_many(update, self.now)
        if self.audits:
            _audit_many(self.wh, self.audits)
        upsert_aliases(self.wh, self.review.scope, self.review.clock,
                       [(cid, wording, "derived_inference", 0.8, refs) for cid, wording, refs in self.alias_edges])


def _audit_many(wh: Any, rows: list[tuple[str, str, str]]) -> None:
    """Append ``(kind, target, detail json)`` audit rows of the Dream authority with consecutive ids."""
    wh.audit_many([(kind, AUTHORITY, target, detail) for kind, target, detail in rows])


def propose_batch(review: Any, proposals: Sequence[Proposal]) -> list[ProposalOutcome | Exception]:
    """Store ``proposals`` inside the caller's transaction; one outcome (or the refusal) per item.

    Never writes canon. A proposal review refuses (``ValueError``/``RikoError``) yields that
    exception in its slot and the rest of the batch is stored.
    """
    outcomes: list[ProposalOutcome | Exception | None] = [None] * len(proposals)
    usable = [i for i, p in enumerate(proposals) if p.page.type in PAGE_TYPES and p.page.title.strip()]
    prints = {i: candidate_fingerprint(proposals[i].page.type, " ".join(proposals[i].page.title.split()))
              for i in usable}
    batch = _Batch(review, list(prints.values()))
    later = [i for i in range(len(proposals)) if i not in prints]
    for i in usable:
        outcome = batch.fold(i, proposals[i], prints[i])
        if outcome is None:
            later.append(i)
        else:
            outcomes[i] = outcome
    batch.write()
    for i in sorted(later):
        try:
            outcomes[i] = review.propose(**_review_kwargs(proposals[i]))
        except (ValueError, RikoError) as exc:
            outcomes[i] = exc
    return [o if o is not None else ValueError("proposal was not stored") for o in outcomes]


def with_entities(proposals: Sequence[Proposal], multi_party: Collection[str] = (),
                  words: Vocabulary | None = None) -> tuple[list[Proposal], int]:
    """The proposals with riko's own entity links on each fact, followed by one entity candidate
    per entity they name (merged by fingerprint; admitted only with a fact the user's words hold).

    ``multi_party``: the sessions whose user lines are a multi-party log, where a fact's ``Name: ``
    prefix is its speaker, whose person page it links (not the user's own page). ``words``: the
    scope's words (:meth:`riko.review.machine.Review.scope_words`), where a Title-Case phrase also
    written in lower case names nothing."""
    out: list[Proposal] = []
    entities: dict[str, Proposal] = {}
    for p in proposals:
        page = p.page
        if page.type == "entity" and page.category == ENTITY_CATEGORY:
            out.append(p)
            continue
        named = named_entities(page.description or page.title, multi_party=p.session_id in multi_party,
                               session=words) if page.title.strip() else ()
        if named:
            links = tuple(dict.fromkeys([*page.links, *(e.name for e in named)]))
            page = dataclasses.replace(page, links=links)
        out.append(Proposal(page, p.session_id, p.evidence))
        for e in named:
            if e.kind == SELF_KIND:
                continue  # the user's own page is no claim to review: admission writes it with the first fact
            key = normalize_claim(e.name)
            if not key or key in entities:
                continue
            entities[key] = Proposal(ProposedPage(
                path="", folder="entities", type="entity", title=e.name,
                description=clip(entity_description(e.name, e.kind, e.aliases), _DESCRIPTION_CHARS), body="",
                tags=tuple(e.aliases),
                confidence=None, kind=e.kind, category=ENTITY_CATEGORY, sensitivity="normal", links=()),
                p.session_id, p.evidence)
    return [*out, *entities.values()], len(entities)
