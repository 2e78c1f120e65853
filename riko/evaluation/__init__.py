"""Evaluation: the Appendix F companion corpus and its runner, the Appendix G metrics, the
labelled calibration and challenge case sets, the retrieval harness for public datasets, and
answer-side evaluation with a model endpoint (``run_qa``)."""

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
from .qa import QAReport, run_qa
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
    "QAReport",
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
    "run_qa",
    "run_retrieval",
    "run_scenario",
    "score_ranking",
]
