"""The sanitized recall trace: seed field names, counters, and no query text."""

from __future__ import annotations

import json
import re

import pytest

from riko.recall import RecallTrace, analyze_recall_query
from riko.scope import MemoryScope

QUERY = "Do you remember my dentist appointment with Dr Okafor?"


def make_trace() -> RecallTrace:
    plan = analyze_recall_query(QUERY)
    return RecallTrace.for_plan(plan, MemoryScope("local", "companion").key)


def test_trace_carries_the_seed_fields_and_no_query_text() -> None:
    trace = make_trace()
    data = trace.to_dict()
    assert set(data) == {
        "traceId", "scopeHash", "queryClass", "planMode", "temporalMode", "planChannels",
        "plannerLatencyMs", "lexicalLatencyMs", "candidatesByChannel", "fusedCandidates",
        "injectedMemories", "gateCounts", "eligibleCandidates", "rejectedByEligibility",
        "rejectedBySensitivity", "rejectedByTemporal", "rejectionReasons", "contextChars",
        "gateReasons", "degradedModes",
    }
    assert re.fullmatch(r"[0-9a-f-]{36}", data["traceId"])
    assert data["scopeHash"] == MemoryScope("local", "companion").hash
    assert data["queryClass"] == data["planMode"] == "episodic"
    assert data["planChannels"] == ["lexical", "rawEvidence"]
    assert data["gateCounts"] == {"explicit": 0, "silentUse": 0, "suppress": 0}
    dumped = json.dumps(data).lower()
    assert "dentist" not in dumped and "okafor" not in dumped
    assert make_trace().trace_id != trace.trace_id


def test_rejections_split_into_temporal_sensitivity_and_eligibility() -> None:
    trace = make_trace()
    for reason in ("temporal-future", "temporal-invalid", "consent-required", "sensitive-topic-mismatch", "consent-required"):
        trace.reject(reason)
    assert (trace.rejected_by_temporal, trace.rejected_by_sensitivity, trace.rejected_by_eligibility) == (2, 1, 2)
    assert trace.rejection_reasons == {
        "temporal-future": 1, "temporal-invalid": 1, "consent-required": 2, "sensitive-topic-mismatch": 1,
    }


def test_gate_counts_reasons_and_degraded_modes() -> None:
    trace = make_trace()
    trace.gate("explicit", "explicit-recall")
    trace.gate("explicit", "explicit-recall")
    trace.gate("silent_use", "never-explicit-projection")
    trace.gate("suppress", "sensitive-topic-mismatch")
    trace.add_reason("context-budget")
    trace.degrade("vector-provider-unavailable")
    trace.degrade("vector-provider-unavailable")
    trace.count_candidates("lexical", 3)
    trace.count_candidates("lexical", 2)
    data = trace.to_dict()
    assert data["gateCounts"] == {"explicit": 2, "silentUse": 1, "suppress": 1}
    assert data["gateReasons"] == [
        "explicit-recall", "never-explicit-projection", "sensitive-topic-mismatch", "context-budget",
    ]
    assert data["rejectedBySensitivity"] == 1
    assert data["degradedModes"] == ["vector-provider-unavailable"]
    assert data["candidatesByChannel"] == {"lexical": 5}
    with pytest.raises(ValueError):
        trace.gate("maybe", "normal-recall")
    with pytest.raises(ValueError):
        trace.degrade("everything-broke")


def test_timed_stages_fill_latency_fields() -> None:
    trace = make_trace()
    assert "vectorLatencyMs" not in trace.to_dict()
    with trace.timed("planner"):
        analyze_recall_query(QUERY)
    with trace.timed("vector"):
        pass
    data = trace.to_dict()
    assert data["plannerLatencyMs"] >= 0.0
    assert data["vectorLatencyMs"] >= 0.0
    assert "rerankLatencyMs" not in data
    with pytest.raises(ValueError):
        with trace.timed("dreaming"):
            pass
