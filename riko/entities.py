"""Entity pages: one page per entity per scope (type ``entity``, category ``entity``) with its
aliases, and the ``[[wikilinks]]`` fact pages carry to them, so the link graph has edges.

An entity is known by a key that holds across languages (:func:`riko.dream.consolidate.entity_key`:
"Berlin" and "柏林" are one place); a page answers to its title and to every alias in its tags.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from .dream.atoms import split_speaker
from .dream.consolidate import entity_key
from .dream.derive import Entity, could_be_name, derive, given_name
from .wiki import Page

__all__ = ["ENTITY_CATEGORY", "SELF_KIND", "USER_TITLE", "EntityMap", "entity_description", "is_entity_page",
           "link_line", "grounded_in", "named_entities", "said_in"]

#: The ``category`` of an entity page.
ENTITY_CATEGORY = "entity"
#: The user's own entity page: every first-person fact of the user links it (a multi-party
#: speaker's facts link the speaker's person page instead), and its tags hold the names the user
#: gave themselves. Its ``kind`` is ``self``, so it is a link target only: recall never walks
#: through it (it would join every fact to every other) and the Resident never shows it.
USER_TITLE = "User"
SELF_KIND = "self"


def named_entities(text: str, *, multi_party: bool = False) -> tuple[Entity, ...]:
    """The entities a statement names (riko's derivation), and the page of whoever is its subject
    when that is its speaker: the user's own page ("I prefer dark mode" is about the user), or, in
    a multi-party log (``multi_party``: the user lines are ``Name: text``), the speaker's person
    page ("Fahim Khan: I went running" is about Fahim Khan, not about the user).

    A name the subject gives themselves ("My name is Mira") is an alias of that page, not another
    person: the user is not a stranger called Mira.
    """
    speaker, said = split_speaker(text) if multi_party else (None, text)
    if speaker is not None and not could_be_name(speaker):
        speaker, said = None, text
    derived = derive(said, speaker=speaker) if speaker else derive(text)
    if derived.subject != (speaker or "user"):
        return derived.entities
    own = Entity(speaker, "person") if speaker else Entity(USER_TITLE, SELF_KIND)
    named = [e for e in derived.entities if entity_key(e) != entity_key(own)]
    name = given_name(derived)
    if name is not None:
        first = name.split()[0]
        named = [e for e in named if _fold(e.name) not in (_fold(name), _fold(first))]
        # a user's line that quotes someone ("Kevin: My name is Robert") gives Kevin's name, not the user's
        quoted = speaker is None and _quoted_speaker(text)
        if _fold(name) != _fold(own.name) and not quoted:
            own = Entity(own.name, own.kind, (name,))
    return (*named, own)


def _quoted_speaker(text: str) -> bool:
    """Whether ``text`` starts with a ``Name: `` prefix that may name someone (another speaker)."""
    prefix = split_speaker(text)[0]
    return prefix is not None and could_be_name(prefix)


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def said_in(name: str, text: str) -> bool:
    """True when ``name`` occurs in the user's words ``text`` (case and width folded)."""
    folded = _fold(name)
    return bool(folded) and folded in _fold(text)


def grounded_in(entity: Entity, text: str) -> bool:
    """Whether the user's words ``text`` name ``entity`` (the user's own page: by speaking of themselves)."""
    return entity.kind == SELF_KIND or any(said_in(name, text) for name in entity.names())


def entity_description(name: str, kind: str, aliases: Iterable[str]) -> str:
    """``Lena (person), also called my sister, 妹妹``: what an entity page says in one line."""
    names = list(aliases)
    return f"{name} ({kind})" + (f", also called {', '.join(names)}" if names else "")


def is_entity_page(page: Page) -> bool:
    return page.type == "entity" and page.category == ENTITY_CATEGORY


class EntityMap:
    """The live entity pages of a scope by every key and alias they answer to."""

    def __init__(self, pages: Iterable[Page]) -> None:
        self.by_key: dict[str, Page] = {}
        for page in pages:
            if is_entity_page(page) and page.status == "confirmed" and page.superseded_by is None:
                self.add(page)

    def add(self, page: Page) -> None:
        kind = page.kind or "other"
        for name in (page.title, *page.tags):
            self.by_key.setdefault(entity_key(Entity(name, kind)), page)
            self.by_key.setdefault(_fold(name), page)

    def replace(self, page: Page) -> None:
        self.by_key = {k: (page if v.id == page.id else v) for k, v in self.by_key.items()}
        self.add(page)

    def find(self, entity: Entity) -> Page | None:
        for name in (entity.name, *entity.aliases):
            page = self.by_key.get(entity_key(Entity(name, entity.kind))) or self.by_key.get(_fold(name))
            if page is not None:
                return page
        return None


def link_line(entities: Iterable[Entity], known: EntityMap, text: str) -> str:
    """``[[Lena]] · [[Berlin|柏林]]``: a link to each entity page the statement names, labelled with
    the name the user's words use when that differs from the page title."""
    links: list[str] = []
    seen: set[str] = set()
    for entity in entities:
        page = known.find(entity)
        if page is None or page.id in seen:
            continue
        seen.add(page.id)
        label = next((n for n in (entity.name, *entity.aliases) if said_in(n, text)), page.title)
        links.append(f"[[{page.title}]]" if _fold(label) == _fold(page.title) else f"[[{page.title}|{label}]]")
    return " · ".join(links)
