"""Which facts a session proposes: a logistic score per fact and one threshold, no count per session;
and the content rule automatic admission adds."""

from __future__ import annotations

import math

from riko.dream import HeuristicProvider, Transcript, TranscriptLine, parse_file_blocks
from riko.dream import selection
import pytest

import riko
from riko.dream.selection import FEATURES, THRESHOLD, WEIGHTS, carries_content, choose, scored_facts

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


def _pages(t: Transcript):
    return parse_file_blocks(HeuristicProvider().extract(t), max_pages=48, allow_empty=True).pages


def test_a_long_chat_is_cut_by_the_threshold_not_by_a_count():
    t = long_chat()
    scored = scored_facts(t)
    kept = choose(scored)
    assert {id(s) for s in kept} == {id(s) for s in scored if s.probability >= THRESHOLD}
    assert [s.seq for s in kept] == sorted(s.seq for s in kept)  # in the order they were said
    pages = _pages(t)
    assert len(pages) == len(kept) > 16   # thirty trips, each a fact worth keeping: none cut at an old budget
    assert all(p.title.startswith(("Mara: ", "Theo: ")) for p in pages)


def test_a_session_with_forty_real_facts_proposes_all_forty():
    places = [*_PLACES, "Kyiv", "Lille", "Bonn", "Pisa", "Siena", "Ulm", "Metz", "Aarhus", "Odense", "Tartu"]
    t = transcript(*[("user", f"I lived in {place} for {i + 2} years and worked as a baker there.")
                     for i, place in enumerate(places)])
    assert len(scored_facts(t)) == 40
    assert len(_pages(t)) == 40


def test_a_facts_score_does_not_depend_on_how_many_others_its_session_holds():
    said = "I play clarinet in a community band."
    small_talk = [("user", "Haha nice."), ("user", "That sounds fun!")]
    short = transcript(("user", said))
    long = transcript(*small_talk, ("user", said), *[("user", f"I lived in {place} for two years.") for place in _PLACES])
    alone = next(s for s in scored_facts(short) if s.fact.text == said.rstrip("."))
    among = next(s for s in scored_facts(long) if s.fact.text == said.rstrip("."))
    assert alone.probability == pytest.approx(among.probability)
    assert alone in choose(scored_facts(short)) and among in choose(scored_facts(long))


def test_a_hedged_taste_is_proposed_with_its_hedge():
    for said in ("I probably prefer tea over coffee.", "Maybe I like jazz, but I'm not sure."):
        (scored,) = [s for s in scored_facts(transcript(("user", said))) if s.fact.derived.kind == "preference"]
        assert scored.fact.hedged and scored.probability < THRESHOLD  # its score alone would leave it out
        assert choose([scored]) == [scored]


def test_a_chinese_session_of_many_facts_is_not_cut_at_a_count():
    t = transcript(*[("user", f"我去年{i % 12 + 1}月去了{city}，我很喜欢那里的小吃。") for i, city in enumerate(_ZH)])
    scored = scored_facts(t)
    assert len(scored) > 16
    pages = _pages(t)
    assert len(pages) == len(choose(scored)) > 16   # 我很喜欢那里的小吃 once: a repeat
    said = "".join(line.text for line in t.lines)
    assert all(p.quote in said for p in pages)  # the speaker's own words


def test_a_content_bearing_fact_after_an_old_budget_position_is_still_proposed():
    """Twenty statements first; the fact that matters is said last and still proposed."""
    lines = [("user", f"I walked to the {place} market on day {i + 1} and bought fresh bread.")
             for i, place in enumerate(_PLACES[:20])]
    lines += [("user", "My mom is a hairdresser in Porto."), ("user", "I play the clarinet in a jazz band.")]
    titles = [p.title for p in _pages(transcript(*lines))]
    assert any("hairdresser in Porto" in t for t in titles) and any("clarinet in a jazz band" in t for t in titles)
    zh = [("user", f"我第{i + 1}天去了{city}的菜市场，买了新鲜的面包。") for i, city in enumerate(_ZH[:20])]
    zh += [("user", "我妈妈是杭州的一名理发师。")]
    assert any("理发师" in p.title for p in _pages(transcript(*zh)))


def test_a_fact_below_the_threshold_stays_out(monkeypatch):
    t = transcript(("user", "I work as a nurse in Porto."), ("user", "I visited Oslo in 2019."))
    scored = scored_facts(t)
    cut = (scored[0].probability + scored[1].probability) / 2
    assert scored[0].probability != scored[1].probability
    kept = choose(scored, threshold=cut)
    assert len(kept) == 1 and kept[0].probability >= cut
    monkeypatch.setattr(selection, "THRESHOLD", 1.01)
    assert choose(scored_facts(t)) == [] and not _pages(t)


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


def test_the_threshold_and_weights_are_read_when_called(monkeypatch):
    t = long_chat()
    monkeypatch.setattr(selection, "WEIGHTS", (0.0,) * len(FEATURES))
    monkeypatch.setattr(selection, "BIAS", 0.0)
    assert {s.probability for s in scored_facts(t)} == {0.5}
    monkeypatch.setattr(selection, "THRESHOLD", 0.5)
    assert len(choose(scored_facts(t))) == len(scored_facts(t))
    monkeypatch.setattr(selection, "THRESHOLD", 0.51)
    assert choose(scored_facts(t)) == []


# -- the content rule of automatic admission -----------------------------------------------------------
SMALL_TALK = ["I fully agree.", "Go get 'em, Jon!", "I'm doing my best", "Simple and clear, just what I wanted",
              "I need actionable steps, not just analysis", "Thanks so much!", "That sounds great", "Hope that helps",
              "Haha yeah totally", "Good luck with that, Maria!", "Nice to meet you too!", "Have a great weekend!",
              "谢谢，我明白了", "加油！", "好的，没问题", "我尽力了", "太棒了，正是我想要的", "你好呀", "晚安"]
CONTENT = ["I play the clarinet.", "My mom is a hairdresser.", "I volunteer at an LGBTQ+ youth center.", "I'm vegan.",
           "I'm 34.", "Family time matters to me.", "I need a new laptop for my design work.", "I love sushi.",
           "我喜欢喝绿茶。", "我是素食者。", "舅妈今年52岁了。", "我在杭州工作。", "我养了一只猫。"]


@pytest.mark.parametrize("text", SMALL_TALK)
def test_small_talk_carries_no_content(text):
    assert not carries_content(text)
    assert not carries_content(f"Jon: {text}")  # a multi-party line: the speaker's words decide


@pytest.mark.parametrize("text", CONTENT)
def test_a_statement_about_someone_carries_content(text):
    assert carries_content(text)


def _say(mem, session: str, text: str) -> None:
    mem.capture({"session_id": session, "type": "user/message",
                 "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}})


def test_small_talk_is_never_auto_admitted_but_a_fact_is(tmp_path):
    with riko.open(tmp_path, preset="companion", config={"candidate_auto_confirm": "off"}) as mem:
        for text in [*SMALL_TALK, *CONTENT]:
            _say(mem, "s1", text)
        ids = {text: mem.propose(text.rstrip("。.!！"), description=text, session_id="s1")
               for text in [*SMALL_TALK, *CONTENT]}
        mem._review.auto_confirm([i for i in ids.values() if i is not None], "user_grounded")
        status = {text: mem._review.candidate(cid)["status"] for text, cid in ids.items()}
        assert {status[t] for t in SMALL_TALK} == {"pending"}    # left to a person
        assert {status[t] for t in CONTENT} == {"accepted"}


def test_small_talk_said_in_a_dream_session_does_not_become_canon(tmp_path):
    with riko.open(tmp_path, preset="companion", config={"candidate_auto_confirm": "user_grounded"}) as mem:
        for text in ["Gina: I fully agree.", "Jon: I'm doing my best", "Gina: Go get 'em, Jon!",
                     "Jon: I play the clarinet in a jazz band.", "Gina: My mom is a hairdresser."]:
            _say(mem, "s1", text)
        mem.dream(progress=False)
        canon = " | ".join(p.description or "" for p in mem._review.canon.pages() if p.category != "entity")
        assert "clarinet" in canon and "hairdresser" in canon
        assert "agree" not in canon and "my best" not in canon and "get 'em" not in canon


# -- a taste, boundary or feeling carries content however hollow its words; a mood alone does not -------
WISHES = ["I prefer short answers", "I like detailed explanations with examples", "Don't give me long lists",
          "I never want a summary", "I feel happy today", "I am excited about the trip to Kyoto", "我喜欢简单明了的回答",
          "不要给我太长的列表", "我今天很开心", "我对去京都的旅行很兴奋", "I feel so sick", "I'm homesick"]
#: a mood said alone, with nothing it is about or when, passes ("I'm so tired"), as does a taste of nothing
STILL_SMALL_TALK = ["I like that", "I love your advice", "I'm so proud of you", "Thanks so much for the advice",
                    "我同意", "好的，就是我想要的", "我需要具体的步骤", "I am excited", "Man I'm so tired now",
                    "I'm a bit nervous", "I'm busy", "I'm already feeling overwhelmed", "我很兴奋", "我好累啊"]


@pytest.mark.parametrize("text", WISHES)
def test_a_first_person_taste_boundary_or_feeling_carries_content(text):
    assert carries_content(text)
    assert carries_content(f"Jon: {text}")


@pytest.mark.parametrize("text", STILL_SMALL_TALK)
def test_a_taste_of_nothing_in_particular_is_still_small_talk(text):
    assert not carries_content(text)


def test_a_derived_preference_or_boundary_carries_content():
    assert not carries_content("short answers") and carries_content("short answers", "preference")
    assert carries_content("long lists", "boundary") and not carries_content("long lists", "fact")


def test_a_taste_or_feeling_is_auto_admitted_small_talk_is_left_pending(tmp_path):
    with riko.open(tmp_path, preset="companion", config={"candidate_auto_confirm": "off"}) as mem:
        said = [*WISHES, *STILL_SMALL_TALK, *SMALL_TALK]
        for text in said:
            _say(mem, "s1", text)
        ids = {text: mem.propose(text.rstrip("。.!！"), description=text, session_id="s1") for text in said}
        mem._review.auto_confirm([i for i in ids.values() if i is not None], "user_grounded")
        status = {text: mem._review.candidate(cid)["status"] for text, cid in ids.items()}
        assert {status[t] for t in WISHES} == {"accepted"}
        assert {status[t] for t in [*STILL_SMALL_TALK, *SMALL_TALK]} == {"pending"}


def test_a_dream_run_admits_the_users_tastes_and_not_their_small_talk(tmp_path):
    with riko.open(tmp_path, preset="companion", config={"candidate_auto_confirm": "user_grounded"}) as mem:
        for text in ["I prefer short answers.", "I fully agree.", "I feel happy today.", "Thanks so much for the advice",
                     "我喜欢简单明了的回答。", "谢谢，我明白了"]:
            _say(mem, "s1", text)
        mem.dream(progress=False)
        canon = " | ".join(p.description or "" for p in mem._review.canon.pages() if p.category != "entity")
        assert "short answers" in canon and "happy" in canon and "简单明了" in canon
        assert "agree" not in canon and "advice" not in canon and "明白" not in canon


def test_a_plainly_stated_taste_or_boundary_is_proposed_whatever_its_score():
    """A taste deep in a long paste scores low, yet it is what the preference block is for; small
    talk that reads as a taste ("I love your advice") gains nothing from the rule."""
    filler = " ".join(f"Note {i}: the quarterly numbers looked ordinary again." for i in range(40))
    titles = [p.title for p in _pages(transcript(("user", filler + "\n\nI prefer green tea in the evening.")))]
    assert any("green tea in the evening" in t for t in titles)
    titles = [p.title for p in _pages(transcript(("user", filler + "\n\nI love your advice!")))]
    assert not any("advice" in t for t in titles)
    zh = "。".join(f"第{i}条：季度数字又很普通" for i in range(40)) + "。\n\n我喜欢简单明了的回答。"
    assert any("简单明了" in p.title for p in _pages(transcript(("user", zh))))
