"""The retrieval harness: ranking metrics, query files, and a generated dataset with known answers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from riko.evaluation.retrieval import (
    Bm25Baseline,
    Query,
    baseline_tokens,
    load_queries,
    run_retrieval,
    score_ranking,
)
from riko.evaluation.synthetic import generate_dataset


# -- metrics ---------------------------------------------------------------------------------------
def test_score_ranking_arithmetic() -> None:
    ranked = [("s", 5), ("s", 1), ("t", 2), ("s", 9)]
    gold = [("s", 1), ("s", 9)]
    m = score_ranking(ranked, gold, [1, 2, 4])
    assert (m["hit@1"], m["hit@2"], m["hit@4"]) == (0.0, 1.0, 1.0)
    assert (m["all@2"], m["all@4"]) == (0.0, 1.0)
    assert (m["recall@1"], m["recall@2"], m["recall@4"]) == (0.0, 0.5, 1.0)
    assert m["mrr"] == 0.5
    ideal = 1 + 1 / math.log2(3)
    assert m["ndcg@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    absent = score_ranking([("x", 0)], [("s", 1)], [1])
    assert absent["mrr"] == 0.0 and absent["ndcg@10"] == 0.0 and absent["hit@1"] == 0.0
    assert score_ranking([("s", 1), ("s", 1)], [("s", 1)], [2])["recall@2"] == 1.0
    with pytest.raises(ValueError):
        score_ranking([], [], [1])


refs = st.tuples(st.sampled_from("abc"), st.integers(0, 6))


@given(st.lists(refs, max_size=15), st.lists(refs, min_size=1, max_size=4))
def test_score_ranking_bounds_and_monotonicity(ranked: list, gold: list) -> None:
    ks = [1, 3, 5, 10]
    m = score_ranking(ranked, gold, ks)
    for k in ks:
        assert 0.0 <= m[f"all@{k}"] <= m[f"recall@{k}"] <= m[f"hit@{k}"] <= 1.0
    for small, large in zip(ks, ks[1:]):
        assert m[f"recall@{small}"] <= m[f"recall@{large}"]
        assert m[f"hit@{small}"] <= m[f"hit@{large}"]
    assert 0.0 <= m["mrr"] <= 1.0 and 0.0 <= m["ndcg@10"] <= 1.0 + 1e-12
    assert (m["mrr"] > 0) == any(r in set(gold) for r in ranked)


def test_baseline_tokens_and_ranking() -> None:
    assert baseline_tokens("The teal lamp, 2 lamps") == ["teal", "lamp", "2", "lamps"]
    assert baseline_tokens("我在南锣鼓巷买了") == ["我在", "在南", "南锣", "锣鼓", "鼓巷", "巷买", "买了"]
    bm25 = Bm25Baseline([("s", 0), ("s", 1), ("s", 2)], ["a teal lamp", "a red kettle", "我买了花瓶"])
    assert bm25.search("where is my kettle", 3) == [("s", 1)]
    assert bm25.search("花瓶", 3) == [("s", 2)]
    assert bm25.search("the", 3) == []


# -- query files --------------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "q", "question": "x"}', "evidence"),
    ('{"id": "q", "question": "x", "evidence": []}', "evidence"),
    ('{"id": "q", "question": "x", "evidence": [{"session_id": "s", "seq": "4"}]}', "integer seq"),
    ('{"question": "x", "evidence": [{"session_id": "s", "seq": 4}]}', "string 'id'"),
    ("{oops", "not JSON"),
])
def test_bad_query_lines_are_refused_with_their_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text("\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message) as info:
        load_queries(path)
    assert "q.jsonl:2" in str(info.value)


def test_query_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": "Where?", "category": "single",
                                "evidence": [{"session_id": "s", "seq": 3}, {"session_id": "s", "seq": 3}]}) + "\n")
    assert load_queries(path) == [Query("q1", "Where?", (("s", 3),), "single")]


# -- end to end on a generated dataset ------------------------------------------------------------
@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, int]:
    return generate_dataset(tmp_path_factory.mktemp("retrieval"), sessions=4, filler=8)


def test_harness_finds_every_known_answer_beside_bm25(dataset: tuple[Path, Path, int]) -> None:
    sessions, queries, count = dataset
    report = run_retrieval(sessions, queries, ks=(1, 5, 10))
    assert report.setup["queries"] == count and report.setup["sessions"] == 4
    assert report.setup["unreachable_evidence"] == 0
    assert len(report.rows) == 2 * count
    summary = report.summary()
    for system in ("riko", "bm25"):
        assert summary[system]["queries"] == count
        assert summary[system]["hit@10"] == 1.0, [r for r in report.rows if r["system"] == system and not r["hit@10"]]
        assert summary[system]["all@10"] == 1.0
        assert summary[system]["latency_p50_ms"] > 0
    assert summary["riko"]["mrr"] == 1.0
    multi = report.by_category()["multi-evidence"]["riko"]
    assert multi["all@5"] == 1.0 and multi["recall@1"] == 0.5
    assert set(report.by_category()) == {"single-hop", "single-hop-zh", "multi-evidence"}
    assert report.frame().height == 2 * count


def test_channels_reach_mem_retrieve(dataset: tuple[Path, Path, int]) -> None:
    sessions, queries, count = dataset
    pages_only = run_retrieval(sessions, queries, ks=(10,), channels=["lexical"]).summary()
    assert pages_only["riko"]["hit@10"] == 0.0  # no pages exist: only raw evidence holds the answers
    assert pages_only["bm25"]["hit@10"] == 1.0


def test_evidence_outside_the_user_turns_is_reported_unreachable(dataset: tuple[Path, Path, int],
                                                                 tmp_path: Path) -> None:
    sessions, queries, _ = dataset
    first = load_queries(queries)[0]
    assistant_turn = (first.evidence[0][0], 1)  # seq 1 of every generated session is an assistant reply
    report = run_retrieval(sessions, [Query("a", first.question, (assistant_turn,))], ks=(5,))
    assert report.setup["unreachable_evidence"] == 1
    assert report.summary()["riko"]["hit@5"] == 0.0
    data = report.to_dict()
    assert data["ks"] == [5] and data["rows"][0]["id"] == "a"


def test_retrieval_command_prints_both_systems(dataset: tuple[Path, Path, int], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from riko.cli import eval as cli_eval
    from riko.cli import main as cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "eval" not in sub.choices:
        cli_eval.register(sub)
    sessions, queries, count = dataset
    out = tmp_path / "report.json"
    args = parser.parse_args(["eval", "retrieval", "--sessions", str(sessions), "--queries", str(queries),
                              "--k", "1,3", "--json", "--out", str(out)])
    assert cli.COMMANDS["eval"](args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary["summary"]) == {"riko", "bm25"} and summary["ks"] == [1, 3]
    assert "hit@3" in summary["summary"]["riko"] and "rows" not in summary
    assert len(json.loads(out.read_text())["rows"]) == 2 * count
