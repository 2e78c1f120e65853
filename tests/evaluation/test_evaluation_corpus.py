"""The Appendix F companion corpus run through riko's real seams, scored by Appendix G."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from riko.evaluation import METRIC_FIELDS, aggregate_metrics
from riko.evaluation.artifacts import RAW_RESULTS, ArtifactRun, prune_runs
from riko.evaluation.corpus import SCENARIOS, Scenario, Step, Turn, scenario
from riko.evaluation.outcomes import LABELS
from riko.evaluation.runner import run_companion, run_scenario
from riko.evaluation.stubs import LoopbackStub

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"

ISSUE_CATEGORIES = (
    "stable preference", "explicit remember", "unconfirmed candidate", "long-tail event", "exact number",
    "exact person name", "temporal state", "correction", "uncertainty preservation", "inference trap",
    "sensitive memory", "unsolicited sensitive mention", "explicit sensitive recall", "suppress", "forget", "purge",
    "scope isolation", "restart", "Dream failure", "embedding failure", "reranker failure", "graph failure",
    "Resident overflow", "prompt injection in memory", "superseded exact hit", "historical query", "memory overuse",
    "observation weakening", "multi-hop", "deletion crash",
)

UNSUPPORTED_IN_THE_SEED = ("F.21", "F.22", "F.28", "F.30")
MEASURED = {name for name in METRIC_FIELDS
            if name not in ("semanticDriftRate", "falsePersonalizationRate", "unwantedMentionRate", "memoryOveruseRate")}
#: Defects the corpus finds are pinned here exactly (scenario -> failing checks, metric -> value)
#: while they are open, so every other check still gates; none is open now.
KNOWN_DEFECTS: dict[str, set[str]] = {}
KNOWN_METRIC_GAPS: dict[str, float] = {}


def _walk(steps: tuple[Step, ...]) -> list[Step]:
    out = []
    for step in steps:
        out.append(step)
        out.extend(_walk(tuple(step.args.get("steps", ()))))
    return out


# -- the declaration -------------------------------------------------------------------------------
def test_thirty_scenarios_one_per_category_in_both_languages() -> None:
    assert [s.id for s in SCENARIOS] == [f"F.{i:02d}" for i in range(1, 31)]
    assert tuple(s.category for s in SCENARIOS) == ISSUE_CATEGORIES
    assert {s.language for s in SCENARIOS} == {"en", "zh"}
    assert sum(s.language == "zh" for s in SCENARIOS) >= 10
    for s in SCENARIOS:
        assert s.label in LABELS, s.id
        assert s.setup and s.turn.text and s.contains and s.excludes, s.id
    assert {s.label for s in SCENARIOS} == set(LABELS)


def test_judgments_are_written_from_the_fixture_facts() -> None:
    for s in SCENARIOS:
        facts = "\n".join(s.facts.values())
        for text in (*s.contains, *s.excludes, *([s.target] if s.target else [])):
            assert text in facts, f"{s.id}: {text!r} is not a fixture fact"
        for key in s.candidate_judgments:
            assert key in facts, f"{s.id}: judgment {key!r} is not a fixture fact"


def test_the_four_scenarios_beyond_the_seed_declare_their_seams() -> None:
    assert scenario("F.21").stubs == {"rerank": "fail"} and "reranker_endpoint" in scenario("F.21").config
    assert scenario("F.22").turn.fault == "graph"
    assert "contradict" in [step.op for step in scenario("F.28").setup]
    crash = [step for step in scenario("F.30").setup if step.op == "process"]
    assert crash and crash[0].args["env"] == {"RIKO_PURGE_KILL": "after-apply"} and crash[0].expect == "exit:70"
    restart = [step for step in scenario("F.18").setup if step.op == "process"]
    assert restart and restart[0].expect == "exit:0"
    classified = {s.id for s in SCENARIOS if s.requires_evidence_classification}
    assert {"F.05", "F.09", "F.10"} <= classified
    assert all(scenario(i).config.get("evidence_classification_enabled") for i in classified)
    http = {s.id for s in SCENARIOS if s.turn.via == "http" or any(st.op == "http" for st in _walk(s.setup))}
    tools = {s.id for s in SCENARIOS if any(st.op == "tool" for st in _walk(s.setup))}
    assert len(http) >= 5 and len(tools) >= 8


# -- the gate --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def companion_run():
    return run_companion(out=ARTIFACTS)


def test_every_scenario_executes_and_passes(companion_run) -> None:
    statuses = {o.id: o.status for o in companion_run.outcomes}
    assert len(statuses) == 30
    assert not [i for i, s in statuses.items() if s in ("error", "unsupported")], \
        {o.id: o.error for o in companion_run.outcomes if o.error}
    for sid in UNSUPPORTED_IN_THE_SEED:
        assert statuses[sid] == "passed"
    failed = {o.id: {n for n, ok in o.checks.items() if not ok} for o in companion_run.outcomes if o.status != "passed"}
    assert failed == KNOWN_DEFECTS


def test_every_measured_metric_sits_at_its_ideal_value(companion_run) -> None:
    records = companion_run.metrics
    assert records is not None, companion_run.metrics_error
    measured = {name for name, record in records.items() if record.status == "measured"}
    assert measured == MEASURED
    gaps = {name: records[name].value for name in companion_run.gate_failures()}
    assert gaps == pytest.approx(KNOWN_METRIC_GAPS)
    assert records["recallAtK"].denominator == 10 and records["recallAtK"].value == 1.0
    assert records["negativeRecallPrecision"].denominator == 6 and records["negativeRecallPrecision"].value == 1.0
    assert records["purgeLeakage"].value == 0.0 and records["forgetLeakage"].value == 0.0


def test_the_run_leaves_raw_artifacts(companion_run) -> None:
    raw = json.loads((companion_run.artifacts / RAW_RESULTS).read_text(encoding="utf-8"))
    assert raw["schemaVersion"] == 1
    assert [o["id"] for o in raw["outcomes"]] == [s.id for s in SCENARIOS]
    by_id = {o["id"]: o for o in raw["outcomes"]}
    assert by_id["F.08"]["artifacts"]["http_exchanges"]
    assert by_id["F.02"]["artifacts"]["tool_results"][1]["result"]["ok"] is False
    assert by_id["F.01"]["injected"].startswith("<persistent-memory>")
    assert by_id["F.04"]["artifacts"]["turn"]["trace"]["planChannels"]
    assert by_id["F.21"]["artifacts"]["stub_calls"]["rerank"] >= 1
    assert by_id["F.16"]["disk_leakage"] is False and by_id["F.16"]["derived_leakage"] is False
    assert by_id["F.30"]["disk_leakage"] is False and by_id["F.30"]["derived_leakage"] is False
    metrics = json.loads((companion_run.artifacts / "metrics.json").read_text())
    assert set(metrics["gate_failures"]) == set(KNOWN_METRIC_GAPS)
    assert len([p for p in ARTIFACTS.iterdir() if p.name.startswith("companion-")]) <= 3


# -- runner behaviour --------------------------------------------------------------------------------
def test_a_scenario_that_raises_is_an_error_row_with_its_cause_chain() -> None:
    broken = replace(scenario("F.27"), setup=(Step("page", {"title": "Bad", "body": "x", "type": "no-such-type"}),))
    outcome = run_scenario(broken)
    assert outcome.status == "error"
    assert "InvalidArgumentError" in outcome.error and "StepFailure" in outcome.error
    assert "The above exception was the direct cause" in outcome.error
    with pytest.raises(ValueError, match="error rows"):
        aggregate_metrics([outcome])


def test_an_unmet_expectation_fails_the_scenario() -> None:
    s = scenario("F.02")
    wrong = replace(s, setup=(*s.setup[:2], replace(s.setup[2], expect="ok")))
    outcome = run_scenario(wrong)
    assert outcome.status == "failed"
    assert [name for name, ok in outcome.checks.items() if not ok] == ["step 3 tool: ok"]


def test_raw_results_are_rewritten_after_every_scenario(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def read(_outcome: object) -> None:
        run_dirs = [p for p in tmp_path.iterdir() if p.name.startswith("companion-")]
        raw = json.loads((run_dirs[0] / RAW_RESULTS).read_text(encoding="utf-8"))
        seen.append([o["id"] for o in raw["outcomes"]])

    run_companion([scenario("F.27"), scenario("F.23")], out=tmp_path, on_outcome=read)
    assert seen == [["F.27"], ["F.27", "F.23"]]


def test_artifact_runs_are_bounded_and_leave_other_entries_alone(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "keep.txt").write_text("mine")
    runs = [ArtifactRun(tmp_path, "companion-", keep=3) for _ in range(5)]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert len([n for n in left if n.startswith("companion-")]) == 3
    assert {"notes", "keep.txt"} <= set(left)
    assert runs[-1].path.exists() and not runs[0].path.exists()
    assert prune_runs(tmp_path, "companion-", 1) and runs[-1].path.exists()
    with pytest.raises(ValueError):
        prune_runs(tmp_path, "companion-", 0)


def test_loopback_stub_routes_fail_and_answer_for_real() -> None:
    with LoopbackStub({"rerank": "fail", "embeddings": "vectors"}, dimension=16) as stub:
        failed = httpx.post(stub.url("rerank"), json={"query": "q", "documents": ["a", "b"]})
        assert failed.status_code == 500
        vectors = httpx.post(stub.url("embeddings"), json={"input": ["one", "two"]}).json()["data"]
        assert [len(v["embedding"]) for v in vectors] == [16, 16]
        stub.set_mode("rerank", "identity")
        ranked = httpx.post(stub.url("rerank"), json={"query": "q", "documents": ["a", "b"]}).json()
        assert [r["index"] for r in ranked["results"]] == [0, 1]
        assert stub.calls == {"rerank": 2, "embeddings": 1}
        with pytest.raises(ValueError, match="no mode"):
            stub.set_mode("rerank", "vectors")


def test_a_custom_scenario_runs_through_the_same_runner() -> None:
    custom = Scenario(
        "X.01", "custom", "en", "correct injection", "management page", {"fact": "I keep bees on the roof."},
        (Step("page", {"title": "Bees", "body": "I keep bees on the roof."}),),
        Turn("Do you remember what I keep on the roof?"), contains=("bees on the roof",), excludes=("wasps",),
    )
    outcome = run_scenario(custom)
    assert outcome.status == "passed", outcome.checks
    assert outcome.recall_results and "bees" in outcome.recall_results[0]["text"]


def test_companion_command_writes_a_bounded_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from riko.cli import eval as cli_eval
    from riko.cli import main as cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "eval" not in sub.choices:
        cli_eval.register(sub)
    args = parser.parse_args(["eval", "companion", "--only", "F.27,F.23", "--out", str(tmp_path), "--json"])
    assert cli.COMMANDS["eval"](args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["counts"] == {"passed": 2} and data["gate_failures"] == []
    assert data["metrics"]["memoryOveruseInjectionRate"]["value"] == 0.0
    run_dir = Path(data["artifacts"])
    assert run_dir.parent == tmp_path and (run_dir / RAW_RESULTS).exists() and (run_dir / "metrics.json").exists()
