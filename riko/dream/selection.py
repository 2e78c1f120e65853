"""Which of a session's atomic facts the heuristic Dream proposes: every one whose memory score
reaches one threshold, however many a session holds.

:mod:`riko.language.atoms` keeps every clause that states something about someone; many of them
are small talk or about the task at hand. Each gets a score, a logistic function of
language-agnostic features of the clause (first person, derived kind, a number, a name, a time,
its length, hedge, negation, whether it carries content — :func:`carries_content` — and
whether it speaks to the other side), of its place in its message (first clause, share of the
message before it, how many facts the message holds) and of its message and session (the other
side had just asked a question, the message's length, whether the message or how many of the
session's lines ask for something, how many facts the session holds). A fact is proposed when
its score is at least ``THRESHOLD``: there is no count per session, so a session of forty real
facts proposes forty, and a chat of small talk few.

How the constants were chosen (``benchmarks/extraction_fit.py``; the fold table is in the
"Choosing facts: one threshold, four sets" section of ``benchmarks/README.md``): on four public
conversation sets every fact is labelled *precise* when half its content words occur in the
gold of its turn. For each set held out in turn, the weights were fitted on the other three
(each set weighing the same, an L2 penalty) and the threshold chosen on them: the largest mean
F1 gain over the first-person-sentence rule among thresholds that cost no training set more
than 0.005 F1 against keeping every fact. The constants shipped are the same fit on all four, of
the family with the best worst held-out gain: on the facts of ``fda1a7d`` the one without the two
session features, which weigh zero here (a fact's worth does not depend on how many others its
session holds).
Automatic admission also asks :func:`carries_content` of the user's words. Pure and
deterministic.

    >>> from riko.dream.transcript import Transcript, TranscriptLine
    >>> t = Transcript("s", (TranscriptLine(1, "user", "My sister Lena moved to Berlin."),))
    >>> [s.fact.text for s in choose(scored_facts(t))]
    ['My sister Lena moved to Berlin']
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..language.content import carries_content, pasted, task_talk
from ..language.lexicon import CJK, THIRD_PERSON_ZH, UNRESOLVED_SUBJECTS_EN, UNRESOLVED_SUBJECTS_ZH, alternation
from ..language.atoms import _FIRST, _QUESTION, _REQUEST, Fact, _sentences, _multi_party, _trim, extract_facts, split_speaker
from .transcript import Transcript, TranscriptLine

__all__ = ["BIAS", "FEATURES", "THRESHOLD", "WEIGHTS", "Scored", "carries_content", "choose", "features", "probability",
           "scored_facts"]

#: The features, in the order of ``WEIGHTS``; each is 0/1 or a value in [0, 1].
FEATURES = (
    "first_person",      # the clause has a first-person word (I, my, we, 我 …)
    "kind_identity",     # riko's derived kind (``fact`` is the baseline)
    "kind_preference",
    "kind_relationship",
    "kind_event",
    "kind_plan",
    "kind_boundary",
    "number",            # a digit
    "name",              # derive names an entity (person, place, organisation …)
    "time",              # a time word (yesterday, next week, 昨天 …)
    "length",            # log(1 + words) / log(61)
    "hedged",
    "negated",
    "first_clause",      # the first fact of its message
    "clause_place",      # facts of the message before it / facts of the message
    "message_facts",     # log(1 + facts of the message) / log(21)
    "asked",             # the line before it is the other side's, ending in a question
    "message_length",    # log(1 + characters) / log(1501)
    "message_asks",      # the message also asks or requests something
    "session_asks",      # share of the session's user lines that ask or request something
    "content",           # :func:`carries_content`: not only agreeing, thanking, greeting, encouraging
    "session_facts",     # log(1 + facts of the session) / log(121)
    "to_you",            # a second-person word (you, your, 你 …): said to the other side
)
_CONTENT = FEATURES.index("content")
#: A fact that opens on a subject pronoun riko could not resolve reads as nothing alone ("She's so messy",
#: "They really feel a girl can't run a business", "Mine was chocolate mousse cake", 她特别喜欢狗).
#: ("Her name is Latte" still says a name worth a page, whoever she is.)
_UNRESOLVED = re.compile(rf"^(?!(?:his|her|their)\s+names?\s+(?:is|are|was)\b){alternation(UNRESOLVED_SUBJECTS_EN)}\b"
                         rf"|^{alternation(THIRD_PERSON_ZH)}(?!们|的)|^{alternation(UNRESOLVED_SUBJECTS_ZH)}", re.IGNORECASE)
#: Logistic weights and bias (see the module docstring for how they were chosen).
WEIGHTS: tuple[float, ...] = (
    -0.200,  # first_person
    +0.059,  # kind_identity
    -0.573,  # kind_preference
    +0.217,  # kind_relationship
    +0.214,  # kind_event
    +0.172,  # kind_plan
    +0.598,  # kind_boundary
    +0.181,  # number
    +0.178,  # name
    -0.126,  # time
    +2.000,  # length
    -0.466,  # hedged
    -0.353,  # negated
    -0.181,  # first_clause
    -0.390,  # clause_place
    +2.788,  # message_facts
    +0.200,  # asked
    -3.815,  # message_length
    +0.410,  # message_asks
    +0.000,  # session_asks
    +0.598,  # content
    +0.000,  # session_facts
    -0.242,  # to_you
)
BIAS = -1.669
#: A fact is proposed when its probability is at least this, however many a session holds.
THRESHOLD = 0.08

_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last\s+(?:night|week|month|year|weekend)|next\s+(?:week|month|year|weekend)|"
    r"this\s+(?:morning|afternoon|evening|week|weekend|month|year)|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|january|february|march|april|may|june|july|august|september|october|november|december)\b"
    r"|昨天|今天|明天|后天|前天|上周|下周|本周|周末|去年|明年|今年|上个?月|下个?月|星期|礼拜|[0-9一二三四五六七八九十]+[月号日点]",
    re.IGNORECASE)
_WORDS = re.compile(rf"[\w{CJK[1:-1]}]+")
_CJK = re.compile(CJK)
_ASKED = re.compile(r"[?？]\s*[\"'”’)）]*\s*$")
_YOU = re.compile(r"\b(?:you|your|you're|you've|you'll|yourself)\b|[你您]", re.IGNORECASE)

@dataclass(frozen=True)
class Scored:
    """One fact of a session with its user line's sequence number, features and probability."""

    seq: int
    fact: Fact
    features: tuple[float, ...]
    probability: float
    #: The fact's message is text pasted for the task (:func:`riko.language.content.pasted`).
    pasted: bool = False


def _words(text: str) -> int:
    return len(_WORDS.findall(_CJK.sub(" ", text))) + len(_CJK.findall(text))


def _asks(text: str) -> bool:
    """Whether a message holds a question or a request to the other side."""
    for sentence in _sentences(text)[:40]:
        clause = _trim(sentence)
        if _QUESTION.search(clause) or _REQUEST.search(clause):
            return True
    return False


def features(fact: Fact, *, position: int, facts: int, asked: bool, message: str, message_asks: bool,
             session_asks: float, session_facts: int = 1) -> tuple[float, ...]:
    """The feature vector of ``fact``, the ``position``-th of ``facts`` facts of its message."""
    d = fact.derived
    text = fact.text
    return (
        float(bool(_FIRST.search(text))),
        float(d.kind == "identity"), float(d.kind == "preference"), float(d.kind == "relationship"),
        float(d.kind == "event"), float(d.kind == "plan"), float(d.kind == "boundary"),
        float(any(ch.isdigit() for ch in text)),
        float(bool(d.entities)),
        float(bool(_TIME.search(text))),
        min(1.0, math.log1p(_words(text)) / math.log(61)),
        float(fact.hedged),
        float(d.negated),
        float(position == 0),
        position / max(1, facts),
        min(1.0, math.log1p(facts) / math.log(21)),
        float(asked),
        min(1.0, math.log1p(len(message)) / math.log(1501)),
        float(message_asks),
        session_asks,
        float(carries_content(text, d.kind)),
        min(1.0, math.log1p(session_facts) / math.log(121)),
        float(bool(_YOU.search(text))),
    )


def probability(values: Sequence[float], weights: Sequence[float] | None = None, bias: float | None = None) -> float:
    """The logistic of ``bias + weights · values`` (the shipped ``WEIGHTS`` and ``BIAS`` by default)."""
    w_, b_ = (WEIGHTS if weights is None else weights), (BIAS if bias is None else bias)
    z = b_ + sum(w * v for w, v in zip(w_, values))
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def scored_facts(transcript: Transcript, weights: Sequence[float] | None = None, bias: float | None = None,
                 ) -> list[Scored]:
    """Every atomic fact of the transcript's user lines, in order, with its features and score.

    In a multi-party log (most user lines start ``Name: ``) each fact is its speaker's, a
    speaker's earlier lines are the context their pronouns resolve against, and "the other
    side" is another speaker.
    """
    lines = transcript.lines
    users = [line for line in lines if line.role == "user"]
    split = [split_speaker(line.text) for line in users]
    multi = _multi_party(split)
    said: dict[str | None, list[str]] = {}
    texts = [rest if multi and who else line.text for line, (who, rest) in zip(users, split)]
    asks = [_asks(text) for text in texts]
    session_asks = sum(asks) / max(1, len(asks))
    speakers = {line.seq: who for line, (who, _) in zip(users, split)} if multi else {}
    before: dict[int, tuple[str, str | None]] = {}   # seq -> (text, speaker) of the line before it
    previous: tuple[str, str | None] | None = None
    for line in lines:
        if previous is not None:
            before[line.seq] = previous
        previous = (line.text, speakers.get(line.seq) if line.role == "user" else "\0assistant")
    found_by_line: list[tuple[TranscriptLine, bool, str, list[Fact]]] = []
    for line, (who, _), text in zip(users, split, texts):
        speaker = who if multi and who else None
        earlier = said.setdefault(speaker, [])
        prior = before.get(line.seq)
        asked = prior is not None and prior[1] != speaker and bool(_ASKED.search(prior[0]))
        found_by_line.append((line, asked, text, extract_facts(text, speaker=speaker, context=tuple(earlier[-3:]))))
        earlier.append(text)
    total = sum(len(found) for *_, found in found_by_line)
    out: list[Scored] = []
    for index, (line, asked, text, found) in enumerate(found_by_line):
        from_paste = pasted(text) if found else False
        for position, fact in enumerate(found):
            values = features(fact, position=position, facts=len(found), asked=asked, message=text,
                              message_asks=asks[index], session_asks=session_asks, session_facts=total)
            out.append(Scored(line.seq, fact, values, probability(values, weights, bias), from_paste))
    return out


def choose(scored: Sequence[Scored], threshold: float | None = None) -> list[Scored]:
    """The facts a session proposes, in the order said: a repeated statement (same speaker, same
    words) once, then every fact whose probability is at least ``threshold`` (``THRESHOLD``),
    however many a session holds, that carries content (:func:`carries_content`: "I tried once"
    leans on what was said before) and is not task talk (:func:`riko.language.content.task_talk`),
    and every stated taste or boundary (``ALWAYS_KINDS``, hedged or not); nothing from a message pasted for
    the task (:func:`riko.language.content.pasted`), and nothing whose subject is a pronoun no one
    in the session answers ("She loves dogs", "One of them is great"), taste or not."""
    limit = THRESHOLD if threshold is None else threshold
    seen: set[tuple[str | None, str]] = set()
    out = []
    for s in scored:
        key = (s.fact.speaker, " ".join(s.fact.text.casefold().split()))
        if key not in seen and not s.pasted and not _UNRESOLVED.match(s.fact.text):
            seen.add(key)
            if (s.probability >= limit and s.features[_CONTENT] and not task_talk(s.fact.text)) \
                    or _stated_taste_or_boundary(s):
                out.append(s)
    return out


#: Kinds proposed whatever their score: a taste or a boundary the speaker states, hedged or not, is what
#: the Resident's preference and boundary blocks exist for, however long the message it is in.
ALWAYS_KINDS = frozenset({"preference", "boundary"})


def _stated_taste_or_boundary(s: Scored) -> bool:
    derived = s.fact.derived
    return (derived is not None and derived.kind in ALWAYS_KINDS
            and carries_content(s.fact.text))  # judged on its words alone: "I love your advice" is no taste
