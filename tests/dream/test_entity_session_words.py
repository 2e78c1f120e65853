"""Entities the session's own words unmask: a Title-Case phrase the session also writes in lower
case is a heading, a step or an exercise, not a name (``riko.language.vocabulary``); an owner's
month, a contraction, a step's title, a word of address and a name's adjective name nothing
themselves (``riko.language.derive``). Real names, relatives, pets and Chinese names stay."""

from __future__ import annotations

import pytest

import riko
from dream_stub import assistant_event, user_event
from riko.dream.proposals import Proposal, with_entities
from riko.dream.protocol import ProposedPage
from riko.language.derive import derive
from riko.language.vocabulary import SessionWords
from riko.review.entities import named_entities

COACH = [
    ("assistant", "Start with three sets of glute bridges, then ten slow pelvic tilts on the mat."),
    ("user", "Done! The Glute Bridges felt great and the Pelvic Tilts were easy."),
    ("assistant", "Nice. Tomorrow add heavy band face pulls: the band should feel heavy by the last pull, and "
                  "keep your face neutral. Keep a learning session log of each set."),
    ("user", "I did the Heavy Band Face Pulls with Grace at Riverside Park yesterday."),
    ("user", "I logged every set in my Learning Session Log yesterday."),
    ("user", "I had lunch at the Coral Bay Hotel yesterday."),
    ("assistant", "A walk in the park is a good rest day; a hotel lunch by the bay sounds lovely, and with "
                  "Grace too. Time for deep learning later? Use your time well, time is short, time flies."),
    ("user", "Time really got away from me. I read about Deep Learning on the train and finished Harry Potter. "
             "my friend said harry potter is overrated lol"),
]


def _named(text: str, lines=COACH) -> dict[str, str]:
    return {e.name: e.kind for e in named_entities(text, session=SessionWords(lines))}


@pytest.mark.parametrize("text, junk", [
    ("The Glute Bridges felt great and the Pelvic Tilts were easy", "Glute Bridges"),
    ("The Glute Bridges felt great and the Pelvic Tilts were easy", "Pelvic Tilts"),
    ("I did the Heavy Band Face Pulls with Grace at Riverside Park yesterday", "Heavy Band Face Pulls"),
    ("I logged every set in my Learning Session Log yesterday", "Learning Session Log"),
    ("I read about Deep Learning on the train", "Deep Learning"),
    ("Time really got away from me", "Time"),
])
def test_a_title_case_phrase_the_session_writes_in_lower_case_names_nothing(text, junk):
    assert junk in {e.name for e in derive(text).entities}  # one line alone cannot tell
    assert junk not in _named(text)


@pytest.mark.parametrize("text, name", [
    ("I did the Heavy Band Face Pulls with Grace at Riverside Park yesterday", "Riverside Park"),  # a place by its word
    ("I did the Heavy Band Face Pulls with Grace at Riverside Park yesterday", "Grace"),  # capitalised mid-sentence
    ("and had lunch at the Coral Bay Hotel", "Coral Bay Hotel"),     # a body by its last word
    ("finished Harry Potter last night", "Harry Potter"),            # the user types it in lower case, nothing else
    ("I read 'The Time Machine' again", "The Time Machine"),         # a title the words quote
])
def test_a_name_stays_whatever_else_the_session_writes(text, name):
    assert name in _named(text)


def test_a_relative_a_pet_and_chinese_names_stay():
    lines = [("assistant", "my sister is here; our dog barks; 妹妹和小雨"), ("user", "my sister Lena and our dog Max")]
    found = _named("My sister Lena walked our dog Max to the park.", lines)
    assert found.get("Lena") == "person" and found.get("Max") == "pet"
    found = _named("我妹妹小雨住在上海，她和王芳一起去了 Riverside Park。", lines)
    assert found.get("小雨") == "person" and found.get("Shanghai") == "place" and "王芳" in found


def test_with_entities_files_no_candidate_for_a_phrase_of_the_session():
    page = ProposedPage(path="facts/x.md", folder="facts", type="episode", title="Logged the exercises",
                        description="I did the Heavy Band Face Pulls with Grace at Riverside Park yesterday",
                        body="", tags=(), confidence=None, kind="event", category="experience",
                        sensitivity="normal", links=())
    proposals = [Proposal(page, "s1", ("s1#4",))]
    _, before = with_entities(proposals)
    expanded, after = with_entities(proposals, words=SessionWords(COACH))
    titles = {p.page.title for p in expanded[1:]}
    assert before == after + 1 and titles == {"Grace", "Riverside Park"}


@pytest.mark.parametrize("text, name, junk", [
    ("My pacing got much better after Leslie's April 18 workshop", "Leslie", "Leslie's April"),
    ("I loved Marco's Friday pasta night", "Marco", "Marco's Friday"),
    ("I think Michelle'll really like the film", "Michelle", "Michelle'll"),
    ("Pak Budi said the shop opens at eight", "Budi", "Pak Budi"),
])
def test_an_owners_day_a_contraction_and_a_word_of_address_leave_the_name(text, name, junk):
    found = {e.name for e in derive(text).entities}
    assert name in found and junk not in found


@pytest.mark.parametrize("text, junk", [
    ("Objective 1: Streamline Production Processes", "Streamline Production Processes"),
    ("Objective 2: Improve Team Collaboration", "Improve Team Collaboration"),
    ("**Step 2: Set Up Weekly Budget Reviews**", "Set Up Weekly Budget Reviews"),
    ("Phase 3 – Final Packaging Checks", "Final Packaging Checks"),
    ("I only finished middle school, Pak AI", "Pak AI"),
    ("I'm stuck on the Pythagorean theorem again", "Pythagorean"),
    ("They are Nigerian founders building for our market", "Nigerian"),
])
def test_a_steps_title_a_word_of_address_and_a_names_adjective_name_nothing(text, junk):
    assert junk not in {e.name for e in derive(text).entities}


@pytest.mark.parametrize("text, name", [
    ("Venue: Coral Bay Hotel", "Coral Bay Hotel"),          # a labelled value, not a step's title
    ("Many people prefer the Caribbean over Greece", "Caribbean"),  # a name, not an adjective
    ("Sebastian said the trail was closed", "Sebastian"),
])
def test_labelled_names_and_names_like_adjectives_stay(text, name):
    assert name in {e.name for e in derive(text).entities}


def test_dream_admits_no_entity_page_for_a_phrase_the_session_writes_in_lower_case(tmp_path):
    mem = riko.open(tmp_path, preset="coach")
    try:
        for role, text in COACH:
            mem.capture(user_event("s1", text) if role == "user" else assistant_event("s1", text))
        mem.dream(progress=False)
        entities = {p.title for p in mem.context.canon.pages() if p.type == "entity"}
        candidates = set(mem.candidates()["title"].to_list()) if len(mem.candidates()) else set()
        assert {"Grace", "Riverside Park", "Coral Bay Hotel"} <= entities
        for junk in ("Heavy Band Face Pulls", "Learning Session Log", "Glute Bridges", "Pelvic Tilts", "Deep Learning"):
            assert junk not in entities and junk not in candidates
    finally:
        mem.close()
