"""The order of a person's section in the Resident of a multi-party scope: a profile, durable first.

A section is read as what the agent knows about one person, and it is packed in order under the
Resident's bound, so its order is also what gives way first. Facts that stay true lead; what is
tied to a day follows:

1. identity — name, age, origin, where they live, what they study, where and as what they work,
   diet, allergy (in that order, by the page's slot attribute);
2. relationships (family, partner, friends, pets);
3. preferences, then the person's own rules (boundaries);
4. plans, then events (dated: each holds for the day it names);
5. facts: what riko could not place in a kind — small talk lands here as often as anything;
6. last, any of 3–5 said of the day it was said ("today", "tonight", "this morning", "今天",
   "今晚"): a mood, the weather, a plan for that afternoon. Identity, relationships and rules are
   never moved there ("I moved to Berlin today" still says where someone lives).

Within one of those places: confidence desc, activation desc, the time the person said it
(``observed_at``; else ``recorded_at``) newest first, id asc. The time is the evidence's, not
the moment Dream admitted the page, so the order depends on what was said and when, never on
when or in which order a Dream run wrote the pages. A person's kind blocks in a one-user scope
keep the seed's order (type priority, confidence, activation, update time, id).

    >>> section_place("identity", "Kevin/studies", "I'm majoring in Computer Science.")
    (0, 4)
    >>> section_place("plans", "Kevin/plan", "Heres the waterslide im thinking about going on today!")
    (7, 0)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from ..language.lexicon import OF_THE_DAY_EN, OF_THE_DAY_ZH, alternation

__all__ = ["SECTION_ORDER", "IDENTITY_ORDER", "said_of_the_day", "section_place"]

#: The blocks of a person's section, in the order they are read (see the module text).
SECTION_ORDER = ("identity", "relationships", "preferences", "boundaries", "plans", "events", "facts")
#: Identity slot attributes (:mod:`riko.language.derive`) in the order a profile states them.
IDENTITY_ORDER = ("name", "age", "from", "lives_in", "studies", "works_at", "occupation", "diet", "allergy")

_SECTION_RANK: Mapping[str, int] = {block: rank for rank, block in enumerate(SECTION_ORDER)}
_ATTRIBUTE_RANK: Mapping[str, int] = {attribute: rank for rank, attribute in enumerate(IDENTITY_ORDER)}
_OF_THE_DAY_RANK = len(SECTION_ORDER)
_LASTING = frozenset({"identity", "relationships", "boundaries"})
_OF_THE_DAY = re.compile(rf"\b{alternation(OF_THE_DAY_EN)}\b|{alternation(OF_THE_DAY_ZH)}")


def said_of_the_day(text: str) -> bool:
    """Whether ``text`` ties itself to the day it was said ("today", "tonight", "今天")."""
    return _OF_THE_DAY.search(text.lower()) is not None


def _attribute(slot: str | None) -> str:
    """The attribute of a slot key ``subject/attribute[:object]``."""
    if not slot or "/" not in slot:
        return ""
    return slot.rsplit("/", 1)[1].split(":", 1)[0]


@lru_cache(maxsize=1 << 16)
def section_place(block: str, slot: str | None, text: str) -> tuple[int, int]:
    """``(place, attribute rank)`` of an entry in a person's section: where it is read, before the
    ties (confidence, activation, time, id) are broken (memoised: the compiler runs over the whole
    Wiki on every refresh)."""
    place = _SECTION_RANK.get(block, _SECTION_RANK["facts"])
    if block not in _LASTING and said_of_the_day(text):
        return _OF_THE_DAY_RANK, 0
    if block == "identity":
        return place, _ATTRIBUTE_RANK.get(_attribute(slot), len(IDENTITY_ORDER))
    return place, 0
