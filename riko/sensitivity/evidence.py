"""Sensitivity of one raw L0 line after capture: marked by a person, proposed by a model.

Four evidence states (``normal``, ``provisional_sensitive``, ``sensitive`` and unclassified),
one authority matrix (:func:`riko.sensitivity.rules.can_transition`): any authority may tighten;
only ``user`` or ``management`` may relax an explicit value, or write ``normal`` over an
unclassified line, which reads as sensitive. A model proposal is fixed to ``model_proposal``.
Every attempt, allowed or refused, is audited (``memory-sensitivity-changed`` /
``memory-sensitivity-rejected``) against the line's reference; the text is never copied.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..contracts import parse_ref
from ..errors import AuthorityError, InvalidArgumentError, NotFoundError
from .rules import AUTHORITIES, LEVELS, can_transition
from ..stores.evidence import EvidenceStore

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["mark_evidence_sensitivity", "propose_evidence_sensitivity"]


def _line(evidence: EvidenceStore, ref: str) -> tuple[str, int, str | None, str | None]:
    parsed = parse_ref(str(ref).strip())
    if parsed is None:
        raise InvalidArgumentError(f"evidence reference must look like session:<id>/event:<seq>; got {ref!r}")
    row = evidence.line_sensitivity(parsed[0], parsed[1])
    if row is None:
        raise NotFoundError("evidence line", str(ref), "list a session's lines with mem.evidence(session_id)")
    return parsed[0], parsed[1], row[0], row[1]


def mark_evidence_sensitivity(ctx: "ScopeContext", ref: str, level: str, *, authority: str) -> dict[str, Any]:
    """Set the sensitivity of the L0 line ``ref`` under ``authority``; raises AuthorityError when refused."""
    if level not in LEVELS:
        raise InvalidArgumentError(f"sensitivity must be one of {', '.join(LEVELS)}; got {level!r}")
    if authority not in AUTHORITIES:
        raise InvalidArgumentError(f"authority must be one of {', '.join(AUTHORITIES)}; got {authority!r}")
    wh, evidence = ctx.wh, ctx.stores.evidence
    sid, seq, current, origin = _line(evidence, ref)
    shown = current if current is not None else "unclassified"
    detail = {"from": shown, "to": level, "record_kind": "evidence"}
    if not can_transition(current, level, authority):
        with wh.transaction():
            wh.audit("memory-sensitivity-rejected", authority, ref, detail)
        raise AuthorityError(f"changing evidence {ref} from {shown} to {level} needs user or management "
                             f"authority (got {authority!r}); only a tightening needs none")
    with wh.transaction():
        if current != level or origin != authority:
            evidence.set_sensitivity(sid, seq, level, authority)
        wh.audit("memory-sensitivity-changed", authority, ref, {**detail, "unchanged": current == level})
    return {"ref": ref, "from": shown, "to": level, "authority": authority, "changed": current != level}


def propose_evidence_sensitivity(ctx: "ScopeContext", ref: str, level: str) -> dict[str, Any]:
    """A model's reading of one line: applied only when it tightens; a loosening is refused and audited."""
    return mark_evidence_sensitivity(ctx, ref, level, authority="model_proposal")
