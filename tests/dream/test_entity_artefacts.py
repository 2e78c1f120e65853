"""Entities that are the user's own artefacts or common things, not named ones: a quoted label of a
routine, a list or a story beat ("the 'Coffee & Check-in' routine"), a plural acronym ("URLs",
"IDs Q45"), a food, a drink, a grape or a currency ("Jollof", "Sauvignon Blanc", "Naira"), and a
phrase of common words ending in a work noun ("Apprentice Task List", "Stress-Response Protocol").
Real names beside them stay, a Chinese name among them."""

from __future__ import annotations

import pytest

from riko.language.derive import derive
from riko.language.vocabulary import SessionWords, Vocabulary
from riko.review.entities import named_entities

SCOPE = [
    ("assistant", "Add a short task list for the apprentice: each task on one line. A stress response is "
                  "normal; breathe first. Learning takes time, and the pelvic floor needs gentle work. "
                  "A dashboard of your learning data helps: the quantified self is a habit."),
    ("user", "The apprentice finished every task. My stress is lower and the floor work helps my learning."),
    ("user", "Between those two, the Apprentice Task List is what we need to hit first."),
    ("user", "Stress-Response Protocol is activated, and the Pelvic Floor Basics playlist is on."),
    ("user", "I'm filling the Quantified Learning Dashboard tonight with Maria."),
    ("user", "We read about the Kyoto Protocol and I copied Schindler's List notes into my Google Sheet."),
    ("assistant", "Google the Kyoto Protocol summary; Google Sheet can hold the notes."),
]


def _names(text: str) -> set[str]:
    return {e.name for e in derive(text).entities}


def _named(text: str, lines=SCOPE) -> set[str]:
    return {e.name for e in named_entities(text, session=SessionWords(lines))}


@pytest.mark.parametrize("text, junk", [
    ("Every evening I keep the 'Coffee & Check-in' routine with my partner", "Coffee & Check-in"),
    ("I want the 'Day of Close' checklist finished before the audit", "Day of Close"),
    ("I really resonate with the 'Unveiling a Secret' hook for chapter one", "Unveiling a Secret"),
    ("I need the 'Minimum Effective Dose' recommendation for my training", "Minimum Effective Dose"),
])
def test_a_quoted_label_of_a_routine_a_list_or_a_story_beat_names_nothing(text, junk):
    assert junk not in _names(text)


@pytest.mark.parametrize("text, name", [
    ("I'm working on the 'Urban Permaculture Integration' project", "Urban Permaculture Integration"),
    ("I'm reading 'Where the Crawdads Sing' again before the 'Day of Close' checklist", "Where the Crawdads Sing"),
    ("Tonight I finally watched 'The Grand Budapest Hotel' with Maria", "The Grand Budapest Hotel"),
])
def test_a_quoted_title_with_its_cue_or_none_stays(text, name):
    assert name in _names(text)


@pytest.mark.parametrize("text, junk", [
    ("Please paste all the URLs into the sheet for Priya", "URLs"),
    ("I remember question IDs Q45 and Q78 from my practice tests", "IDs Q45"),
    ("I remember question IDs Q45 and Q78 from my practice tests", "Q45"),
    ("Every page needs APIs from our vendors", "APIs"),
])
def test_a_plural_acronym_is_a_common_noun(text, junk):
    assert junk not in _names(text)


@pytest.mark.parametrize("text, junk", [
    ("I'm ready to apply this to the Jollof and the fish", "Jollof"),
    ("We opened a bottle of Sauvignon Blanc with Maria", "Sauvignon Blanc"),
    ("Dinner was steak with a glass of Merlot", "Merlot"),
    ("I'm also super intrigued by Feijoas", "Feijoas"),
    ("I'm thinking a fixed amount, say 500 (Naira) for each new customer", "Naira"),
])
def test_a_food_a_drink_a_grape_or_a_currency_is_no_page(text, junk):
    assert junk not in _names(text)


@pytest.mark.parametrize("text, name", [
    ("We opened a bottle of Sauvignon Blanc with Maria", "Maria"),
    ("We had dinner at Jollof Palace in Lagos", "Jollof Palace"),
    ("We had dinner at Jollof Palace in Lagos", "Lagos"),
    ("My dog is called Mango", "Mango"),
])
def test_a_name_a_food_leads_or_is_given_stays(text, name):
    assert name in _names(text)


@pytest.mark.parametrize("text, junk", [
    ("Between those two, the Apprentice Task List is what we need to hit first", "Apprentice Task List"),
    ("Stress-Response Protocol is activated, and the Pelvic Floor Basics playlist is on", "Stress-Response Protocol"),
    ("I'm filling the Quantified Learning Dashboard tonight with Maria", "Quantified Learning Dashboard"),
])
def test_a_phrase_of_common_words_ending_in_a_work_noun_is_the_users_artefact(text, junk):
    assert junk in _names(text)  # one line alone cannot tell
    assert junk not in _named(text)


@pytest.mark.parametrize("text, name", [
    ("I'm filling the Quantified Learning Dashboard tonight with Maria", "Maria"),
    ("We read about the Kyoto Protocol yesterday", "Kyoto Protocol"),
    ("I copied everything into my Google Sheet yesterday", "Google Sheet"),
])
def test_a_name_ending_in_a_work_noun_stays(text, name):
    assert name in _named(text)


def test_a_chinese_name_stays_beside_the_rules():
    lines = [("user", "我在北京的798艺术区买了小米手机。"), ("assistant", "798艺术区很有意思，小米手机也不错。")]
    text = "我在北京的798艺术区买了小米手机，还喝了一杯Merlot"
    names = {e.name for e in named_entities(text, session=SessionWords(lines))}
    assert "Beijing" in names or "北京" in names
    assert "Merlot" not in names
    vocabulary = Vocabulary()
    vocabulary.add(lines)
    assert not vocabulary.work_artefact("小米手机")


@pytest.mark.parametrize("text, junk", [
    ("I chose 'The Formation of Social Identity in Berlin's Zero-Waste Communities' for the essay",
     "Berlin's Zero-Waste Communities"),                                    # a possessive inside a long quoted title
    ("The 'Quantified Self Daily Tracker' Notion database is what I want", "Quantified Self Daily Tracker"),
    ("It is a bit more my speed than 'Sophisticated & Active'", "Sophisticated & Active"),
    ("Apply the “O to U and AAA” acronym to this presentation", "O to U and AAA"),
    ("We are back to full Protocol V2.0 this week", "Protocol V2"),
    ("KIX to HND is JAL Flight JL108, departing at seven", "JAL Flight JL108"),
    ("I added the Bordeaux Merlot to my list", "Bordeaux Merlot"),
    ("I keep thinking about that Peking Duck dinner with Maria", "Peking Duck"),
    ("We want robust Python SDKs for the pipeline", "Python SDKs"),
])
def test_labels_codes_dishes_and_plural_acronyms_after_a_name_name_nothing(text, junk):
    assert junk not in _names(text)


@pytest.mark.parametrize("text, name", [
    ("I read 'Charlotte's Web' to my niece", "Charlotte's Web"),              # a quoted title with its owner
    ("We watched 'Ocean's Eleven' last night", "Ocean's Eleven"),
    ("I bought the Galaxy S23 yesterday", "Galaxy S23"),                      # a model, not a version label
    ("We want robust Python SDKs for the pipeline", "Python"),
    ("I keep thinking about that Peking Duck dinner with Maria", "Maria"),
])
def test_titles_models_and_names_beside_them_stay(text, name):
    assert name in _names(text)


ROUTINE = [  # each phrase capitalised mid-sentence more often than written in lower case, its words common
    ("assistant", "Be practical: tasting comes first, every morning, then study, and watch the period of payback."),
    ("user", "I loved the Practical Tasting yesterday and the Practical Tasting notes."),
    ("user", "I moved the Morning Study and then the Morning Study again, and the Payback Period and the Payback "
             "Period are fine."),
    ("user", "I don't remember the exact names like \"Practical Tasting session, sorry."),
    ("user", "I'm ready to set up the Morning Study blocks with Maria."),
    ("user", "The Payback Period is approximately 3.5 years."),
]


@pytest.mark.parametrize("text, junk", [
    ("I don't remember the exact names like \"Practical Tasting session, sorry", "Practical Tasting"),
    ("I'm ready to set up the Morning Study blocks with Maria", "Morning Study"),
    ("The Payback Period is approximately 3.5 years", "Payback Period"),
])
def test_a_phrase_of_common_words_before_a_routine_noun_or_ending_in_one_names_nothing(text, junk):
    assert junk not in _named(text, ROUTINE)


def test_a_noun_after_a_sentences_article_names_nothing_and_a_place_stays():
    assert "Layer" not in _names("A Layer is a set of units")
    assert "Paris" in _names("A Paris trip is what I want")
    assert "Maria" in _named("I'm ready to set up the Morning Study blocks with Maria", ROUTINE)


@pytest.mark.parametrize("text, name", [
    ("Her name is Latte and she sleeps all day", "Latte"),                    # a food word given as a name
    ("I'm learning the JavaScript ES2022 features", "JavaScript ES2022"),     # a version, not a flight
    ("I read 'Charlotte's Web' to my niece", "Charlotte's Web"),
])
def test_a_name_a_food_word_or_a_code_is_given_stays(text, name):
    assert name in _names(text)


def test_a_job_title_is_no_project_and_a_common_word_before_a_routine_noun_names_nothing():
    assert "Product Manager" not in _names("I work as a SaaS Marketing and Product Manager these days")
    lines = [("assistant", "Do a deadlift today; the deadlift is key. Richard Feynman explained it well."),
             ("user", "I did the Deadlift session and the Feynman technique with Maria")]
    named = _named("I did the Deadlift session and the Feynman technique with Maria", lines)
    assert "Deadlift" not in named
    assert {"Feynman", "Maria"} <= named
