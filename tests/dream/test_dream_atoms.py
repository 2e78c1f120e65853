"""Atomic facts: one statement per proposal, pronouns resolved, speakers attributed, nothing invented."""

from __future__ import annotations

import pytest

from riko.dream import HeuristicProvider, Transcript, TranscriptLine, parse_file_blocks
from riko.language.atoms import extract_facts, split_speaker


def texts(message: str, **kw) -> list[str]:
    return [f.text for f in extract_facts(message, **kw)]


def pages(*lines: tuple[str, str]):
    transcript = Transcript("s1", tuple(TranscriptLine(i + 1, role, text) for i, (role, text) in enumerate(lines)))
    provider = HeuristicProvider()
    return parse_file_blocks(provider.extract(transcript), allow_empty=True).pages


def test_one_fact_per_clause_in_the_speakers_words():
    assert texts("I love hiking in the Alps, but I hate waking up early.") == [
        "I love hiking in the Alps", "I hate waking up early"]
    assert texts("Okay, so I work as a nurse and I live in Porto.") == ["I work as a nurse", "I live in Porto"]
    assert texts("我喜欢喝绿茶，我讨厌下雨天。") == ["我喜欢喝绿茶", "我讨厌下雨天"]


@pytest.mark.parametrize(("message", "fact"), [
    ("When I'm stressed, I eat chocolate.", "When I'm stressed, I eat chocolate"),
    ("When the mobile network decides to take a break, my business freezes.",
     "When the mobile network decides to take a break, my business freezes"),
    ("While my major is in computer science, I've decided to explore business as a minor.",
     "While my major is in computer science, I've decided to explore business as a minor"),
    ("When it comes to what I eat, I try to mix things up.", "When it comes to what I eat, I try to mix things up"),
    ("我压力大的时候，我会吃巧克力。", "我压力大的时候，我会吃巧克力"),
    ("In 2019, I moved to Berlin.", "In 2019, I moved to Berlin"),
    ("From the flavors I tried, I loved the classic vanilla.", "From the flavors I tried, I loved the classic vanilla"),
    ("Every Sunday, I call my mom.", "Every Sunday, I call my mom"),
    # a discourse marker is no phrase of time or place
    ("For example, I love hiking.", "I love hiking"),
    ("On the other hand, I hate rain.", "I hate rain"),
    # one that only points back leaves its main clause to stand alone
    ("While that's happening, I usually make the coffee.", "I usually make the coffee"),
    ("After that, I spent the evening with a good book.", "I spent the evening with a good book"),
])
def test_a_clause_or_phrase_that_says_when_stays_with_the_clause_it_leans_on(message: str, fact: str) -> None:
    # cut apart, the main clause would say more than was said ("I eat chocolate") or lose its subject
    assert texts(message) == [fact]


def test_when_or_where_before_a_verb_still_asks() -> None:
    assert texts("When is the deadline for the grant") == []
    assert texts("Where I live, it snows a lot.") == ["Where I live, it snows a lot"]


def test_a_trailing_off_that_goes_on_in_lower_case_does_not_end_the_sentence():
    # "…" or "..." before a lower-case word is a pause; before a capital it ends the sentence
    assert texts("I feel... relieved, honestly.") == ["I feel... relieved, honestly"]
    assert texts("I tried the new gym… it was packed.") == ["I tried the new gym… it was packed"]
    assert texts("I tried the new gym… The pool was great.") == ["I tried the new gym", "The pool was great"]


@pytest.mark.parametrize("message, fact", [
    ("My sister Lena moved to Berlin. She works as a nurse there.", "Lena works as a nurse there"),
    ("My brother Tom just turned 30. He started a new job at a bakery.", "Tom started a new job at a bakery"),
    ("My sister Ana lives in Rome. Shes a teacher.", "Ana's a teacher"),
    ("我妹妹 Lena 住在柏林。她是一名护士。", "Lena是一名护士"),
])
def test_a_pronoun_is_resolved_to_the_one_person_it_can_point_to(message, fact):
    assert fact in texts(message)


def test_a_pronoun_with_two_possible_people_is_left_alone():
    found = texts("My sister Lena and my friend Maya met in Rome. She loved the food.")
    assert "She loved the food" in found


def test_a_pronoun_resolves_against_the_speakers_earlier_lines():
    assert texts("She just got promoted.", context=("My sister Lena works at Siemens.",)) == [
        "Lena just got promoted"]


def test_numbers_names_and_dates_are_kept():
    (fact,) = texts("I ran the Berlin marathon on 24 September in 3:41.")
    assert "Berlin" in fact and "24 September" in fact and "3:41" in fact


@pytest.mark.parametrize("message", [
    "Could you give me three ideas for dinner?",
    "What time is it in Tokyo?",
    "Thanks, that makes sense!",
    "If I won the lottery I would buy a boat.",
    "Imagine I lived in Tokyo.",
    "My password is hunter2.",
    "Write me a poem about the sea.",
    "That sounds great.",
    "你能帮我写一首诗吗？",
    "如果我有钱，我会买房子。",
])
def test_requests_questions_small_talk_hypotheticals_and_secrets_state_nothing(message):
    assert texts(message) == []


@pytest.mark.parametrize(("message", "fact"), [
    ("I've already saved $450 on my phone, so I'm wondering if I should buy a case.", "I've already saved $450 on my phone"),
    ("I moved to Lisbon in May and I'm not sure if I should buy a car.", "I moved to Lisbon in May"),
    ("I run every morning even if it rains.", "I run every morning even if it rains"),
])
def test_an_if_that_means_whether_is_no_condition(message: str, fact: str) -> None:
    assert fact in texts(message)


def test_negations_hedges_and_boundaries_are_kept_as_said():
    neg = extract_facts("I don't eat pork.")
    assert [f.text for f in neg] == ["I don't eat pork"] and neg[0].derived.negated
    hedged = extract_facts("Maybe I'll switch to a standing desk.")
    assert hedged[0].hedged and hedged[0].text.startswith("Maybe")
    boundary = extract_facts("Please don't bring up my ex.")
    assert [f.derived.kind for f in boundary] == ["boundary"]


def test_reported_speech_is_not_the_speakers_fact():
    assert texts("My coworker says I hate meetings.") == []


def test_facts_about_people_places_and_events_without_a_cue_phrase():
    found = texts("Saturday morning is for the beach with the kids. The contingency plan is solid now.")
    assert found == ["Saturday morning is for the beach with the kids", "The contingency plan is solid now"]
    assert texts("I adopted a puppy last week.") == ["I adopted a puppy last week"]


@pytest.mark.parametrize("message, fact", [
    ("新品发布会的地点是杭州。", "新品发布会的地点是杭州"),
    ("周明的生日是3月8日。", "周明的生日是3月8日"),
    ("舅妈今年52岁了。", "舅妈今年52岁了"),
    ("婶婶在苏州的一家医院工作。", "婶婶在苏州的一家医院工作"),
    ("王小川喜欢周末去钓鱼。", "王小川喜欢周末去钓鱼"),
])
def test_chinese_statements_about_named_things_without_wo(message, fact):
    # the Chinese counterpart of "The launch party is in Hangzhou": a fact, though it does not say 我
    assert texts(message) == [fact]


@pytest.mark.parametrize("message", ["这个很好。", "那个地方是不是很远？", "感觉还可以吧。", "你的建议是什么？", "想想还是算了。"])
def test_chinese_remarks_pointers_and_questions_state_nothing(message):
    assert texts(message) == []


def test_chat_contractions_without_an_apostrophe_are_first_person_states():
    assert texts("Im making pasta with mushrooms tonight.") == ["Im making pasta with mushrooms tonight"]
    assert texts("ive been learning the violin since May.") == ["ive been learning the violin since May"]
    assert texts("Im sorry.") == []  # too short to state anything


def test_a_long_pasted_message_keeps_only_what_the_speaker_says_of_themselves():
    essay = " ".join(["The committee reviewed the proposal in detail."] * 40)
    assert texts(essay + " I submitted it yesterday.") == ["I submitted it yesterday"]


def test_multi_party_lines_attribute_each_fact_to_its_speaker():
    lines = (("user", "Fahim Khan: I went running this morning."),
             ("user", "Muhhamed: I got sick, so I cancelled my plans."),
             ("user", "Fahim Khan: She is my sister Amy."),
             ("user", "Muhhamed: Sorry to hear that, how are you?"))
    found = {p.description for p in pages(*lines)}
    assert "Fahim Khan: I went running this morning" in found
    assert "Muhhamed: I got sick" in found and "Muhhamed: I cancelled my plans" in found
    slots = {p.description: p.slot for p in pages(*lines)}
    assert slots["Fahim Khan: I went running this morning"].startswith("Fahim Khan/")
    assert slots["Muhhamed: I got sick"].startswith("Muhhamed/")


def test_a_speaker_who_types_their_name_in_lower_case_is_still_the_speaker():
    assert split_speaker("orla: I went sailing on Sunday.") == ("orla", "I went sailing on Sunday.")
    lines = (("user", "orla: I went sailing on Sunday."), ("user", "Ben: I fixed my bike."),
             ("user", "orla: My brother Kit lives in Cork."))
    found = {p.description: p.slot for p in pages(*lines)}
    assert found["orla: I went sailing on Sunday"].startswith("orla/")
    assert found["orla: My brother Kit lives in Cork"] == "Kit/lives_in"


def test_a_colon_in_a_one_speaker_log_is_not_a_speaker():
    assert split_speaker("Note: I moved to Lisbon.") == (None, "Note: I moved to Lisbon.")
    assert split_speaker("budget: 500 euros a month") == (None, "budget: 500 euros a month")
    found = {p.description for p in pages(("user", "Update: I moved to Lisbon."), ("user", "I love jazz."))}
    assert "I love jazz" in found


def test_every_fact_is_grounded_in_its_line():
    line = "My sister Lena lives in Berlin. She is a painter who loves the sea."
    assert [f.text for f in extract_facts(line)] == ["My sister Lena lives in Berlin", "Lena is a painter who loves the sea"]
    found = pages(("user", line))
    assert [p.quote for p in found] == ["My sister Lena lives in Berlin", "She is a painter who loves the sea"]
    # split out of a longer line, each fact is stated so that it reads alone; the description
    # keeps the speaker's words (a pronoun resolved)
    assert [p.title for p in found] == ["The user's sister Lena lives in Berlin", "Lena is a painter who loves the sea"]
    assert [p.description for p in found] == ["My sister Lena lives in Berlin", "Lena is a painter who loves the sea"]


def test_assistant_lines_never_become_facts():
    assert pages(("assistant", "I love jazz. My name is Riko."), ("user", "Hi!")) == ()


def test_a_leading_no_is_dropped_only_as_a_filler():
    assert texts("No, I live in Porto.") == ["I live in Porto"]
    assert all(not t.startswith("mucking") for t in texts("No mucking around, we need the final list today."))


@pytest.mark.parametrize("message", ["I'm doing well, thanks for asking!", "Im doing good", "I'm fine too.", "我挺好的。"])
def test_how_are_you_small_talk_states_nothing(message):
    assert texts(message) == []


def test_a_state_after_small_talk_is_kept():
    assert texts("I'm doing well, just cleaning my apartment today.") == [
        "I'm doing well, just cleaning my apartment today"]
    assert texts("I am doing great at my new job.") == ["I am doing great at my new job"]


def test_a_clause_that_only_points_back_into_the_conversation_is_not_a_fact():
    assert texts("I'll get it done.") == []
    assert texts("I'll bring them right back here.") == []
    # a pointer beside a name, a number or enough words of its own is still a fact
    assert texts("I bought it in Berlin.") == ["I bought it in Berlin"]
    assert texts("I sold that old bike for 200 euros.") == ["I sold that old bike for 200 euros"]


def test_please_asks_the_other_side_unless_it_sets_a_boundary():
    assert texts("Please work this into the cover letter.") == []
    assert texts("Please don't bring up my ex again.") == ["Please don't bring up my ex again"]
