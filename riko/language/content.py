"""Whether a statement carries content: one rule for Dream's selection and admission and for
the Resident's shared-out space.

A statement that only agrees, thanks, greets, encourages or talks about the conversation says
nothing a later reader can use ("I fully agree.", "Go get 'em, Jon!", "谢谢，我明白了"). Words
such as *short*, *summary* or *happy* are hollow on their own, yet a first-person taste,
boundary or feeling that governs them is a memory ("I prefer short answers", "Don't give me
long lists", "I feel happy today", "我喜欢简单明了的回答").

    >>> carries_content("I fully agree."), carries_content("I prefer short answers")
    (False, True)
"""

from __future__ import annotations

import re

from .lexicon import (BOUNDARY_NEGATORS_EN, BOUNDARY_NEGATORS_ZH, BOUNDARY_VERBS_EN, BOUNDARY_VERBS_ZH, CJK,
                      EMOTIONS_EN, EMOTIONS_ZH, HANDED_VERBS_EN, HANDED_VERBS_ZH, HOLLOW_PHRASES_EN, HOLLOW_WORDS_EN,
                      HOLLOW_ZH, LIKE_VERBS_EN, LIKE_VERBS_ZH, MOODS_ALONE_EN, MOODS_ALONE_ZH, alternation)
from .lexicon import FIRST_PERSON_CHAT_EN, FIRST_PERSON_EN, FIRST_PERSON_ZH, FIRST_PLURAL_EN, FIRST_PLURAL_ZH
from .lexicon import GENERIC_WORDS_EN, LOG_LINE_EN, PLEASED_WITH_WORK_EN, QUIZ_ITEM, TIME_AHEAD_EN, TIME_NOW_EN, TIME_PAST_EN
from .cues import is_one_off_zh, is_standing
from .lexicon import (CONVERSATION_TALK_EN, CONVERSATION_TALK_ZH, DANGLING_ENDS_EN, DISCOURSE_MARKERS_EN, LEAN_LEADS_EN,
                      MONTHS_EN, PASSING_TALK_EN, SUBORDINATORS_EN,
                      FOR_NOW_EN, KEEPING_IN_TOUCH_EN, PASSING_TALK_ZH, STANDING_EN,
                      TASK_IMPERATIVES_EN, TASK_OPENERS_EN, TASK_PASTES_EN, TASK_PROGRESS_EN, TASK_PROGRESS_ZH,
                      TASK_OPENERS_WE_EN, TASK_REQUESTS_EN, TASK_VERBS_EN, TASK_ZH, TIME_NOUNS_EN, WHAT_WAS_GIVEN_EN, OPTION_GIVEN_EN,
                      OPTION_GIVEN_ZH, WASTED_TIME_EN)

__all__ = ["carries_content", "main_clause", "own_words", "pasted", "points_back", "task_talk", "CONTENT_KINDS",
           "LEANING_MAX_OWN_WORDS", "LEANS_ON", "PASTED_MIN_CHARS", "PASTED_PLURAL_MIN_CHARS"]

#: Derived kinds that are a memory whatever their words: a taste or a boundary.
CONTENT_KINDS = frozenset({"preference", "boundary"})

_I = re.IGNORECASE
_CJK = re.compile(CJK)
_WORDS = re.compile(rf"[\w{CJK[1:-1]}]+")
_HOLLOW_PHRASES = re.compile(HOLLOW_PHRASES_EN, _I)
_HOLLOW_ZH = re.compile(HOLLOW_ZH)
_CONTENT_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]{2,}|\d")
_VOCATIVE = re.compile(r",\s*[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?[\s.!?~]*$")  # "…, Jon!": who is addressed
#: ``Name: text`` (a multi-party speaker) or ``- `` (a Resident entry) before the words themselves.
_PREFIX = re.compile(r"^(?:[-*]\s+)?(?:(?:[A-Z][\w'.\-]*(?:\s+[A-Z][\w'.\-]*){0,3}|[^\W\d_]{1,8}):\s+(?=\S))?")

_SUBJECT_EN = r"(?:i|we|the\s+user)"
_ADVERBS_EN = r"(?:(?:really|just|always|never|do|does|don't|doesn't|do\s+not|does\s+not|much|still|also|usually|" \
              r"generally|definitely|truly|honestly|actually|kind\s+of|sort\s+of)\s+)*"
#: What a governed verb must reach: not just "it", "that" or "your advice".
_DEICTIC = frozenset("it that this these those them so much a an the lot very your you how what way one idea ideas "
                     "suggestion suggestions advice plan help following below above attached".split())
_LIKES_EN = re.compile(rf"\b{_SUBJECT_EN}\s+{_ADVERBS_EN}(?:{alternation(LIKE_VERBS_EN)}|(?:never|don't|dont|do\s+not|"
                       rf"always)\s+wants?)\b(?P<object>.*)", _I)
_BOUNDARY_EN = re.compile(rf"(?:^|[.!;,]\s*)(?:please\s+)?{alternation(BOUNDARY_NEGATORS_EN)}\s+(?:ever\s+)?"
                          rf"(?:{'|'.join(BOUNDARY_VERBS_EN + HANDED_VERBS_EN)})\b(?P<object>.*)", _I)
_FEELS_EN = re.compile(rf"\b(?:i'm|im|i\s+am|i've\s+been|i\s+was|i\s+feel|i'm\s+feeling|the\s+user\s+(?:is|feels|was))"
                       rf"\s+(?:(?:so|really|very|quite|pretty|a\s+bit|a\s+little|kind\s+of|super|totally|feeling|"
                       rf"been|getting|just|incredibly|extremely)\s+)*{alternation(EMOTIONS_EN)}\b"
                       rf"(?!\s+(?:for|of|with)\s+(?:you|u)\b)", _I)
_PLEASED_WITH_WORK = re.compile(rf"\b{PLEASED_WITH_WORK_EN}", _I)
#: A mood said alone, with nothing it is about or when ("I'm so tired", "Man I'm tired now", 我好累啊).
_MOOD_ALONE = re.compile(r"^(?:(?:honestly|ugh|man|and|but|so|yeah|oh|well|ok(?:ay)?|lol|haha)[,!.\s]+)*(?:i'm|im|i\s+am|"
                         r"i\s+feel|i'm\s+feeling|im\s+feeling|i\s+am\s+feeling|i\s+was|i\s+felt)\s+(?:(?:so|really|very|a\s+bit|"
                         r"a\s+little|kinda|kind\s+of|pretty|super|just|still|totally|completely|absolutely|quite|too|already|"
                         rf"also|sooo+|soo|rather|somewhat|incredibly|extremely|feeling)\s+)*{alternation(MOODS_ALONE_EN)}"
                         r"(?:\s+(?:lol|haha|tbh|though|tho|too|now|right\s+now|already|again|honestly))*[\s.!~]*$"
                         r"|^我(?:现在|真的)?(?:好|很|有点|有些|太|特别|非常|挺|超|真)?" + alternation(MOODS_ALONE_ZH)
                         + r"(?:了|啊|呀|哦)?[。！!~]*$", _I)
_SUBJECT_ZH = r"(?:我|用户)"
_ADVERBS_ZH = r"(?:今天|现在|最近|这几天|真的|一直|从来|向来|都|也|还是|比较|更|最|很|好|有点|有些|非常|特别|太|挺|超|感觉|觉得)*"
_LIKES_ZH = re.compile(rf"{_SUBJECT_ZH}{_ADVERBS_ZH}{alternation(LIKE_VERBS_ZH)}(?P<object>.*)")
_BOUNDARY_ZH = re.compile(rf"{alternation(BOUNDARY_NEGATORS_ZH)}(?:{alternation(HANDED_VERBS_ZH)}|"
                          rf"{alternation(BOUNDARY_VERBS_ZH)})(?P<object>.*)")
_FEELS_ZH = re.compile(rf"{_SUBJECT_ZH}{_ADVERBS_ZH}{alternation(EMOTIONS_ZH)}")
_DEICTIC_ZH = re.compile(r"这个|那个|这样|那样|它|你的?|您的?|建议|[\s，。！？,.!?~…]")


#: Words between an opener and its verb of work ("I'll *also just* check", "We *really need to* review").
_STEP_ADVERBS = r"(?:(?:also|just|really|first|then|now|still|definitely|probably|need\s+to|want\s+to|have\s+to|try\s+to)\s+)*"
_TASK_OPENING = re.compile(rf"^(?:(?:so|now|ok(?:ay)?|alright|well|first|next|then|also)[,\s]+)*"
                           rf"(?:{alternation(TASK_OPENERS_EN)}\s+{_STEP_ADVERBS}{alternation(TASK_VERBS_EN)}"
                           # "we" go on with their life ("We can continue our coastal walks"): no "continue"
                           rf"|{alternation(TASK_OPENERS_WE_EN)}\s+{_STEP_ADVERBS}"
                           rf"{alternation(v for v in TASK_VERBS_EN if v != 'continue')})\b(?!\s+out\b)", _I)
_TASK_REQUEST = re.compile(rf"^(?:(?:so|now|ok(?:ay)?|alright|well|also|and|but|hi|hey|thanks)[,!\s]+)*"
                           rf"(?:{'|'.join(TASK_REQUESTS_EN)})", _I)
_TASK_PASTE = re.compile("|".join(TASK_PASTES_EN), _I)
_LOG_LINE = re.compile(LOG_LINE_EN)
_QUIZ_ITEM = re.compile(QUIZ_ITEM)
_DANGLING = re.compile(rf"[\s,]{alternation(DANGLING_ENDS_EN)}[\s,:;…\-]*$|[:\[(…]\s*$", _I)
_TASK_ZH = re.compile(TASK_ZH)
_CONVERSATION = re.compile("|".join(CONVERSATION_TALK_EN), _I)
_CONVERSATION_ZH = re.compile("|".join(CONVERSATION_TALK_ZH))
_PASSING = re.compile("|".join(PASSING_TALK_EN), _I)
_PASSING_ZH = re.compile("|".join(PASSING_TALK_ZH))
_PROGRESS = re.compile("|".join(TASK_PROGRESS_EN), _I)
_PROGRESS_ZH = re.compile("|".join(TASK_PROGRESS_ZH))
#: An instruction: a clause that opens on a bare verb, after at most a discourse word or two.
_IMPERATIVE = re.compile(rf"^(?:(?:so|now|ok(?:ay)?|alright|well|also|and|then|next|first|great|perfect|cool|thanks|"
                         rf"thank\s+you|immediately|quickly|simply|just|please|rather|instead|[a-z]+ly)[,!.\s]+)*{alternation(TASK_IMPERATIVES_EN)}\b(?!\s+(?:to|of|it|myself)\b)", _I)
#: What an instruction is for ("so I can see it", "for me"): it is still the other side's work.
_FOR_ME = re.compile(r"\b(?:so(?:\s+that)?|to\s+help|and)\s+(?:i|we)\s+(?:can|could|'ll|will|may|might)\b.*$"
                     r"|\b(?:for|to|with)\s+me\b", _I)
_STANDING = re.compile(rf"\b{alternation(STANDING_EN)}\b", _I)
_FOR_NOW = re.compile(rf"\b{alternation(FOR_NOW_EN)}\b", _I)
#: What a "don't want" governs when it is only time wasted on the work ("to waste any more time").
_WASTED_TIME = re.compile(r"^\s*(?:to\s+)?" + WASTED_TIME_EN, _I)
_KEEPING_IN_TOUCH = re.compile(KEEPING_IN_TOUCH_EN, _I)
#: "Very good, please give more examples": an instruction after a word of praise or address.
_PLEASE_DO = re.compile(rf"\bplease\s+(?:just\s+|now\s+|also\s+)?{alternation(TASK_IMPERATIVES_EN)}\b", _I)
_SINGULAR_EN = re.compile(r"\b(?:i|i'm|i've|i'd|im|ive|my|mine|myself)\b", _I)
#: A date makes a step a plan worth keeping ("I'll start with the first check-in on March 1").
_DATED = re.compile(rf"\b{alternation(MONTHS_EN)}\.?\s+\d|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:tomorrow|tonight|next\s+(?:week|month|year))\b", _I)


#: A message at least this long that never says I, my, we or 我 is text pasted or written for the task.
PASTED_MIN_CHARS = 300
_SPEAKER_WORD = re.compile(r"(?<![\w'’])" + alternation((*FIRST_PERSON_EN, *FIRST_PERSON_CHAT_EN, *FIRST_PLURAL_EN))
                           + r"(?![\w'’])|" + alternation((*FIRST_PERSON_ZH, *FIRST_PLURAL_ZH)), _I)


#: A message at least this long whose only first-person words are plural (we, our, 我们) is written in
#: an organisation's or a plan's voice for the task: a company profile, a hiring plan, a proof.
PASTED_PLURAL_MIN_CHARS = 600
_SINGULAR_WORD = re.compile(r"(?<![\w'’])" + alternation((*FIRST_PERSON_EN, *FIRST_PERSON_CHAT_EN))
                            + r"(?![\w'’])|我(?!们)", _I)


#: A recording's transcript pasted whole: a speaker's name and a time stamp on a line of their own
#: ("Henry Badgery  00:02", "[01:10] Matt:"), someone heard more than once. Its "I" is whoever speaks
#: in the recording; a day's plan ("Gym 07:00", "Lunch 12:00") names each slot once.
_TRANSCRIPT_HEADER = re.compile(r"^(?:(?P<name>[A-Z][\w'.\-]*(?:[ \t]+[A-Z][\w'.\-]*){0,3})[ \t]+\(?\d{1,2}:\d{2}(?::\d{2})?\)?"
                                r"|\[?\d{1,2}:\d{2}(?::\d{2})?\]?[ \t]+(?P<speaker>[A-Z][\w \t]{0,30}):.*)[ \t]*$",
                                re.MULTILINE)


def _transcript(message: str) -> bool:
    names = [m.group("name") or m.group("speaker") for m in _TRANSCRIPT_HEADER.finditer(message)]
    return len(names) >= 3 and len(set(names)) < len(names)


def pasted(message: str) -> bool:
    """Whether a message is text pasted or written for the task rather than the speaker's own
    statement: at least ``PASTED_MIN_CHARS`` characters and not one first-person word (I, my, we,
    我, 我们), or at least ``PASTED_PLURAL_MIN_CHARS`` and only plural ones (we, our, 我们) — a
    story's scene, a syllabus, a company's description, a hiring plan, a list of results — or a
    recording's transcript (speaker-and-time headers, a speaker heard twice). What such a message says is
    about its characters or its subject, not about the speaker."""
    if _transcript(message):
        return True
    said = _PREFIX.sub("", message.strip(), count=1).replace("’", "'")
    if len(said) < PASTED_MIN_CHARS or _SINGULAR_WORD.search(said):
        return False
    return len(said) >= PASTED_PLURAL_MIN_CHARS or not _SPEAKER_WORD.search(said)


#: A clause or phrase that says when, where or as what, leaning on the main clause after it: "When I'm
#: stressed, …", "Later, when I feel better, …", "In 2019, …", "As a kid, …", "This morning, …"; not a
#: discourse marker ("For example, …", "On the other hand, …").
LEANS_ON = re.compile(r"(?:" + alternation(LEAN_LEADS_EN) + r"[,\s]+)?(?!(?:" + "|".join(DISCOURSE_MARKERS_EN) + r")\b)"
                      r"(?:" + alternation(SUBORDINATORS_EN) + r"|"
                      r"in|on|at|for|from|during|with|without|over|throughout|among|around|as\s+an?|growing\s+up|back\s+(?:in|then)|"
                      r"yesterday|today|tonight|tomorrow|earlier|(?:this|last|next|every|each|that|one)\s+"
                      + alternation(TIME_NOUNS_EN) + r")\b", _I)


def main_clause(clause: str) -> str:
    """What follows the leading clause that says when ("When I'm stressed, I eat chocolate" → "I eat
    chocolate"), or the clause itself."""
    if not LEANS_ON.match(clause):
        return clause
    head, comma, rest = clause.partition(", ")
    if head.casefold() in LEAN_LEADS_EN and comma:
        rest = rest.partition(", ")[2] or rest
    return rest.strip() or clause


def task_talk(text: str) -> bool:
    """Whether a statement is about the work in hand rather than about the speaker: a request or
    instruction to the other side, narration of the next step of the task ("I'll include all the
    necessary descriptions", "I want to make sure I understand the formula"), pasted code, links
    or logs, a clause cut before it says anything ("…, but first"), a one-off instruction
    ("Based on this discussion organize the criteria in a table") or talk about the conversation
    itself ("Looks like we're good to go", "We can move on to packing", "I'm ready", "The voice
    notes look solid") and what is said in passing (a photo caption, "I'm doing good, it's a sunny
    day here"). 请帮我检查一下 is task talk; "I'll start a new job in May" and 我下个月要去上海 are not.

    A first-person taste or boundary is never task talk ("Please don't use bullet points"), nor is
    a standing instruction ("Please always reply in British English", 今后请用简体中文回复我); a
    one-off one is (这次用中文回答我).
    """
    stripped = text.strip()
    if _LOG_LINE.match(stripped) or _QUIZ_ITEM.match(stripped):
        return True
    said = _PREFIX.sub("", stripped, count=1).replace("’", "'")
    if _governed(said) or is_standing(said):
        return False
    if (main := main_clause(said)) != said and task_talk(main):
        return True  # "After working on the resume, I feel a little more ready"
    if _TASK_PASTE.search(said) or _DANGLING.search(said):
        return True
    if _CJK.search(said):
        return bool(_TASK_ZH.search(said) or _CONVERSATION_ZH.search(said) or _PASSING_ZH.search(said)
                    or _PROGRESS_ZH.search(said) or is_one_off_zh(said))
    if _KEEPING_IN_TOUCH.search(said) or _PASSING.search(said):
        return True  # said in passing, whatever day it names ("My head is already spinning about tonight")
    if _DATED.search(said):
        return False
    return bool(_TASK_REQUEST.search(said) or _TASK_OPENING.search(said) or _CONVERSATION.search(said)
                or _PROGRESS.search(said)
                or (bool(_PLEASE_DO.search(said)) and not _STANDING.search(said)) or _instruction(said))


def _instruction(said: str) -> bool:
    """A one-off instruction to the other side: it opens on a bare verb and says nothing of the
    speaker ("Organize the criteria in a table"); "Always use metric units" is standing, and
    "Tell me about my options at work" names the speaker's own — unless it is for now ("Apply
    this to my bullet points immediately")."""
    return bool(_IMPERATIVE.search(said)) and not _STANDING.search(said) \
        and (bool(_FOR_NOW.search(said)) or not _SINGULAR_EN.search(_FOR_ME.sub("", said)))


#: A taste of what was just given ("I like that it's not too extreme", "I love how you laid it out", "I like
#: the first two", 我更喜欢第二个).
_OF_WHAT_WAS_GIVEN = re.compile(r"^(?:\s*(?:(?:that|how)\s+" + alternation(WHAT_WAS_GIVEN_EN) + r"\b|" + OPTION_GIVEN_EN
                                + ")|" + OPTION_GIVEN_ZH + ")", _I)


def _reaches_something(rest: str) -> bool:
    """Whether what a taste or boundary verb governs names something ("short answers"), not
    only "it", "that", "your advice" or "that it's not too extreme"."""
    if _OF_WHAT_WAS_GIVEN.match(rest) or _WASTED_TIME.match(rest):
        return False
    if _CJK.search(rest):
        return sum(1 for ch in _DEICTIC_ZH.sub("", rest) if _CJK.match(ch)) >= 2
    return any(w.casefold().strip("'-") not in _DEICTIC for w in _CONTENT_WORD.findall(rest))


def _governed(said: str) -> bool:
    """A first-person taste, boundary or feeling: "I prefer short answers", "Don't give me long
    lists", "I feel happy today", "我喜欢简单明了的回答", "不要给我太长的列表", "我今天很开心"."""
    if (_FEELS_EN.search(said) and not _PLEASED_WITH_WORK.search(said)) or _FEELS_ZH.search(said):
        return True  # pleased with how the work turned out is a verdict on it, not how the speaker is
    for pattern in (_LIKES_EN, _BOUNDARY_EN, _LIKES_ZH, _BOUNDARY_ZH):
        m = pattern.search(said)
        if m and _reaches_something(m.group("object")):
            return True
    return False


# -- pointing back into the conversation ----------------------------------------------------------
_OWN_WORD = re.compile(r"[A-Za-z][a-z'\-]{2,}")
#: a number, a name or a time word: what makes a clause self-contained although it points back
_ANCHOR = re.compile(r"\d|(?<=\s)[A-Z][a-z]+|(?i:\b(?:ago|" + alternation((*TIME_PAST_EN, *TIME_NOW_EN, *TIME_AHEAD_EN))[3:-1]
                     + r")\b)")
_POINTS_BACK = re.compile(r"\b(?:this|that|these|those|it|them|here|there)\b", _I)
#: "this", "those", "them" and "that" standing for a thing ("I use that", "that one"), not "that" before a clause
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those|them)\b|\bthat(?=\s*(?:$|[,.!?;…]|\s(?:one|too|either|again|first|now)\b))",
                            _I)
#: At most this many words of its own beside a demonstrative, and nothing named: the statement is
#: about what the conversation just held ("I need to get this sorted so I can focus", "I always mix
#: those two up"). "I need this job to pay off my student loans" says enough of its own.
LEANING_MAX_OWN_WORDS = 4


def own_words(clause: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """The words of ``clause`` that name something of its own (not ``GENERIC_WORDS_EN``, not ``skip``)."""
    return [w for w in _OWN_WORD.findall(clause) if w.casefold() not in GENERIC_WORDS_EN and w.casefold() not in skip]


def points_back(clause: str, pointer: re.Pattern[str] = _POINTS_BACK, most: int = 2) -> bool:
    """Whether a clause points into the conversation ("I'll get it done", "I'm attaching the file
    now") and names at most ``most`` things of its own, no number, name or time among them: it is
    not self-contained and says nothing a later reader can use."""
    if not pointer.search(clause) or _ANCHOR.search(clause):
        return False
    return len(own_words(clause)) <= most


def carries_content(text: str, kind: str | None = None) -> bool:
    """Whether a statement says something a later reader can use: not only an acknowledgement,
    a greeting, encouragement or talk about the conversation itself ("I fully agree.", "Go get
    'em, Jon!", "I'm doing my best", "Simple and clear, just what I wanted", "谢谢，我明白了").

    A statement whose derived ``kind`` is a preference or boundary, or whose first-person taste,
    boundary or feeling governs its words, carries content however hollow those words are; a mood
    said alone does not ("I'm so tired", 我好累): it passes, and one that recurs shows in reflection.
    A leading speaker (``Name: ``) or Resident bullet (``- ``) is not part of what is said.
    """
    said = _PREFIX.sub("", text.strip(), count=1).replace("’", "'")
    rest = _HOLLOW_PHRASES.sub(" ", _VOCATIVE.sub("", said))
    if _MOOD_ALONE.match(said):
        return False  # "I'm so tired": a mood that passes, with nothing it is about
    if kind in CONTENT_KINDS or _governed(rest):
        return True
    if task_talk(said) or _QUIZ_ITEM.match(text.strip()):
        return False
    if points_back(said, _DEMONSTRATIVE, LEANING_MAX_OWN_WORDS):
        return False
    if _CJK.search(said):
        left = _HOLLOW_ZH.sub("", _CONTENT_WORD.sub(lambda m: m.group(0) if m.group(0).isdigit() else " ", said))
        if sum(1 for ch in left if _CJK.match(ch)) >= 2 or any(ch.isdigit() for ch in left):
            return True
        if len(_CJK.findall(said)) * 2 >= len(_WORDS.findall(_CJK.sub(" ", said))) + len(_CJK.findall(said)):
            return False  # a Chinese statement: its own characters decide
    return any(w[0].isdigit() or w.casefold().strip("'-") not in HOLLOW_WORDS_EN for w in _CONTENT_WORD.findall(rest))
