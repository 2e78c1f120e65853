"""Observations: inferred patterns with anchors, kept apart from canonical facts.

An observation is never a page and never a confirmed fact: it is stamped
``epistemic_status = inferred_observation`` whatever its status. Every one cites at least
``min_observation_evidence`` distinct anchors, each a real user-origin L0 event
(``session:<id>/event:<seq>``) or a confirmed, consented page (``page:<id>``).

Statuses: ``candidate`` (new), ``active`` (thresholds met or activated by management),
``weakened`` (an active one met contradicting evidence), ``invalidated`` (contradictions
reached the support count, or management said so) and ``suppressed`` (reversible).

    >>> from riko.observations import ObservationStore     # doctest: +SKIP
    >>> store = ObservationStore.of(mem)                     # doctest: +SKIP
    >>> store.propose("Often mentions tea", ["session:s1/event:2", "session:s2/event:4"], 0.7)  # doctest: +SKIP
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from .clock import Clock
from .config import RikoConfig
from .contracts import parse_ref
from .language.text import normalize_text
from .errors import InvalidArgumentError, NotFoundError, StateError
from .scope import MemoryScope
from .sensitivity.rules import classify_text, observation_is_sensitive, rank, stricter
from .stores.audits import last_detail
from .stores.bundle import Stores
from .stores.warehouse import Warehouse, dumps, naive_utc

if TYPE_CHECKING:
    from .context import ScopeContext

__all__ = [
    "EPISTEMIC_STATUS",
    "OBSERVATION_STATUSES",
    "ObservationOutcome",
    "ObservationStore",
    "observation_id",
    "observations_frame",
]

EPISTEMIC_STATUS = "inferred_observation"
from .vocabulary import OBSERVATION_STATUSES  # noqa: E402
_PAGE_PREFIX = "page:"
_MAX_TEXT_CHARS = 1_000
# A proposal citing mostly the same anchors as an earlier observation, in mostly the same words,
# is an evidence update of it rather than a new pattern (a reworded count stays one record).
_OVERLAP_ANCHORS = 0.5
_OVERLAP_WORDS = 0.6
_WORD = re.compile(r"\w+")
_CJK = re.compile(r"[\u3400-\u9fff]")


def observation_id(scope_key: str, text: str) -> str:
    """Deterministic id of an observation first proposed with ``text``."""
    return "o-" + hashlib.sha256(f"{scope_key}:{normalize_text(text)}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ObservationOutcome:
    """What storing one proposal did: ``created``, ``updated`` or ``ignored`` (invalidated match)."""

    id: str
    action: str
    status: str


@dataclass(frozen=True)
class _Anchor:
    ref: str
    session_id: str | None
    sensitivity: str | None


def _words(text: str) -> set[str]:
    """Words of the normalized text; CJK runs count character by character."""
    out: set[str] = set()
    for word in _WORD.findall(normalize_text(text)):
        out.update(word if _CJK.search(word) else (word,))
    return out


def _distinct(refs: Iterable[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for ref in refs:
        if not isinstance(ref, str) or not ref.strip():
            raise InvalidArgumentError(f"an anchor must be a non-empty string, got {ref!r}")
        seen.setdefault(ref.strip(), None)
    return list(seen)


def _check_confidence(confidence: Any) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise InvalidArgumentError("observation confidence must be a number between 0 and 1")
    if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
        raise InvalidArgumentError("observation confidence must be a finite number between 0 and 1")
    return float(confidence)


def _check_text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgumentError("an observation needs non-empty text")
    text = " ".join(text.split())
    if len(text) > _MAX_TEXT_CHARS:
        raise InvalidArgumentError(f"observation text is longer than {_MAX_TEXT_CHARS} characters")
    return text


class ObservationStore:
    """Create, update and change the status of observations in one scope (every change audited)."""

    def __init__(self, wh: Warehouse, scope: MemoryScope, config: RikoConfig, clock: Clock, *, stores: Stores) -> None:
        """``stores`` is the scope's bundle (:meth:`of` passes the context's)."""
        self.wh, self.scope, self.config, self.clock = wh, scope, config, clock
        self.stores = stores
        self.store, self.overlay = self.stores.observations, self.stores.overlay

    @classmethod
    def of(cls, ctx: "ScopeContext") -> "ObservationStore":
        """The store of a :class:`riko.Memory`."""
        return cls(ctx.wh, ctx.scope, ctx.config, ctx.clock, stores=ctx.stores)

    # -- anchors ----------------------------------------------------------------------------------
    def resolve_anchors(self, refs: Sequence[str]) -> list[_Anchor]:
        """Resolve every ref or raise :class:`NotFoundError` naming the first that does not resolve.

        A session anchor must be a stored user-origin event (plugin injections, assistant and
        tool lines are not user evidence); a page anchor must be a confirmed, consented page.
        """
        resolved = []
        for ref in refs:
            if ref.startswith(_PAGE_PREFIX):
                row = self.stores.pages.confirmed_sensitivity(ref[len(_PAGE_PREFIX):])
                if row is None:
                    raise NotFoundError("anchor", ref, "a page anchor must name a confirmed, consented page")
                resolved.append(_Anchor(ref, None, row[0]))
                continue
            parsed = parse_ref(ref)
            line: tuple[str | None] | None = None
            if parsed is not None:
                line = self.stores.evidence.user_line_sensitivity(parsed[0], parsed[1])
            if line is None:
                raise NotFoundError(
                    "anchor", ref, "an anchor must be session:<id>/event:<seq> of a user message, or page:<id>"
                )
            resolved.append(_Anchor(ref, parsed[0] if parsed else None, line[0]))
        return resolved

    def _sensitivity(self, text: str, anchors: Sequence[_Anchor]) -> str:
        if observation_is_sensitive(text):
            return "sensitive"
        level = classify_text(text, "normal")
        for anchor in anchors:
            if anchor.sensitivity in ("provisional_sensitive", "sensitive"):
                level = stricter(level, anchor.sensitivity)
        return level

    # -- reading ----------------------------------------------------------------------------------
    def get(self, observation_id: str) -> dict[str, Any]:
        """One observation as a dict (anchors and lists decoded)."""
        rows = self.store.records(observation_id)
        if not rows:
            raise NotFoundError("observation", observation_id, listing="observations")
        return rows[0]

    def frame(self, status: str | None = None) -> pl.DataFrame:
        """Observations (optionally of one status), oldest first, with anchor and session counts."""
        if status is not None and status not in OBSERVATION_STATUSES:
            raise InvalidArgumentError(f"status must be one of {', '.join(OBSERVATION_STATUSES)}; got {status!r}")
        return self.store.rows(status)

    # -- proposals --------------------------------------------------------------------------------
    def propose(
        self,
        text: str,
        anchors: Sequence[str],
        confidence: float,
        *,
        authority: str = "model_proposal",
        session_id: str | None = None,
    ) -> ObservationOutcome:
        """Create an observation candidate, or add evidence to the matching one.

        Raises ``ValueError`` for bad text, confidence or too few distinct anchors, and
        :class:`NotFoundError` for an anchor that does not resolve; nothing is written then.
        """
        return self.propose_many([(text, anchors, confidence)], authority=authority, session_id=session_id)[0]

    def propose_many(
        self,
        items: Sequence[tuple[str, Sequence[str], float]],
        *,
        authority: str = "model_proposal",
        session_id: str | None = None,
    ) -> list[ObservationOutcome]:
        """Store a batch of ``(text, anchors, confidence)`` all-or-nothing: one bad item rejects every one."""
        checked = []
        for text, refs, confidence in items:
            text = _check_text(text)
            refs = _distinct(refs)
            if len(refs) < self.config.min_observation_evidence:
                raise InvalidArgumentError(
                    f"an observation needs {self.config.min_observation_evidence} distinct anchors; got {len(refs)}"
                )
            checked.append((text, self.resolve_anchors(refs), _check_confidence(confidence)))
        with self.wh.transaction():
            return [self._store(text, anchors, conf, authority, session_id) for text, anchors, conf in checked]

    def _match(self, text: str, refs: set[str]) -> dict[str, Any] | None:
        target, words = normalize_text(text), _words(text)
        best, best_share = None, 0.0
        for row in self.store.records():
            if normalize_text(row["text"]) == target:
                return row
            shared = len(refs & set(row["anchors"])) / max(len(refs), 1)
            other = _words(row["text"])
            similar = len(words & other) / max(len(words | other), 1)
            if shared >= _OVERLAP_ANCHORS and similar >= _OVERLAP_WORDS and shared > best_share:
                best, best_share = row, shared
        return best

    def _store(self, text: str, anchors: list[_Anchor], confidence: float, authority: str,
               session_id: str | None) -> ObservationOutcome:
        now = naive_utc(self.clock.now())
        refs = [a.ref for a in anchors]
        existing = self._match(text, set(refs))
        if existing is not None and existing["status"] == "invalidated":
            self.wh.audit("observation-proposal-ignored", authority, existing["id"],
                          {"reason": "matches an invalidated observation", "session_id": session_id})
            return ObservationOutcome(existing["id"], "ignored", "invalidated")
        if existing is None:
            oid = observation_id(self.scope.key, text)
            sessions = sorted({a.session_id for a in anchors if a.session_id})
            level = self._sensitivity(text, anchors)
            self.store.insert({
                "id": oid, "text": text, "anchors": dumps(refs), "contradictions": dumps([]),
                "confidence": confidence, "status": "candidate", "sensitivity": level,
                "sensitivity_history": dumps([{"from": None, "to": level, "authority": "deterministic_rule",
                                               "at": self.clock.now().isoformat()}]),
                "epistemic_status": EPISTEMIC_STATUS, "session_ids": dumps(sessions),
                "valid_from": now, "valid_to": None, "created_at": now, "updated_at": now,
            })
            self.wh.audit("observation-created", authority, oid,
                          {"anchors": len(refs), "sessions": len(sessions), "confidence": confidence,
                           "sensitivity": level, "session_id": session_id})
            status = self._maybe_activate(oid)
            return ObservationOutcome(oid, "created", status)

        oid = existing["id"]
        merged = list(dict.fromkeys([*existing["anchors"], *refs]))
        all_anchors = self.resolve_anchors(merged)
        sessions = sorted({a.session_id for a in all_anchors if a.session_id})
        level = self._sensitivity(text, all_anchors)
        history = existing["sensitivity_history"]
        if rank(existing["sensitivity"] or "normal") > rank(level):
            level = existing["sensitivity"]  # an update never loosens
        elif level != existing["sensitivity"]:
            history.append({"from": existing["sensitivity"], "to": level, "authority": "deterministic_rule",
                            "at": self.clock.now().isoformat()})
        self.store.update_evidence(oid, text=text, anchors=dumps(merged),
                                  confidence=max(confidence, existing["confidence"] or 0.0), sensitivity=level,
                                  sensitivity_history=dumps(history), session_ids=dumps(sessions), now=now)
        self.wh.audit("observation-updated", authority, oid,
                      {"anchors": len(merged), "added": len(merged) - len(existing["anchors"]),
                       "sessions": len(sessions), "previous_text": existing["text"], "session_id": session_id})
        status = self._maybe_activate(oid)
        return ObservationOutcome(oid, "updated", status)

    def _maybe_activate(self, oid: str) -> str:
        """Automatic activation: a normal, uncontradicted candidate meeting every threshold."""
        row = self.get(oid)
        cfg = self.config
        ready = (
            row["status"] == "candidate"
            and row["sensitivity"] == "normal"
            and not row["contradictions"]
            and len(row["anchors"]) >= cfg.observation_activation_min_evidence
            and len(row["session_ids"]) >= cfg.observation_activation_min_sessions
            and (row["confidence"] or 0.0) >= cfg.observation_activation_min_confidence
        )
        if not ready:
            return row["status"]
        self._set_status(oid, "active")
        self.wh.audit("observation-activated", "deterministic_rule", oid,
                      {"anchors": len(row["anchors"]), "sessions": len(row["session_ids"]),
                       "confidence": row["confidence"], "automatic": True})
        return "active"

    # -- status changes ---------------------------------------------------------------------------
    def _set_status(self, oid: str, status: str, *, valid_to: bool = False) -> None:
        self.store.set_status(oid, status, naive_utc(self.clock.now()), close=valid_to)

    def activate(self, oid: str, *, authority: str = "management") -> dict[str, Any]:
        """Explicit activation after the minimum-evidence check; stays an observation, never a fact."""
        row = self.get(oid)
        if row["status"] not in ("candidate", "weakened"):
            raise StateError(f"observation {oid} is {row['status']}; only a candidate or weakened one can be activated")
        valid = self.resolve_anchors(row["anchors"])
        if len(valid) < self.config.min_observation_evidence:
            raise StateError(f"observation {oid} has {len(valid)} anchors; "
                             f"{self.config.min_observation_evidence} are required to activate it")
        with self.wh.transaction():
            self._set_status(oid, "active")
            self.wh.audit("observation-activated", authority, oid, {"from": row["status"], "automatic": False})
        return self.get(oid)

    def invalidate(self, oid: str, *, reason: str = "management-invalidation",
                   authority: str = "management") -> dict[str, Any]:
        """Close the observation's validity; it is kept, with its anchors, for the audit trail."""
        row = self.get(oid)
        if row["status"] == "invalidated":
            raise StateError(f"observation {oid} is already invalidated")
        with self.wh.transaction():
            self._set_status(oid, "invalidated", valid_to=True)
            self.wh.audit("observation-invalidated", authority, oid, {"from": row["status"], "reason": reason})
        return self.get(oid)

    def suppress(self, oid: str, *, reason: str = "management-suppression",
                 authority: str = "management") -> dict[str, Any]:
        """Reversible suppression (a ``suppressions`` row); :meth:`restore` undoes it."""
        row = self.get(oid)
        if row["status"] == "suppressed":
            raise StateError(f"observation {oid} is already suppressed")
        now = naive_utc(self.clock.now())
        with self.wh.transaction():
            self.overlay.suppress(f"s-{oid}-{self.overlay.suppression_count(oid)}", oid, "observation", reason, now)
            self._set_status(oid, "suppressed")
            self.wh.audit("observation-suppressed", authority, oid, {"from": row["status"], "reason": reason})
        return self.get(oid)

    def restore(self, oid: str, *, reason: str = "management-restore", authority: str = "management") -> dict[str, Any]:
        """Lift a suppression; the observation returns to the status it had before."""
        row = self.get(oid)
        if row["status"] != "suppressed":
            raise StateError(f"observation {oid} is {row['status']}, not suppressed; nothing to restore")
        last = last_detail(self.wh, oid, "observation-suppressed")
        previous = json.loads(last).get("from", "candidate") if last else "candidate"
        now = naive_utc(self.clock.now())
        with self.wh.transaction():
            self.overlay.lift(oid, reason, now)
            self._set_status(oid, previous)
            self.wh.audit("observation-restored", authority, oid, {"to": previous, "reason": reason})
        return self.get(oid)

    def contradict(self, oid: str, anchors: Sequence[str], *, authority: str = "deterministic_rule") -> dict[str, Any]:
        """Record contradicting evidence: an active observation becomes ``weakened``, and any
        observation whose contradictions reach its support count becomes ``invalidated``."""
        row = self.get(oid)
        refs = [r for r in _distinct(anchors) if r not in row["anchors"]]
        if not refs:
            raise InvalidArgumentError("contradicting anchors must differ from the observation's own anchors")
        self.resolve_anchors(refs)
        merged = list(dict.fromkeys([*row["contradictions"], *refs]))
        now = naive_utc(self.clock.now())
        status = row["status"]
        if status != "invalidated" and len(merged) >= len(row["anchors"]):
            status = "invalidated"
        elif status == "active":
            status = "weakened"
        with self.wh.transaction():
            self.store.set_contradictions(oid, dumps(merged), now)
            if status != row["status"]:
                self._set_status(oid, status, valid_to=status == "invalidated")
            self.wh.audit("observation-contradicted", authority, oid,
                          {"contradictions": len(merged), "support": len(row["anchors"]),
                           "from": row["status"], "to": status})
        return self.get(oid)


def observations_frame(ctx: "ScopeContext", status: str | None = None) -> pl.DataFrame:
    """``mem.observations(status)``: the scope's observations as a polars DataFrame."""
    return ObservationStore.of(ctx).frame(status)
