"""Dream reflection: anchored observation proposals and their strict parser.

Reflection asks a provider for inferred patterns ("observations") over the user's own
statements. An answer is one JSON object ``{"observations": [...]}``; each observation must
cite enough distinct anchors copied exactly from the request. One bad observation rejects
the whole batch, so a model cannot slip an unanchored claim in beside good ones.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgumentError, ProviderError
from .sanitize import sanitize_error

__all__ = [
    "Anchor",
    "ReflectionRequest",
    "ProposedObservation",
    "parse_reflection",
    "PAGE_ANCHOR",
    "MAX_OBSERVATION_CHARS",
]

PAGE_ANCHOR = re.compile(r"^page:[A-Za-z0-9][A-Za-z0-9_.:\-]{0,127}$")
MAX_OBSERVATION_CHARS = 1_000
_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n(.*)\n\s*```$", re.DOTALL)


@dataclass(frozen=True)
class Anchor:
    """A piece of evidence an observation may cite.

    ``ref`` is ``session:<id>/event:<seq>`` for a user-origin L0 event or ``page:<id>`` for
    a confirmed page; ``text`` is what the user said (or the page summary).
    """

    ref: str
    session_id: str | None
    text: str


@dataclass(frozen=True)
class ReflectionRequest:
    """What one reflection pass sees: the anchors it may cite and its bounds."""

    session_id: str
    anchors: tuple[Anchor, ...]
    max_observations: int = 3
    min_evidence: int = 2

    def anchor_refs(self) -> set[str]:
        """The refs an answer may copy."""
        return {anchor.ref for anchor in self.anchors}


@dataclass(frozen=True)
class ProposedObservation:
    """One inferred pattern with the distinct anchors that support it."""

    text: str
    anchors: tuple[str, ...]
    confidence: float


def _invalid(message: str) -> ProviderError:
    return ProviderError("reflection-invalid", sanitize_error(message))


def _single_object(text: str) -> dict[str, Any]:
    body = (text or "").strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, RecursionError):
        raise _invalid("the answer is not exactly one JSON object") from None
    if not isinstance(data, dict):
        raise _invalid("the answer must be a JSON object")
    return data


def _observation(item: Any, index: int, valid_anchors: set[str], min_evidence: int) -> ProposedObservation:
    where = f"observation {index}"
    if not isinstance(item, dict):
        raise _invalid(f"{where} is not an object")
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        raise _invalid(f"{where} has no text")
    text = " ".join(text.split())
    if len(text) > MAX_OBSERVATION_CHARS:
        raise _invalid(f"{where} text is longer than {MAX_OBSERVATION_CHARS} characters")
    refs = item.get("anchors")
    if not isinstance(refs, list):
        raise _invalid(f"{where} has no anchors list")
    distinct: dict[str, None] = {}
    for ref in refs:
        if not isinstance(ref, str) or not (ref in valid_anchors or PAGE_ANCHOR.match(ref)):
            raise _invalid(f"{where} cites an anchor that was not offered: {str(ref)[:120]!r}")
        distinct.setdefault(ref, None)
    if len(distinct) < min_evidence:
        raise _invalid(f"{where} cites {len(distinct)} distinct anchor(s); {min_evidence} required")
    confidence = item.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise _invalid(f"{where} confidence is not a number")
    if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
        raise _invalid(f"{where} confidence must be a finite number between 0 and 1")
    return ProposedObservation(text=text, anchors=tuple(distinct), confidence=float(confidence))


def parse_reflection(
    text: str,
    *,
    valid_anchors: set[str],
    min_evidence: int,
    max_observations: int,
) -> tuple[ProposedObservation, ...]:
    """Validate a reflection answer and return at most ``max_observations`` observations.

    Every observation is checked (non-empty text, ``min_evidence`` distinct anchors each
    copied exactly from ``valid_anchors`` or of the ``page:<id>`` form, confidence a finite
    number in [0, 1]); any failure raises ``ProviderError("reflection-invalid")`` for the
    whole batch. Page anchors are only checked for shape here: the store resolves them.
    A single surrounding Markdown code fence is tolerated.

    >>> parse_reflection('{"observations": []}', valid_anchors=set(), min_evidence=2,
    ...                  max_observations=3)
    ()
    """
    if max_observations < 0 or min_evidence < 1:
        raise InvalidArgumentError("max_observations must be >= 0 and min_evidence >= 1")
    data = _single_object(text)
    items = data.get("observations")
    if not isinstance(items, list):
        raise _invalid('the answer has no "observations" array')
    accepted = [_observation(item, i, valid_anchors, min_evidence) for i, item in enumerate(items)]
    return tuple(accepted[:max_observations])
