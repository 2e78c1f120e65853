"""Labelled recall cases: the calibration gate (100 % required) and the tracked challenge set."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from riko.evaluation.cases import CASE_SETS, Case, CaseReport, case_file, load_cases, run_case, run_cases

CHALLENGE_DIMENSIONS = {"multi-fact composition", "temporal ordering", "paraphrase", "cross-lingual"}


def test_calibration_gate_every_case_passes() -> None:
    report = run_cases("calibration")
    assert report.total >= 24
    assert set(report.breakdown("lang")) == {"en", "zh"}
    failures = {r.id: (r.missing, r.leaked, r.error, r.context[:300]) for r in report.failures()}
    assert failures == {}
    assert report.score == 1.0


def test_calibration_gate_holds_with_the_e5_dense_channel_on() -> None:
    # A dense channel may only help: in these small scopes every page is some query's nearest
    # neighbour, and only the dense-only margin keeps distractors out of the context.
    report = run_cases("calibration", config={"recall_vector_enabled": True, "embedding_provider": "local"})
    failures = {r.id: (r.missing, r.leaked, r.error) for r in report.failures()}
    assert failures == {}


E5 = {"recall_vector_enabled": True, "embedding_provider": "local"}
#: How far every dense admission decision on the case sets must sit from the threshold that
#: decides it. Cosines of the embedded model differ in the third decimal between CPU kernels;
#: a decision closer than this to its threshold would pass on one machine and fail on another.
ROOM = 0.005


def test_challenge_set_with_e5_and_lexical_keeps_its_measured_scores() -> None:
    # lexical recall alone passes the distractor and ordering cases it can (it was 1/12);
    # with e5 every case passes, the paraphrases and cross-lingual ones included (it was 11/12)
    lexical = run_cases("challenge")
    assert {"chal-zh-precision-01", "chal-en-order-01"} <= {r.id for r in lexical.results if r.passed}
    dense = run_cases("challenge", config=E5)
    assert [r.id for r in dense.failures()] == []


def _knife_edges(report: CaseReport) -> list[tuple[str, dict]]:
    edges = []
    for result in report.results:
        for entry in result.dense_admission:
            near_margin = abs(entry["gap"] - entry["margin"]) < ROOM
            near_bridge = entry["bridged"] and abs(entry["gap"] - entry["bridgeMargin"]) < ROOM
            if near_margin or near_bridge:
                edges.append((result.id, entry))
    return edges


def test_no_dense_gate_decision_on_the_case_sets_sits_on_a_knife_edge() -> None:
    # The gate is a threshold on cosines; the cases only prove something if no decision is
    # within ROOM of the threshold that made it. Bridged hits are decided by shared terms.
    reports = [run_cases(name, config=E5) for name in ("calibration", "challenge")]
    decisions = [entry for report in reports for r in report.results for entry in r.dense_admission]
    assert any(e["bridged"] and e["admitted"] for e in decisions), "the bridge rule decides at least one case"
    assert any(not e["admitted"] for e in decisions), "the margin keeps at least one distractor out"
    assert [edge for report in reports for edge in _knife_edges(report)] == []


@pytest.mark.parametrize("seed", [1, 2])
def test_case_sets_pass_with_a_perturbed_query_embedding(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    # Noise of 1e-3 per dimension on the query vector moves its cosines by about as much as a
    # different CPU kernel does; every gate decision must survive it.
    from riko.dense.providers import E5Provider

    rng = np.random.default_rng(seed)
    embed_query = E5Provider.embed_query

    def noisy(self: E5Provider, text: str) -> np.ndarray:
        vector = np.asarray(embed_query(self, text), dtype=np.float32)
        vector = vector + rng.normal(0.0, 1e-3, size=vector.shape).astype(np.float32)
        return vector / np.linalg.norm(vector)

    monkeypatch.setattr(E5Provider, "embed_query", noisy)
    failures = {name: [r.id for r in run_cases(name, config=E5).failures()] for name in ("calibration", "challenge")}
    assert failures == {"calibration": [], "challenge": []}


def test_challenge_set_names_the_known_weaknesses_in_both_languages() -> None:
    challenge = load_cases(case_file("challenge"))
    calibration = load_cases(case_file("calibration"))
    assert CHALLENGE_DIMENSIONS <= {c.dimension for c in challenge}
    assert {c.lang for c in challenge} == {"en", "zh"}
    assert all(c.note for c in challenge), "each challenge case says which weakness it measures"
    assert not {c.id for c in challenge} & {c.id for c in calibration}
    for dimension in CHALLENGE_DIMENSIONS:
        assert {c.lang for c in challenge if c.dimension == dimension} == {"en", "zh"}, dimension


def test_challenge_set_runs_and_reports_a_score() -> None:
    report = run_cases("challenge")
    data = report.to_dict()
    assert data["total"] == len(load_cases(case_file("challenge")))
    assert data["passed"] == sum(r["passed"] for r in data["results"])
    assert 0.0 <= data["score"] <= 1.0
    assert all(r["error"] is None for r in data["results"])
    assert set(data["by_dimension"]) >= CHALLENGE_DIMENSIONS


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_a_case_reports_what_was_missing_leaked_or_not_silent(tmp_path: Path) -> None:
    pages = [{"title": "Tea", "body": "I prefer oolong tea."}, {"title": "Coffee", "body": "I drink oolong-free coffee."}]
    rows = [
        {"id": "ok", "lang": "en", "dimension": "d", "pages": pages[:1], "query": "What tea do I prefer?",
         "expect": {"contains": ["oolong tea"]}},
        {"id": "missing", "lang": "en", "dimension": "d", "pages": pages[:1], "query": "What tea do I prefer?",
         "expect": {"contains": ["green tea"]}},
        {"id": "leak", "lang": "en", "dimension": "d", "pages": pages[:1], "query": "What tea do I prefer?",
         "expect": {"contains": ["oolong"], "excludes": ["I prefer"]}},
        {"id": "noisy", "lang": "en", "dimension": "d", "pages": pages[:1], "query": "What tea do I prefer?",
         "expect": {"silence": True}},
        {"id": "quiet", "lang": "zh", "dimension": "d", "pages": pages[:1], "query": "17 * 23 等于多少？",
         "expect": {"silence": True}},
    ]
    report = run_cases(_write(tmp_path / "mine.jsonl", rows))
    by_id = {r.id: r for r in report.results}
    assert by_id["ok"].passed and by_id["quiet"].passed and by_id["quiet"].silent
    assert by_id["missing"].missing == ["green tea"] and not by_id["missing"].passed
    assert by_id["leak"].leaked == ["I prefer"] and not by_id["leak"].passed
    assert not by_id["noisy"].passed and not by_id["noisy"].silent
    assert report.breakdown("lang") == {"en": "1/4", "zh": "1/1"}


def test_setup_applies_corrections_replacements_and_supersessions() -> None:
    case = Case.from_dict({
        "id": "setup", "lang": "en", "dimension": "d",
        "pages": [{"title": "Home", "body": "I live in Porto.", "valid_from": "2024-01-01T00:00:00Z"},
                  {"title": "Old bike", "body": "My bike lock code is 4411."},
                  {"title": "Bike", "body": "My bike lock code is 9020."}],
        "replacements": [{"title": "Home", "content": "I live in Lisbon.", "valid_from": "2026-03-01T00:00:00Z"}],
        "supersessions": [{"title": "Old bike", "by": "Bike"}],
        "query": "Do you remember where I live now?", "expect": {"contains": ["Lisbon"], "excludes": ["Porto"]},
    })
    assert run_case(case).passed


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "a", "lang": "en", "dimension": "d", "query": "q", "expect": {"contains": ["x"]}, "extra": 1}',
     "unknown key"),
    ('{"id": "a", "lang": "en", "dimension": "d", "query": "q", "expect": {}}', "contains' or 'silence"),
    ('{"id": "a", "lang": "en", "dimension": "d", "query": "q", "expect": {"contains": ["x"], "silence": true}}',
     "cannot also expect"),
    ('{"id": "", "lang": "en", "dimension": "d", "query": "q", "expect": {"silence": true}}', "'id' must be"),
    ("not json", "not JSON"),
    ("[1, 2]", "JSON object"),
])
def test_bad_case_lines_name_the_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("# a comment\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message) as info:
        load_cases(path)
    if message not in ("cannot also expect",):
        assert "bad.jsonl:3" in str(info.value)


def test_duplicate_ids_and_unknown_sets_are_refused(tmp_path: Path) -> None:
    row = {"id": "same", "lang": "en", "dimension": "d", "query": "q", "expect": {"silence": True}}
    with pytest.raises(ValueError, match="duplicate case id"):
        load_cases(_write(tmp_path / "dup.jsonl", [row, row]))
    with pytest.raises(ValueError, match="calibration, challenge"):
        case_file("gate")
    assert CASE_SETS == ("calibration", "challenge")
    assert all(case_file(name).exists() for name in CASE_SETS)


def _riko_eval(argv: list[str]) -> int:
    """Parse ``riko eval …`` with the eval commands registered and run the command."""
    import argparse

    from riko.cli import eval as cli_eval
    from riko.cli import main as cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "eval" not in sub.choices:
        cli_eval.register(sub)
    args = parser.parse_args(argv)
    return cli.COMMANDS[args.command](args)


def test_cases_command_gates_on_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [{"id": "pass", "lang": "en", "dimension": "d", "pages": [{"title": "Tea", "body": "I prefer oolong tea."}],
             "query": "What tea do I prefer?", "expect": {"contains": ["oolong"]}},
            {"id": "fail", "lang": "en", "dimension": "d", "pages": [{"title": "Tea", "body": "I prefer oolong tea."}],
             "query": "What tea do I prefer?", "expect": {"contains": ["green tea"]}}]
    path = str(_write(tmp_path / "two.jsonl", rows))
    assert _riko_eval(["eval", "cases", path]) == 0
    assert "1/2 passed" in capsys.readouterr().out
    assert _riko_eval(["eval", "cases", path, "--gate"]) == 1
    assert "FAIL fail (d): missing ['green tea']" in capsys.readouterr().out
    assert _riko_eval(["eval", "cases", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["passed"], data["total"]) == (1, 2)
