"""Memory quality: the fact-level scoring rule, the Dream run over a dataset folder and the
``riko eval dream`` command, on generated data in the shared layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from riko.evaluation.dream_quality import gold_points, near_duplicates, run_dream_quality
from riko.evaluation.datasets import load_dataset
from riko.evaluation.memory_score import (
    Cited,
    GoldPoint,
    baseline_first_person,
    baseline_whole_turns,
    content_words,
    score,
    speaker_names,
    word_count,
)

REPO = Path(__file__).resolve().parents[2]


def gold(text: str, *turns: str, conv: str = "c", kind: str = "Static") -> GoldPoint:
    return GoldPoint(conv, frozenset(turns), text, kind, "User")


def cited(text: str, *turns: str, conv: str = "c") -> Cited:
    return Cited(conv, frozenset(turns), text)


# -- the rule ---------------------------------------------------------------------------------------
def test_content_words_stem_and_drop_stopwords_short_words_and_speaker_names() -> None:
    names = speaker_names("Ann Marie") | speaker_names("Bob")
    assert names == {"ann", "marie", "bob"}
    assert content_words("Ann really likes the kittens she adopted; Bob has one too", names) == {
        "like", "kitten", "adopt", "too"}
    assert content_words("I was very good at it, yeah") == set()   # stopwords and words under 3 letters
    # inner ' and - are kept, the stemmer then drops a possessive; length counts before stemming
    assert content_words("It's Lena's 2024 plan-B") == {"it", "lena", "2024", "plan-b"}


def test_a_gold_point_is_recalled_by_half_its_words_jointly_across_proposals() -> None:
    point = gold("adopted grey kitten Pistachio", "t1")  # four content words
    half = score([cited("a grey kitten", "t1")], {"c": [point]}, {}, 10)
    assert (half.gold, half.recalled) == (1, 1)
    less = score([cited("a kitten", "t1")], {"c": [point]}, {}, 10)
    assert less.recalled == 0
    joint = score([cited("a kitten", "t1"), cited("named Pistachio", "t1")], {"c": [point]}, {}, 10)
    assert joint.recalled == 1  # two proposals citing the turn hold two of four words together
    elsewhere = score([cited("a grey kitten", "t2")], {"c": [point]}, {}, 10)
    assert elsewhere.recalled == 0  # words on another turn do not count


def test_stemming_matches_inflections_both_ways() -> None:
    point = gold("The user adopted two kittens", "t1")
    result = score([cited("I'm adopting a kitten", "t1")], {"c": [point]}, {}, 4)
    assert result.recalled == 1 and result.precise == 1


def test_speaker_names_count_neither_for_recall_nor_precision() -> None:
    point = gold("Ann adopted a kitten", "t1")
    names = {"c": speaker_names("Ann")}
    result = score([cited("Ann Ann Ann: kitten", "t1")], {"c": [point]}, names, 4)
    assert result.gold_rows[0]["words"] == ["adopt", "kitten"]
    assert result.recalled == 1 and result.precise == 1  # "kitten" is half of the point; all of the proposal


def test_a_whole_turn_quote_earns_recall_but_no_precision() -> None:
    turn = ("Ugh, what a week. Traffic was awful, the meeting ran late, lunch got cancelled, and anyway I "
            "adopted a grey kitten called Pistachio on Sunday.")
    point = gold("User adopted a grey kitten named Pistachio", "t1")
    whole = score([cited(turn, "t1")], {"c": [point]}, {}, 2)
    assert whole.recall == 1.0 and whole.precision == 0.0
    atomic = score([cited("adopted a grey kitten called Pistachio", "t1")], {"c": [point]}, {}, 2)
    assert atomic.recall == 1.0 and atomic.precision == 1.0
    assert len(whole.proposal_rows[0]["unmatched"]) > 5 and atomic.proposal_rows[0]["unmatched"] == ["call"]


def test_precision_needs_half_of_the_proposals_words_in_the_cited_turns_gold() -> None:
    points = {"c": [gold("kitten Pistachio", "t1"), gold("sister lives Berlin", "t2")]}
    result = score([cited("kitten sister Berlin", "t1"), cited("kitten sister Berlin", "t1", "t2"),
                    cited("kitten", "t3"), cited("kitten")], points, {}, 8)
    assert [r["precise"] for r in result.proposal_rows] == [False, True, False, False]
    assert result.proposals == 4 and result.precision == 0.25


def test_counts_rates_and_what_is_left_out() -> None:
    points = {"c": [gold("kitten Pistachio", "t1"), gold("yeah okay", "t1")], "d": [gold("sister Berlin", "t9", conv="d")]}
    props = [cited("kitten Pistachio", "t1"), cited("sister in Berlin", "t9", conv="d"),
             cited("something", "t1", conv="no-gold")]
    result = score(props, points, {}, 200)
    assert result.gold == 2  # a point without content words is left out
    assert result.proposals == 2  # a conversation without gold points does not count
    assert result.per_100_turns == 1.0 and result.f1 == 1.0
    assert result.words == [2, 3] and result.median_words == 2.5


def test_per_type_figures() -> None:
    points = {"c": [gold("kitten Pistachio", "t1", kind="Static"), gold("trip Kyoto April", "t2", kind="Schedule")]}
    result = score([cited("kitten Pistachio", "t1"), cited("the weather", "t2")], points, {}, 2)
    types = result.by_type()
    assert types["Static"]["fact_recall"] == 1.0 and types["Static"]["precision"] == 1.0
    assert types["Schedule"]["fact_recall"] == 0.0 and types["Schedule"]["proposals"] == 1
    assert types["Schedule"]["precision"] == 0.0


def test_baselines() -> None:
    turns = [("c", "t1", "user", "Hi there. I adopted a grey kitten last week! Cute."),
             ("c", "t2", "assistant", "I love kittens, my friend."), ("c", "t3", "Ann", "We went to Kyoto\nok")]
    assert [(p.text, set(p.turns)) for p in baseline_first_person(turns)] == [
        ("I adopted a grey kitten last week!", {"t1"}), ("We went to Kyoto", {"t3"})]
    assert [p.text for p in baseline_whole_turns(turns)] == [turns[0][3], turns[2][3]]
    zh = baseline_first_person([("c", "0", "user", "我妹妹住在柏林。今天好。")], cjk=True)
    assert [p.text for p in zh] == ["我妹妹住在柏林。"]


def test_chinese_is_compared_by_character_bigrams_when_asked() -> None:
    assert content_words("我妹妹住在柏林。") == set()
    assert {"柏林", "妹妹"} <= content_words("我妹妹住在柏林。", cjk=True)
    assert word_count("我妹妹住在柏林 in 2024") == 9


# -- generated sets in the shared layout ------------------------------------------------------------
def turn(session: str, seq: int, text: str, dialog: Any, speaker: str) -> dict[str, Any]:
    return {"sessionId": session, "seq": seq, "time": f"2024-01-0{1 + seq % 9}T10:00:00", "type": "user/message",
            "data": {"message": {"role": "user", "speaker": speaker, "text": text, "dialogId": dialog}}}


def write(root: Path, sessions: dict[str, dict[str, list[tuple[str, str, str]]]], **files: list[dict]) -> Path:
    for conv, by_name in sessions.items():
        folder = root / "sessions" / conv
        folder.mkdir(parents=True)
        for name, turns in by_name.items():
            lines = [turn(name, i, text, dialog, speaker) for i, (dialog, speaker, text) in enumerate(turns)]
            (folder / f"{name}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                                  encoding="utf-8")
    files.setdefault("queries", [])
    for name, rows in files.items():
        (root / f"{name}.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows),
                                            encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def realmem_like(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sessions = {"P": {
        "s000_aa": [("aa:0", "user", "I love hiking in the Alps with my sister Lena."),
                    ("aa:1", "assistant", "Hiking in the Alps sounds lovely; I can suggest trails."),
                    ("aa:2", "user", "Can you explain how compound interest works?")],
        "s001_bb": [("bb:0", "user", "My budget for the trip is 400 euros."),
                    ("bb:1", "assistant", "Noted, 400 euros. The Zermatt route fits that budget.")],
    }, "Q": {"s000_cc": [("cc:0", "user", "I work as a nurse in Leeds."), ("cc:1", "assistant", "Thanks!")]}}
    memories = [
        {"conversation": "P", "sessionId": "s000_aa", "dialogId": "aa:0", "type": "Static",
         "content": "【Hobbies】 User loves hiking in the Alps.", "role": "User"},
        {"conversation": "P", "sessionId": "s001_bb", "dialogId": "bb:0", "type": "Dynamic",
         "content": "【Trip】 Trip budget: 400 euros.", "role": "User"},
        {"conversation": "P", "sessionId": "s001_bb", "dialogId": "bb:1", "type": "Dynamic",
         "content": "【Trip】 Suggested route: Zermatt.", "role": "Assistant"},
        {"conversation": "P", "sessionId": "s001_bb", "dialogId": None, "type": "Dynamic",
         "content": "【Trip】 A point whose turn was not found.", "role": "User"},
        {"conversation": "Q", "sessionId": "s000_cc", "dialogId": "cc:0", "type": "Static",
         "content": "【Work】 User works as a nurse in Leeds.", "role": "User"},
    ]
    return write(tmp_path_factory.mktemp("realmem"), sessions, memories=memories)


@pytest.fixture(scope="module")
def realtalk_like(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sessions = {"Chat_1_Ann_Bob": {
        "session_1": [("D1:1", "Ann", "I adopted a grey kitten called Pistachio yesterday!"),
                      ("D1:2", "Bob Stone", "Congrats! I started learning the saxophone this week."),
                      ("D1:3", "Ann", "How is the saxophone going?")],
        "session_2": [("D2:1", "Bob Stone", "I moved to Reykjavik for a geology job."),
                      ("D2:2", "Ann", "Wow, that is far.")],
    }}
    events = [
        {"conversation": "Chat_1_Ann_Bob", "sessionId": "session_1", "speaker": "Ann",
         "event": "Ann adopted a grey kitten named Pistachio.", "date": None},
        {"conversation": "Chat_1_Ann_Bob", "sessionId": "session_1", "speaker": "Bob Stone",
         "event": "Bob began saxophone lessons.", "date": None},
        {"conversation": "Chat_1_Ann_Bob", "sessionId": "session_2", "speaker": "Bob Stone",
         "event": "Bob relocated to Reykjavik for work in geology.", "date": None},
        {"conversation": "Chat_1_Ann_Bob", "sessionId": "session_2", "speaker": "Ann",
         "event": "Ann was surprised by the distance.", "date": None},
    ]
    return write(tmp_path_factory.mktemp("realtalk"), sessions, session_events=events)


@pytest.fixture(scope="module")
def memdaily_like(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sessions = {"01_simple_events-0": {"messages": [
        ("0", "user", "我将要参加金融科技精英论坛。"), ("1", "user", "论坛的地点是杭州。"), ("2", "user", "今天天气很好。")]}}
    queries = [{"id": "q0", "conversation": "01_simple_events-0", "question": "论坛在哪里？", "category": "01_simple",
                "evidence": ["1"]},
               {"id": "q1", "conversation": "01_simple_events-0", "question": "论坛在哪个城市？", "category": "01_simple",
                "evidence": ["1", "0"]}]
    return write(tmp_path_factory.mktemp("memdaily"), sessions, queries=queries)


def test_gold_of_each_kind(realmem_like: Path, realtalk_like: Path, memdaily_like: Path) -> None:
    kind, points = gold_points(load_dataset(realmem_like))
    assert kind == "memories" and len(points) == 4  # the point without a turn is left out
    assert points[0].text == "User loves hiking in the Alps." and points[0].type == "Static"
    assert {p.role for p in points} == {"User", "Assistant"}
    kind, points = gold_points(load_dataset(realtalk_like))
    assert kind == "events" and [sorted(p.turns) for p in points] == [["D1:1", "D1:3"], ["D1:2"], ["D2:1"], ["D2:2"]]
    kind, points = gold_points(load_dataset(memdaily_like))
    assert kind == "evidence" and [sorted(p.turns) for p in points] == [["1"], ["0"]]  # each turn once


def test_dream_run_on_a_user_assistant_set(realmem_like: Path, tmp_path: Path) -> None:
    report = run_dream_quality(realmem_like, work_dir=tmp_path / "work", progress=False)
    assert list(report.scores) == ["User", "Assistant"]
    assert list(report.scores["User"]) == ["riko", "first-person", "whole-turns"]
    user = report.scores["User"]
    assert user["riko"].gold == 3 and user["riko"].turns == 7
    # the hiking statement is proposed from its own turn and recalls its point
    rows = {tuple(r["turns"]): r for r in user["riko"].gold_rows}
    assert rows[("aa:0",)]["recalled"]
    hiking = [p for p in report.proposals["riko"] if p.turns == {"aa:0"}]
    assert hiking and "hiking" in hiking[0].text.lower() and hiking[0].info["speakers"] == ["user"]
    # assistant turns are never quoted by riko or the baselines
    assert not any(t.endswith(":1") for p in report.proposals["riko"] for t in p.turns)
    assert all(":1" not in next(iter(p.turns)) for p in report.proposals["whole-turns"])
    assert user["whole-turns"].recall == 1.0 and user["whole-turns"].precision < 1.0
    assert report.scores["Assistant"]["riko"].gold == 1
    assert report.setup["sessions"] == 3 and report.setup["dream_seconds"] > 0
    st = report.structure
    assert st["fact_proposals"] == len(report.proposals["riko"]) and 0 <= st["resident_fill_mean"] <= 1
    assert st["graph_nodes"] >= 1 and st["duplicates_by"] == "content words"
    assert "User" in report.text() and "Static" in report.text() and "near-duplicate share" in report.text()


def test_multi_party_proposals_belong_to_their_speaker(realtalk_like: Path, tmp_path: Path) -> None:
    report = run_dream_quality(realtalk_like, progress=False)
    assert list(report.scores) == ["all"]
    riko = report.scores["all"]["riko"]
    assert riko.gold == 4
    by_event = {r["text"]: r for r in riko.gold_rows}
    assert by_event["Ann adopted a grey kitten named Pistachio."]["recalled"]
    kitten = [p for p in report.proposals["riko"] if "kitten" in p.text]
    assert kitten and kitten[0].info["speakers"] == ["Ann"] and kitten[0].turns == {"D1:1"}
    # the reference folder turns each session and speaker into one id
    folder = report.write_reference(tmp_path / "ref")
    gold_lines = [json.loads(x) for x in (folder / "memories.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [g["dialogId"] for g in gold_lines] == ["session_1|Ann", "session_1|Bob Stone", "session_2|Bob Stone",
                                                   "session_2|Ann"]
    assert all(g["role"] == "User" for g in gold_lines)
    riko_lines = [json.loads(x) for x in (folder / "riko.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {"conversation": "Chat_1_Ann_Bob", "dialogIds": ["session_1|Ann"], "text": kitten[0].text} in riko_lines
    assert (folder / "sessions" / "Chat_1_Ann_Bob" / "session_1.jsonl").is_file()
    assert sum(1 for _ in (folder / "whole-turns.jsonl").open()) == 5


def test_chinese_evidence_set_scores_by_bigrams(memdaily_like: Path) -> None:
    report = run_dream_quality(memdaily_like, progress=False)
    assert report.setup["cjk_bigrams"] is True
    whole = report.scores["all"]["whole-turns"]
    assert whole.gold == 2 and whole.recall == 1.0 and whole.precise == 2 and whole.proposals == 3


def test_near_duplicates_need_the_same_subject_and_the_same_words() -> None:
    def p(text: str, slot: str | None, kind: str = "concept") -> Cited:
        return Cited("c", frozenset({"t"}), text, {"slot": slot, "type": kind})

    props = [p("Lena lives in Berlin", "Lena/lives_in"), p("Lena lives in Berlin now", "Lena/lives_in"),
             p("Lena lives in Berlin", "Lena/works_at"), p("Lena moved to Munich", "Lena/lives_in"),
             p("I like green tea", None), p("I really like green tea", None, "concept")]
    assert near_duplicates(props, {}) == [(0, 1), (4, 5)]
    vectors = {0: [1.0, 0.0], 1: [0.0, 1.0], 2: [1.0, 0.0], 3: [0.2, 0.98], 4: [1.0, 0.0], 5: [0.0, 1.0]}
    assert near_duplicates(props, {}, vectors=vectors) == [(1, 3)]


# -- the command ------------------------------------------------------------------------------------
def riko_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "riko", *args], capture_output=True, text=True, env=env,
                          timeout=300, check=False)


def test_command_prints_the_table_and_writes_records(realmem_like: Path, tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    done = riko_cli("eval", "dream", "--dataset", str(realmem_like), "--json", str(out),
                    "--reference", str(tmp_path / "ref"), "--conversations", "P")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no progress bar when stderr is not a terminal
    assert "first-person" in done.stdout and "whole-turns" in done.stdout and str(out) in done.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["setup"]["conversations"] == 1 and data["summary"]["User"]["riko"]["gold"] == 2
    record = data["records"]["User"]["proposals"][0]
    assert {"conversation", "turns", "text", "precise", "matched", "unmatched", "gold", "status", "type"} <= set(record)
    misses = data["records"]["User"]["misses"]
    assert all(not m["recalled"] and m["missing"] for m in misses)
    assert (tmp_path / "ref" / "riko.jsonl").is_file() and (tmp_path / "ref" / "memories.jsonl").is_file()

    printed = riko_cli("eval", "dream", "--dataset", str(realmem_like), "--max-conversations", "1", "--json",
                       "--e5", "--embedding", "deterministic", "--vector-cache", str(tmp_path / "vectors"))
    assert printed.returncode == 0, printed.stderr
    data = json.loads(printed.stdout)
    assert set(data["summary"]) == {"User", "Assistant"} and data["structure"]["duplicates_by"] == "embeddings"

    bad = riko_cli("eval", "dream", "--dataset", str(tmp_path / "nowhere"))
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "no such dataset folder" in bad.stderr
    unknown = riko_cli("eval", "dream", "--dataset", str(realmem_like), "--conversations", "Z")
    assert unknown.returncode == 2 and "Z" in unknown.stderr
