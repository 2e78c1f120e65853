"""The report of one Dream run: counts, auto-confirmed pages and one row per selected session."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import polars as pl

__all__ = ["DreamReport"]

_ROW_SCHEMA = {
    "session_id": pl.Utf8, "job_id": pl.Utf8, "status": pl.Utf8, "outcome": pl.Utf8, "attempts": pl.Int64,
    "cursor": pl.Int64, "candidates": pl.Int64, "created": pl.Int64, "merged": pl.Int64,
    "rejected_blocks": pl.Int64, "reason": pl.Utf8, "error": pl.Utf8, "reflection": pl.Utf8,
}


@dataclass
class DreamReport:
    """What one Dream run did; ``jobs`` has one row per selected session.

    ``outcome`` per session: ``dreamed`` (provider answered), ``cached`` (answer replayed),
    ``empty`` (no transcript text, no call), ``already-dreamed`` (cursor did not move, no call),
    ``already-running`` (another run holds it), ``failed``.
    """

    run_id: str
    provider: str
    model: str
    shard: tuple[int, int] | None = None
    sessions: int = 0
    succeeded: int = 0
    failed: int = 0
    skipped: int = 0
    provider_calls: int = 0
    cache_hits: int = 0
    candidates_created: int = 0
    candidates_merged: int = 0
    candidates_dropped: int = 0
    blocks_rejected: int = 0
    auto_confirmed: list[str] = field(default_factory=list)
    observations: int = 0
    reflection_failures: int = 0
    seconds: float = 0.0
    #: Every switch a provider chain made: ``session_id``, ``from``, ``reason``, ``to``.
    fallbacks: list[dict[str, str]] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def candidates(self) -> int:
        """Candidates proposed by this run (new ones plus merges into existing ones)."""
        return self.candidates_created + self.candidates_merged

    @property
    def jobs(self) -> pl.DataFrame:
        """One row per selected session: status, outcome, cursor, counts and sanitized error."""
        return pl.DataFrame(self.rows, schema=_ROW_SCHEMA)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["shard"] = f"{self.shard[0]}/{self.shard[1]}" if self.shard else None
        out["candidates"] = self.candidates
        out["sessions_detail"] = out.pop("rows")
        return out

    def __repr__(self) -> str:
        shard = f", shard={self.shard[0]}/{self.shard[1]}" if self.shard else ""
        return (f"DreamReport(provider={self.provider!r}{shard}, sessions={self.sessions}, "
                f"succeeded={self.succeeded}, failed={self.failed}, skipped={self.skipped}, "
                f"calls={self.provider_calls}, cache_hits={self.cache_hits}, candidates={self.candidates}, "
                f"auto_confirmed={len(self.auto_confirmed)}, observations={self.observations}, "
                f"seconds={self.seconds:.2f})")

    def _repr_markdown_(self) -> str:
        lines = [
            f"**Dream run** `{self.run_id}` with `{self.provider}` ({self.model})",
            "",
            "| sessions | succeeded | failed | skipped | calls | cache hits | candidates | auto-confirmed | observations | seconds |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {self.sessions} | {self.succeeded} | {self.failed} | {self.skipped} | {self.provider_calls} | "
            f"{self.cache_hits} | {self.candidates} | {len(self.auto_confirmed)} | {self.observations} | {self.seconds:.2f} |",
        ]
        failures = [r for r in self.rows if r["status"] == "failed"][:10]
        if failures:
            lines += ["", "| failed session | reason |", "|---|---|"]
            lines += [f"| `{r['session_id']}` | {r['reason']} |" for r in failures]
        return "\n".join(lines)
