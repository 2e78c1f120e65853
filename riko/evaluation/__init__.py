"""Evaluation: the Appendix F outcome rows and the Appendix G metrics computed from them."""

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

__all__ = [
    "IDEAL",
    "METRIC_FIELDS",
    "RANKING_SCENARIOS",
    "MetricRecord",
    "ScenarioOutcome",
    "aggregate_metrics",
    "gate_failures",
    "metrics_frame",
]
