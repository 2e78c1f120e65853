"""Eligibility as arrays: which documents of a side may compete, computed before any window.

Every recall channel takes its top-k only among eligible documents (seed 002: a window taken
before the filter fills with rows recall discards, and the live fact falls out of reach).
The reasons that do not depend on the clock (suppression, supersession, consent, status,
correction, contest) are worked out once per side revision with :func:`eligibility_reason`
itself; the validity intervals and observation times are compared as numbers per query.
Codes are positions in :data:`ELIGIBILITY_REASONS` plus one; 0 means eligible.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterable, Sequence

import numpy as np

from .gate import ELIGIBILITY_REASONS, RecallDoc, eligibility_reason
from .planner import TEMPORAL_MODES

__all__ = ["DocTable", "LineTable", "reason_code", "reason_of", "mask_of"]

_CODE = {reason: i + 1 for i, reason in enumerate(ELIGIBILITY_REASONS)}
_INVALID = _CODE["temporal-invalid"]
_AFTER_CUTOFF = _CODE["temporal-after-cutoff"]
_FUTURE = _CODE["temporal-future"]
# codes the interval check may still override: none, or an observation's status (checked after it)
_OPEN = np.zeros(len(ELIGIBILITY_REASONS) + 1, dtype=bool)
_OPEN[[0, *(code for reason, code in _CODE.items() if reason.startswith("observation-"))]] = True
_ANCHOR = datetime(2000, 1, 1, tzinfo=timezone.utc)  # any time: the clock-free reasons ignore it


def reason_code(reason: str | None) -> int:
    return 0 if reason is None else _CODE[reason]


def reason_of(code: int) -> str | None:
    return None if code == 0 else ELIGIBILITY_REASONS[code - 1]


def _ms(value: datetime | None, default: float) -> float:
    return default if value is None else value.timestamp() * 1000.0


def mask_of(codes: np.ndarray) -> np.ndarray | None:
    """The boolean allow-mask of ``codes`` (None when every document is eligible)."""
    allowed = codes == 0
    return None if allowed.all() else allowed


@dataclass
class DocTable:
    """Eligibility of pages or observations, in their index order."""

    static: dict[str, np.ndarray]  # mode -> the clock-free reason code of each document
    start_ms: np.ndarray
    end_ms: np.ndarray
    has_start: np.ndarray

    @classmethod
    def build(cls, docs: Sequence[RecallDoc]) -> "DocTable":
        static: dict[str, list[int]] = {mode: [] for mode in TEMPORAL_MODES}
        start, end = [], []
        for doc in docs:
            timeless = dataclasses.replace(doc, valid_from=None, valid_to=None, observed_at=None)
            for mode in TEMPORAL_MODES:
                static[mode].append(reason_code(eligibility_reason(timeless, mode=mode, now=_ANCHOR, at_time=_ANCHOR)))
            start.append(_ms(doc.valid_from, -math.inf))
            end.append(_ms(doc.valid_to, math.inf))
        starts = np.array(start, dtype=np.float64)
        return cls({m: np.array(v, dtype=np.int16) for m, v in static.items()}, starts,
                   np.array(end, dtype=np.float64), np.isfinite(starts))

    def codes(self, mode: str, now: datetime, at_time: datetime | None, *, honour_start: bool = True) -> np.ndarray:
        """Each document's reason code for a query in ``mode`` at ``now`` / ``at_time``."""
        codes = self.static[mode].copy()
        if not len(codes):
            return codes
        now_ms = _ms(now, 0.0)
        ref_ms = _ms(at_time, now_ms) if mode == "at" and at_time is not None else now_ms
        starts = self.start_ms if honour_start else np.where(self.has_start, -math.inf, self.start_ms)
        if mode == "history":
            invalid = starts > now_ms
        else:
            invalid = (starts > ref_ms) | (self.end_ms <= ref_ms)
        # the interval check comes before the observation status, after everything else
        open_ = _OPEN[codes]
        codes[invalid & open_] = _INVALID
        return codes


@dataclass
class LineTable:
    """Eligibility of L0 lines (suppressed, correction-invalidated, observed when)."""

    static: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int16))
    observed_ms: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))
    chunk_line: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    key: tuple[int, int, int] = (-2, -1, -1)

    def update(self, key_audit: int, suppressed: Iterable[int], invalidated: Sequence[bool],
               times: Sequence[int | None], chunk_line: Sequence[int]) -> None:
        """Bring the table to the side's lines: appended lines are added, new audited state re-read."""
        n, chunks = len(invalidated), len(chunk_line)
        if self.key == (key_audit, n, chunks):
            return
        if self.key[0] != key_audit or n < len(self.static):
            self.static = np.zeros(0, dtype=np.int16)
            self.observed_ms = np.zeros(0, dtype=np.float64)
        start = len(self.static)
        if start < n:
            tail = np.where(np.array(invalidated[start:], dtype=bool), _CODE["correction-invalidated"], 0).astype(np.int16)
            self.static = np.concatenate([self.static, tail])
            stamps = np.array([-math.inf if t is None else float(t) for t in times[start:]], dtype=np.float64)
            self.observed_ms = np.concatenate([self.observed_ms, stamps])
        if start == 0:
            for line in suppressed:
                if 0 <= line < n:
                    self.static[line] = _CODE["suppressed-by-user"]
        if len(self.chunk_line) != chunks:
            self.chunk_line = np.array(chunk_line, dtype=np.int64)
        self.key = (key_audit, n, chunks)

    def codes(self, mode: str, now: datetime, at_time: datetime | None) -> np.ndarray:
        """Each line's reason code for a query in ``mode``."""
        codes = self.static.copy()
        if not len(codes):
            return codes
        now_ms = _ms(now, 0.0)
        open_ = codes == 0
        if mode == "at" and at_time is not None:
            codes[open_ & (self.observed_ms > _ms(at_time, now_ms))] = _AFTER_CUTOFF
        elif mode == "current":
            codes[open_ & (self.observed_ms > now_ms)] = _FUTURE
        return codes
