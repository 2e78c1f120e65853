"""How a new claim relates to a canonical one about the same subject: subject, predicate, value.

Two claims under one title are not a contradiction merely because their words differ. A claim
is read as a predicate (where someone lives, works, what they prefer, like, drink …), a polarity
and a value (what is left once the subject, the predicate and filler words are removed).

* ``paraphrase`` — the same predicate and the same value, or the same words;
* ``addition`` — a different predicate, or another value of a predicate that holds many
  ("likes jazz" next to "likes rock");
* ``temporal`` — the new claim speaks of a change over time ("now", "moved to", 现在, 搬到);
* ``contradiction`` — one predicate that holds one value at a time with two different values,
  a flipped polarity over the same value, or different numbers for the same thing.

Only ``contradiction`` and ``temporal`` contest the old page; both need a resolution.

    >>> relation("Coffee", "drinks coffee every morning", "Coffee", "prefers oat milk")
    'addition'
    >>> relation("Home", "I live in Lisbon", "Home", "I live in Porto")
    'contradiction'
"""

from __future__ import annotations

import re
import unicodedata

from ..language.lexicon import NEGATION_CHAT_EN, NEGATION_EN, NEGATION_ZH, alternation
from ..language.text import tokenize

__all__ = ["RELATIONS", "contests", "contradicts", "relation", "speaks_of_change"]

RELATIONS = ("paraphrase", "addition", "temporal", "contradiction")

# predicate class: (holds one value at a time, English fragments, Chinese fragments)
_PREDICATES: dict[str, tuple[bool, tuple[str, ...], tuple[str, ...]]] = {
    "residence": (True, (r"lives?", r"living", r"reside[sd]?", r"based in", r"home (?:is|town)", r"my home",
                         r"live[sd]? in"),
                  ("住在", "住", "家在", "居住", "定居")),
    "work": (True, (r"works?(?: at| for| as)?", r"working(?: at| for| as)?", r"job", r"employed", r"employer",
                    r"profession", r"occupation"),
             ("工作", "上班", "职业", "任职", "在职")),
    "name": (True, (r"name is", r"named", r"called", r"goes by"), ("名字", "叫做", "叫", "名叫")),
    "age": (True, (r"years? old", r"aged?"), ("岁",)),
    "birthday": (True, (r"birthday", r"born(?: on| in)?"), ("生日", "出生")),
    "favourite": (True, (r"favou?rite", r"prefers?", r"preferred", r"preference", r"rather have", r"likes? .* best"),
                  ("最喜欢", "最爱", "偏好", "更喜欢", "首选")),
    "like": (False, (r"likes?", r"loves?", r"enjoys?", r"into", r"fan of"), ("喜欢", "爱", "热爱", "爱好")),
    "dislike": (False, (r"hates?", r"dislikes?", r"can'?t stand", r"detests?"), ("讨厌", "受不了", "反感")),
    "drink": (False, (r"drinks?", r"drinking"), ("喝",)),
    "eat": (False, (r"eats?", r"eating"), ("吃",)),
    "diet": (True, (r"vegetarian", r"vegan", r"pescatarian", r"eats? meat"), ("吃素", "素食", "吃肉")),
    "own": (False, (r"has", r"have", r"owns?", r"got a"), ("有", "养了", "养")),
    "partner": (True, (r"married(?: to)?", r"wife", r"husband", r"partner", r"girlfriend", r"boyfriend", r"spouse"),
                ("结婚", "老婆", "老公", "妻子", "丈夫", "女朋友", "男朋友", "对象")),
    "drive": (True, (r"drives?", r"driving"), ("开的车", "开车", "座驾")),
    "speak": (False, (r"speaks?", r"speaking"), ("会说", "说")),
    "allergy": (False, (r"allergic to", r"allergy", r"allergies"), ("过敏",)),
    "wake": (True, (r"wakes? up", r"gets? up", r"get up"), ("起床",)),
    "sleep": (True, (r"goes? to bed", r"sleeps? at", r"bedtime"), ("睡觉", "上床")),
    "study": (True, (r"stud(?:y|ies|ying)(?: at)?", r"majors? in", r"degree in"), ("读书", "上学", "专业", "学的是")),
    "commute": (True, (r"commutes?(?: by)?", r"goes to work by", r"gets? to work by"), ("通勤", "上班坐", "上班骑")),
    "team": (True, (r"supports?", r"roots? for"), ("支持", "球迷")),
    "size": (True, (r"size", r"wears? a size"), ("尺码", "穿")),
}
_TRANSITION = re.compile(
    r"(?<![a-z])(?:now|nowadays|these days|no longer|not any ?more|any ?more|moved to|switched to|changed to|"
    r"started|stopped|quit|gave up|since (?:last|this)|recently (?:moved|switched|started|changed))(?![a-z])"
    r"|现在|如今|目前|不再|已经不|搬到|搬去|改成|换成|开始|戒了|戒掉|最近换"
)
# The new claim says the old one was wrong.
_CORRECTING = re.compile(r"(?<![a-z])(?:actually|in fact|not true|that's wrong|i was wrong|correction)(?![a-z])"
                         r"|其实|实际上|不对|说错了|搞错了|更正")
_NEGATION = re.compile(r"(?<![a-z])" + alternation((*NEGATION_EN, *NEGATION_CHAT_EN)) + r"(?![a-z])|" + NEGATION_ZH)
# Predicates whose own words are the value: "vegetarian" against "vegan".
_VALUE_PREDICATES = frozenset({"diet"})
_EN_NUMBERS = {w: str(i) for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}
_EN_NUMBER_RE = re.compile(r"(?<![a-z])(" + "|".join(_EN_NUMBERS) + r")(?![a-z])")
_ZH_NUMBERS = {c: str(i) for i, c in enumerate("零一二三四五六七八九十")} | {"两": "2"}
# a Chinese numeral counts only before a measure word, so 一起 and 三体 stay words
_ZH_NUMBER_RE = re.compile(r"([零一二两三四五六七八九十])(?=[个只岁次杯本位辆套年天条件口])")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)?")
_SYNONYMS = {"favorite": "favourite", "cellphone": "phone", "mobile": "phone", "automobile": "car",
             "soda": "pop", "colour": "color", "grey": "gray"}


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    return " ".join(text.casefold().split())


def _numbers_as_digits(text: str) -> str:
    text = _EN_NUMBER_RE.sub(lambda m: _EN_NUMBERS[m.group(1)], text)
    return _ZH_NUMBER_RE.sub(lambda m: _ZH_NUMBERS[m.group(1)], text)


def _compile(fragments: tuple[str, ...], chinese: tuple[str, ...]) -> re.Pattern[str]:
    english = "|".join(sorted(fragments, key=len, reverse=True))
    zh = "|".join(re.escape(c) for c in sorted(chinese, key=len, reverse=True))
    return re.compile(rf"(?<![a-z])(?:{english})(?![a-z])" + (f"|{zh}" if zh else ""))


_PATTERNS = {name: (single, _compile(en, zh)) for name, (single, en, zh) in _PREDICATES.items()}
_PATTERNS["be"] = (True, re.compile(r"(?<![a-z])(?:is|are)(?![a-z])|是"))
_COPULA = _PATTERNS["be"][1]


class _Claim:
    """One claim read as predicates, polarity, numbers and value tokens."""

    def __init__(self, title: str, claim: str) -> None:
        text = _fold(claim)
        self.transition = bool(_TRANSITION.search(text))
        self.negated = bool(_NEGATION.search(_TRANSITION.sub(" ", text)))
        text = _numbers_as_digits(text)
        self.correcting = bool(_CORRECTING.search(text))
        self.numbers = set(_NUMBER.findall(text))
        self.stated: set[str] = set()  # predicates the claim itself states
        self.titled: set[str] = set()  # predicates only the title states ("Favourite colour": "Green")
        rest, heading = text, _fold(title)
        for name, (_, pattern) in _PATTERNS.items():
            if name == "be":
                continue  # the copula counts only when nothing else does, below
            if pattern.search(rest):
                self.stated.add(name)
                if name not in _VALUE_PREDICATES:
                    rest = pattern.sub(" ", rest)
            elif pattern.search(heading):
                self.titled.add(name)
        if not self.stated and _COPULA.search(rest):
            # "Tango teacher is Marco": with no other predicate, "is" names the subject's one value
            self.stated.add("be")
            rest = _COPULA.sub(" ", rest)
        self.predicates = self.stated | self.titled
        # "likes … best" is a preference, not one more liking
        if "favourite" in self.predicates:
            self.predicates.discard("like")
            self.stated.discard("like")
        rest = _NEGATION.sub(" ", _TRANSITION.sub(" ", _CORRECTING.sub(" ", rest)))
        subject = set(tokenize(heading))
        self.object = {_SYNONYMS.get(t, t) for t in tokenize(rest)}
        self.value = self.object - subject
        self.words = {_SYNONYMS.get(t, t) for t in tokenize(text)}


def relation(old_title: str, old_claim: str, new_title: str, new_claim: str) -> str:
    """How ``new_claim`` relates to ``old_claim``: one of :data:`RELATIONS`."""
    if _fold(old_claim).rstrip(" .。!！") == _fold(new_claim).rstrip(" .。!！"):
        return "paraphrase"
    if tokenize(_fold(old_title)) == tokenize(_fold(old_claim)):
        old_title = new_title = ""  # the title restates the old claim: it names no subject
    old, new = _Claim(old_title, old_claim), _Claim(new_title, new_claim)
    if new.transition and not old.transition:
        return "temporal"
    numbers_differ = bool(old.numbers and new.numbers and old.numbers != new.numbers)
    # one predicate on both sides, stated by both claims or by the title alone on both
    shared = (old.stated & new.stated) | (old.titled & new.titled)
    if not shared:
        if old.predicates and new.predicates:
            # "likes X" against "dislikes X": opposite predicates over one value
            if {"like", "dislike"} <= old.predicates | new.predicates and old.object & new.object:
                return "contradiction"
            return "addition"
        overlap = len(old.words & new.words) / max(1, len(old.words | new.words))
        if (numbers_differ or old.negated != new.negated) and overlap >= 0.3:
            return "contradiction"
        return "paraphrase" if overlap >= 0.6 else "addition"
    gone, came = old.value - new.value, new.value - old.value
    if old.negated != new.negated:
        return "contradiction" if not (gone and came) or old.value & new.value else "addition"
    if numbers_differ:
        return "contradiction"
    if new.correcting and came:
        return "contradiction"
    if not gone and not came:
        return "paraphrase"
    if any(_PATTERNS[name][0] for name in shared) and gone and came:
        return "contradiction"
    return "addition"


def contradicts(old_title: str, old_claim: str, new_title: str, new_claim: str) -> bool:
    """True when the new claim contradicts the old one (a temporal change is not a contradiction)."""
    return relation(old_title, old_claim, new_title, new_claim) == "contradiction"


def contests(old_title: str, old_claim: str, new_title: str, new_claim: str) -> bool:
    """True when the new claim must contest the old page until resolved: a contradiction or a change over time."""
    return relation(old_title, old_claim, new_title, new_claim) in ("contradiction", "temporal")


def speaks_of_change(text: str) -> bool:
    """True when a claim speaks of a change over time ("now", "moved to", 现在, 搬到)."""
    return bool(_TRANSITION.search(_fold(text)))
