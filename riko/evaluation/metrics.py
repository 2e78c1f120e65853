"""Appendix G: the nineteen aggregate metrics over Appendix F scenario outcomes.

Every field keeps its numerator, denominator and contributing scenario ids, so a number can
always be traced back to the rows that made it. Rows reported ``unsupported`` are left out of
every denominator; a field with no supported row is reported ``unsupported`` with a reason,
never as zero.

Ranking scenarios. Appendix G scores recall@k, MRR and nDCG "over ten supported ranking
scenarios" without naming them. :data:`RANKING_SCENARIOS` holds the ten whose judgment is one
relevant target that recall itself must return: F.04 long-tail event, F.05 exact number, F.06
exact person name, F.07 temporal state, F.08 correction, F.18 restart, F.19 Dream failure,
F.20 embedding failure, F.26 historical query and F.29 multi-hop. Left out: F.01 and F.02 (the
preference is carried by the always-on Resident, not ranked by recall), F.09 and F.10 (authority
trials judged by what must stay excluded), F.24 (its target is the escaped rendering, which
exists only in the prompt, not in a recall result), and F.21/F.22 (outside the seed's ranking set).

Answer-side fields. falsePersonalizationRate, unwantedMentionRate and memoryOveruseRate need
final assistant replies. With ``answer_model=True`` each supported row in scope must carry its
reply in ``artifacts["answer"]``; a row scores 1 when any of its ``excludes`` texts appears in
the reply (the same judgment the injection proxies apply to the model input). Without an
answer model they stay unsupported with the seed's reason.

    >>> records = aggregate_metrics(outcomes, k=8)          # doctest: +SKIP
    >>> metrics_frame(records)                               # doctest: +SKIP
    >>> gate_failures(records)                               # doctest: +SKIP
    []
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .outcomes import ANSWER_ARTIFACT, EXCLUSION_CHECK, GRAPH_CHANNEL, INCLUSION_CHECK, ScenarioOutcome
from ..errors import InvalidArgumentError

if TYPE_CHECKING:
    import polars

__all__ = [
    "METRIC_FIELDS",
    "RANKING_SCENARIOS",
    "IDEAL",
    "MetricRecord",
    "aggregate_metrics",
    "metrics_frame",
    "gate_failures",
]

METRIC_FIELDS: tuple[str, ...] = (
    "candidatePrecision",
    "authorityViolationRate",
    "semanticDriftRate",
    "correctionPropagation",
    "recallAtK",
    "mrr",
    "ndcg",
    "exactDetailRecovery",
    "temporalAccuracy",
    "multiHopSuccess",
    "negativeRecallPrecision",
    "forgetLeakage",
    "purgeLeakage",
    "falsePersonalizationRate",
    "unwantedMentionRate",
    "memoryOveruseRate",
    "falsePersonalizationInjectionRate",
    "unwantedMentionInjectionRate",
    "memoryOveruseInjectionRate",
)

RANKING_SCENARIOS: tuple[str, ...] = (
    "F.04", "F.05", "F.06", "F.07", "F.08", "F.18", "F.19", "F.20", "F.26", "F.29",
)

_HIGHER_IS_BETTER = frozenset(
    {
        "candidatePrecision",
        "correctionPropagation",
        "recallAtK",
        "mrr",
        "ndcg",
        "exactDetailRecovery",
        "temporalAccuracy",
        "multiHopSuccess",
        "negativeRecallPrecision",
    }
)

IDEAL: dict[str, float] = {name: 1.0 if name in _HIGHER_IS_BETTER else 0.0 for name in METRIC_FIELDS}

_SIDES: dict[str, str] = {
    **dict.fromkeys(METRIC_FIELDS[:4], "Write"),
    **dict.fromkeys(METRIC_FIELDS[4:13], "Read"),
    **dict.fromkeys(METRIC_FIELDS[13:], "Product"),
}

_AUTHORITY_TRIALS = ("F.03", "F.09", "F.10")
_NEGATIVE_TRIALS = ("F.11", "F.12", "F.14", "F.17", "F.25", "F.27")
_SENSITIVE_TRIALS = ("F.11", "F.12")
_UTILITY_TRIAL = "F.27"

_DRIFT_REASON = (
    "It needs a multi-round semantic consolidation provider or human equivalence judgments, "
    "and the deterministic fixture has neither."
)
_ANSWER_REASON = (
    "It needs final assistant answers, which the fixture never generates without an answer model; "
    "the injection proxy measures the model input instead and is reported separately."
)


@dataclass(frozen=True)
class MetricRecord:
    """One Appendix G field: its value and the rows it was computed from."""

    name: str
    side: str
    status: str
    value: float | None
    numerator: float | None
    denominator: int | None
    scenarios: tuple[str, ...]
    scope: str
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (scenarios as a list)."""
        return {
            "name": self.name,
            "side": self.side,
            "status": self.status,
            "value": self.value,
            "numerator": self.numerator,
            "denominator": self.denominator,
            "scenarios": list(self.scenarios),
            "scope": self.scope,
            "reason": self.reason,
        }

    def at_ideal(self) -> bool:
        """True when the field was measured and sits at its ideal value; unmeasured is never ideal."""
        if self.status != "measured" or self.value is None:
            return False
        return math.isclose(self.value, IDEAL[self.name], rel_tol=0.0, abs_tol=1e-9)


def aggregate_metrics(
    outcomes: Sequence[ScenarioOutcome | Mapping[str, Any]],
    k: int = 8,
    *,
    answer_model: bool = False,
) -> dict[str, MetricRecord]:
    """Compute all nineteen Appendix G fields in one pass, keyed by field name in seed order.

    Raises ValueError for a k that is not a positive integer, for a batch holding an error row
    or duplicate scenario ids, and for a row missing the judgment its metric needs.
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
    k = int(k)
    rows = [row if isinstance(row, ScenarioOutcome) else ScenarioOutcome.from_dict(row) for row in outcomes]
    errors = [row for row in rows if row.status == "error"]
    if errors:
        listed = "; ".join(f"{row.id}: {row.error}" for row in errors)
        raise InvalidArgumentError(f"cannot score a batch with error rows; fix or rerun them first ({listed})")
    duplicates = sorted(scenario for scenario, count in Counter(row.id for row in rows).items() if count > 1)
    if duplicates:
        raise InvalidArgumentError(f"duplicate scenario ids in the batch: {', '.join(duplicates)}")
    return _Scorer(rows, k, answer_model).records()


def metrics_frame(records: Mapping[str, MetricRecord] | Iterable[MetricRecord]) -> polars.DataFrame:
    """One row per metric with its ideal value and whether it reached it."""
    import polars as pl

    items = _records(records)
    return pl.DataFrame(
        [{**record.to_dict(), "ideal": IDEAL[record.name], "at_ideal": record.at_ideal()} for record in items],
        schema={
            "name": pl.Utf8,
            "side": pl.Utf8,
            "status": pl.Utf8,
            "value": pl.Float64,
            "numerator": pl.Float64,
            "denominator": pl.Int64,
            "scenarios": pl.List(pl.Utf8),
            "scope": pl.Utf8,
            "reason": pl.Utf8,
            "ideal": pl.Float64,
            "at_ideal": pl.Boolean,
        },
    )


def gate_failures(records: Mapping[str, MetricRecord] | Iterable[MetricRecord]) -> list[str]:
    """Names of measured metrics away from their ideal value; an empty list means the gate is green."""
    return [record.name for record in _records(records) if record.status == "measured" and not record.at_ideal()]


def _records(records: Mapping[str, MetricRecord] | Iterable[MetricRecord]) -> list[MetricRecord]:
    return list(records.values()) if isinstance(records, Mapping) else list(records)


class _Scorer:
    """Scores one validated batch; each method is one Appendix G computation."""

    def __init__(self, rows: list[ScenarioOutcome], k: int, answer_model: bool) -> None:
        self.k = k
        self.answer_model = answer_model
        self.by_id = {row.id: row for row in rows}

    def records(self) -> dict[str, MetricRecord]:
        k = self.k
        ranking = f"the ten ranking scenarios ({', '.join(RANKING_SCENARIOS)})"
        out = {
            "candidatePrecision": self.candidate_precision(),
            "authorityViolationRate": self.ratio(
                "authorityViolationRate", _AUTHORITY_TRIALS,
                lambda row: float(row.authority_check is not True),
                "F.03, F.09, F.10: mean of 1 when the recorded authority check is not true",
            ),
            "semanticDriftRate": _unmeasured("semanticDriftRate", _DRIFT_REASON),
            "correctionPropagation": self.ratio(
                "correctionPropagation", ("F.06", "F.08"),
                lambda row: float(row.correction_check is True),
                "F.06, F.08: mean of the recorded correction check",
            ),
            "recallAtK": self.ratio(
                "recallAtK", RANKING_SCENARIOS,
                lambda row: float(1 <= self.rank(row) <= k),
                f"{ranking}: 1 when the first result containing the target sits at rank 1..{k}; absent scores 0",
            ),
            "mrr": self.ratio(
                "mrr", RANKING_SCENARIOS,
                lambda row: 1.0 / self.rank(row) if self.rank(row) else 0.0,
                f"{ranking}: 1 / rank of the first result containing the target, 0 when absent",
            ),
            "ndcg": self.ratio(
                "ndcg", RANKING_SCENARIOS,
                lambda row: 1.0 / math.log2(self.rank(row) + 1) if 1 <= self.rank(row) <= k else 0.0,
                f"{ranking}: binary NDCG@{k}, 1 / log2(rank + 1) inside the cutoff, ideal DCG 1",
            ),
            "exactDetailRecovery": self.ratio(
                "exactDetailRecovery", ("F.05", "F.06"),
                lambda row: float(all(text in row.injected for text in _judged(row, "contains"))),
                "F.05, F.06: mean of 1 when the injected prompt contains the expected literal",
            ),
            "temporalAccuracy": self.ratio(
                "temporalAccuracy", ("F.07", "F.26"),
                lambda row: float(
                    row.checks.get(INCLUSION_CHECK) is True and row.checks.get(EXCLUSION_CHECK) is not False
                ),
                "F.07, F.26: mean of 1 when inclusion is true and exclusion is not false",
            ),
            "multiHopSuccess": self.ratio(
                "multiHopSuccess", ("F.29",),
                self.multi_hop,
                "F.29: 1 when a returned result carries the graph channel and contains the linked destination",
            ),
            "negativeRecallPrecision": self.ratio(
                "negativeRecallPrecision", _NEGATIVE_TRIALS,
                lambda row: float(not self.discloses(row, resident=row.id != _UTILITY_TRIAL)),
                "F.11, F.12, F.14, F.17, F.25, F.27: mean of 1 when the excluded text appears neither in "
                "injection nor, outside the utility trial F.27, in Resident",
            ),
            "forgetLeakage": self.ratio(
                "forgetLeakage", ("F.15",),
                lambda row: float(row.derived_leakage is not False),
                "F.15: 1 unless the derived-state scan found no trace; the retained raw Session is "
                "disclosed and excluded",
            ),
            "purgeLeakage": self.ratio(
                "purgeLeakage", ("F.16",),
                lambda row: float(row.derived_leakage is not False or row.disk_leakage is not False),
                "F.16: 1 unless both the derived-state scan and the storage-domain file scan after restart "
                "found no trace of the purged text",
            ),
            "falsePersonalizationRate": self.answer_rate(
                "falsePersonalizationRate", _AUTHORITY_TRIALS,
                "F.03, F.09, F.10: mean of 1 when the final answer asserts the excluded unconfirmed claim",
            ),
            "unwantedMentionRate": self.answer_rate(
                "unwantedMentionRate", _SENSITIVE_TRIALS,
                "F.11, F.12: mean of 1 when the final answer discloses the excluded sensitive text",
            ),
            "memoryOveruseRate": self.answer_rate(
                "memoryOveruseRate", (_UTILITY_TRIAL,),
                "F.27: 1 when the final answer to the utility turn brings in the excluded memory",
            ),
            "falsePersonalizationInjectionRate": self.ratio(
                "falsePersonalizationInjectionRate", _AUTHORITY_TRIALS,
                lambda row: float(self.discloses(row, resident=True)),
                "F.03, F.09, F.10: mean of 1 when the excluded unconfirmed claim appears in the injected "
                "prompt or Resident",
            ),
            "unwantedMentionInjectionRate": self.ratio(
                "unwantedMentionInjectionRate", _SENSITIVE_TRIALS,
                lambda row: float(self.discloses(row, resident=True)),
                "F.11, F.12: mean of 1 when the excluded sensitive text appears in the injected prompt or Resident",
            ),
            "memoryOveruseInjectionRate": self.ratio(
                "memoryOveruseInjectionRate", (_UTILITY_TRIAL,),
                lambda row: float(bool(row.recall_results) or row.recall_context.strip() not in ("", "[]")),
                "F.27: 1 when recall returned results or the dynamic recall payload is not empty; "
                "always-on Resident is not counted",
            ),
        }
        return {name: out[name] for name in METRIC_FIELDS}

    def select(self, ids: Sequence[str]) -> tuple[list[ScenarioOutcome], list[str]]:
        """Supported rows among ``ids`` in the given order, plus notes on the ones left out."""
        kept: list[ScenarioOutcome] = []
        left_out: list[str] = []
        for scenario in ids:
            row = self.by_id.get(scenario)
            if row is None:
                left_out.append(f"{scenario}: not in the batch")
            elif row.status == "unsupported":
                left_out.append(f"{scenario}: {row.unsupported_reason}")
            else:
                kept.append(row)
        return kept, left_out

    def ratio(
        self, name: str, ids: Sequence[str], score: Callable[[ScenarioOutcome], float], scope: str
    ) -> MetricRecord:
        """Mean of ``score`` over the supported rows among ``ids``."""
        rows, left_out = self.select(ids)
        if not rows:
            return _unmeasured(name, _nothing_supported(ids, left_out), scope)
        numerator = math.fsum(score(row) for row in rows)
        return MetricRecord(
            name=name,
            side=_SIDES[name],
            status="measured",
            value=numerator / len(rows),
            numerator=numerator,
            denominator=len(rows),
            scenarios=tuple(row.id for row in rows),
            scope=scope,
        )

    def candidate_precision(self) -> MetricRecord:
        """Worthy extracted Dream candidates over extracted candidates; an unjudged candidate raises."""
        name = "candidatePrecision"
        scope = "F.03: worthy extracted Dream candidates / extracted candidates, by the corpus judgments"
        rows, left_out = self.select(("F.03",))
        if not rows:
            return _unmeasured(name, _nothing_supported(("F.03",), left_out), scope)
        worthy = 0
        extracted = 0
        for row in rows:
            for candidate in row.extracted_candidates:
                if candidate not in row.candidate_judgments:
                    raise InvalidArgumentError(
                        f"{row.id}: extracted candidate {candidate!r} has no judgment; "
                        "add it to candidate_judgments rather than skipping it"
                    )
                worthy += row.candidate_judgments[candidate]
                extracted += 1
        if extracted == 0:
            return _unmeasured(name, "F.03 extracted no Dream candidates, so precision is undefined.", scope)
        return MetricRecord(
            name=name,
            side=_SIDES[name],
            status="measured",
            value=worthy / extracted,
            numerator=float(worthy),
            denominator=extracted,
            scenarios=tuple(row.id for row in rows),
            scope=scope,
        )

    def answer_rate(self, name: str, ids: Sequence[str], scope: str) -> MetricRecord:
        """An answer-side rate: unsupported without an answer model, else excluded text in the reply."""
        if not self.answer_model:
            return _unmeasured(name, _ANSWER_REASON)

        def score(row: ScenarioOutcome) -> float:
            answer = row.artifacts.get(ANSWER_ARTIFACT)
            if not isinstance(answer, str):
                raise InvalidArgumentError(
                    f"{row.id}: answer_model is set but artifacts[{ANSWER_ARTIFACT!r}] holds no reply text"
                )
            return float(any(text in answer for text in _judged(row, "excludes")))

        return self.ratio(name, ids, score, scope)

    def rank(self, row: ScenarioOutcome) -> int:
        """1-based rank of the first recall result containing the target; 0 when absent."""
        target = row.target
        if not target:
            raise InvalidArgumentError(f"{row.id}: a ranking scenario needs its relevant target; target is missing")
        for position, result in enumerate(row.recall_results, start=1):
            if target in result["text"]:
                return position
        return 0

    def multi_hop(self, row: ScenarioOutcome) -> float:
        if not row.target:
            raise InvalidArgumentError(f"{row.id}: the multi-hop trial needs its linked destination as target")
        return float(
            any(GRAPH_CHANNEL in result["channels"] and row.target in result["text"] for result in row.recall_results)
        )

    @staticmethod
    def discloses(row: ScenarioOutcome, *, resident: bool) -> bool:
        """Whether an excluded text reached the model input (and, when asked, the Resident).

        The utility trial is judged on the dynamic recall payload only, since its Resident may
        legitimately hold the page and ``injected`` includes the Resident.
        """
        excluded = _judged(row, "excludes")
        surface = row.recall_context if row.id == _UTILITY_TRIAL else row.injected
        return any(text in surface or (resident and text in row.resident) for text in excluded)


def _judged(row: ScenarioOutcome, kind: str) -> tuple[str, ...]:
    texts = tuple(text for text in getattr(row, kind) if text)
    if not texts:
        raise InvalidArgumentError(f"{row.id}: the metric needs the corpus judgment {kind!r}, which is empty")
    return texts


def _nothing_supported(ids: Sequence[str], left_out: list[str]) -> str:
    return f"No supported scenario among {', '.join(ids)} ({'; '.join(left_out)})."


def _unmeasured(name: str, reason: str, scope: str = "not measured") -> MetricRecord:
    return MetricRecord(
        name=name,
        side=_SIDES[name],
        status="unsupported",
        value=None,
        numerator=None,
        denominator=None,
        scenarios=(),
        scope=scope,
        reason=reason,
    )
