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
    "split_messages": pl.Int64, "unread_chars": pl.Int64,
}


@dataclass
class DreamReport:
    """What one Dream run did; ``jobs`` has one row per selected session.

    ``outcome`` per session: ``dreamed`` (provider answered), ``cached`` (answer replayed),
    ``empty`` (no transcript text, no call), ``already-dreamed`` (cursor did not move, no call),
    ``already-running`` (another run holds it), ``failed``.

    The candidate counts add up to the candidates table: ``candidates_created`` rows the run added
    to it (fact candidates and the ``entity_candidates`` among them, one per person, place or
    project the facts name), ``candidates_merged`` proposals that became new evidence on a row
    already there (no new row), ``candidates_dropped`` proposals that were exact duplicates.
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
    entity_candidates: int = 0
    #: Messages longer than ``max_session_chars`` that were split so their newest sentences are read.
    messages_split: int = 0
    #: Characters of new evidence the ``max_session_chars`` budget left unread (split messages
    #: and older lines of the pass).
    chars_unread: int = 0
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
        """Rows this run added to the candidates table (facts and entities; merges add none)."""
        return self.candidates_created

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
                f"merged={self.candidates_merged}, auto_confirmed={len(self.auto_confirmed)}, "
                f"observations={self.observations}, seconds={self.seconds:.2f})")

    def summary(self) -> str:
        """A few lines for a person: what ran, what the candidates table gained, what failed."""
        shard = f" (shard {self.shard[0]}/{self.shard[1]})" if self.shard else ""
        facts = self.candidates_created - self.entity_candidates
        lines = [
            f"Dream with {self.provider} ({self.model}){shard}: {self.sessions} session(s), "
            f"{self.succeeded} succeeded, {self.failed} failed, {self.skipped} skipped; "
            f"{self.provider_calls} provider call(s), {self.cache_hits} cache hit(s); {self.seconds:.2f} s",
            f"candidates: {self.candidates_created} new in the table ({facts} fact(s), "
            f"{self.entity_candidates} entit{'y' if self.entity_candidates == 1 else 'ies'}), "
            f"{self.candidates_merged} merged as new evidence into existing ones, "
            f"{self.candidates_dropped} duplicate(s) dropped; {len(self.auto_confirmed)} page(s) auto-confirmed",
        ]
        extra = [f"{self.blocks_rejected} proposal(s) refused"] if self.blocks_rejected else []
        if self.messages_split or self.chars_unread:
            extra.append(f"{self.messages_split} message(s) longer than max_session_chars split at sentence "
                         f"boundaries; {self.chars_unread} character(s) of new evidence past the budget not read "
                         "(raise max_session_chars to read them)")
        if self.observations or self.reflection_failures:
            extra.append(f"{self.observations} observation(s), {self.reflection_failures} reflection failure(s)")
        if self.fallbacks:
            extra.append(f"{len(self.fallbacks)} provider fallback(s)")
        if extra:
            lines.append("; ".join(extra))
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        lines = [
            f"**Dream run** `{self.run_id}` with `{self.provider}` ({self.model})",
            "",
            "| sessions | succeeded | failed | skipped | calls | cache hits | new candidates | merged | auto-confirmed | observations | seconds |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {self.sessions} | {self.succeeded} | {self.failed} | {self.skipped} | {self.provider_calls} | "
            f"{self.cache_hits} | {self.candidates} | {self.candidates_merged} | {len(self.auto_confirmed)} | "
            f"{self.observations} | {self.seconds:.2f} |",
        ]
        failures = [r for r in self.rows if r["status"] == "failed"][:10]
        if failures:
            lines += ["", "| failed session | reason |", "|---|---|"]
            lines += [f"| `{r['session_id']}` | {r['reason']} |" for r in failures]
        return "\n".join(lines)
