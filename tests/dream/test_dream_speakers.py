"""Multi-party logs: a speaker's facts link the speaker's own person page, not the user's page.

The logs are generated: a few speakers (a two-word name, a one-word name, a name typed in lower
case) take turns saying first-person facts, small talk and statements about someone else, each
user line ``Speaker: text`` as a multi-party log is ingested.
"""

from __future__ import annotations

import json
import random
import re

import pytest

import riko
from dream_stub import user_event
from riko.review.entities import USER_TITLE
from riko.recall.channels import graph_expand

SPEAKERS = ("Fahim Khan", "Akib", "elise")
FACTS = (
    "I went running by the river this morning",
    "I adopted a grey kitten called Pistachio last week",
    "I love green tea with honey",
    "I started learning the saxophone",
    "I hate waking up early on Sundays",
    "I bought a new mountain bike yesterday",
    "I finished reading a novel about lighthouses",
    "I cooked a huge pot of lentil soup",
)
SMALL_TALK = ("Good morning!", "How are you?", "Haha nice", "What about you?")
ABOUT_SOMEONE = ("Mia sings in a jazz band downtown", "Lena forgot my order at the cafe")


def multi_party_log(seed: int, sessions: int = 2) -> dict[str, list[str]]:
    """``{session id: ["Speaker: text", ...]}``: every speaker says a few facts of their own."""
    rng = random.Random(seed)
    facts = list(FACTS)
    rng.shuffle(facts)
    out: dict[str, list[str]] = {}
    for s in range(sessions):
        lines = []
        for i, speaker in enumerate(SPEAKERS):
            lines.append(f"{speaker}: {rng.choice(SMALL_TALK)}")
            lines.append(f"{speaker}: {facts[(s * len(SPEAKERS) + i) % len(facts)]}")
        lines.append(f"{SPEAKERS[s % len(SPEAKERS)]}: {ABOUT_SOMEONE[s % len(ABOUT_SOMEONE)]}")
        rng.shuffle(lines)
        out[f"mp-{seed}-{s}"] = lines
    return out


@pytest.fixture
def dreamed(tmp_path):
    with riko.open(tmp_path, preset="companion", config={"recall_enabled": True}) as mem:
        log = multi_party_log(7)
        for sid, lines in log.items():
            for line in lines:
                mem.capture(user_event(sid, line))
        mem.dream(progress=False)
        yield mem, log


def _pages(mem):
    return [p for p in mem.context.canon.pages() if p.status == "confirmed"]


def _speaker_of(page) -> str:
    return page.description.split(":", 1)[0]


def test_a_speakers_first_person_facts_link_the_speakers_page_not_the_users(dreamed):
    mem, log = dreamed
    pages = _pages(mem)
    entities = {p.title: p for p in pages if p.category == "entity"}
    assert set(SPEAKERS) <= set(entities) and USER_TITLE not in entities
    assert all((entities[s].type, entities[s].kind) == ("entity", "person") for s in SPEAKERS)
    facts = [p for p in pages if p.category != "entity" and re.search(r": I\b", p.description)]
    assert len(facts) == 2 * len(SPEAKERS)  # every whole-line fact was admitted from the speaker's words
    for page in facts:
        links = {link.target for link in page.links()}
        assert _speaker_of(page) in links and USER_TITLE not in links, page.description
        # the slot's subject is the speaker too
        assert page.extra["slot"].startswith(_speaker_of(page) + "/"), page.extra
    # one entity page per speaker however often they speak, each with its own candidate accepted
    assert sorted(p.title for p in pages if p.category == "entity" and p.title in SPEAKERS) == sorted(SPEAKERS)
    # what someone said about someone else is not the speaker's own fact
    about = [p for p in _pages(mem) if any(a in p.description for a in ABOUT_SOMEONE)]
    assert about and all(USER_TITLE not in {link.target for link in p.links()} for p in about)


def test_a_speakers_candidates_carry_the_speakers_link(dreamed):
    mem, _ = dreamed
    rows = mem.context.review.cands.records()
    facts = [r for r in rows if r["category"] != "entity" and re.search(r": I\b", r["title"] or "")]
    assert facts
    for row in facts:
        links = json.loads(row["links"])
        assert _speaker_of_title(row["title"]) in links and USER_TITLE not in links, row


def _speaker_of_title(title: str) -> str:
    return title.split(":", 1)[0]


def test_the_graph_walks_from_a_speakers_fact_to_their_other_facts_only(dreamed):
    mem, _ = dreamed
    graph = mem.graph()
    facts = [p for p in _pages(mem) if p.category != "entity" and re.search(r": I\b", p.description)]
    by_speaker: dict[str, list[str]] = {}
    for page in facts:
        by_speaker.setdefault(_speaker_of(page), []).append(page.id)
    for speaker, ids in by_speaker.items():
        reached = set(graph_expand(graph, [ids[0]], 20).ids)
        assert set(ids[1:]) <= reached, speaker  # fact → speaker page → fact: two hops
        others = {i for s, more in by_speaker.items() if s != speaker for i in more}
        assert not reached & others, speaker
        assert not {n for n in reached if graph.nodes[n].get("hub") or graph.nodes[n].get("user")}


def test_a_single_user_log_still_links_the_users_own_page(tmp_path):
    with riko.open(tmp_path, preset="companion") as mem:
        for line in ("I love green tea with honey", "How are you?",
                     "SUMMARISE: I need the report by Friday", "I went running by the river this morning"):
            mem.capture(user_event("solo", line))
        mem.dream(progress=False)
        pages = _pages(mem)
        assert {p.title for p in pages if p.category == "entity"} == {USER_TITLE}
        tea = next(p for p in pages if p.description.startswith("I love green tea"))
        assert [link.target for link in tea.links()] == [USER_TITLE]


def test_a_heading_is_no_speaker_even_when_most_lines_carry_it(tmp_path):
    with riko.open(tmp_path, preset="companion") as mem:
        for line in ("SUMMARISE: I need the report by Friday", "SUMMARISE: we analyse the data",
                     "SUMMARISE: I love green tea with honey"):
            mem.capture(user_event("headings", line))
        mem.dream(progress=False)
        assert "SUMMARISE" not in {p.title for p in _pages(mem) if p.category == "entity"}


def test_a_diary_of_day_labels_is_one_users_session(tmp_path):
    """Lines labelled with the day ("Monday: …") are one user's diary, not a multi-party log: the
    one label that could be a name ("Breakfast: …") is no speaker, and every fact links the user."""
    lines = ("Monday: I went running by the river this morning.", "Tuesday: I adopted a grey kitten called Pistachio.",
             "Wednesday: I started learning the saxophone.", "Thursday: I love green tea with honey.",
             "Breakfast: I ate oatmeal with blueberries.")
    with riko.open(tmp_path, preset="companion") as mem:
        for line in lines:
            mem.capture(user_event("diary", line))
        mem.dream(progress=False)
        pages = [p for p in mem.context.canon.pages() if p.status == "confirmed"]
        entities = {p.title for p in pages if p.category == "entity"}
        assert "Breakfast" not in entities
        facts = [p for p in pages if p.category != "entity"]
        assert facts and all(f"[[{USER_TITLE}" in p.body for p in facts)
