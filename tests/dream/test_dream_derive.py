"""riko's own derivation of a statement's kind, slot and entities, in English and Chinese."""

from __future__ import annotations

import pytest

from riko.language.derive import KINDS, Entity, derive


def names(text: str, **kw) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {e.name: (e.kind, e.aliases) for e in derive(text, **kw).entities}


@pytest.mark.parametrize("text, kind, slot", [
    ("My name is Mira, by the way.", "identity", "user/name"),
    ("Just call me Kiki.", "identity", "user/name"),
    ("我叫小明。", "identity", "user/name"),
    ("我的名字是王芳", "identity", "user/name"),
    ("I'm 34 years old.", "identity", "user/age"),
    ("我今年28岁。", "identity", "user/age"),
    ("I live in Lisbon now.", "identity", "user/lives_in"),
    ("We moved to Lisbon last year.", "identity", "user/lives_in"),
    ("我住在上海。", "identity", "user/lives_in"),
    ("I'm originally from Porto.", "identity", "user/from"),
    ("我来自成都。", "identity", "user/from"),
    ("I work as a nurse.", "identity", "user/occupation"),
    ("I'm a data engineer.", "identity", "user/occupation"),
    ("我是一名程序员。", "identity", "user/occupation"),
    ("I work at Siemens.", "identity", "user/works_at"),
    ("我在腾讯工作。", "identity", "user/works_at"),
    ("I'm vegetarian.", "identity", "user/diet"),
    ("我吃素。", "identity", "user/diet"),
    ("I'm allergic to peanuts.", "identity", "user/allergy"),
    ("I love green tea.", "preference", "user/likes:green_tea"),
    ("I prefer green tea over coffee.", "preference", "user/likes:green_tea"),
    ("我喜欢喝乌龙茶。", "preference", "user/likes:乌龙茶"),
    ("I'm planning a trip to Kyoto next April.", "plan", "user/plan:kyoto"),
    ("我计划明年四月去京都。", "plan", "user/plan:kyoto"),
    ("Please don't bring up my ex.", "boundary", "user/boundary:ex"),
    ("请不要再提我的前任。", "boundary", "user/boundary:我的前任"),
    ("I went climbing with friends yesterday.", "event", "user/did:went_climbing"),
    ("My sister Lena lives in Berlin.", "relationship", "Lena/lives_in"),
    ("我妹妹 Lena 住在柏林。", "relationship", "Lena/lives_in"),
    ("Lena, my sister, is a teacher.", "relationship", "Lena/occupation"),
    ("My brother works at Google.", "relationship", "my brother/works_at"),
    ("我妈妈是医生。", "relationship", "my mother/occupation"),
    ("I adopted a dog named Max last week.", "relationship", "user/has:dog"),
])
def test_kind_and_slot(text, kind, slot):
    d = derive(text)
    assert (d.kind, d.slot) == (kind, slot)
    assert d.kind in KINDS
    assert d.slot.split("/", 1)[0] == d.subject


def test_polarity_is_not_part_of_the_slot():
    like, dislike, hate = derive("I like coffee."), derive("I don't like coffee."), derive("I hate coffee.")
    assert like.slot == dislike.slot == hate.slot == "user/likes:coffee"
    assert (like.negated, dislike.negated, hate.negated) == (False, True, True)
    assert derive("我不喜欢咖啡").negated and not derive("我喜欢咖啡").negated


@pytest.mark.parametrize("text", ["I dont like calculus", "i didnt enjoy calculus", "I don’t like calculus",
                                  "i cant stand calculus", "I loathe calculus", "我不喜欢微积分", "我受不了微积分"])
def test_a_negation_typed_as_chat_types_it_is_still_a_negation(text):
    """"I dont like calculus" (no apostrophe, or a curly one) is the dislike it says, not a taste for calculus."""
    d = derive(text)
    assert (d.kind, d.negated) == ("preference", True)
    assert d.slot.endswith(":calculus") or d.slot.endswith(":微积分")


def test_a_relative_is_tied_to_a_name_in_both_languages():
    en = names("My sister Lena lives in Berlin.")
    zh = names("我妹妹 Lena 住在柏林。")
    assert en["Lena"][0] == zh["Lena"][0] == "person"
    assert "my sister" in en["Lena"][1] and "妹妹" in en["Lena"][1] and "妹妹" in zh["Lena"][1]
    assert en["Berlin"] == zh["Berlin"] == ("place", ("柏林",))
    assert "Lena" in names("Lena (my sister) is a nurse.")
    assert "Lena" in names("I have a sister named Lena.")
    assert "Lena" in names("My sister's name is Lena.")


def test_a_tie_stated_earlier_names_the_relative_later():
    d = derive("My sister lives in Berlin.", context=("My sister is Lena.",))
    assert d.slot == "Lena/lives_in" and d.kind == "relationship"
    assert derive("My sister lives in Berlin.").slot == "my sister/lives_in"


def test_places_said_in_two_languages_are_one_entity():
    assert [e.name for e in derive("下个月我打算去京都").entities] == ["Kyoto"]
    assert [e.name for e in derive("Next month I plan to visit Kyoto.").entities] == ["Kyoto"]


def test_entity_kinds():
    found = names("I work at Acme Labs on Project Falcon and my cat Mochi sleeps all day.")
    assert found["Acme Labs"][0] == "organisation"
    assert found["Mochi"][0] == "pet"
    assert found["Project Falcon"][0] == "project"
    assert names("我有一只猫叫咪咪。")["咪咪"][0] == "pet"


def test_a_capital_at_the_start_of_a_sentence_is_not_a_name():
    assert names("Yesterday was long. Honestly it rained.") == {}
    assert "Muhammad" in names("Muhammad intends to file a report.")


def test_the_speaker_is_the_subject_in_a_multi_party_log():
    d = derive("I got a new job at a bakery.", speaker="Fahim Khan")
    assert d.subject == "Fahim Khan" and d.slot.startswith("Fahim Khan/")
    assert derive("I got a new job at a bakery.", speaker="user").subject == "user"


def test_a_pronoun_never_becomes_the_user():
    d = derive("She lives in Paris.")
    assert d.subject == "she" and d.kind != "identity"
    assert derive("他住在北京。").subject == "他"


def test_derivation_is_deterministic_and_total():
    for text in ("", "   ", "???", "ok", "😀", "<<<END>>>", "a" * 5000):
        d = derive(text)
        assert d.kind in KINDS and "/" in d.slot
        assert d == derive(text)
    assert isinstance(derive("My dog Rex is old.").entities[0], Entity)


@pytest.mark.parametrize("text", [
    "My head still feels like it's splitting.",
    "That sounds like a lot of fun.",
    "Comparing it to my grocery cart, like those school fees, really helped.",
    "I got the new routine integrated into my week.",
])
def test_like_and_into_as_comparison_or_direction_are_no_taste(text):
    assert derive(text).kind != "preference"


@pytest.mark.parametrize("text, slot", [
    ("I really like the beach.", "user/likes:beach"),
    ("I'm into jazz.", "user/likes:jazz"),
    ("我很喜欢爬山。", "user/likes:爬山"),
])
def test_a_taste_is_still_a_preference(text, slot):
    d = derive(text)
    assert (d.kind, d.slot) == ("preference", slot)


def test_chinese_relatives_beyond_the_immediate_family_are_people():
    (aunt,) = [e for e in derive("我舅妈在苏州工作。").entities if e.kind == "person"]
    assert aunt.name == "my aunt" and "舅妈" in aunt.aliases
    assert any(e.name == "my boss" for e in derive("我上司住在深圳。").entities)


@pytest.mark.parametrize("text, slot", [
    ("I am vegan.", "user/diet"),
    ("My vegan diet matters to me.", "user/diet"),
    ("I study medicine.", "user/studies"),
    ("I majored in history.", "user/studies"),
    ("我吃素。", "user/diet"),
])
def test_diet_and_studies_are_what_someone_keeps_or_studies(text, slot):
    assert derive(text).slot == slot


@pytest.mark.parametrize("text", [
    "The details about their vegan food system were great.",
    "I need to know how their kitchen handles a vegan menu.",
    "The study cafe was full of people typing.",
    "I should be free for my study session on Thursday.",
    "We have no case studies yet.",
])
def test_a_mention_of_vegan_food_or_a_study_session_is_no_diet_or_field(text):
    # single-valued slots: a false one would make unrelated statements replace each other
    assert derive(text).attribute not in ("diet", "studies")


def test_a_contraction_typed_without_its_apostrophe_is_no_name():
    assert [e.name for e in derive("Im making pasta tonight with Bella.").entities] == ["Bella"]


# -- occupation: a job, not every "I'm a …" ----------------------------------------------------------
def _occupation_cases(seed: int = 5) -> tuple[list[tuple[str, str]], list[str]]:
    """Generated statements: (text, the job it names) that are occupations, and texts that are not."""
    import random

    rng = random.Random(seed)
    jobs = ["nurse", "data engineer", "teacher", "software developer", "chef", "lawyer", "barista",
            "graphic designer", "pharmacist", "photographer", "psychologist", "electrician", "PhD student",
            "project manager", "freelance translator", "physician", "accountant", "nanny"]
    openers = ["I'm a{n} {job}", "I am a{n} {job}", "I work as a{n} {job}", "I'm currently working as a{n} {job}",
               "I was a{n} {job} for ten years", "Lena is a{n} {job}", "My brother works as a{n} {job}",
               "Honestly, I'm a{n} {job} at a small clinic"]
    positives = []
    for job in jobs:
        opener = rng.choice(openers)
        article = "n" if job[0].lower() in "aeiou" else ""
        positives.append((opener.format(n=article, job=job), job))
    positives += [(text, job) for text, job in (
        ("我是一名程序员。", "程序员"), ("我是软件工程师", "软件工程师"), ("她是一位老师", "老师"), ("我的职业是律师", "律师"),
        ("我现在是一名护士", "护士"), ("我从事金融行业", "金融"), ("我当过兵", "兵"), ("我同事是编辑部主任", "编辑部主任"),
        ("我是大学生", "大学生"), ("我在当服务员", "服务员"), ("I'm a businessman, not a data entry clerk", "businessman"),
        ("I'm a SaaS Marketing and Product Manager", "SaaS Marketing"), ("She's a nurse", "nurse"),
        ("My sister is a surgeon in Leeds", "surgeon"))]
    selves = ["beginner", "big fan of jazz", "total newbie", "morning person", "night owl", "perfectionist",
              "failure", "huge nerd", "man", "woman", "little tired", "bit nervous", "great communicator",
              "team player", "visual learner", "picky eater", "people pleaser", "fan of the teacher",
              "lot happier now", "quick learner", "first-time traveler", "cat person", "vegan", "good cook",
              "great teacher to my kids", "terrible singer"]
    negatives = [rng.choice(["I'm a{n} {s}", "I am a{n} {s}", "honestly I'm a{n} {s}"]).format(
        n="n" if s[0] in "aeiou" else "", s=s) for s in selves]
    negatives += ["I think Miyazaki is an incredible director, artist and storyteller", "It works as expected",
                  "I always envied the guy who was the main cook", "This works as a bridge between the two apps", "I'm an exam taker",
                  "我是个新手", "这是我家", "我是会员", "我是一个很有耐心的人", "当然可以", "我是他们的好朋友", "这是王先生",
                  "我当时很紧张", "我们是一个团队",
                  # a third person by name: the name is the subject, and a job said of a name stays a plain fact
                  "李强是个警察", "张雅静的职业是记者", "张丽华是做护士的"]
    return positives, negatives


_POSITIVE, _NEGATIVE = _occupation_cases()


@pytest.mark.parametrize("text, job", _POSITIVE)
def test_a_job_is_an_occupation_in_either_language(text, job):
    d = derive(text)
    assert d.attribute == "occupation" and d.slot.endswith("/occupation"), (d.attribute, d.slot)
    assert job.casefold() in d.value.casefold()


@pytest.mark.parametrize("text", _NEGATIVE)
def test_a_self_description_that_names_no_job_is_no_occupation(text):
    # a single-valued slot: a false one would make unrelated self-descriptions replace each other
    assert derive(text).attribute != "occupation"


def test_two_self_descriptions_are_not_a_replacement_of_one_occupation():
    from datetime import datetime

    from riko.review.consolidate import compare, facts

    when = datetime(2026, 3, 9)
    assert compare(facts("I'm a big fan of hiking", when), facts("I'm a beginner", when)) == "distinct"
    assert compare(facts("I'm a total newbie at chess", when), facts("I'm a morning person", when)) == "distinct"
    assert compare(facts("I work as a nurse", when), facts("I'm a teacher", when)) == "replacement"


# -- names: a given name, and a speaker's prefix that may be a name ----------------------------------
@pytest.mark.parametrize("text, name", [
    ("My name is Mira, by the way.", "Mira"), ("my name is Raman and today I want to talk", "Raman"),
    ("I'm called Mira Chen.", "Mira Chen"), ("我叫小明。", "小明"), ("我的名字是王芳", "王芳"),
    ("My name is not important", None), ("I love green tea", None), ("My name is spelled with two Ls", None),
])
def test_the_name_a_statement_gives_its_subject(text, name):
    from riko.language.derive import derived_fields, given_name

    d = derive(text)
    assert given_name(d) == name
    if name:  # the subject's own name: no entity of its own on the page
        assert name not in derived_fields(d).get("entities", [])


@pytest.mark.parametrize("prefix, ok", [("Fahim Khan", True), ("elise", True), ("Akib", True), ("DAN", True),
                                         ("SUMMARISE", False), ("CRITICAL", False), ("Next", False),
                                         ("Monday", False)])
def test_a_speaker_prefix_may_be_a_name(prefix, ok):
    from riko.language.derive import could_be_name

    assert could_be_name(prefix) is ok


@pytest.mark.parametrize("text, negated", [
    ("王志鹏是我的上司，其性别是男性。", False), ("我特别喜欢喝乌龙茶", False), ("别人都说我很安静", False),
    ("这两个没有区别", True), ("别提我的前任", True), ("我不喜欢下雨天", True),
])
def test_a_chinese_negation_is_a_word_of_its_own(text, negated):
    # "性别" (sex) is no "别" (don't): read as one, two facts about a person contradicted each other
    assert derive(text).negated is negated


def test_two_facts_about_one_person_in_chinese_do_not_contradict():
    from datetime import datetime

    from riko.review.consolidate import compare, facts

    when = datetime(2024, 4, 2)
    assert compare(facts("王志鹏是我的上司，其性别是男性。", when),
                   facts("王志鹏是我的上司，其工作地是广东深圳。", when)) != "contradiction"
