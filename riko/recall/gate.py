"""Eligibility and mention gates: what may be recalled at all, and how it may be used.

Eligibility is about truth and time (is this record current, confirmed, consented, not
suppressed?). The mention gate is about disclosure: a protected or inferred record may
shape the answer silently without its raw text ever reaching the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime, timezone

from ..clock import utc
from ..errors import InvalidArgumentError
from ..sensitivity.rules import disclosure_for
from .exact import exact_matches, exact_terms
from .planner import TEMPORAL_MODES, RecallPlan, strip_recall_cues
from ..language.text import tokenize

__all__ = [
    "RecallDoc",
    "ELIGIBILITY_REASONS",
    "GATE_REASONS",
    "TEMPORAL_REASONS",
    "SENSITIVITY_REASONS",
    "DISCLOSURES",
    "OBSERVATION_STATUSES",
    "MENTION_DECISIONS",
    "eligibility_reason",
    "mention_decision",
    "topic_matches",
    "disclosure_for_sensitivity",
    "effective_disclosure",
]

DOC_KINDS = ("page", "evidence", "observation")
DISCLOSURES = ("normal", "user_explicit_only", "never_explicit")
from ..vocabulary import OBSERVATION_STATUSES  # noqa: E402
MENTION_DECISIONS = ("explicit", "silent_use", "suppress")

ELIGIBILITY_REASONS = (
    "source-page-not-recallable",
    "consent-required",
    "forgotten",
    "unconfirmed-canonical",
    "suppressed-by-user",
    "conflict-contested",
    "correction-invalidated",
    "superseded",
    "temporal-superseded",
    "temporal-invalid",
    "temporal-after-cutoff",
    "temporal-future",
    *(f"observation-{status}" for status in OBSERVATION_STATUSES if status != "active"),
    "sensitive-no-explicit-request",
    "sensitive-topic-mismatch",
)
GATE_REASONS = (
    "normal-recall",
    "explicit-recall",
    "explicit-observation-recall",
    "inferred-observation-silent-use",
    "user-explicit-only-projection",
    "never-explicit-projection",
    "sensitive-default-suppress",
    "context-budget",
)
TEMPORAL_REASONS = frozenset(
    {"temporal-superseded", "temporal-invalid", "temporal-after-cutoff", "temporal-future"}
)
SENSITIVITY_REASONS = frozenset(
    {"sensitive-no-explicit-request", "sensitive-topic-mismatch", "sensitive-default-suppress"}
)

_STRICTNESS = {name: rank for rank, name in enumerate(DISCLOSURES)}
# Words that name the act of talking rather than a topic: overlap on them proves nothing.
_TOPIC_NOISE = frozenset(
    "talk talked chat chatted discuss discussed say said tell told mention mentioned know think "
    "thing things stuff something anything last time ago 聊过 说过 提过 讨论 事情 东西 时候 上次".split()
)


@dataclass
class RecallDoc:
    """One recall candidate with everything the gates need; built by the channel layer.

    ``kind`` is ``page`` (canonical), ``evidence`` (raw L0, with its ``role``) or ``observation``.
    ``sensitivity`` None means unclassified evidence. ``disclosure`` is the safe-usage
    projection's raw-text policy; the stricter of it and the sensitivity mapping applies.
    """

    doc_id: str
    kind: str
    text: str
    title: str = ""
    page_type: str | None = None
    status: str = "confirmed"
    consent: bool = True
    sensitivity: str | None = "normal"
    disclosure: str = "normal"
    suppressed: bool = False
    contested: bool = False
    correction_invalidated: bool = False
    superseded: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    observed_at: datetime | None = None
    observation_status: str | None = None
    refs: tuple[str, ...] = ()
    session_id: str | None = None
    seq: int | None = None
    activation: float = 0.0
    topic_tags: tuple[str, ...] = ()
    #: The page that replaced this one (history recall labels it "superseded by <id>").
    superseded_by: str | None = None
    #: When a forgotten page was forgotten (history recall shows only "forgotten on <date>").
    forgotten_at: datetime | None = None
    #: Who wrote an evidence line: ``user`` (the only authority), ``assistant`` or ``tool``
    #: (supplements, never the user's words); None for pages and observations.
    role: str | None = None
    tool: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in DOC_KINDS:
            raise InvalidArgumentError(f"RecallDoc.kind must be one of {DOC_KINDS}, got {self.kind!r}")


def _utc(value: datetime) -> datetime:
    """``utc(value)``, returning a value already in UTC as it is (the common case)."""
    return value if isinstance(value, datetime) and value.tzinfo is timezone.utc else utc(value)


def eligibility_reason(
    doc: RecallDoc, *, mode: str, now: datetime, at_time: datetime | None = None
) -> str | None:
    """None when ``doc`` may be recalled in ``mode``; otherwise the first rejection reason.

    Checks run in the order of :data:`ELIGIBILITY_REASONS`. Validity windows are
    half-open ``[valid_from, valid_to)`` and are read at ``at_time`` in ``at`` mode and at
    ``now`` in ``current`` mode; ``history`` keeps retained lineage (superseded, expired
    and forgotten pages, which recall labels as such) and rejects only what is not valid yet.
    """
    if mode not in TEMPORAL_MODES:
        raise InvalidArgumentError(f"mode must be one of {TEMPORAL_MODES}, got {mode!r}")
    if mode == "at" and at_time is None:
        raise InvalidArgumentError("mode 'at' needs an at_time")
    now = _utc(now)
    ref_time = _utc(at_time) if mode == "at" and at_time is not None else now
    page = doc.kind == "page"
    history = mode == "history"
    if page and doc.page_type == "source":
        return "source-page-not-recallable"
    if page and not doc.consent:
        return "consent-required"
    if page and doc.status == "forgotten":
        if not history:
            return "forgotten"
    elif page and doc.status != "confirmed":
        return "unconfirmed-canonical"
    if doc.suppressed:
        return "suppressed-by-user"
    if page and doc.contested and mode == "current":
        return "conflict-contested"
    # history keeps a replaced page as lineage (labelled "superseded by <id>"); current and
    # as-of reads never see it
    if doc.correction_invalidated or (doc.superseded == "correction" and not (page and history)):
        return "correction-invalidated"
    if doc.superseded not in (None, "temporal", "correction") and not (page and history):
        return "superseded"
    if doc.superseded == "temporal" and mode == "current":
        return "temporal-superseded"
    if doc.kind in ("page", "observation"):
        start = _utc(doc.valid_from) if doc.valid_from else None
        end = _utc(doc.valid_to) if doc.valid_to else None
        if mode == "history":
            if start is not None and start > now:
                return "temporal-invalid"
        elif (start is not None and start > ref_time) or (end is not None and end <= ref_time):
            return "temporal-invalid"
    if doc.kind == "evidence" and doc.observed_at is not None:
        observed = _utc(doc.observed_at)
        if mode == "at" and observed > ref_time:
            return "temporal-after-cutoff"
        if mode == "current" and observed > now:
            return "temporal-future"
    if doc.kind == "observation" and doc.observation_status != "active":
        return f"observation-{doc.observation_status or 'candidate'}"
    return None


def disclosure_for_sensitivity(sensitivity: str | None, *, unclassified: str = "never_explicit") -> str:
    """Map a sensitivity state to a disclosure (see :func:`riko.sensitivity.rules.disclosure_for`).

    Unclassified (None) uses ``unclassified`` (``never_explicit`` or ``user_explicit_only``);
    unknown states fail closed to ``never_explicit``.
    """
    return disclosure_for(sensitivity, unclassified)


def effective_disclosure(doc: RecallDoc, *, unclassified: str = "never_explicit") -> str:
    """The stricter of the projection's disclosure and the one implied by sensitivity."""
    projected = doc.disclosure if doc.disclosure in _STRICTNESS else "never_explicit"
    implied = disclosure_for_sensitivity(doc.sensitivity, unclassified=unclassified)
    return max(projected, implied, key=_STRICTNESS.__getitem__)


def _topic_material(doc: RecallDoc) -> str:
    return "\n".join([doc.text, doc.title, *doc.refs, *doc.topic_tags])


def topic_matches(query: str, doc: RecallDoc) -> bool:
    """Does the query's topic (recall cue words removed) match the document?

    True when a literal exact term of the query occurs in the document, or when the
    query's informative tokens overlap the document's text, title, references and topic
    tags in at least two tokens or in at least half of the query's tokens.
    """
    material = _topic_material(doc)
    terms, wanted = _query_topic(query)
    if terms and exact_matches(list(terms), [(doc.doc_id, material)]):
        return True
    if not wanted:
        return False
    overlap = wanted & _material_tokens(material)
    return len(overlap) >= 2 or (bool(overlap) and len(overlap) * 2 >= len(wanted))


@lru_cache(maxsize=64)
def _query_topic(query: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The query's exact terms and informative topic tokens (computed once per query: the
    gate asks for every candidate of it)."""
    return tuple(exact_terms(query)), frozenset(tokenize(strip_recall_cues(query))) - _TOPIC_NOISE


@lru_cache(maxsize=4096)
def _material_tokens(material: str) -> frozenset[str]:
    return frozenset(tokenize(material))


def mention_decision(
    doc: RecallDoc, query: str, plan: RecallPlan, *, unclassified_disclosure: str = "never_explicit"
) -> tuple[str, str]:
    """``(decision, gate_reason)`` for one eligible result; decision is in MENTION_DECISIONS.

    Protected results (effective disclosure other than normal) need a topic match or are
    suppressed (``sensitive-topic-mismatch``; ``sensitive-default-suppress`` when there is
    nothing to match against). ``never_explicit`` is at best silent use;
    ``user_explicit_only`` is explicit only for an explicit recall request with a topic
    match. Observations stay silent unless the query asks about observations.
    """
    disclosure = effective_disclosure(doc, unclassified=unclassified_disclosure)
    observation = doc.kind == "observation"
    if disclosure != "normal":
        if not _topic_material(doc).strip():
            return ("suppress", "sensitive-default-suppress")
        if not topic_matches(query, doc):
            return ("suppress", "sensitive-topic-mismatch")
        if disclosure == "never_explicit":
            return ("silent_use", "never-explicit-projection")
        if not plan.explicit_recall:
            return ("silent_use", "sensitive-no-explicit-request")
        if observation and not plan.asks_observations:
            return ("silent_use", "inferred-observation-silent-use")
        return ("explicit", "user-explicit-only-projection")
    if observation:
        if plan.asks_observations:
            return ("explicit", "explicit-observation-recall")
        return ("silent_use", "inferred-observation-silent-use")
    return ("explicit", "explicit-recall" if plan.explicit_recall else "normal-recall")
