"""The labelled derivation set: its size and hard cases, the per-field floors, the CLI report."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from riko.cli.main import main
from riko.evaluation.derivation import DERIVATION_FIELDS, FLOORS, derivation_file, score_derivation
from riko.evaluation.labelled import LabelledSetError


def _rows() -> list[dict]:
    return [json.loads(line) for line in derivation_file().read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_set_holds_both_languages_and_the_hard_cases() -> None:
    rows = _rows()
    langs = Counter(r["lang"] for r in rows)
    assert len(rows) >= 300 and langs["en"] >= 120 and langs["zh"] >= 120
    assert len({r["id"] for r in rows}) == len(rows)
    memories = [r for r in rows if r["memory"]]
    assert {r["kind"] for r in memories} == {"identity", "preference", "relationship", "event", "plan", "boundary",
                                             "fact"}
    for lang in ("en", "zh"):
        mine = [r for r in rows if r["lang"] == lang]
        assert sum(not r["memory"] for r in mine) >= 25, lang                          # small talk, greetings
        assert sum("context" in r for r in mine) >= 5, lang                            # pronouns
        assert sum("when" in r for r in mine) >= 10, lang                              # relative dates
        assert sum(r.get("negated", False) for r in mine) >= 10, lang                  # negations
        assert sum("speaker" in r for r in mine) >= 5, lang                            # named speakers
        assert sum(any(e["kind"] == "pet" for e in r.get("entities", [])) for r in mine) >= 5, lang
    texts = {r["text"] for r in rows}
    assert {"Family time matters to me.", "I went hiking yesterday.", "我昨天去爬山了。", "Hi!", "你好！"} <= texts


def test_each_field_stays_at_or_above_its_floor() -> None:
    report = score_derivation()
    assert report.total == len(_rows())
    for name, measure, floor in FLOORS:
        value = getattr(report.fields[name], measure)
        assert value is not None and value >= floor, f"{name} {measure} {value} fell below {floor}"
    assert report.shortfalls() == []
    assert set(report.by_lang) == {"en", "zh"}


def test_a_derivation_that_disagrees_with_the_labels_falls_below_the_floors(tmp_path: Path) -> None:
    """The floors can fail: the same lines labelled with the wrong kind, subject and entities."""
    wrong = []
    for row in _rows():
        if row["memory"]:
            row = {**row, "kind": "boundary" if row["kind"] != "boundary" else "fact", "subject": "nobody",
                   "entities": [{"name": "Nowhere", "kind": "place"}]}
        else:
            row = {**row, "memory": True, "kind": "fact", "subject": "user", "attribute": "states",
                   "negated": False, "entities": []}
        wrong.append(json.dumps(row, ensure_ascii=False))
    path = tmp_path / "wrong.jsonl"
    path.write_text("\n".join(wrong) + "\n", encoding="utf-8")
    report = score_derivation(path)
    missed = {s.split()[0] for s in report.shortfalls()}
    assert {"memory", "kind", "subject", "slot", "entities", "entity_names"} <= missed


def test_the_cli_prints_precision_and_recall_per_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "cases", "derivation", "--gate"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"derivation.jsonl: {len(_rows())} labelled statements")
    for name in DERIVATION_FIELDS:
        assert f"  {name} " in out
    assert main(["eval", "cases", "derivation", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["fields"]) == set(DERIVATION_FIELDS) and data["shortfalls"] == []
    assert data["fields"]["kind"]["precision"] >= 0.8


def test_a_malformed_line_names_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "derived.jsonl"
    bad.write_text('{"id": "a", "lang": "en", "text": "Hi!", "memory": false}\n'
                   '{"id": "b", "lang": "en", "text": "I love jazz.", "memory": true, "kind": "taste", '
                   '"subject": "user", "attribute": "likes", "negated": false, "entities": []}\n', encoding="utf-8")
    with pytest.raises(LabelledSetError, match=r"derived.jsonl:2: field 'kind' must be one of"):
        score_derivation(bad)
    bad.write_text('{"id": "a", "lang": "en", "text": "I love jazz.", "memory": true, "kind": "preference"}\n',
                   encoding="utf-8")
    with pytest.raises(LabelledSetError, match=r"derived.jsonl:1: missing field 'subject'"):
        score_derivation(bad)


def test_dates_are_scored_on_the_statement_resolved_against_the_line_time(tmp_path: Path) -> None:
    """A relative date counts when the statement a page says names the day the line's ``at``
    makes of it; the floor holds that figure."""
    assert ("dates", "recall", 0.95) in FLOORS and ("dates", "precision", 0.95) in FLOORS
    assert score_derivation().fields["dates"].recall >= 0.95
    base = {"memory": True, "kind": "event", "subject": "user", "attribute": "did", "negated": False, "entities": []}
    rows = [{"id": "a", "lang": "en", "text": "I went hiking yesterday.", "at": "2023-05-08T10:00:00Z",
             "when": "2023-05-07", **base},
            {"id": "b", "lang": "zh", "text": "我昨天去爬山了。", "at": "2023-05-08T10:00:00Z", "when": "2023-05-07", **base},
            {"id": "c", "lang": "en", "text": "I went hiking yesterday.", "at": "2023-05-08T10:00:00Z",
             "when": "2023-05-01", **base}]
    path = tmp_path / "dates.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    report = score_derivation(path)
    assert (report.fields["dates"].correct, report.fields["dates"].support) == (2, 3)
    assert [e["id"] for e in report.errors if e["field"] == "dates"] == ["c"]
