"""People, pets and nicknames over real Dream runs: a pet is no person, a nickname is its person's
alias, and the owner's page links their relatives and pets.

The logs are generated: a user (or each speaker of a multi-party log) says single-fact lines about
their family and pets, in English and in Chinese, mixed with small talk; Dream admits them by the
`user_grounded` rule and the entity pages are read back from the Wiki.
"""

from __future__ import annotations

import random

import pytest

import riko
from dream_stub import user_event
from riko.language.derive import derive
from riko.review.entities import USER_TITLE

SMALL_TALK = ("Haha nice", "Good morning!", "What about you?", "哈哈", "早上好")

EN_LINES = (
    "Our dog Max chews every shoe he finds.",
    "Luna is my cat.",
    "I have two cats named Pepper and Mochi.",
    "My sister Lena lives in Berlin.",
    "My brother Jonathan goes by Jon.",
    "I cooked risotto with Jon yesterday.",
)
ZH_LINES = (
    "我家的狗叫旺财。",
    "我妹妹小雨的小名叫雨雨。",
    "轩轩是李梓轩的小名。",
)


def _log(lines: tuple[str, ...], seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for line in lines:
        out.append(line)
        out.append(rng.choice(SMALL_TALK))
    return out


def _dream(tmp_path, sessions: dict[str, list[str]]):
    mem = riko.open(tmp_path, preset="family")
    for sid, lines in sessions.items():
        for line in lines:
            mem.capture(user_event(sid, line))
    mem.dream(progress=False)
    return mem


def _entities(mem) -> dict[str, object]:
    return {p.title: p for p in mem.context.canon.pages() if p.type == "entity" and p.status == "confirmed"}


@pytest.fixture(scope="module")
def english_scope(tmp_path_factory):
    mem = _dream(tmp_path_factory.mktemp("en"), {"en-1": _log(EN_LINES, 1)})
    try:
        yield mem
    finally:
        mem.close()


@pytest.fixture(scope="module")
def english(english_scope):
    return _entities(english_scope)


@pytest.fixture(scope="module")
def english_facts(english_scope):
    return [p for p in english_scope.context.canon.pages() if p.type != "entity" and p.status == "confirmed"]


@pytest.fixture(scope="module")
def chinese(tmp_path_factory):
    mem = _dream(tmp_path_factory.mktemp("zh"), {"zh-1": _log(ZH_LINES, 2)})
    try:
        yield _entities(mem)
    finally:
        mem.close()


def test_pets_are_pets_not_persons_in_english(english):
    for name in ("Max", "Luna", "Pepper", "Mochi"):
        assert name in english, sorted(english)
        assert english[name].kind == "pet", (name, english[name].kind)
    assert "my cat" in english["Luna"].tags and "my dog" in english["Max"].tags


def test_pets_are_pets_not_persons_in_chinese(chinese):
    assert chinese["旺财"].kind == "pet", sorted(chinese)
    assert "狗" in chinese["旺财"].tags


def test_a_nickname_joins_its_person_in_english(english, english_facts):
    jonathan = english["Jonathan"]
    assert jonathan.kind == "person"
    assert "Jon" in jonathan.tags and "my brother" in jonathan.tags
    assert "Jon" not in english  # one person, not two pages
    fact = next(p for p in english_facts if p.title.startswith("I cooked risotto with Jon"))
    assert "[[Jonathan|Jon]]" in fact.body, fact.body
    assert not any("Jon" == t for p in english.values() if p.title != "Jonathan" for t in p.tags)


def test_a_nickname_joins_its_person_in_chinese(chinese):
    assert "雨雨" in chinese["小雨"].tags and "妹妹" in chinese["小雨"].tags
    assert "轩轩" in chinese["李梓轩"].tags
    assert "雨雨" not in chinese and "轩轩" not in chinese and "妹小雨" not in chinese
    assert chinese["李梓轩"].kind == "person"


def test_the_users_page_links_relatives_and_pets_in_english(english):
    body = english[USER_TITLE].body
    for link in ("sister [[Lena]]", "brother [[Jonathan]]", "cat [[Luna]]", "dog [[Max]]", "cat [[Pepper]]",
                 "cat [[Mochi]]"):
        assert link in body, body
    assert body.count("Family and pets:") == 1


def test_the_users_page_links_relatives_and_pets_in_chinese(chinese):
    body = chinese[USER_TITLE].body
    assert "dog [[旺财]]" in body and "younger sister [[小雨]]" in body, body


def test_a_speakers_page_links_the_speakers_relatives_and_pets(tmp_path):
    lines = ["Akib: My sister Lena lives in Berlin.", "Fahim Khan: Our dog Max chews every shoe he finds.",
             "Akib: Haha nice", "Fahim Khan: 我家的猫叫咪咪。", "Akib: Good morning!", "Fahim Khan: What about you?"]
    with _dream(tmp_path, {"mp-1": lines}) as mem:
        pages = _entities(mem)
        assert "sister [[Lena]]" in pages["Akib"].body, pages["Akib"].body
        assert "dog [[Max]]" in pages["Fahim Khan"].body and "cat [[咪咪]]" in pages["Fahim Khan"].body
        assert pages["Max"].kind == "pet" and pages["咪咪"].kind == "pet"
        assert "Lena" not in pages["Fahim Khan"].body and USER_TITLE not in pages  # nobody's but the speaker's


@pytest.mark.parametrize("text, junk", [
    ("For the syrup: 80 g Strawberry and 2 Tbsp Oat Bran", ("Strawberry", "Oat Bran", "Tbsp Oat Bran")),
    ("I actually got the game on Steam for like 5 Bucks", ("Bucks",)),
    ("The combat is great, it feels fast and Powerful without being over the top", ("Powerful",)),
    ("I think it's awesome, especially compared to Summer", ("Summer",)),
    ("Like a week ago my sister Wanted yeast to make pretzels", ("Wanted",)),
    ("After the fireworks we started off the New Year with dessert", ("New Year",)),
    ("In addition to its shows, the Company brings its creative approach to a large audience", ("Company",)),
    ("Las Vegas was amazing at night", ()),
    ("I recently tried a dish called Chicken and Waffles", ()),
    ("Given our stack is heavily Python-based, we use AI-powered tools", ("Python-based", "AI-powered")),
    ("The 'Potential Hazards' and 'Photo Opportunities' are now included", ("Potential Hazards", "Photo Opportunities")),
    ("Only got 55% on the test", ("Only",)),
    ("Previously I played chess every night", ("Previously",)),
    ("Mama Put's Eatery: Friday & Saturday, 7 AM - 10 PM", ("& Saturday", "Saturday")),
])
def test_words_that_name_no_one_are_no_person_and_mostly_no_entity(text, junk):
    found = {e.name: e.kind for e in derive(text).entities}
    assert not [j for j in junk if j in found], found
    assert "person" not in found.values(), found


@pytest.mark.parametrize("text, name, kind", [
    ("I met Mohammed at the gym", "Mohammed", "person"),
    ("In 2019 Lena moved to Berlin", "Lena", "person"),
    ("I have a friend called Jon", "Jon", "person"),
    ("We got a puppy named Max", "Max", "pet"),
    ("I went to Las Vegas last year", "Las Vegas", "place"),
    ("MediaPipe and OpenCV is the baseline", "OpenCV", "other"),
    ("It is a plane wave solution to Maxwell's equations", "Maxwell", "other"),
])
def test_real_names_keep_their_kind(text, name, kind):
    found = {e.name: e.kind for e in derive(text).entities}
    assert found.get(name) == kind, found
