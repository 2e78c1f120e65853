"""Which of a session's atomic facts the heuristic Dream proposes: every one whose memory score
reaches one threshold, however many a session holds.

:mod:`riko.dream.atoms` keeps every clause that states something about someone; many of them
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
than 0.005 F1 against keeping every fact. The constants shipped are the same fit on all four.
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

from .atoms import _FIRST, _QUESTION, _REQUEST, Fact, _sentences, _multi_party, _trim, extract_facts, split_speaker
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
#: Logistic weights and bias (see the module docstring for how they were chosen).
WEIGHTS: tuple[float, ...] = (
    +0.068,  # first_person
    -0.017,  # kind_identity
    -0.458,  # kind_preference
    +0.025,  # kind_relationship
    +0.185,  # kind_event
    -0.012,  # kind_plan
    +0.152,  # kind_boundary
    +0.210,  # number
    +0.094,  # name
    -0.063,  # time
    +1.707,  # length
    -0.421,  # hedged
    -0.100,  # negated
    -0.208,  # first_clause
    -0.538,  # clause_place
    +2.518,  # message_facts
    +0.213,  # asked
    -3.170,  # message_length
    +0.329,  # message_asks
    -0.551,  # session_asks
    +0.865,  # content
    -2.417,  # session_facts
    -0.119,  # to_you
)
BIAS = -0.692
#: A fact is proposed when its probability is at least this, however many a session holds.
THRESHOLD = 0.10

_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last\s+(?:night|week|month|year|weekend)|next\s+(?:week|month|year|weekend)|"
    r"this\s+(?:morning|afternoon|evening|week|weekend|month|year)|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday|january|february|march|april|may|june|july|august|september|october|november|december)\b"
    r"|昨天|今天|明天|后天|前天|上周|下周|本周|周末|去年|明年|今年|上个?月|下个?月|星期|礼拜|[0-9一二三四五六七八九十]+[月号日点]",
    re.IGNORECASE)
_WORDS = re.compile(r"[\w\u4e00-\u9fff]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_ASKED = re.compile(r"[?？]\s*[\"'”’)）]*\s*$")
_YOU = re.compile(r"\b(?:you|your|you're|you've|you'll|yourself)\b|[你您]", re.IGNORECASE)

# -- what carries content ---------------------------------------------------------------------------
# Words that say nothing a later reader can use on their own: agreeing, thanking, greeting,
# encouraging, judging the conversation or asking for a kind of answer. A statement whose words
# are all of these (and function words) carries no content.
_HOLLOW_PHRASES = re.compile(
    r"\b(?:go\s+get\s+(?:'?em|them)|you(?:'ve|\s+have)?\s+got\s+this|(?:doing|do|did|tried|try|trying)\s+my\s+best|"
    r"just\s+what\s+I\s+(?:wanted|needed|was\s+looking\s+for|asked\s+for)|makes?\s+sense|fair\s+enough|"
    r"(?:how|what)\s+about\s+you|how\s+are\s+you|nice\s+(?:to\s+)?(?:meet|chat|talk|hear)|talk\s+(?:to\s+you\s+)?(?:soon|later)|"
    r"see\s+you|take\s+care|have\s+a\s+(?:good|great|nice|lovely|wonderful)\s+(?:one|day|night|evening|weekend|time)|"
    r"good\s+(?:luck|job|work|morning|night|evening|afternoon|idea|point|question|call)|well\s+done|"
    r"keep\s+(?:it\s+up|going|me\s+posted)|hang\s+in\s+there|fingers\s+crossed|no\s+(?:problem|worries|way)|"
    r"(?:for|in)\s+(?:sure|real)|of\s+course|let\s+me\s+know|(?:thanks|thank\s+you)\s+for\s+(?:asking|sharing|the\s+\w+)|"
    r"not\s+just|sounds\s+like\s+a\s+plan|I\s+hear\s+you|me\s+too|same\s+here)\b", re.IGNORECASE)
_HOLLOW_WORDS = frozenset("""
agree agreed agrees concur fully totally completely absolutely definitely exactly indeed certainly surely truly
okay ok yes yeah yep yup sure right true correct alright fine cool awesome great good nice perfect wonderful amazing
excellent fantastic lovely brilliant super glad happy thrilled excited fun interesting wow whoa haha lol hahaha omg
thanks thank thx appreciate appreciated grateful welcome hello hey hiya greetings bye goodbye cheers congrats
congratulations proud luck best rooting cheering support supporting hope hoping hopefully wish wishing
love like likes loved liked enjoy enjoyed need needs needed want wants wanted prefer would could should shall must
see understand understood get got know knew mean meant guess suppose feel felt think thought believe say said tell
told ask asked hear heard sounds sound looks look seems seem helps help helpful useful clear simple simpler clearer
easy easier concise detailed specific practical concrete actionable quick short brief long better worse more less
answer answers response responses reply replies explanation explanations analysis summary summaries list lists
steps step detail details example examples breakdown overview suggestion suggestions tip tips advice idea ideas
recommendation recommendations option options guidance format version draft point points question questions
conversation chat talk talking chatting discussion message messages info information stuff thing things something
anything everything nothing way lot lots bit kind sort really very much many quite pretty so too also still just
even ever always never maybe perhaps probably actually honestly literally basically seriously anyway anyways well
now then today tonight here there this that these those what which who whom whose how why when where doing done
going gonna wanna gotta trying try tried keep kept let let's lets make made take took give gave come came put
yourself myself ourselves you your yours me my mine our ours us we i i'm i've i'll i'd im ive it it's its they them
one ones all any some each every other others again back sir buddy dude man friend friends guys folks
the and but for with from into onto about than not nor yet off out via per are was were has have had been being does did
can will his her hers their theirs him she they he our too has isn't aren't wasn't don't doesn't didn't can't won't""".split())
_HOLLOW_ZH = re.compile(
    "谢谢|感谢|多谢|辛苦了?|不客气|没问题|没关系|好的|好吧|好呀|好啊|太好了|太棒了|真棒|很棒|不错|可以|行吧|当然|同意|赞同|"
    "明白了?|了解了?|知道了|懂了|收到|是的|对的|没错|确实|加油|祝你|祝您|顺利|成功|好运|你好|您好|再见|拜拜|晚安|早安|早上好|"
    "哈哈+|嘿嘿|呵呵|嗯+|哦+|啊+|呀|吧|呢|吗|啦|嘛|我尽力了?|尽力|简单明了|清楚|清晰|正是我想要的|就是我想要的|我想要的|"
    "具体的?步骤|步骤|建议|分析|回答|答案|解释|总结|例子|方案|很|真|太|也|都|就|还|挺|非常|特别|一些|一下|这个|那个|这样|那样|"
    "我们|我|你们|你|您|他们|她们|他|她|它|的|了|是|在|有|这|那|个|和|与|给|要|想|需要|希望|觉得|认为|喜欢")
_CONTENT_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]{2,}|\d")
_VOCATIVE = re.compile(r",\s*[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?[\s.!?~]*$")  # "…, Jon!": who is addressed


def carries_content(text: str) -> bool:
    """Whether a statement says something a later reader can use: not only an acknowledgement,
    a greeting, encouragement or talk about the conversation itself ("I fully agree.", "Go get
    'em, Jon!", "I'm doing my best", "Simple and clear, just what I wanted", "谢谢，我明白了").

    Automatic admission of a user's words requires it; the selection score reads it too.
    """
    _, said = split_speaker(text.strip())
    if _CJK.search(said):
        rest = _HOLLOW_ZH.sub("", _CONTENT_WORD.sub(lambda m: m.group(0) if m.group(0).isdigit() else " ", said))
        if sum(1 for ch in rest if _CJK.match(ch)) >= 2 or any(ch.isdigit() for ch in rest):
            return True
        if len(_CJK.findall(said)) * 2 >= len(_WORDS.findall(_CJK.sub(" ", said))) + len(_CJK.findall(said)):
            return False  # a Chinese statement: its own characters decide
    rest = _HOLLOW_PHRASES.sub(" ", _VOCATIVE.sub("", said.replace("’", "'")))
    return any(w[0].isdigit() or w.casefold().strip("'-") not in _HOLLOW_WORDS for w in _CONTENT_WORD.findall(rest))


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
        float(carries_content(text)),
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
        for position, fact in enumerate(found):
            values = features(fact, position=position, facts=len(found), asked=asked, message=text,
                              message_asks=asks[index], session_asks=session_asks, session_facts=total)
            out.append(Scored(line.seq, fact, values, probability(values, weights, bias)))
    return out


def choose(scored: Sequence[Scored], threshold: float | None = None) -> list[Scored]:
    """The facts a session proposes, in the order said: a repeated statement (same speaker, same
    words) once, then every fact whose probability is at least ``threshold`` (``THRESHOLD``),
    however many a session holds."""
    limit = THRESHOLD if threshold is None else threshold
    seen: set[tuple[str | None, str]] = set()
    out = []
    for s in scored:
        key = (s.fact.speaker, " ".join(s.fact.text.casefold().split()))
        if key not in seen:
            seen.add(key)
            if s.probability >= limit:
                out.append(s)
    return out
