"""Live capture: append one event as L0 evidence, with the same rules as log ingest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping

import orjson

from ..clock import to_ms, utc
from ..contracts import EvidenceRef
from ..errors import IngestError, ScopeError
from ..stores.warehouse import naive_utc
from . import readers
from .projection import bound_text, bound_value, event_text, project_l0, role_and_source
from .keep import KEPT_TOOL_TYPES, Keeper
from .parse import content_hash, is_user_evidence

if TYPE_CHECKING:
    from ..context import ScopeContext

__all__ = ["capture_event", "project_event"]


def project_event(
    session_id: str, seq: int, time_ms: int, etype: str, data: Mapping[str, Any], max_text_chars: int
) -> readers.LogEvent:
    """The L0 projection of one live event, bounded like an ingested line."""
    projected = project_l0(etype, dict(data))
    text, cut = bound_text(event_text(etype, projected), max_text_chars)
    projected, data_cut = bound_value(projected, max_text_chars)
    role, source_kind = role_and_source(etype, projected)
    return readers.LogEvent(session_id, seq, time_ms, etype, role, source_kind, text, projected, 0, cut or data_cut)


def _field(event: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in event:
            return event[name]
    return None


def capture_event(
    ctx: "ScopeContext",
    event: Mapping[str, Any],
    *,
    classifier: Callable[[str], str] | None = None,
) -> EvidenceRef:
    """Store ``event`` (``session_id``, ``type``, ``data``, optional ``seq``/``time``/``preset``).

    The row is committed before this returns. Chunk events are not stored; an event at or
    below the session's watermark is a duplicate and is not stored twice.
    """
    wh, scope, clock, max_event_chars = ctx.wh, ctx.scope, ctx.clock, ctx.config.max_event_chars
    wh.require_writable()
    if not isinstance(event, Mapping):
        raise IngestError(f"capture() takes a mapping, got {type(event).__name__}")
    sid = _field(event, "session_id", "sessionId")
    if not isinstance(sid, str) or not sid.strip():
        raise IngestError("captured event needs a non-empty 'session_id'")
    preset = _field(event, "preset", "agentPreset")
    if preset is not None and preset != scope.preset:
        raise ScopeError(f"event of session {sid!r} belongs to preset {preset!r}, not to scope {scope.key!r}")
    etype = event.get("type")
    if not isinstance(etype, str) or not etype:
        raise IngestError(f"captured event of session {sid!r} needs a non-empty 'type'")
    data = event.get("data", {})
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise IngestError(f"captured event {etype!r} of session {sid!r}: 'data' must be an object")
    when = event.get("time")
    time_ms = to_ms(clock.now()) if when is None else to_ms(when, where=f"event {sid!r} time")

    with wh.transaction():
        lines = ctx.stores.evidence
        row = lines.session_last_seq(sid)
        last = int(row[0]) if row is not None and row[0] is not None else -1
        seq = event.get("seq")
        if seq is None:
            seq = last + 1
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise IngestError(f"captured event of session {sid!r}: seq must be a non-negative integer, got {seq!r}")
        if readers.is_skipped_type(etype):
            return EvidenceRef(sid, seq, stored=False)
        if seq <= last:
            return EvidenceRef(sid, seq, stored=False)
        ev = project_event(sid, seq, time_ms, etype, data, max_event_chars)
        data_json = orjson.dumps(ev.data, option=orjson.OPT_SORT_KEYS)
        user = is_user_evidence(ev)
        sensitivity = origin = None
        if classifier is not None and ev.text:
            if user:
                sensitivity, origin = classifier(ev.text), "deterministic_rule"
            elif ev.type in KEPT_TOOL_TYPES and ev.source_kind != "plugin":
                # a result's tool name is not needed to classify it; a file read's output is
                # classified too (harmless: recall never indexes it)
                unit = Keeper().event_unit(ev.type, False, ev.role, ev.text, ev.data)
                if unit is not None:
                    sensitivity, origin = classifier(unit.text), "deterministic_rule"
        now = clock.now()
        lines.append_line(sid, seq, time_ms, etype, ev.role, ev.source_kind, user, ev.text, data_json.decode(),
                          content_hash(etype, data_json), ev.truncated, sensitivity, origin, naive_utc(now))
        if row is None:
            lines.add_session({
                "session_id": sid, "preset": scope.preset, "project_key": None, "cwd": None,
                "parent_session": None, "format": "live", "source_path": None,
                "created_at": naive_utc(utc(time_ms)), "first_seq": seq, "last_seq": seq,
                "event_count": 1, "user_event_count": int(user), "text_bytes": len(ev.text),
                "updated_at": naive_utc(now),
            })
        else:
            lines.grow_session(sid, last_seq=seq, events=1, user_events=int(user), text_bytes=len(ev.text),
                               first_seq=None, now=naive_utc(now))
    return EvidenceRef(sid, seq, stored=True, is_user=user)
