"""A person's section of a multi-party Resident reads as a profile: durable facts first.

Identity (origin before work, by slot attribute), relationships, preferences, the person's rules,
plans, events (newest said first), unplaced facts, and last what was said of that day only —
whatever order the person said things in, and whenever Dream admitted the pages. The order is a
function of the pages alone, and the bound cuts from its end, whole items only.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

from riko.resident.compile import PREFIX, SUFFIX, compile_resident
from riko.resident.profile import section_place
from riko.wiki.page import Page

NOW = datetime(2026, 2, 1, 12, 0, tzinfo=timezone.utc)
SAID_FROM = datetime(2024, 1, 1, 10, 0, tzinfo=timezone.utc)
DREAMT_AT = datetime(2026, 1, 31, 8, 0, tzinfo=timezone.utc)

# (kind, slot attribute, words), in the order the person said them: events first, identity last
KEVIN = (
    ("event", "did:made", "Here's a dessert I made the other day!"),
    ("event", "did:took", "I took my dog Biscuit to the beach."),
    ("plan", "plan", "Here's the waterslide I'm thinking about going on today!"),
    ("fact", "states:doing_well", "I am doing quite well, it is a sunny day today."),
    ("event", "did:ran", "I ran my first half marathon."),
    ("fact", "states:resolutions", "My resolutions are more athletic this year."),
    ("plan", "plan:albania", "I plan to visit Albania next summer."),
    ("boundary", "boundary", "Please don't bring up my old job."),
    ("preference", "likes:burgers", "I love burgers and barbecue."),
    ("relationship", "sister", "My sister Lena lives in Berlin."),
    ("identity", "works_at", "I work at a bike shop in San Francisco."),
    ("identity", "from", "I am from Tirana, the capital city."),
)
KEVIN_PROFILE = (  # the section as it must read
    "I am from Tirana, the capital city.",
    "I work at a bike shop in San Francisco.",
    "My sister Lena lives in Berlin.",
    "I love burgers and barbecue.",
    "(their rule: follow it, never bring it up) Please don't bring up my old job.",
    "I plan to visit Albania next summer.",
    "I ran my first half marathon.",
    "I took my dog Biscuit to the beach.",
    "Here's a dessert I made the other day!",
    "My resolutions are more athletic this year.",
    "I am doing quite well, it is a sunny day today.",
    "Here's the waterslide I'm thinking about going on today!",
)
ELISE = (
    ("event", "did:walked", "I just took a morning walk in Houston."),
    ("plan", "plan:products", "I'm going to buy the products we talked about today."),
    ("preference", "likes:pasta", "I love making fresh pasta."),
    ("identity", "from", "I'm from Houston, Texas."),
)
ELISE_PROFILE = (
    "I'm from Houston, Texas.",
    "I love making fresh pasta.",
    "I just took a morning walk in Houston.",
    "I'm going to buy the products we talked about today.",
)
LINA = (
    ("event", "did:做", "我前天做了一个蛋糕。"),
    ("event", "did:带", "我带我的狗去了海边。"),
    ("plan", "plan", "我今天打算去坐滑水道。"),
    ("fact", "states:不错", "今天天气很好，我过得不错。"),
    ("event", "did:跑", "我跑完了第一个半程马拉松。"),
    ("fact", "states:目标", "我的新年目标都和运动有关。"),
    ("plan", "plan:阿尔巴尼亚", "我打算明年夏天去阿尔巴尼亚。"),
    ("boundary", "boundary", "请不要提起我以前的工作。"),
    ("preference", "likes:火锅", "我喜欢吃火锅。"),
    ("relationship", "sister", "我妹妹小雨住在柏林。"),
    ("identity", "works_at", "我在一家自行车店工作。"),
    ("identity", "from", "我来自杭州。"),
)
LINA_PROFILE = (
    "我来自杭州。",
    "我在一家自行车店工作。",
    "我妹妹小雨住在柏林。",
    "我喜欢吃火锅。",
    "(their rule: follow it, never bring it up) 请不要提起我以前的工作。",
    "我打算明年夏天去阿尔巴尼亚。",
    "我跑完了第一个半程马拉松。",
    "我带我的狗去了海边。",
    "我前天做了一个蛋糕。",
    "我的新年目标都和运动有关。",
    "今天天气很好，我过得不错。",
    "我今天打算去坐滑水道。",
)
WEI = (
    ("event", "did:散步", "我早上在公园散步了。"),
    ("plan", "plan:买", "我今天晚上要去买菜。"),
    ("preference", "likes:面条", "我喜欢做手工面条。"),
    ("identity", "from", "我来自成都。"),
)
WEI_PROFILE = ("我来自成都。", "我喜欢做手工面条。", "我早上在公园散步了。", "我今天晚上要去买菜。")

_TYPES = {"identity": "synthesis", "relationship": "relationship", "preference": "concept", "plan": "episode",
          "event": "episode", "boundary": "concept", "fact": "concept"}
_CATEGORIES = {"identity": "identity", "relationship": "people", "preference": "preferences", "plan": "open_thread",
               "event": "experience", "boundary": "interaction_rules", "fact": "facts"}
PAIRS = {"en": (("Kevin", KEVIN, KEVIN_PROFILE), ("Elise", ELISE, ELISE_PROFILE)),
         "zh": (("李娜", LINA, LINA_PROFILE), ("王伟", WEI, WEI_PROFILE))}


def _pages(pair: str, *, dreamt_at: datetime = DREAMT_AT, seed: int = 0) -> list[Page]:
    """The two people's fact pages as Dream admits them: said an hour apart each, admitted in an
    order of its own (``seed`` shuffles the admission times, as another Dream run would)."""
    pages = []
    for person, said, _ in PAIRS[pair]:
        for n, (kind, attribute, words) in enumerate(said):
            pages.append(Page(
                id=f"p-{person}-{n:02d}", type=_TYPES[kind], title=f"{person}: {words}", description=f"{person}: {words}",
                kind=kind, category=_CATEGORIES[kind], confidence=0.6, observed_at=SAID_FROM + timedelta(hours=n),
                extra={"slot": f"{person}/{attribute}"},
            ))
    order = list(range(len(pages)))
    random.Random(seed).shuffle(order)
    return [page.replace(recorded_at=dreamt_at + timedelta(microseconds=rank)) for page, rank in zip(pages, order)]


def _sections(snap) -> dict[str, list[str]]:
    return {b.subject: [entry[2:] for _, entry in b.entries] for b in snap.blocks if b.kind == "person"}


@pytest.mark.parametrize("pair", ["en", "zh"])
def test_each_section_reads_as_a_profile_identity_first(pair):
    snap = compile_resident(_pages(pair), now=NOW, max_chars=12000)
    sections = _sections(snap)
    for person, _, profile in PAIRS[pair]:
        # the identity facts were said last, after every event, and still lead (origin before work)
        assert sections[person] == list(profile), snap.text
    assert len(snap.text) <= snap.max_chars


@pytest.mark.parametrize("pair", ["en", "zh"])
def test_the_order_is_the_same_on_every_recompile_and_dream_run(pair):
    first = compile_resident(_pages(pair), now=NOW, max_chars=12000)
    for seed in range(1, 8):
        pages = _pages(pair, dreamt_at=DREAMT_AT + timedelta(days=seed), seed=seed)
        random.Random(seed).shuffle(pages)
        again = compile_resident(pages, now=NOW + timedelta(minutes=seed), max_chars=12000)
        # another Dream run admits the same pages at other instants, in another order: same text
        assert (again.text, again.version) == (first.text, first.version)


@pytest.mark.parametrize("pair", ["en", "zh"])
def test_the_bound_cuts_a_section_from_its_end_whole_items_only(pair):
    pages = _pages(pair)
    full = {person: list(profile) for person, _, profile in PAIRS[pair]}
    overhead = len(PREFIX) + len(SUFFIX)
    seen_cut = False
    for cap in (overhead, 256, 300, 350, 400, 450, 500, 600, 700, 800, 1000, 1400):
        snap = compile_resident(pages, now=NOW, max_chars=cap)
        assert len(snap.text) <= cap
        for person, kept in _sections(snap).items():
            assert all(f"- {entry}" in snap.text for entry in kept)  # whole entries
            # what a section keeps is read in the profile's order ...
            assert kept == [entry for entry in full[person] if entry in kept]
            # ... and the bound takes what was said of one day before anything durable
            if full[person][-1] in kept:
                assert full[person][0] in kept
            elif full[person][0] in kept:
                seen_cut = True
    assert seen_cut


def test_section_place():
    assert section_place("identity", "Kevin/from", "I am from Tirana.") < section_place(
        "identity", "Kevin/works_at", "I work at a bank.")
    # a rule or where someone lives stays put whatever day it was said on
    assert section_place("identity", "Kevin/lives_in", "I moved to Berlin today.") == (0, 3)
    assert section_place("boundaries", None, "Don't mention my ex today.") == (3, 0)
    assert section_place("plans", "Kevin/plan", "I'm going hiking tonight.") == (7, 0)
    assert section_place("facts", "李娜/states:累", "我今天好累。") == (7, 0)
    assert section_place("events", "Kevin/did:x", "I won the Todays Award.")[0] == 5
