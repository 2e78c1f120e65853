"""Entity pages: one page per entity per scope (type ``entity``, category ``entity``) with its
aliases, and the ``[[wikilinks]]`` fact pages carry to them, so the link graph has edges.

An entity is known by a key that holds across languages (:func:`riko.review.consolidate.entity_key`:
"Berlin" and "柏林" are one place); a page answers to its title and to every alias in its tags.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence

from ..language.atoms import split_speaker
from .consolidate import entity_key
from ..language.derive import Entity, canonical_place, could_be_name, derive, given_name, relation_alias, says_what_it_names
from ..language.lexicon import WEEKDAYS_EN
from ..language.vocabulary import Vocabulary
from ..wiki import Page

__all__ = ["ENTITY_CATEGORY", "KIN_LABEL", "SELF_KIND", "USER_TITLE", "EntityMap", "entity_body", "entity_description",
           "is_entity_page", "is_live_statement", "kin_links", "kin_of", "kin_line", "stated_kin",
           "unstated_kin", "link_line", "grounded_in", "heading_words", "named_entities", "said_in"]

#: The ``category`` of an entity page.
ENTITY_CATEGORY = "entity"
#: The user's own entity page: every first-person fact of the user links it (a multi-party
#: speaker's facts link the speaker's person page instead), and its tags hold the names the user
#: gave themselves. Its ``kind`` is ``self``, so it is a link target only: recall never walks
#: through it (it would join every fact to every other) and the Resident never shows it.
USER_TITLE = "User"
SELF_KIND = "self"


# days of the week that are days of the year: a name, never a common phrase and a weekday
_DAY_NAMES = frozenset(("black friday", "good friday", "cyber monday", "easter sunday", "easter monday", "palm sunday",
                        "ash wednesday", "maundy thursday", "holy saturday", "super tuesday", "giving tuesday"))


def named_entities(text: str, *, multi_party: bool = False, session: Vocabulary | None = None) -> tuple[Entity, ...]:
    """The entities a statement names (riko's derivation), and the page of whoever is its subject
    when that is its speaker: the user's own page ("I prefer dark mode" is about the user), or, in
    a multi-party log (``multi_party``: the user lines are ``Name: text``), the speaker's person
    page ("Fahim Khan: I went running" is about Fahim Khan, not about the user).

    A name the subject gives themselves ("My name is Mira") is an alias of that page, not another
    person: the user is not a stranger called Mira. With the ``session`` the statement was said in,
    a Title-Case phrase that session also writes in lower case names nothing (:func:`heading_words`).
    """
    speaker, said = split_speaker(text) if multi_party else (None, text)
    if speaker is not None and not could_be_name(speaker):
        speaker, said = None, text
    derived = derive(said, speaker=speaker) if speaker else derive(text)
    entities = derived.entities if session is None else tuple(
        e for e in derived.entities if not heading_words(e, said, session))
    if derived.subject != (speaker or "user"):
        return entities
    own = Entity(speaker, "person") if speaker else Entity(USER_TITLE, SELF_KIND)
    named = [e for e in entities if entity_key(e) != entity_key(own)]
    name = given_name(derived)
    if name is not None:
        first = name.split()[0]
        named = [e for e in named if _fold(e.name) not in (_fold(name), _fold(first))]
        # a user's line that quotes someone ("Kevin: My name is Robert") gives Kevin's name, not the user's
        quoted = speaker is None and _quoted_speaker(text)
        if _fold(name) != _fold(own.name) and not quoted:
            own = Entity(own.name, own.kind, (name,))
    return (*named, own)


def heading_words(entity: Entity, text: str, session: Vocabulary) -> bool:
    """Whether ``entity`` is a common noun phrase the scope's words (``session``: its evidence's
    user and assistant lines, or one session's) write in lower case too, capitalised in ``text``
    as a heading, a step or a feature ("Deep Learning", "Heavy Band Face Pulls", "Delimiters"):
    :meth:`Vocabulary.common_phrase`. A relative or a pet the words tie stays, as does a name
    whose words say what it names ("Salt Lake City", "Coral Bay Hotel"), a title the text quotes
    or sets in italics ("The Girl on the Train", "*Distinction*") and a name the text gives
    ("a startup called Minutes"); one word taken for someone ("Grace said", "Time really got
    away") is a common word only where the words never capitalise it mid-sentence, or write it in
    lower case twenty times as often ("Work has been"). What the lines set as inline code as often as
    they write it in prose is an identifier ("`CalculationDelta`"), a word that leads several names
    and is written in lower case a category ("Rifugio"), and a quoted title a label of the user's
    own work where its words are common ("'Optional Rest Period'", "'Unity and Passion'"). A weekday
    after common words is a day, not part of a name ("Logging Friday's data"), and a phrase led by
    a word in -ing the words never capitalise mid-sentence a step ("Using DSP terminology"; not
    "Seeking Alpha", a name the words write mid-sentence)."""
    if entity.kind in ("person", "pet") and entity.aliases:
        return False
    if session.written_as_code(entity.name):
        return True  # an identifier, a column or a metric the lines set as code ("`CalculationDelta`")
    if entity.kind in ("person", "pet") and " " not in entity.name:
        return session.never_capitalised(entity.name) or session.seldom_capitalised(entity.name)
    name = re.escape(entity.name)
    quoted = re.search(r"[\"“'‘*_]" + name + r"[\"”'’*_]", text) is not None
    if says_what_it_names(entity.name) \
            or re.search(r"\b(?i:called|named|name\s+is|name:)\s+(?i:the\s+)?[\"“'‘]?" + name + r"\b", text) \
            or re.match(r"\s+(?:has|have|had)\s+(?:\w+ly\s+)?(?:[a-z]+ed|sent|made|built|written|done|won|given|taken)\b",
                        text[text.find(entity.name) + len(entity.name):] if entity.name in text else ""):
        return False  # a name the text gives ("Our business name is “Heros Home"), or one that has done something
    if quoted:  # a title the text quotes, unless it is a label of the user's own work
        return _joined_common_words(entity.name, text, session) or not _WORK_CUE.search(text) \
            and entity.name.split()[0] not in ("The", "A", "An") \
            and (session.work_artefact(entity.name) or session.concept_phrase(entity.name))
    words = entity.name.split()
    if len(words) == 1 and session.heads_names(entity.name):
        return True  # a word that leads many names and is written in lower case too ("Rifugio" of "Rifugio Fanes")
    if words[-1].casefold() == "project":
        return False  # a project the words call one ("the Healing Arts Project")
    if len(words) > 1 and words[0].endswith("ing") and session.never_capitalised(words[0]) \
            and session.mid_sentence(entity.name) < 2:
        return True  # a step that starts with what to do ("Using DSP terminology")
    if len(words) > 1 and words[-1].casefold() in WEEKDAYS_EN and entity.name.casefold() not in _DAY_NAMES:
        rest = " ".join(words[:-1])
        return session.common_phrase(rest) or len(words) == 2 and session.lower(rest) > session.capital(rest)
    if len(words) > 1 and session.concept_phrase(entity.name) \
            and not any(canonical_place(w) for w in words[:-1]):
        return True  # a concept, a document or payment of a kind, an exercise ("Construction Contracts", "Payback Period")
    if len(words) == 1 and session.common_compound(entity.name):
        return True  # one word compounded of common words the lines write so ("Self-Critique", "Self-care")
    after = re.search(name + r"\s+([a-z]+)\b", text)
    return session.common_phrase(entity.name) or session.work_artefact(entity.name, after.group(1) if after else "")


# two common words or pairs joined by "and" / "&": a quoted theme or category ("'Unity and Passion'",
# "'Overall Value & Pricing'"), unless the words say it is a title ("the novel 'Pride and Prejudice'")
_JOINED = re.compile(r"[\w\-]+(?: [\w\-]+)? (?:&|and) [\w\-]+(?: [\w\-]+)?")
_WORK_CUE = re.compile(r"\b(?:book|novel|film|movie|show|series|song|album|play|poem|story|read(?:ing)?|watch(?:ing)?|"
                       r"company|brand|shop|store|firm)\b", re.I)


def _joined_common_words(name: str, text: str, session: Vocabulary) -> bool:
    """Whether a quoted ``name`` joins common words with "and" or "&" that the scope writes in lower
    case three times each at least ("'Unity and Passion'", "'Independent Study & Self-Discipline'")."""
    if not _JOINED.fullmatch(name) or _WORK_CUE.search(text):
        return False
    words = [w for w in re.findall(r"[^\W\d_]+", name) if w.casefold() != "and"]
    return all(re.fullmatch(r"[A-Z]?[a-z]+", w) and session.lower(w) >= 3 for w in words)


def kin_of(text: str, *, multi_party: bool = False) -> tuple[Entity, tuple[tuple[str, Entity], ...]]:
    """Whose relatives and pets a statement names, and each with its relation: ``("sister",
    Lena)``, ``("cat", Luna)``. The owner is the user's own page, or in a multi-party log the
    speaker's person page ("Akib: My sister Lena lives in Berlin" → Akib's sister); a relation is
    what the words tie to a name ("my sister Lena", "Luna is my cat", "我妹妹小雨")."""
    speaker, said = split_speaker(text) if multi_party else (None, text)
    if speaker is not None and not could_be_name(speaker):
        speaker, said = None, text
    derived = derive(said, speaker=speaker) if speaker else derive(text)
    owner = Entity(speaker, "person") if speaker else Entity(USER_TITLE, SELF_KIND)
    kin = []
    for entity in derived.entities:
        relation = next((a[3:] for a in entity.aliases if a.startswith("my ")), None)
        if relation is not None and entity.kind in ("person", "pet") and entity.name != relation \
                and not entity.name.startswith("my "):
            kin.append((relation, entity))
    return owner, tuple(kin)


#: The line of an entity page that links its owner's relatives and pets.
KIN_LABEL = "Family and pets:"


def kin_line(kin: Iterable[tuple[str, str]]) -> str:
    """``Family and pets: sister [[Lena]] · cat [[Luna]]`` from ``(relation, page title)`` pairs."""
    return f"{KIN_LABEL} " + " · ".join(f"{relation} [[{title}]]" for relation, title in kin)


def kin_links(body: str) -> list[tuple[str, str]]:
    """The ``(relation, page title)`` pairs an entity page's ``Family and pets:`` line links."""
    return _body_parts(body)[0]


def _body_parts(body: str) -> tuple[list[tuple[str, str]], list[str]]:
    links: list[tuple[str, str]] = []
    other: list[str] = []
    for line in (line for line in body.splitlines() if line.strip()):
        if line.startswith("Also called:"):
            continue
        if line.startswith(KIN_LABEL):
            for part in line[len(KIN_LABEL):].split(" · "):
                relation, _, target = part.strip().partition(" [[")
                if target.endswith("]]") and (relation, target[:-2]) not in links:
                    links.append((relation, target[:-2]))
            continue
        other.append(line)
    return links, other


def entity_body(tags: Iterable[str], previous: str = "", kin: Iterable[tuple[str, str]] = (),
                drop: Iterable[tuple[str, str]] = ()) -> str:
    """An entity page's body: its ``Also called:`` line from ``tags``, then its relatives and pets
    — those the ``previous`` body linked, less ``drop`` (links no live statement states any
    more), and ``kin`` (``(relation, page title)``, new ones last) — and any other line
    ``previous`` held."""
    names = list(tags)
    links, other = _body_parts(previous)
    gone = set(drop)
    links = [pair for pair in links if pair not in gone]
    for pair in kin:
        if pair not in links:
            links.append(pair)
    out = (["Also called: " + " · ".join(names)] if names else []) + ([kin_line(links)] if links else []) + other
    return "\n\n".join(out)


def is_live_statement(page: Page) -> bool:
    """A confirmed, in-use statement page (not an entity page; not forgotten, suppressed,
    superseded or closed): what an owner's kin line is derived from."""
    return (page.status == "confirmed" and page.superseded_by is None and page.valid_to is None
            and page.usage_policy != "suppressed" and not is_entity_page(page))


def stated_kin(words: str, entities: "EntityMap", *, multi_party: bool = False) -> tuple[str | None, set[tuple[str, str]]]:
    """The owner page id and the ``(relation, page title)`` links a statement's ``words`` give
    it, as found among ``entities``; ``(None, set())`` when the owner has no page."""
    owner, kin = kin_of(words, multi_party=multi_party)
    page = entities.find(owner)
    if page is None:
        return None, set()
    return page.id, {(relation, found.title) for relation, entity in kin
                     for found in (entities.find(entity),) if found is not None}


def unstated_kin(owner: Page, links: Iterable[tuple[str, str]], pages: Iterable[Page],
                 multi_party: Callable[[Sequence[str], str], bool]) -> list[tuple[str, str]]:
    """Those of ``links`` on ``owner``'s kin line that no live statement page among ``pages``
    states any more (``multi_party(refs, words)``: whether words are a speaker's line)."""
    wanted = [pair for pair in links if pair in kin_links(owner.body)]
    if not wanted:
        return []
    pages = list(pages)
    entities = EntityMap(pages)
    names = {_fold(n) for _, title in wanted for found in (entities.find(Entity(title, "other")),)
             for n in ((title, *found.tags) if found is not None else (title,))}
    still: set[tuple[str, str]] = set()
    for page in pages:
        words = page.description or page.title
        if not is_live_statement(page) or not any(n and n in _fold(words) for n in names):
            continue
        pid, kin = stated_kin(words, entities, multi_party=multi_party(page.sources, words))
        if pid == owner.id:
            still |= kin
    return [pair for pair in wanted if pair not in still]


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
        """The page of ``entity``: by its name or a name of its own; by a relation ("my cat",
        "妹妹") only when that is all the entity is called, since two cats are both "my cat"."""
        related = relation_alias(entity.name) is not None
        for name in (entity.name, *entity.aliases):
            if not related and relation_alias(name) is not None:
                continue
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
