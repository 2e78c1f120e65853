"""Consolidation: how a new statement relates to what the scope already holds for the same slot.

Each statement is read once into :class:`Facts` (its slot, polarity, value, entities, numbers
and months, from :func:`riko.language.derive.derive` over the user's words) and compared only with
the pages and candidates filed under the same slot key in a :class:`SlotIndex`, so a lookup
costs one dictionary access, never a scan of the Wiki. :func:`compare` decides:

* ``same`` — the same words again: evidence is added to the existing page;
* ``alias`` — a paraphrase or a translation: entities, numbers, months and polarity agree and the
  value is the same (a place said in two languages is one place), so it is one memory;
* ``replacement`` — the same single-valued slot with another value, or other numbers or months:
  a reviewable temporal replacement of the existing page;
* ``contradiction`` — the same slot with the opposite polarity: a conflict;
* ``distinct`` — anything else, including values that cannot be compared (two scripts and no
  shared name): a page of its own. Cosine similarity alone never decides a merge.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from operator import itemgetter

from ..language.lexicon import CJK, MONTHS_EN
from .authority import normalize_claim
from .conflicts import speaks_of_change
from ..language.atoms import split_speaker
from ..language.derive import Entity, canonical_place, derive

__all__ = ["Facts", "facts", "compare", "SlotIndex", "TypedSlots", "OUTCOMES", "entity_key", "SINGLE_VALUED"]

OUTCOMES = ("same", "alias", "replacement", "contradiction", "distinct")

#: Attributes that hold one value at a time: another value replaces the old one.
SINGLE_VALUED = frozenset({"name", "age", "lives_in", "from", "works_at", "occupation", "studies", "diet"})

_CJK = re.compile(CJK)
_MONTHS_EN = {m: i + 1 for i, m in enumerate(MONTHS_EN)}
_MONTHS_EN.update({m[:3]: i for m, i in list(_MONTHS_EN.items()) if m != "may"})
_MONTH_EN_RE = re.compile(r"\b(" + "|".join(sorted(_MONTHS_EN, key=len, reverse=True)) + r")\b\.?", re.IGNORECASE)
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十", start=0)}
_MONTH_ZH_RE = re.compile(r"(十[一二]|[一二三四五六七八九十]|1[0-2]|[1-9])月(?!份?饼)")
_NEXT_MONTH = re.compile(r"\bnext month\b|下个?月", re.IGNORECASE)
_THIS_MONTH = re.compile(r"\bthis month\b|这个?月|本月", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})(?:-(\d{1,2}))?\b")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b|(\d{4})年")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)?")
_EN_NUMBERS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_EN_NUMBER_RE = re.compile(r"\b(" + "|".join(_EN_NUMBERS) + r")\b", re.IGNORECASE)
_ZH_NUMBER_RE = re.compile(r"([一二两三四五六七八九十])(?=[个只岁次杯本位辆套天条件口])")
_WORD = re.compile(r"[a-z0-9]+|" + CJK)
_CONTENT_EN = re.compile(r"[a-z0-9][a-z0-9'\-]{2,}")
_CJK_RUN = re.compile(CJK + "+")
_FILLER = frozenset("""the and but for with that this these those have has had was were are you your about just really
very also still some any much more most not can cannot its they them their there then than what when where which who why
how all our out get got been being from into would could should will may might maybe think guess like know okay yeah well
i'm i've i'll i'd im ive dont don't its it's thats that's so too now today pretty lot lots thing things one because
great good nice cool amazing awesome best fun""".split())


def _zh_month(token: str) -> int:
    if token.isdigit():
        return int(token)
    if token.startswith("十"):
        return 10 + (_ZH_DIGITS[token[1]] if len(token) > 1 else 0)
    return _ZH_DIGITS[token]


def _months(text: str, when: datetime | None) -> frozenset[str]:
    """The months a statement names, as ``YYYY-MM`` (a month without a year is the next one from ``when``)."""
    found: set[str] = set()
    year_m = _YEAR.search(text)
    year = int(year_m.group(1) or year_m.group(2)) if year_m else None

    def add(month: int) -> None:
        if not 1 <= month <= 12:
            return
        y = year
        if y is None and when is not None:
            y = when.year + (1 if month < when.month else 0)
        found.add(f"{y:04d}-{month:02d}" if y is not None else f"????-{month:02d}")

    for m in _ISO_DATE.finditer(text):
        year = int(m.group(1))
        add(int(m.group(2)))
    for m in _MONTH_EN_RE.finditer(text):
        add(_MONTHS_EN[m.group(1).casefold()])
    for m in _MONTH_ZH_RE.finditer(text):
        if not _NEXT_MONTH.match(text, max(0, m.start() - 2)):
            add(_zh_month(m.group(1)))
    if when is not None:
        if _NEXT_MONTH.search(text):
            nxt = when.month % 12 + 1
            found.add(f"{when.year + (1 if when.month == 12 else 0):04d}-{nxt:02d}")
        if _THIS_MONTH.search(text):
            found.add(f"{when.year:04d}-{when.month:02d}")
    return frozenset(found)


def _numbers(text: str) -> frozenset[str]:
    text = _ISO_DATE.sub(" ", _YEAR.sub(" ", text))
    text = _EN_NUMBER_RE.sub(lambda m: _EN_NUMBERS[m.group(1).casefold()], text)
    text = _ZH_NUMBER_RE.sub(lambda m: str(_ZH_DIGITS.get(m.group(1), 2)), text)
    return frozenset(_NUMBER.findall(text))


def entity_key(entity: Entity) -> str:
    """The key an entity is known by in every language: a place's canonical name, else the name."""
    place = canonical_place(entity.name)
    name = place if place else entity.name
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def _value_key(value: str) -> tuple[str, bool]:
    """A value compared across languages, and whether it is language-free: a known place by its
    canonical name, else its own words (comparable only with words in the same script)."""
    value = re.sub(r"\s+(?:now|these days|nowadays)$|现在$", "", value.strip(" .。!！,，"))
    place = canonical_place(value)
    if place:
        return place.casefold(), True
    return " ".join(_WORD.findall(unicodedata.normalize("NFKC", value).casefold())), False


@dataclass(frozen=True)
class Facts:
    """What consolidation compares in one statement."""

    text: str
    slot: str
    kind: str
    attribute: str
    value: str
    negated: bool
    entities: tuple[Entity, ...]
    keys: frozenset[str]
    numbers: frozenset[str]
    months: frozenset[str]
    cjk: bool
    changes: bool = False
    words: frozenset[str] = frozenset()

    @property
    def single_valued(self) -> bool:
        return self.attribute in SINGLE_VALUED


@lru_cache(maxsize=1 << 15)
def _facts(text: str, when: datetime | None) -> Facts:
    # a multi-party statement "Name: fact" is the speaker's: the name is its subject, not its object
    speaker, said = split_speaker(text)
    d = derive(said, speaker=speaker) if speaker else derive(text)
    return Facts(text=text, slot=d.slot, kind=d.kind, attribute=d.attribute, value=d.value, negated=d.negated,
                 entities=d.entities, keys=frozenset(entity_key(e) for e in d.entities),
                 numbers=_numbers(text), months=_months(text, when), cjk=bool(_CJK.search(text)),
                 changes=speaks_of_change(text), words=_content(said))


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _content(text: str) -> frozenset[str]:
    """Content words (crudely stemmed) and CJK character pairs: what two statements must share to
    be one memory when their slot key alone cannot tell (multi-valued slots)."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    out = {_stem(w) for w in _CONTENT_EN.findall(folded) if w not in _FILLER}
    for run in _CJK_RUN.findall(folded):
        out.update(run[i : i + 2] for i in range(len(run) - 1)) if len(run) > 1 else out.add(run)
    out.discard("我们")
    return frozenset(out)


def _agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two statements share at least half the content of the shorter one and two thirds of the longer."""
    shared = len(a & b)
    return bool(a and b) and 2 * shared >= min(len(a), len(b)) and 3 * shared >= 2 * max(len(a), len(b))


def facts(text: str, when: datetime | None = None) -> Facts:
    """The :class:`Facts` of the user's words ``text`` said at ``when`` (resolves "next month")."""
    return _facts(" ".join(text.split()), when.replace(tzinfo=None) if when is not None else None)


_SPECIFIC = ("person", "pet", "organisation", "project")



def compare(new: Facts, old: Facts) -> str:
    """How ``new`` relates to ``old`` (see the module text); ``distinct`` unless the slots match."""
    if normalize_claim(new.text) == normalize_claim(old.text):
        return "same"
    if new.slot != old.slot:
        return "distinct"
    if new.negated != old.negated:
        return "contradiction"
    # people, pets, organisations and projects named on both sides must be the same ones
    mine = {entity_key(e) for e in new.entities if e.kind in _SPECIFIC}
    theirs = {entity_key(e) for e in old.entities if e.kind in _SPECIFIC}
    if mine and theirs and mine != theirs:
        return "distinct"
    # a multi-valued slot's key holds a few words of its object: in one script, the statements
    # themselves must share their content too ("I guess it's the weather" is not "I guess it's religion")
    if not new.single_valued and new.cjk == old.cjk and not _agree(new.words, old.words):
        return "distinct"
    differs = bool(new.numbers and old.numbers and new.numbers != old.numbers) or bool(
        new.months and old.months and new.months != old.months)
    if differs:
        return "replacement"
    if new.changes and not old.changes:
        return "replacement"  # "lives in Munich now", "现在住在上海": a change over time
    if new.single_valued:
        (a, free_a), (b, free_b) = _value_key(new.value), _value_key(old.value)
        if a == b:
            return "alias"
        if new.cjk != old.cjk and not (free_a and free_b):
            return "distinct"  # two scripts, no shared name: the values cannot be compared
        return "replacement"
    # a multi-valued slot carries its object in the key: the same object, said again
    if new.cjk != old.cjk and not (new.keys & old.keys) and not (new.months and new.months == old.months):
        return "distinct"
    return "alias"


@dataclass
class _Entry:
    item_id: str
    facts: Facts
    is_page: bool


_RANK = itemgetter(0, 1)


class SlotIndex:
    """Pages and candidates by slot key, for one consolidation pass (one dictionary lookup each)."""

    def __init__(self) -> None:
        self._by_slot: dict[str, list[_Entry]] = {}

    def add(self, item_id: str, item_facts: Facts, *, is_page: bool) -> None:
        self._by_slot.setdefault(item_facts.slot, []).append(_Entry(item_id, item_facts, is_page))

    def discard(self, item_id: str) -> None:
        for entries in self._by_slot.values():
            entries[:] = [e for e in entries if e.item_id != item_id]

    def matches(self, new: Facts, *, pages: bool = True, candidates: bool = True) -> Iterator[tuple[str, str, bool]]:
        """``(outcome, item id, is_page)`` for every indexed item of ``new``'s slot that is not distinct,
        the strongest outcome first (same, alias, contradiction, replacement), pages before candidates,
        then in the order the items were indexed. Never by id: a candidate id hashes the clock
        reading it was proposed at, so an id order would pick another match on every run."""
        order = {"same": 0, "alias": 1, "contradiction": 2, "replacement": 3}
        found = []
        for entry in self._by_slot.get(new.slot, ()):
            if (entry.is_page and not pages) or (not entry.is_page and not candidates):
                continue
            outcome = compare(new, entry.facts)
            if outcome != "distinct":
                found.append((order[outcome], not entry.is_page, outcome, entry.item_id, entry.is_page))
                if outcome == "same" and entry.is_page:
                    break  # nothing outranks the same words on a page
        for _, _, outcome, item_id, is_page in sorted(found, key=_RANK):  # stable: ties keep the index order
            yield outcome, item_id, is_page

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_slot.values())


def index_of(items: Iterable[tuple[str, str, datetime | None, bool]]) -> SlotIndex:
    """A :class:`SlotIndex` of ``(id, user words, said at, is_page)`` items."""
    index = SlotIndex()
    for item_id, text, when, is_page in items:
        if text and text.strip():
            index.add(item_id, facts(text, when), is_page=is_page)
    return index


class TypedSlots:
    """Pending candidates by page type and slot: a proposal merges only into one of its own type."""

    def __init__(self, rows: Iterable[tuple[str, str, str]] = ()) -> None:
        self._by_type: dict[str, SlotIndex] = {}
        for item_id, page_type, title in rows:
            self.add(item_id, page_type, title)

    def add(self, item_id: str, page_type: str, title: str) -> None:
        if title.strip():
            self._by_type.setdefault(page_type, SlotIndex()).add(item_id, facts(title), is_page=False)

    def same_or_alias(self, page_type: str, title: str) -> tuple[str, str] | None:
        """``(outcome, candidate id)`` of the pending candidate ``title`` says again (the same words,
        a paraphrase or a translation), or None."""
        index = self._by_type.get(page_type)
        if index is None or not title.strip():
            return None
        for outcome, item_id, _ in index.matches(facts(title)):
            return (outcome, item_id) if outcome in ("same", "alias") else None
        return None
