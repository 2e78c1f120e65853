"""Dataset runs in the shared layout: the loader, RealMem's earlier-sessions rule, the metric
arithmetic, the baselines and the ``riko eval retrieval --dataset`` command, on generated data."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from riko.errors import ConfigError, IngestError
from riko.evaluation.datasets import load_dataset, run_dataset, summarize
from riko.evaluation.datasets_systems import fuse
from riko.evaluation.retrieval import Bm25Baseline, evidence_ranks, ndcg_gain, percentile

REPO = Path(__file__).resolve().parents[2]


def turn(session: str, seq: int, text: str, dialog: Any, speaker: str | None = "Ann",
         time: str | None = "2024-01-05T10:00:00") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "text": text, "dialogId": dialog}
    if speaker is not None:
        message["speaker"] = speaker
    return {"sessionId": session, "seq": seq, "time": time, "type": "user/message", "data": {"message": message}}


def write_set(root: Path, conversations: dict[str, dict[str, list[dict]]], queries: list[dict]) -> Path:
    for conv, sessions in conversations.items():
        folder = root / "sessions" / conv
        folder.mkdir(parents=True)
        for name, lines in sessions.items():
            (folder / f"{name}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                                  encoding="utf-8")
    (root / "queries.jsonl").write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries),
                                        encoding="utf-8")
    return root


FILLER = ["how was your weekend", "pretty quiet, some reading", "did you watch the match", "no, I was too tired",
          "lets talk tomorrow", "sure, good night"]


def chat_session(name: str, day: int, facts: list[tuple[str, str, str]], *, null_time: bool = False) -> list[dict]:
    """Filler turns with the given (dialogId, speaker, text) facts in between; ids D<day>:<n>."""
    lines, n = [], 0
    for i, filler in enumerate(FILLER):
        n += 1
        lines.append(turn(name, len(lines), filler, f"D{day}:{n}", "Ann" if i % 2 else "Bob",
                          f"2024-01-{day:02d}T10:{i:02d}:00"))
        if i < len(facts):
            dialog, speaker, text = facts[i]
            lines.append(turn(name, len(lines), text, dialog, speaker,
                              None if null_time else f"2024-01-{day:02d}T10:{i:02d}:30"))
    return lines


@pytest.fixture(scope="module")
def chat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two conversations (one English, one Chinese without speakers), an abstention, a multi-evidence question."""
    one = {
        "session_1": chat_session("session_1", 1, [("F1", "Ann", "I adopted a grey kitten and named her Pistachio"),
                                                   ("F2", "Bob", "My sister moved to Reykjavik for a geology job")]),
        "session_2": chat_session("session_2", 2, [("F3", "Ann", "I started taking saxophone lessons on Tuesdays")],
                                  null_time=True),
        "session_10": chat_session("session_10", 10, [("F4", "Bob", "The saxophone teacher is called Marguerite")]),
    }
    two = {"messages": [turn("messages", 0, "我将要参加金融科技精英论坛。", 0, None),
                        turn("messages", 1, "论坛的地点是杭州西湖国宾馆。", 1, None),
                        turn("messages", 2, "今天天气很好。", 2, None)]}
    queries = [
        {"id": "c1:q0", "conversation": "Chat_1", "question": "What did Ann name the kitten she adopted?",
         "category": 1, "evidence": ["F1"]},
        {"id": "c1:q1", "conversation": "Chat_1", "question": "Where did Bob's sister move for geology?",
         "category": 1, "evidence": ["F2"]},
        {"id": "c1:q2", "conversation": "Chat_1", "question": "Who teaches Ann saxophone lessons?",
         "category": 3, "evidence": ["F3", "F4"]},
        {"id": "c1:q3", "conversation": "Chat_1", "question": "What is Bob's favourite opera?",
         "category": 3, "evidence": []},
        {"id": "c2:q0", "conversation": "中文", "question": "金融科技精英论坛的地点在哪里？",
         "category": "01_simple", "evidence": [1, 0]},
    ]
    return write_set(tmp_path_factory.mktemp("chat"), {"Chat_1": one, "中文": two}, queries)


@pytest.fixture(scope="module")
def realmem(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three sessions; the same question asked inside session 1 and inside session 2."""
    sessions = {
        "s000_aa": [turn("s000_aa", 0, "Can you plan my hiking trip?", "aa:0", "User", "2025-12-01"),
                    turn("s000_aa", 1, "Sure, which mountains?", "aa:1", "Assistant", "2025-12-01")],
        "s001_bb": [turn("s001_bb", 0, "My budget for the hiking trip is strictly 400 euros", "bb:0", "User",
                         "2025-12-03"),
                    turn("s001_bb", 1, "Noted: 400 euros for the hiking trip.", "bb:1", "Assistant", "2025-12-03")],
        "s002_cc": [turn("s002_cc", 0, "What was my hiking trip budget again?", "cc:0", "User", "2025-12-09")],
    }
    question = "What budget did I set for the hiking trip?"
    queries = [
        {"id": "early", "conversation": "P", "question": question, "category": "Dynamic", "evidence": ["bb:0"],
         "query_session": "s001_bb", "query_session_index": 1},
        {"id": "late", "conversation": "P", "question": question, "category": "Dynamic", "evidence": ["bb:0"],
         "query_session": "s002_cc", "query_session_index": 2},
        {"id": "first", "conversation": "P", "question": "Which mountains for the hiking trip?",
         "category": "Temporal", "evidence": ["aa:1"], "query_session": "s000_aa", "query_session_index": 0},
    ]
    return write_set(tmp_path_factory.mktemp("realmem"), {"P": sessions}, queries)


# -- metric arithmetic -------------------------------------------------------------------------------
def test_summary_metrics_match_hand_computed_values() -> None:
    records = [
        {"id": "a", "category": "x", "ranks": {"s": [1]}, "latency_ms": {"s": 4.0}},
        {"id": "b", "category": "x", "ranks": {"s": [3, None]}, "latency_ms": {"s": 1.0}},
        {"id": "c", "category": "y", "ranks": {"s": [None]}, "latency_ms": {"s": 3.0}},
        {"id": "d", "category": "y", "ranks": {"s": [7, 30, 12]}, "latency_ms": {"s": 2.0}},
    ]
    m = summarize(records, "s")
    assert m["queries"] == 4
    assert (m["hit@1"], m["hit@5"], m["hit@10"]) == (0.25, 0.5, 0.75)
    assert m["frac@5"] == float(Fraction(3, 8))  # (1 + 1/2 + 0 + 0) / 4
    assert m["frac@10"] == float(Fraction(11, 24))  # (1 + 1/2 + 0 + 1/3) / 4
    assert m["frac@25"] == float(Fraction(13, 24))  # (1 + 1/2 + 0 + 2/3) / 4
    assert m["frac@50"] == float(Fraction(5, 8))
    assert m["mrr"] == float(Fraction(31, 84))  # (1 + 1/3 + 0 + 1/7) / 4
    ndcg_b = (1 / math.log2(4)) / (1 + 1 / math.log2(3))
    ndcg_d = (1 / math.log2(8)) / (1 + 1 / math.log2(3) + 1 / math.log2(4))
    assert m["ndcg@10"] == pytest.approx((1 + ndcg_b + 0 + ndcg_d) / 4, abs=1e-15)
    assert (m["latency_p50_ms"], m["latency_p95_ms"]) == (2.5, 4.0)
    assert summarize(records, "other") == {}


def test_rank_helpers() -> None:
    assert evidence_ranks(["b", "a", "b", "c"], ["c", "x", "c"]) == [3, None]
    assert evidence_ranks([], ["a"]) == [None]
    assert ndcg_gain([1, 2]) == 1.0 and ndcg_gain([None]) == 0.0
    assert ndcg_gain([11]) == 0.0 and ndcg_gain([2]) == pytest.approx(1 / math.log2(3))
    assert percentile([5, 1, 4, 2, 3], 0.5) == 3 and percentile(list(range(1, 21)), 0.95) == 19
    assert percentile([7], 0.95) == 7
    with pytest.raises(ValueError):
        ndcg_gain([])
    # RRF k=60: a = 1/61 + 1/63, b = 1/62 + 1/61, c = 1/63, d = 1/62
    assert fuse([["a", "b", "c"], ["b", "d", "a"]], 10) == ["b", "a", "d", "c"]
    assert fuse([["a"], ["b"]], 1) == ["a"]  # a tie keeps the first list's order


def test_stemmed_bm25s_matches_inflections() -> None:
    texts = ["Ann: I adopted two kittens", "Bob: the weather was bad", "Ann: 我在南锣鼓巷买了花瓶"]
    stemmed = Bm25Baseline(["a", "b", "c"], texts, stem=True)
    plain = Bm25Baseline(["a", "b", "c"], texts)
    assert stemmed.search("adopting a kitten", 3) == ["a"]
    assert plain.search("adopting a kitten", 3) == []
    assert stemmed.search("花瓶", 3) == ["c"]
    assert Bm25Baseline([], [], stem=True).search("anything", 5) == []


# -- loader ------------------------------------------------------------------------------------------
def test_loader_orders_sessions_naturally_and_fills_speakers_and_times(chat: Path) -> None:
    data = load_dataset(chat)
    conv = data.conversations["Chat_1"]
    assert [s.name for s in conv.sessions] == ["session_1", "session_2", "session_10"]
    first = conv.sessions[0].turns[1]
    assert (first.dialog_id, first.passage) == ("F1", "Ann: I adopted a grey kitten and named her Pistachio")
    times = [t.time_ms for t in conv.sessions[1].turns]
    assert times == sorted(times) and len(set(times)) == len(times)  # null times keep their order
    zh = data.conversations["中文"].turns()
    assert [t.dialog_id for t in zh] == ["0", "1", "2"] and zh[0].passage.startswith("user: ")
    assert [q.evidence for q in data.queries][-1] == ("1", "0")
    assert [q.visible for q in data.queries] == [3, 3, 3, 3, 1]
    assert [q.category for q in data.queries][:1] == ["1"]
    assert list(load_dataset(chat, max_conversations=1).conversations) == ["Chat_1"]
    assert [q.id for q in load_dataset(chat, conversations=["中文"]).queries] == ["c2:q0"]
    with pytest.raises(ConfigError, match="Chat_9"):
        load_dataset(chat, conversations=["Chat_9"])


def test_realmem_visible_sessions_come_from_the_query_session(realmem: Path) -> None:
    assert [q.visible for q in load_dataset(realmem).queries] == [1, 2, 0]


@pytest.mark.parametrize(("target", "content", "message"), [
    ("sessions/C/s1.jsonl", '{"sessionId": "s1", "seq": 0, "time": null, "type": "user/message", '
                            '"data": {"message": {"text": "hi", "dialogId": "a"}}}\n{oops\n', r"s1\.jsonl:2: not JSON"),
    ("sessions/C/s1.jsonl", '{"seq": 0, "time": null, "data": {"message": {"text": "hi"}}}\n',
     r"s1\.jsonl:1: a turn needs a dialogId"),
    ("sessions/C/s1.jsonl", '{"seq": 0, "time": "yesterday", "data": {"message": {"text": "x", "dialogId": 1}}}\n',
     r"s1\.jsonl:1: time must be an ISO time"),
    ("sessions/C/s1.jsonl", '{"seq": 1, "time": null, "data": {"message": {"text": "x", "dialogId": 1}}}\n'
                            '{"seq": 1, "time": null, "data": {"message": {"text": "y", "dialogId": 2}}}\n',
     r"s1\.jsonl:2: seq 1 does not follow 1"),
    ("queries.jsonl", '{"id": "q", "conversation": "C", "question": "x", "evidence": "a"}\n',
     r"queries\.jsonl:1: 'evidence' must be a list"),
    ("queries.jsonl", '\n{"id": "q", "conversation": "Z", "question": "x", "evidence": []}\n',
     r"queries\.jsonl:2: conversation 'Z' has no folder"),
    ("queries.jsonl", '{"id": "q", "conversation": "C", "question": "x", "evidence": [], "query_session": "s9"}\n',
     r"queries\.jsonl:1: query_session 's9' is not a session"),
    ("queries.jsonl", '{"id": "q", "conversation": "C", "question": "x", "evidence": [], "query_session": "s1", '
                      '"query_session_index": 3}\n', r"queries\.jsonl:1: query_session_index 3 disagrees"),
])
def test_defects_are_ingest_errors_naming_file_and_line(tmp_path: Path, target: str, content: str,
                                                        message: str) -> None:
    write_set(tmp_path, {"C": {"s1": [turn("s1", 0, "hello", "a")]}}, [])
    (tmp_path / target).write_text(content, encoding="utf-8")
    with pytest.raises(IngestError, match=message):
        load_dataset(tmp_path)


def test_missing_parts_of_a_dataset_are_named(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no such dataset folder"):
        load_dataset(tmp_path / "absent")
    (tmp_path / "d").mkdir()
    with pytest.raises(IngestError, match="sessions/ folder"):
        load_dataset(tmp_path / "d")
    (tmp_path / "d" / "sessions").mkdir()
    with pytest.raises(IngestError, match=r"queries\.jsonl: missing dataset file"):
        load_dataset(tmp_path / "d")


# -- runs --------------------------------------------------------------------------------------------
def test_lexical_run_ranks_every_question_and_lists_abstentions(chat: Path, tmp_path: Path) -> None:
    report = run_dataset(chat, dense=False, work_dir=tmp_path, progress=False)
    assert report.systems == ("riko", "bm25s")
    assert report.abstentions == ["c1:q3"] and report.setup["ranked"] == 4
    assert [r["id"] for r in report.records] == ["c1:q0", "c1:q1", "c1:q2", "c2:q0"]
    ranks = {r["id"]: r["ranks"] for r in report.records}
    assert ranks["c1:q0"]["bm25s"] == [1] and ranks["c1:q1"]["bm25s"] == [1]
    assert ranks["c1:q0"]["riko"][0] is not None and ranks["c1:q0"]["riko"][0] <= 3
    assert sorted(ranks["c2:q0"]["bm25s"]) == [1, 2]  # CJK bigrams: both forum lines before the weather
    summary = report.summary()
    assert summary["bm25s"]["hit@10"] == 1.0 and summary["riko"]["hit@10"] == 1.0
    assert set(report.by_category()) == {"1", "3", "01_simple"}
    assert all(r["latency_ms"]["riko"] > 0 for r in report.records)
    text = report.text()
    assert "vs bm25s" in text and "category 01_simple" in text and "1 abstentions counted" in text
    limited = run_dataset(chat, systems=["bm25s"], limit=2, progress=False)
    assert [r["id"] for r in limited.records] == ["c1:q0", "c1:q1"] and limited.systems == ("bm25s",)
    with pytest.raises(ConfigError, match="no system left"):
        run_dataset(chat, systems=["e5"], dense=False)
    with pytest.raises(ConfigError, match="already holds a scope"):
        run_dataset(chat, dense=False, work_dir=tmp_path, progress=False)  # never reuse a filled memory


def test_a_question_never_sees_its_own_or_a_later_session(realmem: Path, tmp_path: Path) -> None:
    report = run_dataset(realmem, dense=False, work_dir=tmp_path / "w", progress=False)
    ranks = {r["id"]: r["ranks"] for r in report.records}
    # asked inside s001: the turn it cites is in its own session, so it must not be found yet
    assert ranks["early"] == {"riko": [None], "bm25s": [None]}
    assert ranks["late"]["bm25s"] == [1] and ranks["late"]["riko"][0] is not None
    assert ranks["first"] == {"riko": [None], "bm25s": [None]}  # nothing precedes the first session
    assert report.setup["unreachable_evidence"] == 2
    assert [r["visible_sessions"] for r in report.records] == [1, 2, 0]
    # the riko scope ends with exactly the sessions before the last question's session
    import riko

    with riko.open(tmp_path / "w" / "riko" / "00001" / "memory", preset="retrieval", read_only=True) as mem:
        assert sorted(mem.sessions()["session_id"].to_list()) == ["s000_aa", "s001_bb"]


def test_dense_systems_run_with_a_deterministic_model_and_reuse_the_cache(chat: Path, tmp_path: Path) -> None:
    from riko.dense.providers import DeterministicProvider

    cache = tmp_path / "vectors"
    first = run_dataset(chat, provider=DeterministicProvider(64), vector_cache=cache, progress=False)
    assert first.systems == ("riko", "riko+e5", "bm25s", "e5", "rrf")
    distinct = {t.passage for c in load_dataset(chat).conversations.values() for t in c.turns()}
    assert first.setup["embedded_passages"] == len(distinct) == 13  # each distinct passage once, for both e5 systems
    for record in first.records:
        assert set(record["ranks"]) == set(first.systems)
        assert record["latency_ms"]["rrf"] >= record["latency_ms"]["bm25s"]
    summary = first.summary()
    assert summary["rrf"]["hit@10"] == 1.0 and summary["e5"]["queries"] == 4
    again = run_dataset(chat, provider=DeterministicProvider(64), vector_cache=cache, progress=False)
    assert again.setup["embedded_passages"] == 0
    assert [r["ranks"] for r in again.records] == [r["ranks"] for r in first.records]


def test_local_fast_runs_only_when_named_and_ranks_with_its_own_model(chat: Path, tmp_path: Path) -> None:
    """``riko+fast`` puts the embedded USE model where e5 would be: not in a default run, and its
    vectors are cached apart from e5's (a different model, a different dimension)."""
    from riko.dense.providers import USEProvider
    from riko.dense.text_cache import PassageCache

    report = run_dataset(chat, systems=["riko", "riko+fast"], vector_cache=tmp_path / "v", progress=False)
    assert report.systems == ("riko", "riko+fast")
    assert all(set(r["ranks"]) == {"riko", "riko+fast"} for r in report.records)
    assert report.summary()["riko+fast"]["queries"] == 4
    cached = PassageCache(tmp_path / "v", USEProvider.model, USEProvider.dimension)
    distinct = {t.passage for c in load_dataset(chat).conversations.values() for t in c.turns()}
    assert len(cached) == len(distinct) and all(v is not None and v.shape == (512,) for v in cached.get(sorted(distinct)))
    with pytest.raises(ConfigError, match="unknown system.*riko\\+fast"):
        run_dataset(chat, systems=["riko+slow"], progress=False)


# -- command line ------------------------------------------------------------------------------------
def riko_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "riko", *args], capture_output=True, text=True, env=env,
                          timeout=300, check=False)


def test_command_writes_per_question_records(chat: Path, tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    done = riko_cli("eval", "retrieval", "--dataset", str(chat), "--json", str(out), "--no-dense")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no progress when stderr is not a terminal
    assert "vs bm25s" in done.stdout and str(out) in done.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["systems"] == ["riko", "bm25s"] and data["abstentions"] == {"count": 1, "ids": ["c1:q3"]}
    record = data["records"][0]
    assert set(record) >= {"id", "category", "evidence", "ranks", "latency_ms"}
    assert record["evidence"] == ["F1"] and record["ranks"]["bm25s"] == [1]

    dense = riko_cli("eval", "retrieval", "--dataset", str(chat), "--embedding", "deterministic",
                     "--vector-cache", str(tmp_path / "v"), "--systems", "riko+e5,rrf", "--json")
    assert dense.returncode == 0, dense.stderr
    printed = json.loads(dense.stdout)
    assert list(printed["summary"]) == ["riko+e5", "rrf"] and printed["summary"]["rrf"]["hit@10"] == 1.0

    bad = riko_cli("eval", "retrieval", "--dataset", str(tmp_path / "nowhere"))
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "no such dataset folder" in bad.stderr


def test_roles_index_assistant_turns_as_the_assistants_and_group_questions(tmp_path: Path) -> None:
    """--roles all stores an Assistant turn as the assistant's message and ranks it; --roles user
    leaves it out everywhere; questions are grouped by evidence speaker and gold-memory role."""
    sessions = {
        "s000_aa": [turn("s000_aa", 0, "Plan a cycling trip from Chengdu please", "aa:0", "User", "2025-12-01"),
                    turn("s000_aa", 1, "Day one ends in Yaan after sixty kilometres of riding", "aa:1", "Assistant",
                         "2025-12-01")],
        "s001_bb": [turn("s001_bb", 0, "My bike is a steel touring frame from Surly", "bb:0", "User", "2025-12-03"),
                    turn("s001_bb", 1, "Good choice for rough roads.", "bb:1", "Assistant", "2025-12-03")],
        "s002_cc": [turn("s002_cc", 0, "Remind me about the trip", "cc:0", "User", "2025-12-09")],
    }
    queries = [
        {"id": "P:Q-1", "conversation": "P", "question": "Where does day one end after sixty kilometres?",
         "evidence": ["aa:1"], "query_session": "s002_cc"},
        {"id": "P:Q-2", "conversation": "P", "question": "What frame is my touring bike?",
         "evidence": ["bb:0"], "query_session": "s002_cc"},
    ]
    root = write_set(tmp_path / "set", {"P": sessions}, queries)
    memories = [{"conversation": "P", "content": "Day one ends in Yaan.", "role": "Assistant", "dialogId": "aa:1"},
                {"conversation": "P", "content": {"bike": "Surly steel"}, "role": "User", "dialogId": "bb:0"}]
    (root / "memories.jsonl").write_text("".join(json.dumps(m) + "\n" for m in memories), encoding="utf-8")
    (root / "queries_memory_used.jsonl").write_text(
        json.dumps({"id": "P:Q-1", "memory_used": ["Day one ends in Yaan."]}) + "\n"
        + json.dumps({"id": "P:Q-2", "memory_used": [{"bike": "Surly steel"}]}) + "\n", encoding="utf-8")
    both = run_dataset(root, dense=False, work_dir=tmp_path / "all", progress=False)
    user = run_dataset(root, dense=False, work_dir=tmp_path / "user", progress=False, roles="user")
    ranks = {r["id"]: r["ranks"] for r in both.records}
    assert ranks["P:Q-1"]["riko"] == [1] and ranks["P:Q-1"]["bm25s"] == [1]
    assert {r["id"]: r["ranks"]["riko"] for r in user.records} == {"P:Q-1": [None], "P:Q-2": [1]}
    assert user.setup["unreachable_evidence"] == 1 and both.setup["unreachable_evidence"] == 0
    groups = {r["id"]: r["roles"] for r in both.records}
    assert groups == {"P:Q-1": {"evidence": "assistant", "memory": "assistant"},
                      "P:Q-2": {"evidence": "user", "memory": "user"}}
    by_role = both.by_role()
    assert by_role["memory"]["assistant"]["riko"]["hit@10"] == 1.0
    assert user.by_role()["memory"]["assistant"]["riko"]["hit@10"] == 0.0
    assert "gold memory: assistant" in both.text()
    import polars as pl

    import riko

    with riko.open(tmp_path / "all" / "riko" / "00001" / "memory", preset="retrieval", read_only=True) as mem:
        lines = mem.evidence().filter(pl.col("session_id") == "s000_aa")
        assert lines.select("type", "is_user").rows() == [("user/message", True), ("assistant/message", False)]
    with pytest.raises(ConfigError, match="roles"):
        run_dataset(root, dense=False, roles="tool")
