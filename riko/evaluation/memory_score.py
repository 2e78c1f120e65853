"""The fact-level rule that scores extracted memories against a public set's gold points.

Content words: lowercase words of 3+ letters (ASCII letters, digits, inner ``'`` and ``-``),
Snowball-stemmed, with stopwords and the conversation's speaker names removed. A gold point is
*recalled* when the proposals citing its turns jointly hold at least half of its content words;
a proposal is *precise* when at least half of its own content words occur in the gold points of
the turns it cites. Quoting whole turns earns recall but no precision; atomic facts that say
what the gold says earn both. Figures agree with the reference scorer of the shared datasets.

    >>> names = frozenset({"lena"})
    >>> sorted(content_words("Lena moved to Berlin with her cats", names))
    ['berlin', 'cat', 'move']
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import Stemmer

__all__ = [
    "STOPWORDS",
    "Cited",
    "GoldPoint",
    "Score",
    "baseline_first_person",
    "baseline_whole_turns",
    "content_words",
    "score",
    "speaker_names",
    "word_count",
]

STOPWORDS = frozenset("""the and but for with that this have has had was were are you your yours about just really very
also still some any much more most not can cannot its they them their there then than what when where which who why how all
our out get got been being from into onto would could should will shall may might maybe think like know okay yeah well
today yesterday she her hers him his himself herself user assistant said says told tells going went make made one two lot
lots thing things time times day days really pretty great good nice new other others such each every did does doing done
""".split())
_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]{2,}")
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|i'll|my|me|mine|we|our|us)\b", re.I)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_FIRST_PERSON_CJK = re.compile(r"[我咱]")
_SENTENCES_CJK = re.compile(r"(?<=[.!?。！？])\s*|\n+")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_COUNTED = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_]+")
_STEM = Stemmer.Stemmer("english").stemWord
HALF = 0.5


def speaker_names(speaker: str) -> frozenset[str]:
    """The words of a speaker's name that the rule removes (before stemming)."""
    return frozenset(_WORD.findall((speaker or "").lower()))


def content_words(text: str, names: frozenset[str] = frozenset(), *, cjk: bool = False) -> frozenset[str]:
    """The stemmed content words of ``text``; with ``cjk``, also the character bigrams of every
    CJK run (a lone character alone), so Chinese text has words to compare."""
    lowered = (text or "").lower()
    out = {_STEM(w) for w in ({w.strip("'-") for w in _WORD.findall(lowered)} - STOPWORDS - names)}
    if cjk:
        for run in _CJK_RUN.findall(lowered):
            out.update([run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 1 else [run])
    return frozenset(out)


def word_count(text: str) -> int:
    """Words of a proposal as a reader counts them: runs of letters and digits, each CJK
    character one word."""
    return len(_COUNTED.findall(text or ""))


@dataclass(frozen=True)
class GoldPoint:
    """One gold memory: the turns (dialogIds) whose proposals may recall it, its text and type."""

    conversation: str
    turns: frozenset[str]
    text: str
    type: str = ""
    role: str = ""
    ref: str = ""  #: where it came from (file line, session and speaker), for a reader


@dataclass(frozen=True)
class Cited:
    """One proposal as the rule sees it: the turns it cites and the text it proposes."""

    conversation: str
    turns: frozenset[str]
    text: str
    info: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass
class Score:
    """Counts of one scoring and, per item, what matched (in input order)."""

    gold: int = 0
    recalled: int = 0
    proposals: int = 0
    precise: int = 0
    turns: int = 0
    words: list[int] = field(default_factory=list)
    gold_rows: list[dict[str, Any]] = field(default_factory=list)
    proposal_rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.recalled / max(1, self.gold)

    @property
    def precision(self) -> float:
        return self.precise / max(1, self.proposals)

    @property
    def f1(self) -> float:
        r, p = self.recall, self.precision
        return 2 * r * p / (r + p) if r + p else 0.0

    @property
    def per_100_turns(self) -> float:
        return 100 * self.proposals / max(1, self.turns)

    @property
    def median_words(self) -> float:
        return float(statistics.median(self.words)) if self.words else 0.0

    def figures(self) -> dict[str, float]:
        return {"gold": self.gold, "recalled": self.recalled, "proposals": self.proposals, "precise": self.precise,
                "fact_recall": self.recall, "precision": self.precision, "f1": self.f1,
                "proposals_per_100_turns": self.per_100_turns, "median_words": self.median_words}

    def by_type(self) -> dict[str, dict[str, float]]:
        """Per gold type: its points and recall, and the precision of the proposals citing a turn
        that holds a point of that type (precise against every gold point of the turns they cite)."""
        out: dict[str, dict[str, float]] = {}
        types = sorted({g["type"] for g in self.gold_rows if g["counted"]})
        for kind in types:
            rows = [g for g in self.gold_rows if g["counted"] and g["type"] == kind]
            recalled = sum(g["recalled"] for g in rows)
            props = [p for p in self.proposal_rows if kind in p["gold_types"]]
            precise = sum(p["precise"] for p in props)
            r, p = recalled / max(1, len(rows)), precise / max(1, len(props))
            out[kind] = {"gold": len(rows), "recalled": recalled, "fact_recall": r, "proposals": len(props),
                         "precise": precise, "precision": p, "f1": 2 * r * p / (r + p) if r + p else 0.0,
                         "median_words": float(statistics.median([x["words"] for x in props])) if props else 0.0}
        return out


def score(proposals: Iterable[Cited], gold: Mapping[str, Sequence[GoldPoint]], names: Mapping[str, frozenset[str]],
          turns: int, *, cjk: bool = False) -> Score:
    """Apply the rule. Only conversations with gold points count (their proposals, all of them);
    a gold point without content words is left out; ``turns`` is the denominator of the rate."""
    by_conv: dict[str, list[Cited]] = defaultdict(list)
    for p in proposals:
        by_conv[p.conversation].append(p)
    out = Score(turns=turns)
    for conv, points in gold.items():
        conv_names = names.get(conv, frozenset())
        props = [(p, content_words(p.text, conv_names, cjk=cjk)) for p in by_conv.get(conv, [])]
        by_turn: dict[str, set[str]] = defaultdict(set)
        for p, words in props:
            for t in p.turns:
                by_turn[t] |= words
        gold_turn: dict[str, set[str]] = defaultdict(set)
        types_turn: dict[str, set[str]] = defaultdict(set)
        for g in points:
            words = content_words(g.text, conv_names, cjk=cjk)
            held = words & set().union(*(by_turn[t] for t in g.turns))
            counted = bool(words)
            recalled = counted and len(held) / len(words) >= HALF
            if counted:
                out.gold += 1
                out.recalled += recalled
                for t in g.turns:
                    gold_turn[t] |= words
                    types_turn[t].add(g.type)
            out.gold_rows.append({"conversation": conv, "turns": sorted(g.turns), "type": g.type, "role": g.role,
                                  "ref": g.ref, "text": g.text, "counted": counted, "recalled": recalled,
                                  "words": sorted(words), "held": sorted(held), "missing": sorted(words - held)})
        for p, words in props:
            gold_words = set().union(*(gold_turn[t] for t in p.turns))
            matched = words & gold_words
            precise = bool(words) and len(matched) / len(words) >= HALF
            n = word_count(p.text)
            out.proposals += 1
            out.precise += precise
            out.words.append(n)
            out.proposal_rows.append({"conversation": conv, "turns": sorted(p.turns), "text": p.text, **p.info,
                                      "precise": precise, "words": n, "content_words": sorted(words),
                                      "matched": sorted(matched), "unmatched": sorted(words - matched),
                                      "gold_types": sorted(set().union(*(types_turn[t] for t in p.turns)))})
    return out


def baseline_first_person(turns: Iterable[tuple[str, str, str, str]], *, cjk: bool = False) -> list[Cited]:
    """Every sentence of 4+ words with a first-person pronoun, of every non-assistant turn.
    ``turns`` yields ``(conversation, dialogId, speaker, text)``; with ``cjk``, Chinese
    sentences (ending in 。！？) with 我 or 咱 count too, each character a word."""
    out = []
    for conv, dialog, speaker, text in turns:
        if speaker.lower() == "assistant":
            continue
        for sentence in (_SENTENCES_CJK if cjk else _SENTENCES).split(text):
            if cjk and _FIRST_PERSON_CJK.search(sentence) and word_count(sentence) >= 4:
                out.append(Cited(conv, frozenset({dialog}), sentence))
            elif _FIRST_PERSON.search(sentence) and len(sentence.split()) >= 4:
                out.append(Cited(conv, frozenset({dialog}), sentence))
    return out


def baseline_whole_turns(turns: Iterable[tuple[str, str, str, str]]) -> list[Cited]:
    """Every whole non-assistant turn, quoted as it is."""
    return [Cited(conv, frozenset({dialog}), text) for conv, dialog, speaker, text in turns
            if speaker.lower() != "assistant"]
