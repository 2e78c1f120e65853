"""Which of a session's atomic facts the heuristic Dream proposes: a small logistic score.

:mod:`riko.dream.atoms` keeps every clause that states something about someone. Most such
clauses in a working conversation are about the task at hand ("I need the table sorted by
date") rather than a memory worth keeping, and the words alone rarely tell them apart. This
module scores each fact with a logistic function of a few language-agnostic features — of the
clause (first person, derived kind, a number, a name, a time, its length, hedge, negation), of
its place (first clause of the message, share of the message before it, first line of the
session, share of the session before it) and of its message and session (the other side had
just asked a question, the message's length, how many facts it holds, how many of the
session's user lines ask for something) — and proposes the facts whose score reaches
``THRESHOLD``.

``WEIGHTS``, ``BIAS`` and ``THRESHOLD`` were fitted by leave-one-dataset-out on three public
conversation sets (a user–assistant project set, a multi-party chat log, a Chinese set of
short statements; see ``benchmarks/extraction_fit.py`` and the "Choosing facts by
leave-one-dataset-out" section of ``benchmarks/README.md``): the logistic weights on clause
labels (a clause is *precise* when half its content words occur in the gold memories of its
turn), each set weighing the same, and the threshold where the worst of the training sets'
fact F1 is highest. The constants shipped are the fit on all three sets. Pure and
deterministic.

    >>> from riko.dream.transcript import Transcript, TranscriptLine
    >>> t = Transcript("s", (TranscriptLine(1, "user", "My sister Lena moved to Berlin."),))
    >>> [s.fact.text for s in scored_facts(t) if s.kept]
    ['My sister Lena moved to Berlin']
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .atoms import _FIRST, _QUESTION, _REQUEST, Fact, _sentences, _trim, extract_facts, split_speaker
from .transcript import Transcript

__all__ = ["BIAS", "FEATURES", "THRESHOLD", "WEIGHTS", "Scored", "features", "probability", "scored_facts"]

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
    "first_line",        # the first user line of the session
    "line_place",        # user lines before it / user lines of the session
    "asked",             # the line before it is the other side's, ending in a question
    "message_length",    # log(1 + characters) / log(1501)
    "message_asks",      # the message also asks or requests something
    "session_asks",      # share of the session's user lines that ask or request something
)
#: Logistic weights and bias (see the module docstring for how they were chosen).
WEIGHTS: tuple[float, ...] = (0.0,) * len(FEATURES)
BIAS = 0.0
#: Facts whose probability is below this are not proposed (0: all are).
THRESHOLD = 0.0

_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last\s+(?:night|week|month|year|weekend)|next\s+(?:week|month|year|weekend)|"
    r"this\s+(?:morning|afternoon|evening|week|weekend|month|year)|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|january|february|march|april|may|june|july|august|september|october|november|december)\b"
    r"|昨天|今天|明天|后天|前天|上周|下周|本周|周末|去年|明年|今年|上个?月|下个?月|星期|礼拜|[0-9一二三四五六七八九十]+[月号日点]",
    re.IGNORECASE)
_WORDS = re.compile(r"[\w\u4e00-\u9fff]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_ASKED = re.compile(r"[?？]\s*[\"'”’)）]*\s*$")


@dataclass(frozen=True)
class Scored:
    """One fact of a session with its user line's sequence number, features and probability."""

    seq: int
    fact: Fact
    features: tuple[float, ...]
    probability: float

    @property
    def kept(self) -> bool:
        return self.probability >= THRESHOLD


def _words(text: str) -> int:
    return len(_WORDS.findall(_CJK.sub(" ", text))) + len(_CJK.findall(text))


def _asks(text: str) -> bool:
    """Whether a message holds a question or a request to the other side."""
    for sentence in _sentences(text)[:40]:
        clause = _trim(sentence)
        if _QUESTION.search(clause) or _REQUEST.search(clause):
            return True
    return False


def features(fact: Fact, *, position: int, facts: int, line: int, lines: int, asked: bool, message: str,
             message_asks: bool, session_asks: float) -> tuple[float, ...]:
    """The feature vector of ``fact``, the ``position``-th of ``facts`` facts of its message,
    said on the ``line``-th of ``lines`` user lines of the session."""
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
        float(line == 0),
        line / max(1, lines),
        float(asked),
        min(1.0, math.log1p(len(message)) / math.log(1501)),
        float(message_asks),
        session_asks,
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
    prefixed = sum(1 for who, _ in split if who)
    multi = bool(users) and prefixed * 2 > len(users) and len({who for who, _ in split if who}) <= 8
    said: dict[str | None, list[str]] = {}
    texts = [rest if multi and who else line.text for line, (who, rest) in zip(users, split)]
    asks = [_asks(text) for text in texts]
    session_asks = sum(asks) / max(1, len(asks))
    before: dict[int, tuple[str, str | None]] = {}   # seq -> (text, speaker) of the line before it
    previous: tuple[str, str | None] | None = None
    for line in lines:
        if previous is not None:
            before[line.seq] = previous
        who = split_speaker(line.text)[0] if multi and line.role == "user" else None
        previous = (line.text, who if line.role == "user" else "\0assistant")
    out: list[Scored] = []
    for index, (line, (who, _), text) in enumerate(zip(users, split, texts)):
        speaker = who if multi and who else None
        earlier = said.setdefault(speaker, [])
        prior = before.get(line.seq)
        asked = prior is not None and prior[1] != speaker and bool(_ASKED.search(prior[0]))
        found = extract_facts(text, speaker=speaker, context=tuple(earlier[-3:]))
        for position, fact in enumerate(found):
            values = features(fact, position=position, facts=len(found), line=index, lines=len(users), asked=asked,
                              message=text, message_asks=asks[index], session_asks=session_asks)
            out.append(Scored(line.seq, fact, values, probability(values, weights, bias)))
        earlier.append(text)
    return out
