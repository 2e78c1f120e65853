"""Which facts a session proposes: a logistic score per fact and a per-session budget."""

from __future__ import annotations

import math

from riko.dream import HeuristicProvider, Transcript, TranscriptLine, parse_file_blocks
from riko.dream import selection
from riko.dream.selection import BUDGET, FEATURES, WEIGHTS, choose, scored_facts

_PLACES = ["Lisbon", "Oslo", "Kyoto", "Quito", "Accra", "Hanoi", "Perth", "Cusco", "Tunis", "Minsk", "Riga", "Sofia",
           "Tallinn", "Vilnius", "Zagreb", "Porto", "Bergen", "Malmo", "Turku", "Gdansk", "Brno", "Graz", "Split",
           "Lyon", "Ghent", "Basel", "Bilbao", "Nantes", "Dijon", "Parma"]
_ZH = ["北京", "上海", "杭州", "成都", "西安", "南京", "苏州", "厦门", "青岛", "大连", "昆明", "长沙", "武汉", "重庆",
       "天津", "沈阳", "郑州", "福州", "合肥", "济南", "太原", "贵阳", "南宁", "兰州"]


def transcript(*lines: tuple[str, str]) -> Transcript:
    return Transcript("s1", tuple(TranscriptLine(i + 1, role, text) for i, (role, text) in enumerate(lines)))


def long_chat() -> Transcript:
    """Two people chatting about thirty trips: far more statements than a session's budget."""
    lines = []
    for i, place in enumerate(_PLACES):
        who = "Mara" if i % 2 else "Theo"
        lines.append(("user", f"{who}: I visited {place} in {2000 + i} and I loved the food there."))
    return transcript(*lines)


def test_the_shipped_constants_fit_the_features():
    assert len(WEIGHTS) == len(FEATURES)
    # the score is the logistic of the weighted features: with none present, the bias alone
    assert selection.probability(tuple(0.0 for _ in FEATURES)) == 1 / (1 + math.exp(-selection.BIAS))
    assert 0.0 < selection.probability(tuple(1.0 for _ in FEATURES)) < 1.0


def test_a_long_chat_proposes_at_most_the_budget_highest_scored_first():
    t = long_chat()
    scored = scored_facts(t)
    assert len(scored) > BUDGET
    kept = choose(scored)
    assert len(kept) == BUDGET
    lowest_kept = min(s.probability for s in kept)
    assert all(s.probability <= lowest_kept for s in scored if s not in kept)
    assert [s.seq for s in kept] == sorted(s.seq for s in kept)  # in the order they were said
    pages = parse_file_blocks(HeuristicProvider().extract(t), max_pages=48, allow_empty=True).pages
    assert len(pages) == BUDGET
    assert all(p.title.startswith(("Mara: ", "Theo: ")) for p in pages)


def test_a_chinese_session_is_bounded_the_same_way():
    t = transcript(*[("user", f"我去年{i + 1}月去了{city}，我很喜欢那里的小吃。") for i, city in enumerate(_ZH)])
    assert len(scored_facts(t)) > BUDGET
    pages = parse_file_blocks(HeuristicProvider().extract(t), max_pages=48, allow_empty=True).pages
    assert len(pages) == BUDGET
    said = "".join(line.text for line in t.lines)
    assert all(p.quote in said for p in pages)  # the speaker's own words


def test_a_short_session_keeps_every_fact():
    t = transcript(("user", "My sister Lena moved to Berlin."), ("assistant", "How does she like it?"),
                   ("user", "She teaches piano at a school there. I work as a nurse in Porto."))
    assert [s.fact.text for s in choose(scored_facts(t))] == [
        "My sister Lena moved to Berlin", "Lena teaches piano at a school there", "I work as a nurse in Porto"]


def test_a_repeated_statement_is_proposed_once():
    t = transcript(("user", "I work as a nurse in Porto."), ("assistant", "Nice."), ("user", "I work as a nurse in Porto."))
    assert [s.fact.text for s in choose(scored_facts(t))] == ["I work as a nurse in Porto"]


def test_the_other_side_having_asked_is_a_feature_in_both_languages():
    asked = FEATURES.index("asked")
    t = transcript(("assistant", "Where do you live?"), ("user", "I live in Porto."),
                   ("assistant", "Nice."), ("user", "I work as a nurse."))
    assert [s.features[asked] for s in scored_facts(t)] == [1.0, 0.0]
    zh = transcript(("assistant", "你住在哪里？"), ("user", "我住在杭州，我在一家医院工作。"))
    assert [s.features[asked] for s in scored_facts(zh)] == [1.0, 1.0]
    # in a multi-party log the other side is another speaker, not the same one going on
    multi = transcript(("user", "Mara: Where do you live?"), ("user", "Theo: I live in Porto."),
                       ("user", "Theo: Are you coming? I work as a nurse at the harbour clinic."))
    assert [s.features[asked] for s in scored_facts(multi)] == [1.0, 0.0]


def test_the_budget_and_weights_are_read_when_called(monkeypatch):
    t = long_chat()
    monkeypatch.setattr(selection, "BUDGET", 3)
    assert len(choose(scored_facts(t))) == 3
    monkeypatch.setattr(selection, "WEIGHTS", (0.0,) * len(FEATURES))
    monkeypatch.setattr(selection, "BIAS", 0.0)
    assert {s.probability for s in scored_facts(t)} == {0.5}
    # equal scores: the earliest statements win
    assert [s.seq for s in choose(scored_facts(t))] == [1, 2, 3]
