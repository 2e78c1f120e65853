"""A pet named after its kind is a pet, not "other" ("a hamster called Peanut", "我养了一只猫，叫咪咪",
"我的猫豆豆"); where someone works or studies names an organisation ("a software engineer at
Shopify", "I study biology at UCLA"); a statement of a relative that says more than three words
before its verb is still a fact ("My best friend Priya just moved to Seattle"); an abbreviated
weekday names no one ("Last Fri")."""

from __future__ import annotations

import pytest

from riko.language.atoms import extract_facts


def _entities(text: str) -> dict[str, str]:
    facts = extract_facts(text)
    assert facts, text
    return {e.name: e.kind for e in facts[0].derived.entities}


@pytest.mark.parametrize(("text", "name"), [
    ("We have a golden retriever called Biscuit.", "Biscuit"),
    ("I have a hamster called Peanut.", "Peanut"),
    ("My parrot Kiwi can say hello.", "Kiwi"),
    ("我养了一只猫，叫咪咪。", "咪咪"),
    ("我养了一条金毛，叫球球。", "球球"),
    ("我的猫豆豆特别爱睡觉。", "豆豆"),
    ("我家狗小白今年三岁了。", "小白"),
])
def test_a_pet_named_after_its_kind_is_a_pet(text, name):
    assert _entities(text).get(name) == "pet"


def test_a_doubled_word_for_a_pet_is_no_name():
    assert _entities("我的狗狗很可爱。") == {"my dog": "pet"}


def test_a_dish_called_something_is_still_no_pet_or_person():
    assert _entities("I ordered a dish called Chicken Royale.").get("Chicken Royale") == "other"


@pytest.mark.parametrize(("text", "name"), [
    ("I study biology at UCLA.", "UCLA"),
    ("I graduated from MIT in 2015.", "MIT"),
    ("I'm a software engineer at Shopify.", "Shopify"),
    ("Next Tuesday I have a job interview at Spotify.", "Spotify"),
    ("I work at Google.", "Google"),
])
def test_where_someone_works_or_studies_is_an_organisation(text, name):
    assert _entities(text).get(name) == "organisation"


def test_a_city_one_studied_in_stays_a_place_and_a_colleague_a_person():
    assert _entities("I studied in Paris for a year.").get("Paris") == "place"
    assert _entities("I've been working with Judy, and she reviewed my draft.").get("Judy") == "person"


@pytest.mark.parametrize(("text", "entities"), [
    ("My best friend Priya just moved to Seattle.", {"Priya": "person", "Seattle": "place"}),
    ("My partner Alex doesn't eat meat.", {"Alex": "person"}),
])
def test_a_relative_said_in_many_words_before_the_verb_is_a_fact(text, entities):
    assert _entities(text) == entities


def test_an_abbreviated_weekday_names_no_one_but_a_surname_stays():
    assert "Fri" not in _entities("Last Fri I had dinner with my parents.")
    assert _entities("I met Sun Li on Wed.") == {"Sun Li": "person"}


@pytest.mark.parametrize(("text", "context", "fact", "entity"), [
    ("He is a chef in a French restaurant.", ["My husband Tom and I met in college."],
     "Tom is a chef in a French restaurant", ("Tom", "person")),
    ("She teaches piano to kids.", ["My mom retired last year."], "My mom teaches piano to kids", ("my mom", "person")),
    ("Her car is red.", ["My sister Lena lives in Rome."], "Lena's car is red", ("Lena", "person")),
    ("他住在杭州。", ["我有个朋友叫李强。"], "李强住在杭州", ("李强", "person")),
])
def test_a_pronoun_the_context_answers_names_its_person_or_pet(text, context, fact, entity):
    facts = extract_facts(text, context=context)
    assert facts[0].text == fact
    assert {e.name: e.kind for e in facts[0].derived.entities}.get(entity[0]) == entity[1]


def test_a_relation_without_a_gender_answers_no_pronoun():
    facts = extract_facts("She moved to Lisbon last year.", context=["My friend called me."])
    assert [f.text for f in facts] == ["She moved to Lisbon last year"]


@pytest.mark.parametrize("text", ["Remember my puppy from earlier", "Meet my sister at the door"])
def test_a_verb_that_opens_the_line_is_no_relatives_name(text):
    from riko.language.derive import derive
    assert all(e.name not in ("Remember", "Meet") for e in derive(text).entities)


@pytest.mark.parametrize("text", ["Lena, my sister, is here", "Luna is my cat", "I went with Lena my sister",
                                  "Lena (my sister) is here"])
def test_a_name_before_its_relation_is_tied(text):
    from riko.language.derive import derive
    assert any(e.aliases and e.aliases[0].startswith("my ") for e in derive(text).entities)


@pytest.mark.parametrize(("text", "name"), [
    ("Emergency contacts: My sister, Lin Xiaoyu (+86 138-1234-5678)", "Lin Xiaoyu"),
    ("My friend Jon Smith lives in Rome.", "Jon Smith"),
    ("My sister Lena Moved to Rome.", "Lena"),
])
def test_a_relatives_full_name_is_tied_whole(text, name):
    from riko.language.derive import derive
    tied = [e.name for e in derive(text).entities if "my sister" in e.aliases or "my friend" in e.aliases]
    assert tied == [name]


@pytest.mark.parametrize(("text", "fact"), [
    ("I gave her flowers.", "I gave Lena flowers"),
    ("I bought her a bike for her birthday.", "I bought Lena a bike for her birthday"),
    ("I love her cooking.", "I love Lena's cooking"),
    ("I met her husband yesterday.", "I met Lena's husband yesterday"),
])
def test_her_after_a_verb_of_giving_is_who_gets_it(text, fact):
    assert [f.text for f in extract_facts(text, context=["My sister Lena lives in Rome."])] == [fact]
