"""The labelled classifier sets: sizes, languages, targets, the CLI report and clear errors."""

from __future__ import annotations

import json

import pytest

from riko.cli.main import main
from riko.review.conflicts import relation
from riko.evaluation.labelled import (
    LabelledSetError,
    labelled_file,
    run_labelled,
    score_conflicts,
)


def test_the_conflict_pair_set_meets_its_targets():
    rows = [json.loads(line) for line in labelled_file("conflicts").read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 100 and {r["lang"] for r in rows} == {"en", "zh"}
    assert {r["kind"] for r in rows} == {"contradiction", "addition", "paraphrase", "temporal"}
    report = score_conflicts()
    assert report.classes["contradiction"].precision >= 0.9 and report.classes["contradiction"].recall >= 0.8


@pytest.mark.parametrize("old,new,expected", [
    (("Coffee", "drinks coffee every morning"), ("Coffee", "prefers oat milk"), "addition"),
    (("Home", "I live in Lisbon"), ("Home", "I live in Porto"), "contradiction"),
    (("Home", "I live in Lisbon"), ("Home", "I moved to Porto"), "temporal"),
    (("Home", "I live in Lisbon"), ("Home", "My home is in Lisbon"), "paraphrase"),
    (("居住", "我住在里斯本"), ("居住", "我住在波尔图"), "contradiction"),
    (("Tango teacher", "Tango teacher is Marco"), ("Tango teacher", "Tango teacher is Lucia"), "contradiction"),
    (("Car", "I drive a Toyota"), ("Car", "My car is red"), "addition"),
    (("咖啡", "我每天早上喝咖啡"), ("咖啡", "我最喜欢加燕麦奶"), "addition"),
])
def test_relation_examples(old, new, expected):
    assert relation(*old, *new) == expected


def test_held_out_sets_are_scored_too():
    for name in ("sensitivity.holdout", "conflicts.holdout"):
        report = run_labelled(name)
        assert report.total >= 30 and report.to_dict()["classes"]


def test_cli_reports_precision_and_recall(capsys):
    assert main(["eval", "cases", "conflicts"]) == 0
    out = capsys.readouterr().out
    assert "contradiction" in out and "precision" in out and "recall" in out
    assert main(["eval", "cases", "sensitivity", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["classes"]["protected"]["recall"] >= 0.95


def test_a_malformed_line_names_file_line_and_field(tmp_path):
    bad = tmp_path / "pairs.jsonl"
    bad.write_text('{"id": "a", "lang": "en", "kind": "contradiction", "old": {"claim": "x"}, "new": {"claim": "y"}}\n'
                   '{"id": "b", "lang": "en", "kind": "opposite", "old": {}, "new": {}}\n', encoding="utf-8")
    with pytest.raises(LabelledSetError, match=r"pairs.jsonl:2: field 'kind' must be one of"):
        score_conflicts(bad)


def test_gate_fails_a_set_below_its_targets(tmp_path):
    from riko.evaluation.labelled import score_sensitivity

    weak = tmp_path / "weak.jsonl"
    weak.write_text('{"id": "a", "lang": "en", "label": "identifier", "text": "I like tea"}\n'
                    '{"id": "b", "lang": "en", "label": "sensitive", "text": "my therapist called"}\n', encoding="utf-8")
    report = score_sensitivity(weak)
    assert "identifier recall 0.000 < 0.95" in report.shortfalls() and "BELOW TARGET" in report.text()
    assert main(["eval", "cases", "conflicts", "--gate"]) == 0 and main(["eval", "cases", "sensitivity", "--gate"]) == 0
