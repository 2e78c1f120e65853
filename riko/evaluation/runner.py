"""Run the Appendix F corpus through riko's real seams and score it with Appendix G.

Every scenario gets its own temporary root, a fixed clock, and when it declares them a
loopback stub for its Dream, embedding or rerank endpoint. The runner executes the setup
steps, takes the user turn (Resident plus recall, through the facade or the HTTP routes),
runs the scenario's probes and records one :class:`ScenarioOutcome` with every check and
the raw artifacts. A scenario that raises is recorded as ``error`` with its stack and cause
chain, so a broken seam can never shrink a denominator quietly.

    >>> run = run_companion(out="artifacts")        # doctest: +SKIP
    >>> run.metrics_frame()                          # doctest: +SKIP
    >>> run.gate_failures()                          # doctest: +SKIP
    []
"""

from __future__ import annotations

import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..clock import FixedClock
from ..contracts import parse_ref
from .artifacts import ArtifactRun
from .corpus import BASE_TIME, SCENARIOS, Scenario
from .harness import Harness, StepFailure, TurnRecord, step_to_json, stub_environment
from .metrics import MetricRecord, aggregate_metrics, gate_failures, metrics_frame
from .index_layer import INDEX_ARTIFACT, index_layer_summary
from .outcomes import ANSWER_ARTIFACT, ScenarioOutcome
from .probes import run_probe
from .stubs import LoopbackStub
from ..errors import InvalidArgumentError

if TYPE_CHECKING:
    import polars

__all__ = ["BASE_CONFIG", "PRESET", "CompanionRun", "run_scenario", "run_companion", "outcomes_frame"]

PRESET = "companion"
#: Every scenario starts from this configuration; each adds the flags its seam needs.
BASE_CONFIG: dict[str, Any] = {"recall_enabled": True, "embedding_provider": "off"}


def _config(s: Scenario, stub: LoopbackStub | None) -> dict[str, Any]:
    config = {**BASE_CONFIG, **s.config}
    if stub is not None:
        config = {k: v.replace("{stub}", stub.host) if isinstance(v, str) else v for k, v in config.items()}
    return config


def _doc_text(mem: Any, doc_id: str, kind: str | None) -> str:
    """The stored text of one recall result, so a ranking can be judged on what was returned."""
    if kind == "evidence" or doc_id.startswith("session:"):
        parsed = parse_ref(doc_id)
        if parsed is None:
            return ""
        frame = mem.evidence(parsed[0])
        rows = frame.filter(frame["seq"] == parsed[1])["text"].to_list()
        return rows[0] or "" if rows else ""
    if kind == "observation" or doc_id.startswith("o-"):
        return mem.observation(doc_id)["text"]
    page = mem.page(doc_id)
    return "\n".join(filter(None, (page.title, page.description or "", page.body or "")))


def _results(mem: Any, turn: TurnRecord) -> list[dict[str, Any]]:
    rows = []
    for row in turn.results:
        if row.get("decision") == "rejected":
            continue
        rows.append({
            "doc_id": row["id"], "kind": row.get("kind"), "channels": list(row.get("channels") or []),
            "decision": row.get("decision"), "reason": row.get("reason"), "injected": bool(row.get("injected")),
            "score": row.get("score"), "text": row.get("text") or _doc_text(mem, row["id"], row.get("kind")),
        })
    return rows


def _extracted(mem: Any, s: Scenario) -> list[str]:
    """Dream candidates named by the judgment key their text holds (their description when none)."""
    out = []
    for row in mem.candidates(None).to_dicts():
        # an entity candidate is the index of the facts that name it: it is judged through them
        if row.get("source") != "dream" or row.get("type") == "entity":
            continue
        blob = "\n".join(str(row.get(k) or "") for k in ("title", "description", "body"))
        key = next((k for k in s.candidate_judgments if k in blob), None)
        out.append(key if key is not None else (row.get("description") or row.get("title") or row["id"]))
    return out


def _index_layer(mem: Any, s: Scenario, turn: TurnRecord) -> dict[str, Any]:
    """What the index layer cost this turn and whether it named a page holding the target."""
    index = turn.index
    page_ids = [e["page_id"] for e in index.get("entries", ())]
    relevant = None
    if s.target:
        relevant = False
        for page_id in page_ids:
            try:
                relevant = s.target in _doc_text(mem, page_id, "page")
            except Exception:
                relevant = False  # a page gone since the render names nothing
            if relevant:
                break
    return {"chars": len(index.get("text", "")), "shown": index.get("shown", 0), "total": index.get("total", 0),
            "enabled": bool(index.get("enabled", False)), "page_ids": page_ids, "names_target": relevant,
            "target_injected": (s.target in turn.injected) if s.target else None}


def _error_text(exc: BaseException) -> str:
    """The stack with its whole cause chain."""
    return "".join(traceback.format_exception(exc)).strip()


def run_scenario(scenario: Scenario, *, workdir: str | Path | None = None) -> ScenarioOutcome:
    """Run one scenario in a fresh temporary root and return its outcome row."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"riko-{scenario.id}-", dir=workdir) as tmp:
        stub = LoopbackStub(scenario.stubs, scenario.stub_replies) if scenario.stubs else None
        h = Harness(Path(tmp) / "root", PRESET, _config(scenario, stub), FixedClock(BASE_TIME), stub)
        try:
            with stub_environment():
                return _execute(scenario, h, started)
        except Exception as exc:
            return _error_row(scenario, h, exc, started)
        finally:
            h.close()
            if stub is not None:
                stub.close()


def _execute(s: Scenario, h: Harness, started: float) -> ScenarioOutcome:
    h.run_steps(s.setup)
    t = s.turn
    turn = h.turn(t.text, at_time=t.at_time, history=t.history, via=t.via, fault=t.fault)
    mem = h.memory()
    results = _results(mem, turn)
    checks = dict(h.checks)
    for text in s.contains:
        checks[f"contains {text!r}"] = text in turn.injected
    surface = turn.context if s.exclude_surface == "recall" else turn.injected
    for text in s.excludes:
        checks[f"excludes {text!r} ({s.exclude_surface})"] = text not in surface
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for name in s.checks:
        probe = run_probe(name, h, s, turn)
        checks.update(probe.checks)
        extra.update(probe.fields.pop("artifacts", {}))
        fields.update(probe.fields)
    extracted = _extracted(mem, s) if s.candidate_judgments else []
    index_layer = _index_layer(mem, s, turn)
    for key in extracted:
        checks[f"extracted candidate {key!r} is judged worth keeping"] = s.candidate_judgments.get(key) is True
    return ScenarioOutcome(
        id=s.id, category=s.category, status="passed" if all(checks.values()) else "failed", label=s.label,
        checks=checks, injected=turn.injected, resident=turn.resident, recall_context=turn.context,
        recall_results=results, target=s.target, contains=s.contains, excludes=s.excludes,
        candidate_judgments=dict(s.candidate_judgments), extracted_candidates=extracted,
        artifacts={**_artifacts(s, h, started), "turn": {"text": t.text, "via": turn.via, "trace": turn.trace,
                                                        "resident_snapshot": turn.resident_snapshot},
                   INDEX_ARTIFACT: index_layer, **extra},
        **fields,
    )


def _artifacts(s: Scenario, h: Harness, started: float) -> dict[str, Any]:
    return {
        "language": s.language, "setup_kind": s.setup_kind, "note": s.note, "facts": dict(s.facts),
        "requires_evidence_classification": s.requires_evidence_classification,
        "config": h.config, "setup": [step_to_json(step) for step in s.setup], "steps": h.steps,
        "tool_results": h.tool_log, "http_exchanges": h.http_log, "dream_reports": h.dream_reports,
        "stub_calls": dict(h.stub.calls) if h.stub is not None else {},
        "seconds": round(time.perf_counter() - started, 3),
    }


def _error_row(s: Scenario, h: Harness, exc: BaseException, started: float) -> ScenarioOutcome:
    extra = {"failed_step": exc.index} if isinstance(exc, StepFailure) else {}
    return ScenarioOutcome(
        id=s.id, category=s.category, status="error", label=s.label, checks=dict(h.checks),
        target=s.target, contains=s.contains, excludes=s.excludes, candidate_judgments=dict(s.candidate_judgments),
        error=_error_text(exc), artifacts={**_artifacts(s, h, started), **extra},
    )


# -- a whole run ---------------------------------------------------------------------------------
@dataclass
class CompanionRun:
    """All outcomes of one corpus run, their Appendix G metrics and where the artifacts went.

    ``metrics`` is None when an outcome is an error row (the aggregator refuses such a batch);
    ``metrics_error`` then says why.
    """

    outcomes: list[ScenarioOutcome]
    metrics: dict[str, MetricRecord] | None
    metrics_error: str | None
    artifacts: Path | None
    seconds: float

    def gate_failures(self) -> list[str]:
        """Measured metrics away from their ideal value (every metric when none could be computed)."""
        if self.metrics is None:
            return ["<metrics not computed>"]
        return gate_failures(self.metrics)

    def metrics_frame(self) -> "polars.DataFrame":
        if self.metrics is None:
            raise InvalidArgumentError(f"no metrics: {self.metrics_error}")
        return metrics_frame(self.metrics)

    def outcomes_frame(self) -> "polars.DataFrame":
        return outcomes_frame(self.outcomes)

    def index_layer(self) -> dict[str, Any]:
        """What the index layer cost (characters per prompt) and bought (targets it named); see
        :func:`riko.evaluation.index_layer.index_layer_summary`."""
        return index_layer_summary(self.outcomes)

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for row in self.outcomes:
            counts[row.status] = counts.get(row.status, 0) + 1
        return counts

    def to_dict(self) -> dict[str, Any]:
        return {
            "counts": self.counts(), "seconds": round(self.seconds, 3),
            "artifacts": str(self.artifacts) if self.artifacts else None,
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()} if self.metrics else None,
            "metrics_error": self.metrics_error, "gate_failures": self.gate_failures(),
            "index_layer": self.index_layer(),
            "outcomes": [_summary(o) for o in self.outcomes],
        }


def _summary(o: ScenarioOutcome) -> dict[str, Any]:
    return {"id": o.id, "category": o.category, "label": o.label, "status": o.status,
            "failed_checks": [name for name, ok in o.checks.items() if not ok],
            "error": o.error.splitlines()[-1] if o.error else None, "checks": o.checks}


def outcomes_frame(outcomes: Iterable[ScenarioOutcome]) -> "polars.DataFrame":
    """One row per scenario: id, category, label, status, checks passed/total, failed check names."""
    import polars as pl

    rows = [{"id": o.id, "category": o.category, "label": o.label, "status": o.status,
             "checks_passed": sum(o.checks.values()), "checks": len(o.checks),
             "failed": [name for name, ok in o.checks.items() if not ok]} for o in outcomes]
    return pl.DataFrame(rows, schema={"id": pl.Utf8, "category": pl.Utf8, "label": pl.Utf8, "status": pl.Utf8,
                                      "checks_passed": pl.Int64, "checks": pl.Int64, "failed": pl.List(pl.Utf8)})


def run_companion(
    scenarios: Iterable[Scenario] | None = None,
    *,
    out: str | Path | None = None,
    keep: int = 3,
    k: int = 8,
    on_outcome: Callable[[ScenarioOutcome], None] | None = None,
    answer: Callable[[ScenarioOutcome], str | None] | None = None,
) -> CompanionRun:
    """Run the corpus (or ``scenarios``), writing artifacts under ``out`` when given.

    ``raw-results.json`` is rewritten after every scenario; ``metrics.json`` at the end.
    ``on_outcome`` is called with each row as it finishes (progress display). ``answer``, when
    given, returns the answer model's reply to a row's turn (stored in ``artifacts["answer"]``),
    and the answer-side metrics are measured from those replies.
    """
    chosen = list(SCENARIOS if scenarios is None else scenarios)
    started = time.perf_counter()
    run = ArtifactRun(out, "companion-", keep) if out is not None else None
    outcomes: list[ScenarioOutcome] = []
    for scenario in chosen:
        outcome = run_scenario(scenario)
        if answer is not None and outcome.status in ("passed", "failed"):
            reply = answer(outcome)
            if reply is not None:
                outcome.artifacts[ANSWER_ARTIFACT] = reply
        outcomes.append(outcome)
        if run is not None:
            run.write_results([o.to_dict() for o in outcomes], scenarios=[s.id for s in chosen])
        if on_outcome is not None:
            on_outcome(outcome)
    metrics: dict[str, MetricRecord] | None = None
    error: str | None = None
    try:
        metrics = aggregate_metrics(outcomes, k=k, answer_model=answer is not None)
    except ValueError as exc:
        error = str(exc)
    result = CompanionRun(outcomes, metrics, error, run.path if run else None, time.perf_counter() - started)
    if run is not None:
        run.write_json("metrics.json", {"k": k, "metrics": result.to_dict()["metrics"], "metrics_error": error,
                                        "gate_failures": result.gate_failures(), "counts": result.counts()})
    return result
