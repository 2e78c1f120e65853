"""Appendix G aggregation over hand-built Appendix F outcome rows."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from riko.evaluation import (
    IDEAL,
    METRIC_FIELDS,
    RANKING_SCENARIOS,
    MetricRecord,
    ScenarioOutcome,
    aggregate_metrics,
    gate_failures,
    metrics_frame,
)

CATEGORIES = {
    "F.01": ("stable preference", "correct injection"),
    "F.02": ("explicit remember", "correct injection"),
    "F.03": ("unconfirmed candidate", "correct injection"),
    "F.04": ("long-tail event", "correct injection"),
    "F.05": ("exact number", "correct injection"),
    "F.06": ("exact person name", "correct injection"),
    "F.07": ("temporal state", "correct injection"),
    "F.08": ("correction", "correct injection"),
    "F.09": ("uncertainty preservation", "correct injection"),
    "F.10": ("inference trap", "correct injection"),
    "F.11": ("sensitive memory", "correct silence"),
    "F.12": ("sensitive unsolicited mention", "correct silence"),
    "F.13": ("explicit sensitive recall", "governed use"),
    "F.14": ("suppress", "governed use"),
    "F.15": ("forget-derived", "correct injection"),
    "F.16": ("purge", "correct silence"),
    "F.17": ("scope isolation", "correct silence"),
    "F.18": ("restart", "correct injection"),
    "F.19": ("dream failure", "correct injection"),
    "F.20": ("embedding failure", "correct injection"),
    "F.21": ("reranker failure", "correct injection"),
    "F.22": ("graph failure", "correct injection"),
    "F.23": ("resident overflow", "correct silence"),
    "F.24": ("prompt injection in memory", "correct injection"),
    "F.25": ("superseded exact hit", "correct silence"),
    "F.26": ("historical query", "correct injection"),
    "F.27": ("memory overuse", "correct silence"),
    "F.28": ("observation weakening", "correct silence"),
    "F.29": ("multi-hop", "correct injection"),
    "F.30": ("deletion crash", "correct silence"),
}

TARGETS = {
    "F.04": "Harbour Lane bakery",
    "F.05": "C-928",
    "F.06": "Mireille",
    "F.07": "Lisbon",
    "F.08": "Teodor",
    "F.18": "durable slate note",
    "F.19": "last good copper note",
    "F.20": "vector fallback note",
    "F.26": "Porto",
    "F.29": "Oslo",
}

EXCLUDED = {
    "F.03": "user surely loves hiking",
    "F.09": "user is quitting next week",
    "F.10": "user hates the office",
    "F.11": "private clinic note",
    "F.12": "private clinic note",
    "F.14": "muted garden hobby",
    "F.17": "other persona secret",
    "F.25": "retired exact phrase",
    "F.27": "personal chess hobby",
}


def result(text: str, *channels: str, doc_id: str = "doc") -> dict:
    return {"text": text, "channels": list(channels or ("lexical",)), "doc_id": doc_id}


def row(scenario: str, **fields) -> ScenarioOutcome:
    category, label = CATEGORIES[scenario]
    fields.setdefault("label", label)
    fields.setdefault("status", "passed")
    fields.setdefault("checks", {})
    return ScenarioOutcome(id=scenario, category=category, **fields)


def ideal_rows() -> dict[str, ScenarioOutcome]:
    """Thirty rows whose observations put every measured field at its ideal value."""
    rows = {scenario: row(scenario) for scenario in CATEGORIES}
    resident = "## Resident\n- prefers short answers\n- personal chess hobby"
    for scenario, target in TARGETS.items():
        rows[scenario] = replace(
            rows[scenario],
            target=target,
            contains=(target,),
            recall_results=[result(f"[authoritative] {target}", "graph" if scenario == "F.29" else "lexical")],
            injected=f"{resident}\n<MEMORY_DATA>{target}</MEMORY_DATA>",
            resident=resident,
        )
    for scenario, text in EXCLUDED.items():
        rows[scenario] = replace(rows[scenario], excludes=(text,), injected=resident, resident=resident)
    rows["F.03"] = replace(
        rows["F.03"],
        extracted_candidates=["user wants to try hiking"],
        candidate_judgments={"user wants to try hiking": True, "user surely loves hiking": False},
    )
    for scenario in ("F.03", "F.09", "F.10"):
        rows[scenario] = replace(rows[scenario], authority_check=True)
    for scenario in ("F.06", "F.08"):
        rows[scenario] = replace(rows[scenario], correction_check=True)
    for scenario in ("F.07", "F.26"):
        rows[scenario] = replace(rows[scenario], checks={"inclusion": True, "exclusion": True})
    rows["F.15"] = replace(rows["F.15"], excludes=("forgotten teal marker",), derived_leakage=False)
    rows["F.16"] = replace(rows["F.16"], excludes=("purged ochre marker",), derived_leakage=False, disk_leakage=False)
    return rows


def batch(**changes: ScenarioOutcome) -> list[ScenarioOutcome]:
    """The ideal batch with some rows replaced (keyword F_05 means scenario F.05)."""
    rows = ideal_rows()
    for key, value in changes.items():
        rows[key.replace("_", ".")] = value
    return list(rows.values())


def alter(scenario: str, **fields) -> ScenarioOutcome:
    return replace(ideal_rows()[scenario], **fields)


def unsupported(scenario: str, reason: str = "no live seam for this trial") -> ScenarioOutcome:
    return alter(scenario, status="unsupported", unsupported_reason=reason)


def measured(record: MetricRecord, value: float, numerator: float, denominator: int, scenarios) -> None:
    assert record.status == "measured"
    assert record.reason is None
    assert record.value == pytest.approx(value)
    assert record.numerator == pytest.approx(numerator)
    assert record.denominator == denominator
    assert record.scenarios == tuple(scenarios)


# -- the field table --------------------------------------------------------------------------


def test_fields_are_the_nineteen_seed_names_in_order_with_sides_and_ideals():
    assert len(METRIC_FIELDS) == 19 and len(set(METRIC_FIELDS)) == 19
    assert METRIC_FIELDS[0] == "candidatePrecision" and METRIC_FIELDS[-1] == "memoryOveruseInjectionRate"
    assert set(IDEAL) == set(METRIC_FIELDS)
    assert {name for name, ideal in IDEAL.items() if ideal == 1.0} == {
        "candidatePrecision", "correctionPropagation", "recallAtK", "mrr", "ndcg",
        "exactDetailRecovery", "temporalAccuracy", "multiHopSuccess", "negativeRecallPrecision",
    }
    records = aggregate_metrics(batch())
    assert tuple(records) == METRIC_FIELDS
    sides = [records[name].side for name in METRIC_FIELDS]
    assert sides == ["Write"] * 4 + ["Read"] * 9 + ["Product"] * 6
    assert len(RANKING_SCENARIOS) == 10 and set(RANKING_SCENARIOS) == set(TARGETS)


def test_ideal_batch_measures_fifteen_fields_at_ideal_and_reports_four_unsupported():
    records = aggregate_metrics(batch())
    unmeasured = [name for name, record in records.items() if record.status == "unsupported"]
    assert unmeasured == ["semanticDriftRate", "falsePersonalizationRate", "unwantedMentionRate", "memoryOveruseRate"]
    for name in unmeasured:
        record = records[name]
        assert record.value is None and record.numerator is None and record.denominator is None
        assert record.reason and record.scenarios == ()
    assert all(records[name].at_ideal() for name in METRIC_FIELDS if name not in unmeasured)
    assert gate_failures(records) == []


# -- one test per field: value, numerator, denominator, scenarios -------------------------------


def test_candidate_precision_counts_worthy_over_extracted():
    f03 = alter(
        "F.03",
        extracted_candidates=["a", "b", "c"],
        candidate_judgments={"a": True, "b": False, "c": True, "unused": False},
    )
    measured(aggregate_metrics(batch(F_03=f03))["candidatePrecision"], 2 / 3, 2, 3, ["F.03"])


def test_candidate_precision_raises_on_an_unjudged_candidate():
    f03 = alter("F.03", extracted_candidates=["judged", "never judged"], candidate_judgments={"judged": True})
    with pytest.raises(ValueError, match="F.03.*'never judged'.*no judgment"):
        aggregate_metrics(batch(F_03=f03))


def test_candidate_precision_without_extracted_candidates_is_unsupported_not_zero():
    record = aggregate_metrics(batch(F_03=alter("F.03", extracted_candidates=[])))["candidatePrecision"]
    assert record.status == "unsupported" and record.value is None and "no Dream candidates" in record.reason


def test_authority_violation_rate_counts_checks_that_are_not_true():
    rows = batch(F_09=alter("F.09", authority_check=None), F_10=alter("F.10", authority_check=False))
    measured(aggregate_metrics(rows)["authorityViolationRate"], 2 / 3, 2, 3, ["F.03", "F.09", "F.10"])


@pytest.mark.parametrize("answer_model", [False, True])
def test_semantic_drift_is_always_unsupported_with_the_seed_reason(answer_model):
    rows = [replace(r, artifacts={"answer": "A plain reply."}) for r in batch()]
    record = aggregate_metrics(rows, answer_model=answer_model)["semanticDriftRate"]
    assert record.status == "unsupported" and record.value is None
    assert "multi-round semantic consolidation provider or human equivalence judgments" in record.reason


def test_correction_propagation_is_the_mean_of_the_correction_check():
    rows = batch(F_08=alter("F.08", correction_check=False))
    measured(aggregate_metrics(rows)["correctionPropagation"], 0.5, 1, 2, ["F.06", "F.08"])
    rows = batch(F_06=alter("F.06", correction_check=None))
    measured(aggregate_metrics(rows)["correctionPropagation"], 0.5, 1, 2, ["F.06", "F.08"])


def ranked(scenario: str, rank: int, total: int = 12) -> ScenarioOutcome:
    """A ranking row whose target first appears at ``rank`` (0 = absent) among ``total`` results."""
    target = TARGETS[scenario]
    results = [result(f"unrelated note {n}", doc_id=f"d{n}") for n in range(1, total + 1)]
    if rank:
        results[rank - 1] = result(f"the {target} entry", doc_id="hit")
        results.append(result(f"later copy of {target}", doc_id="dup"))
    return alter(scenario, recall_results=results)


@pytest.mark.parametrize(
    ("rank", "recall", "rr", "gain"),
    [
        (1, 1.0, 1.0, 1.0),
        (3, 1.0, 1 / 3, 0.5),
        (5, 1.0, 1 / 5, 1 / math.log2(6)),
        (6, 0.0, 1 / 6, 0.0),
        (0, 0.0, 0.0, 0.0),
    ],
    ids=["rank1", "rank3", "rank-k", "rank-k+1", "absent"],
)
def test_rank_arithmetic_for_one_query(rank, recall, rr, gain):
    records = aggregate_metrics([ranked("F.04", rank)], k=5)
    measured(records["recallAtK"], recall, recall, 1, ["F.04"])
    measured(records["mrr"], rr, rr, 1, ["F.04"])
    measured(records["ndcg"], gain, gain, 1, ["F.04"])


def test_rank_metrics_average_over_the_ten_ranking_scenarios():
    k = 4
    ranks = dict(zip(RANKING_SCENARIOS, [1, 3, k, k + 1, 0, 1, 1, 2, 1, 1], strict=True))
    rows = batch(**{s.replace(".", "_"): ranked(s, r) for s, r in ranks.items()})
    records = aggregate_metrics(rows, k=k)
    in_cut = [r for r in ranks.values() if 1 <= r <= k]
    recall_sum = len(in_cut)
    rr_sum = sum(1 / r for r in ranks.values() if r)
    gain_sum = sum(1 / math.log2(r + 1) for r in in_cut)
    measured(records["recallAtK"], recall_sum / 10, recall_sum, 10, RANKING_SCENARIOS)
    measured(records["mrr"], rr_sum / 10, rr_sum, 10, RANKING_SCENARIOS)
    measured(records["ndcg"], gain_sum / 10, gain_sum, 10, RANKING_SCENARIOS)
    assert f"rank 1..{k}" in records["recallAtK"].scope and f"NDCG@{k}" in records["ndcg"].scope
    assert {"recallAtK", "mrr", "ndcg"} <= set(gate_failures(records))


def test_ranking_scenario_without_a_target_raises():
    with pytest.raises(ValueError, match="F.18.*target"):
        aggregate_metrics(batch(F_18=alter("F.18", target=None)))


def test_exact_detail_recovery_needs_the_literal_in_the_injected_prompt():
    rows = batch(F_06=alter("F.06", injected="Resident only, nothing recalled"))
    measured(aggregate_metrics(rows)["exactDetailRecovery"], 0.5, 1, 2, ["F.05", "F.06"])


def test_temporal_accuracy_needs_inclusion_true_and_exclusion_not_false():
    rows = batch(F_07=alter("F.07", checks={"inclusion": True}), F_26=alter("F.26", checks={"inclusion": True}))
    measured(aggregate_metrics(rows)["temporalAccuracy"], 1.0, 2, 2, ["F.07", "F.26"])
    rows = batch(F_26=alter("F.26", checks={"inclusion": True, "exclusion": False}))
    measured(aggregate_metrics(rows)["temporalAccuracy"], 0.5, 1, 2, ["F.07", "F.26"])
    rows = batch(F_07=alter("F.07", checks={"exclusion": True}))
    measured(aggregate_metrics(rows)["temporalAccuracy"], 0.5, 1, 2, ["F.07", "F.26"])


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ([result("Vega moved to Oslo", "graph")], 1.0),
        ([result("Vega moved to Oslo", "lexical", "dense")], 0.0),
        ([result("Orion links Vega", "graph")], 0.0),
        ([result("Orion links Vega", "graph"), result("Vega moved to Oslo", "lexical")], 0.0),
        ([], 0.0),
    ],
    ids=["graph-hit", "no-graph-channel", "graph-without-destination", "split-across-results", "empty"],
)
def test_multi_hop_success_needs_the_graph_channel_and_the_destination_together(results, expected):
    rows = batch(F_29=alter("F.29", recall_results=results))
    measured(aggregate_metrics(rows)["multiHopSuccess"], expected, expected, 1, ["F.29"])


def test_negative_recall_precision_counts_injection_and_resident_but_not_f27_resident():
    negatives = ["F.11", "F.12", "F.14", "F.17", "F.25", "F.27"]
    rows = batch(
        F_11=alter("F.11", injected="...private clinic note..."),
        F_14=alter("F.14", resident="- muted garden hobby"),
    )
    measured(aggregate_metrics(rows)["negativeRecallPrecision"], 4 / 6, 4, 6, negatives)
    # The utility trial's Resident holds the hobby page in the ideal batch; only dynamic recall counts.
    assert "personal chess hobby" in ideal_rows()["F.27"].resident
    rows = batch(F_27=alter("F.27", recall_context="<MEMORY_DATA>personal chess hobby</MEMORY_DATA>"))
    measured(aggregate_metrics(rows)["negativeRecallPrecision"], 5 / 6, 5, 6, negatives)


def test_negative_trial_without_an_excluded_text_raises():
    with pytest.raises(ValueError, match="F.17.*excludes"):
        aggregate_metrics(batch(F_17=alter("F.17", excludes=())))


@pytest.mark.parametrize(("derived", "expected"), [(True, 1.0), (None, 1.0), (False, 0.0)])
def test_forget_leakage_is_one_unless_the_derived_scan_came_back_clean(derived, expected):
    rows = batch(F_15=alter("F.15", derived_leakage=derived))
    measured(aggregate_metrics(rows)["forgetLeakage"], expected, expected, 1, ["F.15"])


@pytest.mark.parametrize(
    ("derived", "disk", "expected"),
    [(False, False, 0.0), (True, False, 1.0), (False, True, 1.0), (False, None, 1.0), (None, False, 1.0)],
)
def test_purge_leakage_counts_derived_and_on_disk_traces(derived, disk, expected):
    rows = batch(F_16=alter("F.16", derived_leakage=derived, disk_leakage=disk))
    measured(aggregate_metrics(rows)["purgeLeakage"], expected, expected, 1, ["F.16"])


def test_answer_side_rates_are_unsupported_without_an_answer_model():
    records = aggregate_metrics(batch())
    for name in ("falsePersonalizationRate", "unwantedMentionRate", "memoryOveruseRate"):
        assert records[name].status == "unsupported" and records[name].value is None
        assert "final assistant answers" in records[name].reason


def test_answer_side_rates_with_an_answer_model_read_the_reply():
    rows = {r.id: r for r in batch()}
    answers = {
        "F.03": "You mentioned wanting to try hiking.",
        "F.09": "Noted: the user is quitting next week.",
        "F.10": "Work sounds tiring lately.",
        "F.11": "Generics let a function take a type parameter.",
        "F.12": "A light lunch sounds good.",
        "F.27": "Generics, and since you enjoy it: personal chess hobby aside, here is the syntax.",
    }
    for scenario, answer in answers.items():
        rows[scenario] = replace(rows[scenario], artifacts={"answer": answer})
    records = aggregate_metrics(list(rows.values()), answer_model=True)
    measured(records["falsePersonalizationRate"], 1 / 3, 1, 3, ["F.03", "F.09", "F.10"])
    measured(records["unwantedMentionRate"], 0.0, 0, 2, ["F.11", "F.12"])
    measured(records["memoryOveruseRate"], 1.0, 1, 1, ["F.27"])
    assert records["semanticDriftRate"].status == "unsupported"


def test_answer_model_without_a_recorded_reply_raises():
    with pytest.raises(ValueError, match="F.03.*answer"):
        aggregate_metrics(batch(), answer_model=True)


def test_false_personalization_injection_rate_reads_injection_and_resident():
    rows = batch(
        F_09=alter("F.09", resident="- user is quitting next week"),
        F_10=alter("F.10", injected="<MEMORY_DATA>user hates the office</MEMORY_DATA>"),
    )
    measured(aggregate_metrics(rows)["falsePersonalizationInjectionRate"], 2 / 3, 2, 3, ["F.03", "F.09", "F.10"])


def test_unwanted_mention_injection_rate_over_the_two_sensitive_trials():
    rows = batch(F_12=alter("F.12", injected="<MEMORY_DATA>private clinic note</MEMORY_DATA>"))
    measured(aggregate_metrics(rows)["unwantedMentionInjectionRate"], 0.5, 1, 2, ["F.11", "F.12"])


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, 0.0),
        ({"recall_context": "[]"}, 0.0),
        ({"recall_context": "  "}, 0.0),
        ({"recall_results": [result("TypeScript generics note")]}, 1.0),
        ({"recall_context": "<MEMORY_DATA>TypeScript generics note</MEMORY_DATA>"}, 1.0),
    ],
    ids=["nothing", "empty-array", "blank", "results", "payload"],
)
def test_memory_overuse_injection_rate_covers_dynamic_recall_only(fields, expected):
    record = aggregate_metrics(batch(F_27=alter("F.27", **fields)))["memoryOveruseInjectionRate"]
    measured(record, expected, expected, 1, ["F.27"])
    # The always-on Resident is inside `injected` and never counts here.
    assert ideal_rows()["F.27"].injected


# -- rejection rules --------------------------------------------------------------------------


def test_a_batch_with_an_error_row_is_rejected_naming_the_scenario_and_its_error():
    broken = alter("F.12", status="error", error="ConnectionRefusedError: recall route down")
    with pytest.raises(ValueError, match=r"F\.12: ConnectionRefusedError: recall route down"):
        aggregate_metrics(batch(F_12=broken))


def test_duplicate_scenario_ids_are_rejected_naming_them():
    rows = batch() + [ideal_rows()["F.07"], ideal_rows()["F.29"], ideal_rows()["F.29"]]
    with pytest.raises(ValueError, match=r"duplicate scenario ids in the batch: F\.07, F\.29$"):
        aggregate_metrics(rows)


@pytest.mark.parametrize("k", [0, -1, 1.5, True, False, "8", None])
def test_k_must_be_a_positive_integer(k):
    with pytest.raises(ValueError, match="k must be a positive integer"):
        aggregate_metrics(batch(), k=k)


def test_k_accepts_integral_numbers():
    assert aggregate_metrics(batch(), k=np.int64(1))["recallAtK"].value == 1.0


# -- unsupported rows ---------------------------------------------------------------------------


def test_unsupported_scenarios_leave_every_denominator_and_are_not_counted_as_zero():
    # F.05 would score 0 on recall, exact detail and every rank metric if it were counted.
    f05 = replace(unsupported("F.05", "capture classification is off"), recall_results=[], injected="")
    records = aggregate_metrics(batch(F_05=f05))
    rest = tuple(s for s in RANKING_SCENARIOS if s != "F.05")
    for name in ("recallAtK", "mrr", "ndcg"):
        measured(records[name], 1.0, 9, 9, rest)
    measured(records["exactDetailRecovery"], 1.0, 1, 1, ["F.06"])
    assert gate_failures(records) == []


def test_seed_unsupported_scenarios_reported_by_a_runner_change_nothing():
    rows = batch(F_21=unsupported("F.21"), F_22=unsupported("F.22"), F_28=unsupported("F.28"), F_30=unsupported("F.30"))
    ideal = aggregate_metrics(batch())
    assert aggregate_metrics(rows) == ideal


def test_a_field_whose_every_scenario_is_unsupported_reports_unsupported_with_a_reason():
    records = aggregate_metrics(batch(F_15=unsupported("F.15", "forget route not wired in this run")))
    record = records["forgetLeakage"]
    assert record.status == "unsupported"
    assert record.value is None and record.numerator is None and record.denominator is None
    assert record.scenarios == ()
    assert "F.15: forget route not wired in this run" in record.reason
    assert not record.at_ideal()
    assert "forgetLeakage" not in gate_failures(records)


def test_a_field_whose_scenarios_are_absent_reports_unsupported():
    records = aggregate_metrics([r for r in batch() if r.id not in ("F.06", "F.08")])
    assert records["correctionPropagation"].status == "unsupported"
    assert "F.06: not in the batch" in records["correctionPropagation"].reason
    assert aggregate_metrics([])["mrr"].status == "unsupported"


# -- violations move rates and the gate ----------------------------------------------------------


def test_a_leaked_forget_sets_forget_leakage_to_one_and_fails_the_gate():
    records = aggregate_metrics(batch(F_15=alter("F.15", derived_leakage=True)))
    assert records["forgetLeakage"].value == 1.0
    assert gate_failures(records) == ["forgetLeakage"]


def test_gate_lists_every_measured_field_off_ideal_in_field_order():
    rows = batch(
        F_16=alter("F.16", disk_leakage=True),
        F_03=alter("F.03", authority_check=False),
        F_27=alter("F.27", recall_results=[result("chess opening notes")]),
    )
    assert gate_failures(aggregate_metrics(rows)) == [
        "authorityViolationRate",
        "purgeLeakage",
        "memoryOveruseInjectionRate",
    ]
    assert gate_failures(list(aggregate_metrics(batch()).values())) == []


# -- records, frame and row round trip ----------------------------------------------------------


def test_metric_record_to_dict_and_frame_carry_every_field():
    records = aggregate_metrics(batch(F_08=alter("F.08", correction_check=False)))
    assert json.loads(json.dumps(records["correctionPropagation"].to_dict())) == {
        "name": "correctionPropagation",
        "side": "Write",
        "status": "measured",
        "value": 0.5,
        "numerator": 1.0,
        "denominator": 2,
        "scenarios": ["F.06", "F.08"],
        "scope": records["correctionPropagation"].scope,
        "reason": None,
    }
    frame = metrics_frame(records)
    assert frame.height == 19 and frame["name"].to_list() == list(METRIC_FIELDS)
    assert frame.schema["scenarios"] == pl.List(pl.Utf8) and frame.schema["denominator"] == pl.Int64
    correction = frame.filter(pl.col("name") == "correctionPropagation").row(0, named=True)
    assert correction["value"] == 0.5 and correction["at_ideal"] is False and correction["ideal"] == 1.0
    drift = frame.filter(pl.col("name") == "semanticDriftRate").row(0, named=True)
    assert drift["status"] == "unsupported" and drift["value"] is None and drift["reason"]


def test_outcome_round_trips_through_json_and_scores_the_same():
    rows = batch()
    saved = json.loads(json.dumps([r.to_dict() for r in rows]))
    assert all(entry["schema_version"] == 1 for entry in saved)
    restored = [ScenarioOutcome.from_dict(entry) for entry in saved]
    assert restored == rows
    assert aggregate_metrics(saved) == aggregate_metrics(rows)


def test_from_dict_rejects_unknown_keys_and_versions():
    data = ideal_rows()["F.01"].to_dict()
    with pytest.raises(ValueError, match="unknown keys: injectd"):
        ScenarioOutcome.from_dict({**data, "injectd": ""})
    with pytest.raises(ValueError, match="schema_version 2"):
        ScenarioOutcome.from_dict({**data, "schema_version": 2})


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"status": "skipped"}, "status 'skipped'"),
        ({"label": "silence"}, "label 'silence'"),
        ({"status": "unsupported"}, "unsupported_reason"),
        ({"status": "error"}, "error text"),
        ({"checks": {"inclusion": 1}}, "not boolean: inclusion"),
        ({"recall_results": [{"text": "x"}]}, "recall result 1 lacks channels, doc_id"),
    ],
)
def test_outcome_rows_reject_malformed_fields(fields, message):
    with pytest.raises(ValueError, match=message):
        row("F.01", **fields)


texts = st.text(max_size=12)
outcomes = st.builds(
    ScenarioOutcome,
    id=st.sampled_from(sorted(CATEGORIES)),
    category=texts,
    status=st.sampled_from(["passed", "failed"]),
    label=st.sampled_from(["correct injection", "correct silence", "governed use"]),
    checks=st.dictionaries(texts, st.booleans(), max_size=3),
    injected=texts,
    resident=texts,
    recall_context=texts,
    recall_results=st.lists(
        st.fixed_dictionaries({"text": texts, "channels": st.lists(texts, max_size=2), "doc_id": texts}), max_size=3
    ),
    target=st.none() | texts,
    contains=st.lists(texts, max_size=2).map(tuple),
    excludes=st.lists(texts, max_size=2).map(tuple),
    candidate_judgments=st.dictionaries(texts, st.booleans(), max_size=2),
    extracted_candidates=st.lists(texts, max_size=2),
    authority_check=st.none() | st.booleans(),
    correction_check=st.none() | st.booleans(),
    derived_leakage=st.none() | st.booleans(),
    disk_leakage=st.none() | st.booleans(),
    artifacts=st.dictionaries(texts, texts, max_size=2),
)


@given(outcomes)
def test_any_outcome_survives_a_json_round_trip(outcome):
    assert ScenarioOutcome.from_dict(json.loads(json.dumps(outcome.to_dict()))) == outcome
