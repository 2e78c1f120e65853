"""Which of a session's atomic facts the heuristic Dream proposes: a per-session budget, filled
by a small logistic score.

:mod:`riko.dream.atoms` keeps every clause that states something about someone. A long chat
holds many such clauses, most of them small talk or about the task at hand, while what is worth
remembering of one session is a handful of facts. So a session proposes at most ``BUDGET``
facts (a statement repeated in the session once), and when it holds more, those with the
highest score: a logistic function of a few language-agnostic features of the clause (first
person, derived kind, a number, a name, a time, its length, hedge, negation), of its place in
its message (first clause, share of the message before it, how many facts the message holds)
and of its message and session (the other side had just asked a question, the message's
length, whether the message or how many of the session's lines ask for something). Below the
budget the score changes nothing.

How the constants were chosen (``benchmarks/extraction_fit.py``; the table is in the
"Choosing facts by leave-one-dataset-out" section of ``benchmarks/README.md``): on three public
conversation sets — a user–assistant project set, a multi-party chat log, a Chinese set of
short statements — every fact is labelled *precise* when half its content words occur in the
gold memories of its turn. For each set held out in turn, the weights were fitted on the other
two (each set weighing the same, an L2 penalty) and the budget chosen among 4–48 where the
smaller of the two training sets' relative F1 changes is largest (ties: the smaller budget);
every held-out set kept or gained F1 (the chat log +0.019, the others +0.001 and +0.000). The
constants shipped are the same fit on all three sets. Session-position features (first line,
share of the session before the line) were left out: with them the held-out user–assistant set
lost F1, because the Chinese set's gold sits mostly in its first lines and taught the fit a
small budget. Pure and deterministic.

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

from .atoms import _FIRST, _QUESTION, _REQUEST, Fact, _sentences, _multi_party, _trim, extract_facts, split_speaker
from .transcript import Transcript

__all__ = ["BIAS", "BUDGET", "FEATURES", "WEIGHTS", "Scored", "choose", "features", "probability", "scored_facts"]

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
)
#: Logistic weights and bias (see the module docstring for how they were chosen).
WEIGHTS: tuple[float, ...] = (
    +0.183,  # first_person
    +0.671,  # kind_identity
    -0.823,  # kind_preference
    -0.851,  # kind_relationship
    +0.240,  # kind_event
    +0.188,  # kind_plan
    +0.176,  # kind_boundary
    +0.486,  # number
    +0.263,  # name
    -0.128,  # time
    +2.588,  # length
    -0.738,  # hedged
    -0.226,  # negated
    -0.302,  # first_clause
    -0.755,  # clause_place
    +3.370,  # message_facts
    +0.348,  # asked
    -5.188,  # message_length
    +0.651,  # message_asks
    -0.224,  # session_asks
)
BIAS = -0.979
#: At most this many facts of one session are proposed: those of highest probability.
BUDGET = 16

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
             session_asks: float) -> tuple[float, ...]:
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
    out: list[Scored] = []
    for index, (line, (who, _), text) in enumerate(zip(users, split, texts)):
        speaker = who if multi and who else None
        earlier = said.setdefault(speaker, [])
        prior = before.get(line.seq)
        asked = prior is not None and prior[1] != speaker and bool(_ASKED.search(prior[0]))
        found = extract_facts(text, speaker=speaker, context=tuple(earlier[-3:]))
        for position, fact in enumerate(found):
            values = features(fact, position=position, facts=len(found), asked=asked, message=text,
                              message_asks=asks[index], session_asks=session_asks)
            out.append(Scored(line.seq, fact, values, probability(values, weights, bias)))
        earlier.append(text)
    return out


def choose(scored: Sequence[Scored], budget: int | None = None) -> list[Scored]:
    """The facts a session proposes, in order: a repeated statement (same speaker, same words)
    once, then at most ``budget`` (``BUDGET``) of them, those of highest probability (the earlier
    of two equal ones)."""
    limit = BUDGET if budget is None else budget
    seen: set[tuple[str | None, str]] = set()
    unique = []
    for i, s in enumerate(scored):
        key = (s.fact.speaker, " ".join(s.fact.text.casefold().split()))
        if key not in seen:
            seen.add(key)
            unique.append((i, s))
    ranked = sorted(unique, key=lambda pair: (-pair[1].probability, pair[0]))[:max(0, limit)]
    return [s for _, s in sorted(ranked, key=lambda pair: pair[0])]
