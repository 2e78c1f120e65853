"""Evaluation: the Appendix F companion corpus and its runner, the Appendix G metrics, the
labelled calibration and challenge case sets, and the retrieval harness for public datasets."""

from .cases import Case, CaseReport, CaseResult, load_cases, run_cases
from .corpus import SCENARIOS, Scenario, Step, Turn
from .datasets import DatasetReport, load_dataset, run_dataset
from .metrics import (
    IDEAL,
    METRIC_FIELDS,
    RANKING_SCENARIOS,
    MetricRecord,
    aggregate_metrics,
    gate_failures,
    metrics_frame,
)
from .outcomes import ScenarioOutcome
from .retrieval import Query, RetrievalReport, load_queries, run_retrieval, score_ranking
from .runner import CompanionRun, outcomes_frame, run_companion, run_scenario
from .synthetic import generate_dataset

__all__ = [
    "IDEAL",
    "METRIC_FIELDS",
    "RANKING_SCENARIOS",
    "SCENARIOS",
    "Case",
    "CaseReport",
    "CaseResult",
    "CompanionRun",
    "DatasetReport",
    "MetricRecord",
    "Query",
    "RetrievalReport",
    "Scenario",
    "ScenarioOutcome",
    "Step",
    "Turn",
    "aggregate_metrics",
    "gate_failures",
    "generate_dataset",
    "load_cases",
    "load_dataset",
    "load_queries",
    "metrics_frame",
    "outcomes_frame",
    "run_cases",
    "run_companion",
    "run_dataset",
    "run_retrieval",
    "run_scenario",
    "score_ranking",
]
