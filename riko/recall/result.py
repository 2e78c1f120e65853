"""RecallResult: what one recall returned, what it injects, and the sanitized trace."""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from .planner import CHANNEL_ORDER, RecallPlan

__all__ = ["RecallResult", "RESULT_SCHEMA"]

RESULT_SCHEMA: dict[str, Any] = {
    "id": pl.Utf8, "kind": pl.Utf8, "channels": pl.List(pl.Utf8), "score": pl.Float64,
    "decision": pl.Utf8, "reason": pl.Utf8, "injected": pl.Boolean, "activation": pl.Float64,
    "session_id": pl.Utf8, "seq": pl.Int64, "role": pl.Utf8, "text": pl.Utf8,
    **{f"rank_{channel}": pl.Int64 for channel in CHANNEL_ORDER},
}


@dataclass
class RecallResult:
    """One recall: ``results`` (one row per fused candidate), ``context`` and ``trace``.

    ``results`` columns: id, kind, channels, score (fused), decision (explicit, silent_use,
    suppress; ``rejected`` rows only with ``debug=True``), reason, injected, activation,
    session_id, seq, role (of an evidence line: user, assistant or tool), text (only for injected explicit items) and ``rank_<channel>``.
    ``context`` is the ``<MEMORY_DATA>`` block to inject ("" when nothing is injected);
    ``trace`` is the sanitized trace dict (no query text). The ``results`` frame is built
    from ``rows`` on first use, so a host that only injects ``context`` never pays for it.
    """

    frame: pl.DataFrame | None
    context: str
    trace: dict[str, Any]
    plan: RecallPlan
    rows: list[dict[str, Any]] = field(default_factory=list, repr=False)
    #: The RRF weight each channel was fused with (see :func:`riko.recall.engine.channel_weights`).
    weights: dict[str, float] = field(default_factory=dict)

    @property
    def results(self) -> pl.DataFrame:
        """One row per candidate (see the class docstring)."""
        if self.frame is None:
            self.frame = pl.DataFrame(self.rows, schema=RESULT_SCHEMA) if self.rows else pl.DataFrame(schema=RESULT_SCHEMA)
        return self.frame

    @property
    def df(self) -> pl.DataFrame:
        """Alias of :attr:`results`."""
        return self.results

    @property
    def injected(self) -> pl.DataFrame:
        return self.results.filter(pl.col("injected"))

    def __len__(self) -> int:
        return int(self.results["injected"].sum()) if self.results.height else 0

    def to_dict(self) -> dict[str, Any]:
        return {"results": self.results.to_dicts(), "context": self.context, "trace": self.trace,
                "plan": self.plan.to_dict()}

    def __repr__(self) -> str:
        t = self.trace
        return (
            f"RecallResult(intent={t['queryClass']!r}, mode={t['temporalMode']!r}, "
            f"channels={t['planChannels']}, injected={t['injectedMemories']}, "
            f"context_chars={t['contextChars']}, degraded={t['degradedModes']})"
        )

    def _repr_html_(self) -> str:
        t = self.trace
        plan = self.plan.to_dict()
        head = (
            f"<b>RecallResult</b> intent <code>{html.escape(str(plan['intent']))}</code>, "
            f"mode <code>{html.escape(str(plan['temporal_mode']))}</code>, channels "
            f"<code>{html.escape(', '.join(plan['channels']) or 'none')}</code>, injected "
            f"{t['injectedMemories']} ({t['contextChars']} chars)"
        )
        if t["degradedModes"]:
            head += f", degraded <code>{html.escape(', '.join(t['degradedModes']))}</code>"
        ranks = [c for c in (f"rank_{ch}" for ch in CHANNEL_ORDER) if self.results[c].null_count() < self.results.height]
        cols = ["id", "kind", "score", "decision", "reason", "injected", *ranks]
        table = self.results.select(cols)._repr_html_() if self.results.height else "<p>no candidates</p>"
        counts = html.escape(json.dumps(t["candidatesByChannel"]))
        return f"<div>{head}<br><small>candidates by channel: {counts}</small>{table}</div>"
