"""Self-contained facts: each proposal reads alone while the user's exact words stay its evidence.

The subject is named, a pronoun is resolved within the session, a relative date is said against
the time of its line, a short answer is joined to its question, what stripping a filler leaves is
no fact, statements without "I" are found, and no cut drops a negation (English and Chinese).
"""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.language.atoms import answer_fact, extract_facts, statement_of
from riko.dream.grounding import ground
from riko.dream.heuristic import HeuristicProvider
from riko.dream.protocol import MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS, parse_file_blocks
from riko.dream.transcript import Transcript, TranscriptLine
from riko.language.statement import clip, drops_negation, has_negation, name_subject, relative_dates, resolve_dates

MONDAY = datetime(2023, 5, 8, 14, 30)  # a Monday


def pages(*lines: tuple[str, str], when: datetime | None = MONDAY):
    transcript = Transcript("s", tuple(TranscriptLine(i, role, text, when if role == "user" else None)
                                       for i, (role, text) in enumerate(lines, 1)))
    provider = HeuristicProvider()
    return parse_file_blocks(provider.extract(transcript), allow_empty=provider.empty_answer_ok).pages


def by_quote(found):
    return {p.quote: p for p in found}


# -- the subject named -------------------------------------------------------------------------------
def test_the_user_is_named_in_a_one_person_scope():
    (page,) = pages(("user", "Okay so I really love hiking with my sister."))
    assert page.title == page.body == "The user really loves hiking with their sister"
    assert page.quote == page.description == "I really love hiking with my sister"
    (zh,) = pages(("user", "嗯，我喜欢和妹妹一起爬山。"))
    assert zh.title == "用户喜欢和妹妹一起爬山" and zh.quote == "我喜欢和妹妹一起爬山"


#: What the speaker said, and the same with the speaker named ("I" → "The user", the verb agreeing).
NAMED = {
    "I really need this trip":
        "The user really needs this trip",
    "Lena and I play tennis":
        "Lena and the user play tennis",
    "I love it and I think I will":
        "The user loves it and the user thinks the user will",
    "My girlfriend and I argue all the time":
        "The user's girlfriend and the user argue all the time",
    "My partner and I are hosting brunch":
        "The user's partner and the user are hosting brunch",
    "I'm not sure I love it":
        "The user is not sure they love it",
    "I haven't set up price alerts yet":
        "The user hasn't set up price alerts yet",
    "I agreed to stop by 10 PM":
        "The user agreed to stop by 10 PM",
    "i purchased lots of food for my kids":
        "The user purchased lots of food for their kids",
    "I like apples, i.e. red ones":
        "The user likes apples, i.e. red ones",
    "I breed dogs":
        "The user breeds dogs",
    "I wanna know how to make my resume stand out":
        "The user wants to know how to make their resume stand out",
    "I gotta finish my thesis":
        "The user has to finish their thesis",
    "I really haven’t slept":
        "The user really hasn't slept",
    "I really can’t swim":
        "The user really can’t swim",
    # a "my" before the subject is named names it; after, it is "their"
    "My girlfriend has trouble trusting me because of things I have done":
        "The user's girlfriend has trouble trusting them because of things the user has done",
    "I love my dog and my cat":
        "The user loves their dog and their cat",
    # a word of when between the subject and its verb is not the verb ("I now live", not "nows live")
    "i now have two cats":
        "The user now has two cats",
    "I later realized it was closed":
        "The user later realized it was closed",
    "I only eat fish":
        "The user only eats fish",
    # a contraction is not conjugated, nor is the verb of a question's "can" or "should"
    "I ever could've written it":
        "The user ever could've written it",
    "what strategies can I use":
        "what strategies can the user use",
    "I sort my savings first":
        "The user sorts their savings first",
    "I sort of agree":
        "The user sort of agrees",
    # an irregular past is past with a prefix too ("overcame", "forgave"), and "overcome" is present
    "I overcame my anxiety about negotiation":
        "The user overcame their anxiety about negotiation",
    "I forgave my brother":
        "The user forgave their brother",
    "I overcome my fears by journaling":
        "The user overcomes their fears by journaling",
    "I fell off my bike":
        "The user fell off their bike",
    # "I'm" and "I've" typed without the apostrophe; a name that is spelled "Im" stays
    "Im going to Spain next month":
        "The user is going to Spain next month",
    "ive never been a pistons fan":
        "The user has never been a pistons fan",
    "My friend Im Yoon-ah lives in Seoul":
        "The user's friend Im Yoon-ah lives in Seoul",
    # a second "I" of the sentence is "they" when no one else could be meant; else it stays named
    "I want to make sure I meet the April 15 deadline":
        "The user wants to make sure they meet the April 15 deadline",
    "I'm getting an error when I try to deploy my app":
        "The user is getting an error when they try to deploy their app",
    "I was sad because I was tired":
        "The user was sad because they were tired",
    "I'm happy I'm here":
        "The user is happy they're here",
    "I dunno if I wanna go":
        "The user doesn't know if they want to go",
    "I told my parents I would call":
        "The user told their parents the user would call",
    "My parents said they were proud of me and I cried":
        "The user's parents said they were proud of them and the user cried",
    "My sister and I think I should go":
        "The user's sister and the user think the user should go",
    "我觉得我应该多休息":
        "用户觉得自己应该多休息",
    "我妈妈说我很棒":
        "用户妈妈说用户很棒",
    "我和妹妹觉得我应该去":
        "用户和妹妹觉得用户应该去",
    # a negation typed without its apostrophe is spelled out, never conjugated ("donts")
    "I dont like calculus":
        "The user doesn't like calculus",
    "i cant swim":
        "The user can't swim",
    "I really didnt enjoy the trip":
        "The user really didn't enjoy the trip",
}


@pytest.mark.parametrize(("said", "named"), NAMED.items())
def test_the_speaker_is_named_and_the_verb_agrees(said: str, named: str) -> None:
    assert name_subject(said, "The user") == named


def test_a_speaker_is_named_in_a_multi_party_log():
    found = pages(("user", "Fahim Khan: I went running this morning."), ("user", "Akib: I love jazz."))
    titles = [p.title for p in found]
    assert titles == ["Fahim Khan: I went running on the morning of 2023-05-08", "Akib: I love jazz"]
    assert [p.slot for p in found] == ["Fahim Khan/did:went_running_morning", "Akib/likes:jazz"]


def test_a_leading_phrase_of_time_stays_and_its_date_is_made_absolute():
    # cut off at its comma, "Yesterday, I went hiking" lost its day and "As a kid, I hated broccoli" its time of life
    titles = {p.quote: p.title for p in pages(("user", "Yesterday, I went hiking. Last year, I moved to Berlin. "
                                                        "This morning, I made pancakes. As a kid, I hated broccoli."))}
    assert titles == {"Yesterday, I went hiking": "On 2023-05-07, the user went hiking",
                      "Last year, I moved to Berlin": "In 2022, the user moved to Berlin",
                      "This morning, I made pancakes": "On the morning of 2023-05-08, the user made pancakes",
                      "As a kid, I hated broccoli": "As a kid, the user hated broccoli"}


def test_a_whole_line_keeps_the_users_exact_words_as_its_description():
    # the authority rule: user_grounded admits a description that is exactly one line the user typed
    (page,) = pages(("user", "I went hiking yesterday."))
    assert page.description == "I went hiking yesterday"
    assert page.title == page.body == "The user went hiking on 2023-05-07"
    (zh,) = pages(("user", "我昨天去爬山了。"))
    assert zh.description == "我昨天去爬山了" and zh.title == "用户2023年5月7日去爬山了"
    # split out of a longer line: the speaker's words, their dates made absolute
    (split,) = pages(("user", "Hi there! I went hiking yesterday."))
    assert split.description == "I went hiking on 2023-05-07" and split.quote == "I went hiking yesterday"


# -- pronouns --------------------------------------------------------------------------------------
def test_they_is_the_group_the_session_named():
    facts = extract_facts("They are so sweet and playful.", context=("I have two cats, Luna and Oliver.",))
    assert [f.text for f in facts] == ["Luna and Oliver are so sweet and playful"]
    assert [f.quote for f in facts] == ["They are so sweet and playful"]
    # two groups to choose from: left as said
    two = extract_facts("They are so sweet.", context=("Mia and Leo came over. I have two cats, Luna and Oliver.",))
    assert [f.text for f in two] == ["They are so sweet"]
    zh = extract_facts("我有两个朋友小雨和小明。他们都喜欢打篮球。")
    assert [f.text for f in zh] == ["我有两个朋友小雨和小明", "小雨和小明都喜欢打篮球"]


def test_a_singular_pronoun_still_resolves_against_the_speakers_lines():
    found = by_quote(pages(("user", "My sister Lena moved to Berlin. She works as a nurse there.")))
    assert found["She works as a nurse there"].title == "Lena works as a nurse there"
    zh = extract_facts("她在医院工作。", context=("我妹妹叫小雨。",))
    assert [f.text for f in zh] == ["小雨在医院工作"]


# -- relative dates --------------------------------------------------------------------------------
def test_relative_dates_are_said_against_the_line_time_in_english():
    cases = {
        "I went hiking yesterday": "I went hiking on 2023-05-07",
        "I met Jon last Fri": "I met Jon on 2023-05-05",
        "We went out last night": "We went out on the night of 2023-05-07",
        "I quit 3 days ago": "I quit on 2023-05-05",
        "I'm moving next month": "I'm moving in June 2023",
        "I graduated last year": "I graduated in 2022",
        "I have an exam tomorrow": "I have an exam on 2023-05-09",
        "The party is next Saturday": "The party is on 2023-05-13",
        "I started a new job last week": "I started a new job in the week of 2023-05-01",
        "I saw her on last Friday": "I saw her on 2023-05-05",
        "I was sick this past week": "I was sick in the week of 2023-05-01",
        "I'm exhausted from today's activities": "I'm exhausted from 2023-05-08's activities",
        "Yesterday’s game was close": "2023-05-07’s game was close",
        "Last week's class ran late": "The week of 2023-05-01's class ran late",
        "I explain how the Today.io product works": "I explain how the Today.io product works",
        "I write for today's young audiences": "I write for today's young audiences",
        # the text's own preposition governs the date
        "3 litres it is for tomorrow": "3 litres it is for 2023-05-09",
        "I need to master it by next month": "I need to master it by June 2023",
        "I havent been to the hospital since last year": "I havent been to the hospital since 2022",
        "My legs still ache from last week": "My legs still ache from the week of 2023-05-01",
        "I pushed it to tomorrow": "I pushed it to 2023-05-09",
        # a span of its own is said as it was
        "I'm looking at the last week of March": "I'm looking at the last week of March",
        "I'll plan my meals for the next month": "I'll plan my meals for the next month",
        "We meet on the last Sunday of each month": "We meet on the last Sunday of each month",
        # a range is said as it was: "4-5 months ago" is no one month
        "I watched it like 4-5 months ago": "I watched it like 4-5 months ago",
        "We met two or three weeks ago": "We met two or three weeks ago",
        # in a habit, "in two weeks" is how long, not when
        "people who always give up on in two weeks": "people who always give up on in two weeks",
        "I sometimes quit new hobbies in two weeks": "I sometimes quit new hobbies in two weeks",
        "I usually visit my mom, and I fly out in two weeks": "I usually visit my mom, and I fly out around 2023-05-22",
    }
    for said, resolved in cases.items():
        assert resolve_dates(said, MONDAY) == resolved, said
    assert resolve_dates("I went hiking yesterday", None) == "I went hiking yesterday"


def test_relative_dates_are_said_against_the_line_time_in_chinese():
    cases = {
        "我昨天去了公园": "我2023年5月7日去了公园",
        "我上周五去了杭州": "我2023年5月5日去了杭州",
        "下周三开会": "2023年5月17日开会",
        "我上个月搬家了": "我2023年4月搬家了",
        "我去年毕业": "我2022年毕业",
        "三天前我去了医院": "2023年5月5日我去了医院",
        "我明天要去北京": "我2023年5月9日要去北京",
        "昨晚我看了电影": "2023年5月7日晚上我看了电影",
        "我三天后去北京": "我2023年5月11日去北京",
        # a stretch of doing something, not a date: "after a day of work", "after using it for three days"
        "尤其是工作一天后喷一喷": "尤其是工作一天后喷一喷",
        "用了三天后就坏了": "用了三天后就坏了",
        "坚持两个月后瘦了": "坚持两个月后瘦了",
        "他们总是两周后就放弃": "他们总是两周后就放弃",
    }
    for said, resolved in cases.items():
        assert resolve_dates(said, MONDAY) == resolved, said


def test_a_resolved_date_is_grounded_in_the_words_that_said_it():
    line = TranscriptLine(3, "user", "I went hiking yesterday.", MONDAY)
    assert ground("The user went hiking on 2023-05-07", "The user went hiking on 2023-05-07", "", (), (line,)).supported
    # a date the words do not say is no more grounded than before
    assert not ground("The user went hiking on 2021-01-01", "The user went hiking on 2021-01-01 in Rome", "", (),
                      (line,)).supported
    zh = TranscriptLine(4, "user", "我昨天去爬山了。", MONDAY)
    assert ground("用户2023年5月7日去爬山了", "用户2023年5月7日去爬山了", "", (), (zh,)).supported


def test_every_proposal_with_a_relative_date_states_it_absolutely():
    found = pages(("user", "Yesterday I went climbing with friends."), ("user", "I'm flying to Rome next Friday."),
                  ("user", "我上周五去了杭州。"), ("user", "明天我要去北京出差。"))
    assert len(found) == 4
    for page in found:
        assert relative_dates(page.quote), page.quote
        assert not relative_dates(page.title), page.title


# -- questions and answers -------------------------------------------------------------------------
def test_a_short_answer_is_joined_to_the_question_it_answers():
    found = pages(("user", "Caroline: I have two cats."), ("user", "Melanie: Aww! What are their names?"),
                  ("user", "Caroline: Luna and Oliver!"))
    titles = [p.title for p in found]
    assert "Caroline: their names are Luna and Oliver" in titles
    assert "Caroline: Luna and Oliver" not in titles
    answer = next(p for p in found if "names" in p.title)
    assert answer.quote == "Luna and Oliver"
    (asked,) = pages(("assistant", "Which trail do you like best? What is your favourite trail?"),
                     ("user", "Angels Landing!"))
    assert asked.title == "The user's favourite trail is Angels Landing" and asked.quote == "Angels Landing"


@pytest.mark.parametrize(("question", "answered"), [
    ("Nice photo. What is your favourite trail?\u201d ) ", "my favourite trail is Angels Landing"),
    ("What is your favourite trail? Tell me more.", None),        # the question is not the last sentence
    ("word " * 20_000 + "\n```print('hi')``` more", None),      # a long reply that asks nothing
    ("word " * 20_000 + ". What is your favourite trail?", "my favourite trail is Angels Landing"),
    ("你好。你最喜欢哪条步道？", "我最喜欢Angels Landing"),
], ids=["closing quote", "not last", "long, no question", "long, then the question", "chinese"])
def test_an_answer_is_joined_only_to_the_question_that_ends_the_line_before(question, answered):
    """Only the last sentence of the line before is asked of the answer, however long that line is
    (it is read from its end, never scanned once per position)."""
    fact = answer_fact(question, "Angels Landing!")
    assert (fact.text if fact else None) == answered


def test_a_short_answer_is_joined_to_a_chinese_question():
    fact = answer_fact("真可爱！你的猫叫什么名字？", "Luna和Oliver。")
    assert fact is not None and fact.text == "我的猫叫Luna和Oliver" and fact.quote == "Luna和Oliver"
    assert statement_of(fact, None) == "用户的猫叫Luna和Oliver"
    assert answer_fact("你住在哪里？", "北京").text == "我住在北京"
    # Dream joins an answer to a question closed by quotes and a bracket, too
    (closed,) = pages(("assistant", "Nice photo. What is your favourite trail?\u201d ) "), ("user", "Angels Landing!"))
    assert closed.title == "The user's favourite trail is Angels Landing"
    # and Dream joins it as it joins an English one: the question mark is the full-width one
    (asked,) = pages(("assistant", "真可爱！你的猫叫什么名字？"), ("user", "Luna和Oliver。"))
    assert asked.title == "用户的猫叫Luna和Oliver" and asked.quote == "Luna和Oliver"


def test_no_answer_is_made_of_a_thanks_a_statement_or_a_question():
    assert answer_fact("What is your favourite colour?", "Thanks!") is None
    assert answer_fact("What is your job?", "I am a nurse at the clinic.") is None  # a fact of its own
    assert answer_fact("What is your job?", "Why do you ask?") is None
    assert answer_fact("Do you like jazz?", "Miles Davis") is None  # not a what / who / where question
    assert answer_fact("你住在哪里？", "我住在北京。") is None


# -- fragments and statements without "I" -----------------------------------------------------------
def test_stripping_a_filler_leaves_no_fragment():
    assert extract_facts("Thanks for the advice, Jon!", speaker="Kai") == []
    assert extract_facts("Yeah, I love to!") == []
    assert extract_facts("So, for the record.") == []
    # a preposition the speaker said first is theirs: the fact stays
    assert [f.text for f in extract_facts("For dinner I made pasta.")] == ["For dinner I made pasta"]
    assert [f.text for f in extract_facts("Okay so for the record I am vegan.")] == ["for the record I am vegan"]
    assert extract_facts("嗯，谢谢你的建议。") == []


def test_statements_about_the_speaker_without_i_are_found():
    assert [f.text for f in extract_facts("Family time matters to me.")] == ["Family time matters to me"]
    assert [f.text for f in extract_facts("My kids mean the world to me.")] == ["My kids mean the world to me"]
    assert [f.text for f in extract_facts("Music is really important to me.")] == ["Music is really important to me"]
    assert [f.text for f in extract_facts("家人对我来说很重要。")] == ["家人对我来说很重要"]
    (page,) = pages(("user", "Family time matters to me."))
    assert page.title == "Family time matters to the user"


# -- no cut drops a negation -----------------------------------------------------------------------
def test_a_long_fact_is_cut_at_a_clause_boundary_keeping_its_negation():
    text = ("I want to stay in cabins or campsites all along the coast road this summer, with my two dogs in the "
            "back seat, and definitely no hotels")
    cut = clip(text, MAX_DESCRIPTION_CHARS)
    assert len(cut) <= MAX_DESCRIPTION_CHARS and "definitely no hotels" in cut and cut.startswith("I want to stay")
    found = pages(("user", text + "."))
    assert found and all("no hotels" in p.title and "no hotels" in p.description for p in found)
    zh = "我想这个夏天沿着海岸公路一路住小木屋或者露营地，带着我的两只狗坐在后座，" * 2 + "绝对不住酒店"
    cut = clip(zh, MAX_TITLE_CHARS)
    assert "不住酒店" in cut and len(cut) <= MAX_TITLE_CHARS


@pytest.mark.parametrize("negation", ["don’t", "dont", "didnt", "cant", "wont"])
def test_a_negation_with_a_curly_apostrophe_or_none_is_kept_by_a_cut(negation):
    text = ("We're driving the whole coast road this summer with the two dogs in the back seat, stopping at "
            f"every beach we pass, and I {negation} want a single hotel night on the way")
    assert has_negation(text) and not has_negation(text.replace(f"I {negation} want", "I want"))
    cut = clip(text, MAX_DESCRIPTION_CHARS)
    assert not drops_negation(text, cut) and negation in cut


def test_a_cut_with_no_safe_boundary_keeps_the_text_whole():
    text = "I " + "really " * 20 + "do not want any hotels at all on this trip"
    assert clip(text, 60) == " ".join(text.split())
    assert clip("I love hiking in the Alps", 120) == "I love hiking in the Alps"


_WORDS = st.sampled_from("I we my sister want love stay in the cabins campsites coast road summer dogs trip "
                         "hotels really along with and a big old quiet place near lake city".split())
_NEGATIONS = st.sampled_from(["not", "never", "no", "don't", "can't", "isn't", "nothing", "不", "没有", "别",
                              "don’t", "dont", "cant", "wasnt"])
_SEPARATORS = st.sampled_from([" ", " ", " ", ", ", "; ", " but ", " because ", " - ", "，"])


@st.composite
def _sentences(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(2, 40))):
        parts.append(draw(_NEGATIONS) if draw(st.integers(0, 9)) == 0 else draw(_WORDS))
        parts.append(draw(_SEPARATORS))
    return "".join(parts).strip(" ,;-，")


@settings(max_examples=400, deadline=None)
@given(_sentences(), st.integers(20, 160))
def test_no_cut_ever_drops_a_negation(text, limit):
    cut = clip(text, limit)
    assert not drops_negation(text, cut)
    assert len(cut) <= limit or cut == " ".join(text.split())
    if not has_negation(text):
        assert len(cut) <= limit


@settings(max_examples=30, deadline=None)
@given(st.lists(_sentences(), min_size=1, max_size=2))
def test_no_proposal_drops_a_negation_of_its_fact(lines):
    for page in pages(*(("user", "I think " + line + ".") for line in lines)):
        assert not drops_negation(page.quote, page.title), page
        assert not drops_negation(page.quote, page.description) or page.description in " ".join(lines)


def test_words_in_quotes_beside_the_speakers_own_are_someone_elses():
    said = {text: [f.text for f in extract_facts(text)] for text in [
        # an exercise: the sentences to translate are not the speaker's
        'Saya coba ya ini. 1. "I eat bread." -> Yo como pan. 2. "The motorcycle is black." I love my bike.',
        # a draft quoted over several sentences
        'Here is my draft: "My retirement fund just got a huge boost. I feel great. We did it." I run a blog about money.',
        "“I never seen such a cyclone as dat. I lost my hat.” I like storms.",
        # a message in quotes whole is the speaker's own; a quote never closed is a slip; inches close nothing
        '"I love hiking"',
        'The buffet food is "meh# at best. Remember, everything is imported. I am a Diet Coke drinker.',
        "I am 5'10\" tall. I love hiking.",
        'I told him "I quit my job" and left.']}
    assert said == {
        'Saya coba ya ini. 1. "I eat bread." -> Yo como pan. 2. "The motorcycle is black." I love my bike.': ["I love my bike"],
        'Here is my draft: "My retirement fund just got a huge boost. I feel great. We did it." I run a blog about money.':
            ["I run a blog about money"],
        "“I never seen such a cyclone as dat. I lost my hat.” I like storms.": ["I like storms"],
        '"I love hiking"': ["I love hiking"],
        'The buffet food is "meh# at best. Remember, everything is imported. I am a Diet Coke drinker.':
            ["I am a Diet Coke drinker"],
        "I am 5'10\" tall. I love hiking.": ["I am 5'10\" tall", "I love hiking"],
        'I told him "I quit my job" and left.': ['I told him "I quit my job" and left'],
    }


def test_a_title_keeps_its_quotes_and_a_list_number_or_label_is_not_part_of_the_fact():
    from riko.language.atoms import extract_facts

    said = {text: [f.text for f in extract_facts(text)] for text in [
        "“春节联欢会”的规模是二百人。", '"Sales Offsite"的规模是二百人。', "6我家用的是西门子的洗衣机。", "：我的上司特别爱健身",
        '"I love hiking"', "(I moved to Berlin)", 'I read "Dune" twice', "6月我去了上海。"]}
    assert said == {
        "“春节联欢会”的规模是二百人。": ["“春节联欢会”的规模是二百人"],
        '"Sales Offsite"的规模是二百人。': ['"Sales Offsite"的规模是二百人'],
        "6我家用的是西门子的洗衣机。": ["我家用的是西门子的洗衣机"],
        "：我的上司特别爱健身": ["我的上司特别爱健身"],
        '"I love hiking"': ["I love hiking"],
        "(I moved to Berlin)": ["I moved to Berlin"],
        'I read "Dune" twice': ['I read "Dune" twice'],
        "6月我去了上海。": ["6月我去了上海"],
    }


@pytest.mark.parametrize("gap", ["\n", "\n" + "\t \n" * 20, "\n" * 60, "\n> \n> ", "   \n\n   - ", " " * 40 + "\n"],
                         ids=["one break", "blank lines", "breaks", "quote marks", "a bullet", "spaces"])
def test_a_run_of_blank_lines_quote_marks_or_bullets_reads_as_one_break(gap):
    """Blank lines, a quoted mail's marks or a bullet between two statements part them as one line
    break does; the patterns are tried where such a run starts, so thousands of them cost no more
    than one (``benchmarks/long_lines.py``)."""
    found = pages(("user", "I love green tea." + gap + "I live in Lisbon."))
    assert {p.title for p in found} >= {"The user loves green tea", "The user lives in Lisbon"}
