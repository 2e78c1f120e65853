"""Reciprocal Rank Fusion across recall channels, and canonical/evidence de-duplication.

RRF needs only ranks, so channels whose scores are not comparable (BM25, cosine, graph
traversal order) can be combined without calibration.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from ..language.text import normalize
from ..errors import InvalidArgumentError

__all__ = [
    "Fused",
    "rrf",
    "dedupe_canonical_evidence",
    "fact_fingerprint",
    "fingerprint_description",
    "refs_overlap",
    "CANONICAL_KINDS",
]

CANONICAL_KINDS = frozenset({"page", "canonical"})
_PUNCT_RE = re.compile(r"[^\w\s]")


@dataclass
class Fused:
    """One fused candidate: its RRF score, the channels that found it and its rank in each.

    ``ranks`` are 1-based (rank 1 is a channel's first result). ``refs`` are the source
    references after de-duplication and ``merged`` the evidence ids folded into this one.
    """

    doc_id: str
    score: float
    channels: list[str]
    ranks: dict[str, int]
    refs: tuple[str, ...] = ()
    merged: list[str] = field(default_factory=list)


def _sort(items: list[Fused], tie_break: Mapping[str, float] | None) -> list[Fused]:
    tb = tie_break or {}
    return sorted(items, key=lambda f: (-f.score, -tb.get(f.doc_id, 0.0), f.doc_id))


def rrf(
    rankings: Mapping[str, Sequence[str]],
    *,
    k: int = 60,
    weights: Mapping[str, float] | None = None,
    tie_break: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fuse per-channel rankings: a document at zero-based index ``i`` gains ``w / (k + i + 1)``.

    Channels are visited in mapping order and a repeated id inside one channel counts once
    (at its first position). The result is sorted by score descending, then by
    ``tie_break`` (the activation score) descending, then by doc_id.

    >>> [(f.doc_id, round(f.score, 5)) for f in rrf({"lexical": ["a", "b"], "dense": ["b"]})]
    [('b', 0.03252), ('a', 0.01639)]
    """
    if k < 0:
        raise InvalidArgumentError(f"rrf k must be >= 0, got {k}")
    fused: dict[str, Fused] = {}
    for channel, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        for i, doc_id in enumerate(dict.fromkeys(ranking)):
            entry = fused.get(doc_id)
            if entry is None:
                entry = fused[doc_id] = Fused(doc_id, 0.0, [], {})
            entry.score += weight / (k + i + 1)
            entry.channels.append(channel)
            entry.ranks[channel] = i + 1
    return _sort(list(fused.values()), tie_break)


def fact_fingerprint(text: str, *, page_type: str | None = None) -> str:
    """A fact fingerprint: 16 hex of the SHA-256 of the text, normalised and unpunctuated.

    With ``page_type`` the result is ``"<page_type>|<description>"``; the part after the
    ``|`` is the description part an evidence fingerprint is compared with.
    """
    basis = normalize(_PUNCT_RE.sub(" ", normalize(text)))
    description = hashlib.sha256(basis.encode("utf-8")).hexdigest()[:16]
    return f"{page_type}|{description}" if page_type else description


def fingerprint_description(fingerprint: str) -> str:
    """The description part of a fingerprint (after the last ``|``; the whole when none)."""
    return fingerprint.rsplit("|", 1)[-1]


def refs_overlap(a: Iterable[str], b: Iterable[str]) -> bool:
    """True when a reference is shared exactly or one is ``<other>/event:…`` of the other."""
    left, right = set(a), set(b)
    if left & right:
        return True
    return any(x.startswith(y + "/event:") or y.startswith(x + "/event:") for x in left for y in right)


def dedupe_canonical_evidence(
    fused: Sequence[Fused],
    fingerprints: Mapping[str, str],
    refs: Mapping[str, Iterable[str]],
    kinds: Mapping[str, str],
    *,
    tie_break: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Fused]:
    """Fold evidence into the canonical page it restates, then re-sort and truncate.

    An evidence candidate merges into the first (best-fused) canonical candidate whose
    fingerprint description equals the evidence fingerprint and whose own source
    references overlap the evidence's (see :func:`refs_overlap`). The merged candidate keeps
    the canonical id, takes the higher of the two scores (one fact, not two votes), unions
    channels, best ranks and references, and lists the evidence id in ``merged``. The
    result is sorted like :func:`rrf` and cut to ``limit``.
    """
    out = [
        Fused(f.doc_id, f.score, list(f.channels), dict(f.ranks), tuple(refs.get(f.doc_id, f.refs)), list(f.merged))
        for f in fused
    ]
    canonicals: dict[str, list[Fused]] = {}  # by fingerprint description, in fused order
    for f in out:
        if kinds.get(f.doc_id) in CANONICAL_KINDS and f.doc_id in fingerprints:
            canonicals.setdefault(fingerprint_description(fingerprints[f.doc_id]), []).append(f)
    own_refs = {f.doc_id: tuple(f.refs) for same in canonicals.values() for f in same}
    kept: list[Fused] = []
    for item in out:
        target = None
        if kinds.get(item.doc_id) == "evidence" and item.doc_id in fingerprints:
            description = fingerprint_description(fingerprints[item.doc_id])
            target = next(
                (c for c in canonicals.get(description, ()) if refs_overlap(own_refs[c.doc_id], item.refs)), None
            )
        if target is None:
            kept.append(item)
            continue
        target.score = max(target.score, item.score)
        for channel in item.channels:
            if channel not in target.channels:
                target.channels.append(channel)
            rank = item.ranks.get(channel)
            if rank is not None:
                target.ranks[channel] = min(target.ranks.get(channel, rank), rank)
        target.refs = tuple(dict.fromkeys((*target.refs, *item.refs)))
        target.merged.append(item.doc_id)
    result = _sort(kept, tie_break)
    return result if limit is None else result[:limit]
