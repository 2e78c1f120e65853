"""The sanitized recall trace: counters and timings, never the query itself.

A trace explains why recall returned what it did (which channels ran, what each gate
rejected and why, what degraded) without leaking the user's words into logs.
"""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from ..scope import scope_hash
from .gate import SENSITIVITY_REASONS, TEMPORAL_REASONS
from .planner import RecallPlan
from ..errors import InvalidArgumentError

__all__ = ["RecallTrace", "DEGRADED_MODES", "LATENCY_STAGES"]

DEGRADED_MODES = (
    "graph-degraded",
    "vector-provider-unavailable",
    "vector-degraded",
    "reranker-fallback-rrf",
    "activation-degraded",
    # A failing lexical-side channel is dropped like the others, and said so.
    "lexical-degraded",
    "exact-degraded",
    "evidence-degraded",
    "observation-degraded",
    # A dense generation that still serves although it was invalidated (the store's reasons).
    "source-revision-changed",
    "embedding-model-changed",
    "index-schema-changed",
)
LATENCY_STAGES = ("planner", "lexical", "vector", "rerank", "embedding")
_GATE_KEYS = {"explicit": "explicit", "silent_use": "silentUse", "suppress": "suppress"}


@dataclass
class RecallTrace:
    """Per-execution recall trace with the seed's fields; :meth:`to_dict` gives camelCase keys.

    Rejections are split three ways, each counted once: temporal reasons in
    ``rejected_by_temporal``, sensitive reasons in ``rejected_by_sensitivity``, all others
    in ``rejected_by_eligibility``; ``rejection_reasons`` keeps the per-reason counts.
    """

    trace_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    scope_hash: str = ""
    query_class: str = "none"
    plan_mode: str = "none"
    temporal_mode: str = "current"
    plan_channels: list[str] = field(default_factory=list)
    planner_latency_ms: float = 0.0
    lexical_latency_ms: float = 0.0
    vector_latency_ms: float | None = None
    rerank_latency_ms: float | None = None
    embedding_latency_ms: float | None = None
    candidates_by_channel: dict[str, int] = field(default_factory=dict)
    fused_candidates: int = 0
    injected_memories: int = 0
    gate_counts: dict[str, int] = field(default_factory=lambda: {"explicit": 0, "silentUse": 0, "suppress": 0})
    eligible_candidates: int = 0
    rejected_by_eligibility: int = 0
    rejected_by_sensitivity: int = 0
    rejected_by_temporal: int = 0
    rejection_reasons: dict[str, int] = field(default_factory=dict)
    context_chars: int = 0
    gate_reasons: list[str] = field(default_factory=list)
    degraded_modes: list[str] = field(default_factory=list)
    #: One entry per hit only the dense channel found: its distance below the best cosine,
    #: the thresholds that applied and the decision (numbers only, never the text).
    dense_admission: list[dict] = field(default_factory=list)

    @classmethod
    def for_plan(cls, plan: RecallPlan, scope_key: str) -> "RecallTrace":
        """A fresh trace for one execution of ``plan`` in the scope ``scope_key``."""
        return cls(
            scope_hash=scope_hash(scope_key),
            query_class=plan.intent,
            plan_mode=plan.intent,
            temporal_mode=plan.temporal_mode,
            plan_channels=list(plan.channels()),
        )

    def count_candidates(self, channel: str, count: int) -> None:
        """Record how many candidates ``channel`` produced."""
        self.candidates_by_channel[channel] = self.candidates_by_channel.get(channel, 0) + count

    def reject(self, reason: str, count: int = 1) -> None:
        """Count ``count`` candidates rejected before fusion (or kept out of a search) for ``reason``."""
        self.rejection_reasons[reason] = self.rejection_reasons.get(reason, 0) + count
        if reason in TEMPORAL_REASONS:
            self.rejected_by_temporal += count
        elif reason in SENSITIVITY_REASONS:
            self.rejected_by_sensitivity += count
        else:
            self.rejected_by_eligibility += count

    def gate(self, decision: str, reason: str) -> None:
        """Count one mention-gate or budget outcome and remember its reason code.

        A sensitive suppression also counts in ``rejected_by_sensitivity``.
        """
        key = _GATE_KEYS.get(decision)
        if key is None:
            raise InvalidArgumentError(f"gate decision must be one of {tuple(_GATE_KEYS)}, got {decision!r}")
        self.gate_counts[key] += 1
        if decision == "suppress" and reason in SENSITIVITY_REASONS:
            self.rejected_by_sensitivity += 1
        self.add_reason(reason)

    def add_reason(self, reason: str) -> None:
        """Remember a gate reason code once (e.g. ``context-budget``)."""
        if reason not in self.gate_reasons:
            self.gate_reasons.append(reason)

    def degrade(self, mode: str) -> None:
        """Record a degraded mode once."""
        if mode not in DEGRADED_MODES:
            raise InvalidArgumentError(f"degraded mode must be one of {DEGRADED_MODES}, got {mode!r}")
        if mode not in self.degraded_modes:
            self.degraded_modes.append(mode)

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Time a stage (planner, lexical, vector, rerank, embedding) into its latency field.

        ``embedding`` is the query's embedding, kept apart from the ``vector`` search time.
        """
        if stage not in LATENCY_STAGES:
            raise InvalidArgumentError(f"stage must be one of {LATENCY_STAGES}, got {stage!r}")
        start = time.perf_counter()
        try:
            yield
        finally:
            elapsed = (time.perf_counter() - start) * 1000.0
            attr = f"{stage}_latency_ms"
            setattr(self, attr, (getattr(self, attr) or 0.0) + elapsed)

    def to_dict(self) -> dict:
        """The trace with the seed's camelCase field names (optional latencies only if set)."""
        data = {
            "traceId": self.trace_id,
            "scopeHash": self.scope_hash,
            "queryClass": self.query_class,
            "planMode": self.plan_mode,
            "temporalMode": self.temporal_mode,
            "planChannels": list(self.plan_channels),
            "plannerLatencyMs": self.planner_latency_ms,
            "lexicalLatencyMs": self.lexical_latency_ms,
            "candidatesByChannel": dict(self.candidates_by_channel),
            "fusedCandidates": self.fused_candidates,
            "injectedMemories": self.injected_memories,
            "gateCounts": dict(self.gate_counts),
            "eligibleCandidates": self.eligible_candidates,
            "rejectedByEligibility": self.rejected_by_eligibility,
            "rejectedBySensitivity": self.rejected_by_sensitivity,
            "rejectedByTemporal": self.rejected_by_temporal,
            "rejectionReasons": dict(self.rejection_reasons),
            "contextChars": self.context_chars,
            "gateReasons": list(self.gate_reasons),
            "degradedModes": list(self.degraded_modes),
        }
        if self.dense_admission:
            data["denseAdmission"] = [dict(entry) for entry in self.dense_admission]
        if self.vector_latency_ms is not None:
            data["vectorLatencyMs"] = self.vector_latency_ms
        if self.rerank_latency_ms is not None:
            data["rerankLatencyMs"] = self.rerank_latency_ms
        if self.embedding_latency_ms is not None:
            data["embeddingLatencyMs"] = self.embedding_latency_ms
        return data
