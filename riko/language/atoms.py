"""Atomic facts: one statement per proposal, in the speaker's words, pronouns resolved.

A message is cut into sentences and clauses; each clause that states something about the
speaker or the people, places and projects they name — a state, an event, a plan, a
preference, a relationship, a possession, a boundary, an identity — becomes one fact. Requests
to the assistant, questions, thanks and small talk state nothing and are left out, as are
hypotheticals, reported speech and secrets. The fact is the speaker's clause with discourse
fillers trimmed and a pronoun that points outside it replaced by the name it points to ("she"
→ "Lena") when the text before it names exactly one such person. Pure and deterministic.

    >>> [f.text for f in extract_facts("My sister Lena moved to Berlin. She works as a nurse there.")]
    ['My sister Lena moved to Berlin', 'Lena works as a nurse there']
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from .cues import has_hedge, has_secret, is_boundary, is_hypothetical, is_one_off_zh, is_reported, is_sensitive
from ..language.lexicon import (
    CJK,
    CJK_RANGE,
    FIRST_PERSON_CHAT_EN,
    FIRST_PERSON_EN,
    FIRST_PERSON_ZH,
    FIRST_PLURAL_EN,
    FIRST_PLURAL_ZH,
    GIVING_VERBS_EN,
    GREETINGS_EN,
    GREETINGS_ZH,
    IRREGULAR_PAST_EN,
    MONTHS_EN,
    PERSON_PRONOUNS_EN,
    PREPOSED_LEADS_EN,
    PREPOSED_LEADS_ZH,
    QUANTITY_UNITS_EN,
    QUESTION_OPENERS_EN,
    SUBJECT_ADVERBS_EN,
    SUBORDINATORS_EN,
    TACT_EN,
    THIRD_PERSON_EN,
    TIME_NOUNS_EN,
    THIRD_PERSON_ZH,
    TITLE_ABBREVIATIONS_EN,
    WEEKDAYS_EN,
    alternation,
)
from ..language.statement import USER, answer_statement, name_subject, resolve_dates
from .content import LEANS_ON, main_clause, own_words, points_back
from .derive import ZH_RELATION_WORDS, Derived, could_be_name, derive, relation_alias

__all__ = ["Fact", "answer_fact", "extract_facts", "last_question", "multi_party", "split_speaker", "statement_of"]

_I = re.IGNORECASE
MAX_FACT_CHARS = 240
_MAX_SENTENCE = 600
#: A message this long is mostly pasted material (a draft, a document, code): only what the
#: speaker says of themselves in it is kept.
_LONG_MESSAGE = 1500

# -- cutting -----------------------------------------------------------------------------------------
#: The speaker, alone or with others (I, im, we, our …); as a word in :data:`_SPEAKER_WORD` and :data:`_FIRST`.
_SPEAKER_EN = alternation((*FIRST_PERSON_EN, *FIRST_PERSON_CHAT_EN, *FIRST_PLURAL_EN))
_SPEAKER_WORD = _SPEAKER_EN + r"(?![\w'’])"
#: What a question is asked in view of: ", considering I've never …", "Given that I …".
_IN_VIEW_WORD = r"(?:considering|given)"
_FENCE = re.compile(r"```.*?(?:```|$)", re.S)
# a line's own indent before a quote mark or a bullet (not the blank lines above it: a run of them
# would be read once from each line's start)
_MARKUP = re.compile(r"\*\*|__|`|^#+\s*|^[ \t]*>\s*|(?<![\w*])\*(?=\w)|(?<=[\w.!?,])\*(?![\w*])", re.M)
_BULLET = re.compile(r"^[ \t]*(?:[-*•·]|\d{1,2}[.)])\s+", re.M)
# a title or an initial before a name does not end a sentence ("by Dr. Linda Chen", "J. K. Rowling")
_NOT_AN_END = "".join(rf"(?<!\b{a}\.)" for a in (*TITLE_ABBREVIATIONS_EN, "[A-HJ-Z]"))
_SENTENCE = re.compile(rf"(?<=[.!?。！？…])(?!(?:(?<=…)|(?<=\.\.\.))[\"'”’)]*\s+[a-z]){_NOT_AN_END}[\"'”’)]*\s+|(?<=[。！？])|\n+")
_CLAUSE = re.compile(
    r"\s*;\s*|\s*；\s*|,?\s+but\s+(?=(?:I|I'm|I've|my|we|he|she|they|it)\b)|,\s+(?:and\s+|so\s+)?(?=(?:I|I'm|I've|I'll|I'd|my|we|we're)\s)"
    # "me and my mom cooked …" is one subject, not two clauses ("it inspired me and I will book …" is two)
    r"|\s+and\s+(?=(?:I|I'm|I've|I'll)\s)|(?<!\b[Mm]e)\s+and\s+(?=my\s)|，(?:但是|不过|可是|而且|然后|所以)?(?=我)|，(?:但是|不过|可是|而且|然后|所以)"
    r"|(?:但是|不过|可是)"
    # a statement before the question it leads to: "I was diagnosed in May, how often should I …?"
    r"|,\s+(?=(?i:(?:so\s+|and\s+|but\s+)?(?:how|what|which|where|when|why|who|can|could|would|should|do|does|did|is|"
    r"are|any|anything)\b)[^.!?]*\?[\s\"'”’)]*$)|，(?=[^，。！？]*[？?]\s*$)"
    # what a question is asked in view of: "What's the best way to prepare, considering I've never done one?"
    r"|,\s+(?i:" + _IN_VIEW_WORD + r")\s+(?i:that\s+)?(?=(?:I|I'm|I've|we|we've|we're)\s)")
_IN_VIEW = re.compile(r",\s+" + _IN_VIEW_WORD + r"\b", _I)
#: Who shares the subject with "I": "My wife and I", "… that my family and I spent".
_WITH_ME = re.compile(r"(?:^\s*|\b(?:that|who|which|where|when|because|since|after|before|and|so|but|then)\s+)"
                      r"(?:my\s+[a-z]+|[A-Z][a-z]+)\s*$"
                      # after a word of time, only "my family" or a name ("Finally my family and I", not "finally home and my bed")
                      r"|\b(?:finally|now|also|actually|recently|today|yesterday|tomorrow|soon|later|eventually)\s+"
                      r"(?:my\s+[a-z]+|(?-i:[A-Z][a-z]+))\s*$", re.I)
_LEAD = re.compile(
    # "No," is a filler; "No mucking around" is a negation and stays
    r"^(?:(?:no|nope|nah)\s*[,.!:;\-–—]+\s*|(?:ok(?:ay)?|alright|all\s+right|so|well|yes|yeah|yea|ya|yep|yup|hey|hi|hello|"
    # "nah" and "given that" before the speaker ("Nah i dont …", "Given that I have never …"); a reason
    # left alone when what it led to was a question ("Since I've decided to sign a new lease, can you …")
    # still says what it gives as the reason, when the speaker alone gives it ("now that we've covered …"
    # is the conversation) and nothing follows it; "since I was little" is a time, not a reason
    r"(?:heck|hell)\s+(?:yeah|yes|ya)|(?:nah|nope)(?=\s+(?:" + _SPEAKER_WORD + r"|id\b|but\b|and\b))|"
    + _IN_VIEW_WORD + r"\s+that(?=\s+" + _SPEAKER_WORD + r")|"
    # "Given my new position offers a 50% raise" or "Given that Rachael and I have been rehearsing", asked about:
    # what it is asked in view of, when nothing follows it
    + _IN_VIEW_WORD + r"(?:\s+that)?(?=\s+(?:" + _SPEAKER_WORD + r"|[A-Z][a-z]+\s+and\s+I\b))(?![^,;]*[,;]\s+\w)"
    r"(?=[^,;]*\b(?:is|are|was|were|has|have|had|will|can|'s|'re|'ve|'m|am|[a-z]{3,}ed|offers|costs|starts|ends|needs|"
    r"takes|runs|works|means|includes|requires|remains|stays|lasts|pays|earns|lives|plans|wants)\b)|"
    r"(?:now\s+that|since|seeing\s+as)(?=\s+(?:i|i'm|i've|i'd|im|ive|my)\s)(?!\s+\w+\s+(?:was|were)\b)"
    r"(?![^,;]*[,;]\s+\w)(?!\s+\S+.*\b(?:i|we)\b)|"
    # the answer to "what's up?" before what the speaker says ("not much Ive been trying to fix this laptop",
    # "I dunno I woke up once and …"); "Not much I can do" and "I dunno if he's coming" stay whole
    r"(?:not\s+much|nothing\s+much)(?=\s+(?:i've|ive|i'm|im|i\s+was|i\s+just|i\s+had|just)\b)|"
    r"(?:i\s+dunno|idk)(?=\s+(?:i|i've|ive|i'm|im|my|we)\b)(?!\s+(?:i|we)\s+(?:guess|think|mean)\b)|"
    # the other side addressed ("My guy, just as I promised", "Mate, …"); "My brother, who lives in Lagos, …" is not
    r"(?:my\s+guy|my\s+man|mate|bro|dude|fam|oga)(?=\s*[,!])|"
    r"o+h+|o{3,}|a+h+|aha|u+m+|u+h+|h+m+|mhm|ooh|w+o+w+|lmao|lmfao|(?:ha){2,}h?|(?:he){2,}|great|"
    r"perfect|awesome|cool|sure|right|honestly|actually|anyway|anyways|also|and|but|plus|now|then|lol|haha|"
    r"good|nice|(?:thanks|thank\s+you)(?!\s+(?:so\s+much\s+|a\s+lot\s+)?(?:for|to)\b)|got\s+it|understood|exactly|"
    r"absolutely|definitely|indeed|true|fair\s+enough|of\s+course|"
    r"by\s+the\s+way|btw|first(?:ly)?|second(?:ly)?|finally|basically|okay\s+so|i\s+mean)\b[\s,.!:;\-–—]*)+", _I)
# each alternative starts where its run of spaces or marks starts (the lookbehinds), so a long run is
# tried once, not once per character of it
_TRAIL = re.compile(r"(?<![\s,])(?:[\s,]+(?:by\s+the\s+way|btw|lol|haha|though|too|as\s+well|either|right\s+now|tbh))+"
                    r"[\s.!]*$|(?<![\s.。!！~～…:：,，;；\-–—])[\s.。!！~～…:：,，;；\-–—]+$", _I)
#: A clause that leans on another: it opens on a subordinating word ("After we talked last", cut
#: from "…, I saved it"; "Because they have to"). Short, or a reason that is not the speaker's,
#: it states nothing alone.
_SUBORDINATE = re.compile(r"^(?:" + alternation((*SUBORDINATORS_EN, "unless")) + r"|since\s+(?:i|we)\s+(?:was|were)\b)\b",
                          _I)
#: A leaning clause that only points back ("While that's happening", "After that", "Once it's done"), not
#: "When it comes to cooking" or "Once that next income lands".
_POINTS_BACK_LEAN = re.compile(r"\s+(?:that|this|it|those|these|all\s+(?:that|this))(?=\s*(?:$|,|['’]s\b|\s+(?:is|are|"
                               r"was|were|has|have|had|gets?|got|happens?|happened|lands?|works?|worked|did|does|didn't|"
                               r"doesn't)\b))", _I)
#: Longer, what leads the main clause is a statement of its own.
_LEANING_MAX_WORDS = 12
_LEANS_ON_ZH = re.compile(r"(?:的时候|之时|之后|以后|之前)$")
_REASON = re.compile(r"^(?:because|cause|'cause|cuz|coz|since)\b", _I)
#: An example that leans on what was just said: "like when I watched Inception for the first time",
#: and "like" before anything but the speaker in a clause that does not name them ("Like the old
#: Final Fantasy games", "Like their job is purely to make salads").
_LIKE_WHEN = re.compile(r"^like[\s,]+(?:when|while|whenever|if|the\s+time|that\s+time)\b", _I)
_LIKE_OTHER = re.compile(rf"^like\b(?![\s,]+{_SPEAKER_WORD})", _I)
#: "Like" as a filler before the speaker ("Like i love gordon ramsay" says "I love gordon ramsay"), and
#: "like I said," before what is said again ("As I said before, I'm vegan").
_LIKE_FILLER = re.compile(r"^(?:like|as)\s+i\s+(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier))?\s*,\s*"
                          rf"|^like[\s,]+(?:(?:for\s+example|for\s+instance)[\s,]+)?(?={_SPEAKER_WORD})", _I)
_TACT = re.compile(TACT_EN, _I)
_GREETING = re.compile(f"{GREETINGS_EN}|{GREETINGS_ZH}", _I)
# a line of a list of quantities ("2 Tbsp Oat Bran"): a number, a unit and at most three words
_QUANTITY = re.compile(rf"^\d+(?:[.,/]\d+)?\s*{alternation(QUANTITY_UNITS_EN)}\.?(?:\s+[\w'\-]+){{1,3}}$", _I)
# a lead alone ("Given our funding goals", "考虑到我们的预算"): no subject and verb of its own
_PREPOSED = re.compile(rf"^{alternation(PREPOSED_LEADS_EN)}\b(?![^:]*:)(?!.*\b(?:(?:I|we|he|she|they|you|it)(?:'m|'ve|'re|'d|'ll|'s)?"
                       r"\s+[a-z]+|is|are|was|were|am|has|have|had|will|would|can|could|should|must|do|does|did|"
                       r"[a-z]+n't)\b)", _I)
_PREPOSED_ZH = re.compile(rf"^{alternation(PREPOSED_LEADS_ZH)}[^，,。！？]*的{CJK}{{1,6}}$")
_ZH_LEAD = re.compile(r"^(?:嗯|哦|啊|好的|好吧|对了|其实|那个|就是|然后|所以|不过|而且|另外|还有)[，,、\s]*")

# -- what a clause is --------------------------------------------------------------------------------
_WHEN_WHERE = ("when", "where")
_QUESTION = re.compile(
    r"[?？]\s*$|[吗呢嘛][\s。.!！~～]*$|^\s*(?:" + alternation(tuple(w for w in QUESTION_OPENERS_EN if w not in _WHEN_WHERE))[3:-1]
    + r"|any\s+(?:idea|thoughts|tips))\b(?!['’]|\s+not\b)"
    # "When is the deadline" is asked; "When I'm stressed, I eat chocolate" says when
    r"|^\s*(?:when|where)\s+(?:do|does|did|is|are|was|were|will|would|can|could|should|shall|may|might|have|has|am|"
    r"'s|'re)\b"
    # asked without its "?" ("What's the best way to prepare for a visa interview"); "What's more, …" is not asked
    r"|^\s*(?:what|how|where|which)['’]s\s+(?:the|a|an|your|some|any|good|best|better|easiest|quickest|fastest|"
    r"simplest|cheapest)\b"
    # asked after a joining word, in question order ("Or is there a way to share the funds")
    r"|^\s*(?:or|and|but|also|so|plus)[,\s]+(?:is|are|am|was|were|do|does|did|can|could|would|should|will|shall|may|"
    r"have|has)\s+(?:there|i|you|we|it|this|that|he|she|they)\b", _I)
_REQUEST = re.compile(
    r"^\s*(?:(?:please|just|simply)\s+)*(?:let's(?!\s+(?:go\s+with|do|use|choose|pick|stick\s+with|start\s+with|focus\s+on|aim\s+for|"
    r"target|lock\s+in)\b)|let\s+us|let\s+me\s+know|show|tell|give|write|explain|describe|list|create|generate|"
    r"make|draft|summari[sz]e|provide|suggest|recommend|help|continue|rewrite|translate|find|check|send|add|include|"
    r"remove|keep|go\s+ahead|proceed|start|begin|elaborate|expand|outline|break\s+down|walk\s+me|calculate|compare|"
    r"analy[sz]e|design|develop|review|consider|use|try|focus|imagine|pretend|act|answer|respond|stop|wait|"
    r"remember|note|put|move\s+on|detail|map|plan\s+out|refine|confirm|update|adjust|change|fix|ensure|draw)\b"
    r"|\b(?:can|could|would|will)\s+you\b|\b(?:I\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to)\b"
    r"|^\s*(?:请|帮我|给我|告诉我|你能|你可以|麻烦你|能不能|可不可以)"
    # "Please work this into the letter", "… for me, please": asked of the other side (a boundary is caught first)
    r"|^\s*please\b|(?<!\s),?\s+please[\s.!]*$", _I)
_ABOUT_YOU = re.compile(
    r"^\s*(?:you|your|you're|you've|you'll|that's|this\s+is|it's|that\s+is|these\s+are|those\s+are|sounds|looks|seems)\b|"
    r"\b(?:thank(?:s|\s+you)|cheers\s+for|appreciate|you're\s+right|good\s+(?:idea|point|question)|makes\s+sense|sounds\s+good|"
    r"well\s+said|no\s+problem|you\s+too|nice\s+to\s+meet)\b|^\s*(?:你|您|谢谢|感谢)", _I)
_FIRST = re.compile(r"(?<![\w'])" + _SPEAKER_EN + r"(?![\w'])|" + alternation((*FIRST_PERSON_ZH, *FIRST_PLURAL_ZH))[3:-1], _I)
_THIRD = re.compile(rf"^\s*{alternation(THIRD_PERSON_EN)}\b|^\s*{alternation(THIRD_PERSON_ZH)}(?!们)", _I)
_STATE_EN = re.compile(
    r"\b(?:Im|Ive|Id)\s+[a-z]{2,}\b|\b(?:I|we)(?:'ve|'m|'d|'ll|'re|ve|m)?\s+(?:\w+\s+){0,2}?(?:am|'m|was|were|have|'ve|had|got|get|live|lived|work|worked|study|studied|"
    r"went|go|going|started|start|finished|finish|completed|did|do|made|make|bought|adopted|moved|joined|quit|"
    r"left|love|like|enjoy|prefer|hate|want|need|plan|planning|intend|hope|decided|think|feel|felt|believe|"
    r"use|used|play|played|read|watch|watched|run|ran|tried|try|can't|cannot|don't|didn't|won't|usually|always|"
    r"never|often|sometimes|recently|just|currently|still|also|really|will|'ll|would|'d|should|could|"
    r"[a-z]{3,}ed|[a-z]{3,}s)\b"
    r"|\b(?:my|our)\s+(?:\w+\s+){0,3}?(?:is|are|was|were|has|have|had|will|'s|got|[a-z]{2,}ed|[a-z]{2,}s|"
    + alternation(IRREGULAR_PAST_EN)[3:-1] + r")\b"
    # a relative said in more words ("My best friend Priya just moved", "My partner Alex doesn't eat meat")
    r"|\b(?:my|our)\s+(?:\w+\s+){0,4}?(?:does|did|doesn't|don't|didn't|can|can't|won't|isn't|aren't|wasn't|never|"
    r"[a-z]{2,}ed)\b"
    r"|^\s*let's\s+(?:go\s+with|do|use|choose|pick|stick\s+with|start\s+with|focus\s+on|aim\s+for|target|lock\s+in)\b"
    r"|\b(?:I|we)(?:'ve|'m|'d|'ll|'re)?\s+[a-z]+\b", _I)
# A declarative about something named (not "it", "this", "you"): "Saturday morning is for the beach".
_DECLARATIVE = re.compile(
    r"^(?!(?:it|it's|this|that|that's|these|those|there|there's|here|what|you|your|everything|nothing|something|"
    r"anything|everyone|someone|which|who|how|why|when|where)\b)"
    r"(?:[\w'’\-/&]+\s+){0,5}?(?:is|are|was|were|has|have|had|will|won't|isn't|aren't|wasn't|needs?|stays?|remains?|"
    # the verb must say something about its subject: a last word ("Long week at work") is a noun
    r"gets?|got|starts?|ends?|costs?|takes?|runs?|works?|feels?|looks?)\b(?=\s+\w)|^[A-Z][\w ()/&'\-]{1,40}:\s*\S", _I)
# A clause that drops its "I": "Submitted it earlier today", "Finished the draft", "Still waiting on the quote".
_SUBJECTLESS = re.compile(
    r"^(?:just\s+|already\s+|finally\s+|still\s+|also\s+)?(?:[a-z]{3,}ed|went|got|made|had|did|took|ran|bought|"
    r"sent|paid|spent|left|met|saw|found|wrote|read|built|booked|finished|started|working|waiting|planning|"
    r"thinking|going|heading|trying|looking|leaning|hoping)\b(?!\s+(?:you|your)\b)"
    # a participle before the subject it describes: "Fried things are good" names no one
    r"(?!\s+[a-z]+(?:\s+[a-z]+)?\s+(?:is|are|was|were|tastes?|looks?|smells?)\b)", _I)
_CALENDAR = frozenset((*WEEKDAYS_EN, *MONTHS_EN))
# Someone named does something: "Mia sings in a jazz band", "Grandpa Joe sold the farm".
_NAME_AND_ADVERB = rf"([A-Z][a-z]{{2,}}(?:\s+[A-Z][a-z]{{2,}})?)\s+(?:{alternation(SUBJECT_ADVERBS_EN)}\s+)?"
_NAMED_VERB = rf"(?:[a-z]{{3,}}(?:s|ed)|{alternation(IRREGULAR_PAST_EN)[3:-1]})"
_NAMED_SUBJECT = re.compile(rf"^{_NAME_AND_ADVERB}{_NAMED_VERB}\b(?!['’])")
_DEICTIC = re.compile(r"^(?:it|it's|(?:this|that)(?!\s+" + alternation(TIME_NOUNS_EN) + r"\b)|that's|these|those|there|there's|"
                      r"here|here's|thats|its)\b", _I)
_TO_YOU = re.compile(r"\b(?:you|your|you're|you've|you'll|yourself)\b", _I)
# what is left of a clause whose head was a filler or a thanks: "for the advice, Jon", "I love to"
_FRAGMENT = re.compile(r"\b(?:to|for|of|about|with|at|from|the|a|an|my|your|our|and|or|but|because|than)$"
                       # a reply cut to its auxiliary ("I haven't", "We did", "I really can't")
                       r"|^(?:(?:because|cause|'cause|cuz|coz|since|and|but|so)\s+)?(?:i|we|they)\s+(?:\w+ly\s+|just\s+|still\s+)?(?:have|haven't|has|hasn't|had|hadn't|did|didn't|do|"
                       r"don't|will|won't|would|wouldn't|can|can't|could|couldn't|should|shouldn't|am|'m|was|wasn't|were|"
                       r"weren't|are|aren't)$", _I)
_HEADLESS = re.compile(r"^(?:for|to|of|about|with|from|than|as|at|on|in)\s", _I)  # after a stripped lead
# a statement about the speaker that does not start with "I": "Family time matters to me"
_ABOUT_ME = re.compile(
    r"\b(?:matters?|mattered|means?|meant)\s+(?:a\s+lot\s+|so\s+much\s+|everything\s+|the\s+world\s+|a\s+great\s+deal\s+)?"
    r"to\s+(?:me|us)\b|\b(?:is|are|was|were)\s+(?:\w+\s+){0,2}?(?:important|special|precious|dear|everything|"
    r"meaningful|close)\s+to\s+(?:me|us)\b|\b(?:makes?|made|keeps?|kept)\s+me\s+(?:so\s+|really\s+|very\s+)?"
    r"(?:happy|calm|sane|grounded|going|feel)\b", _I)
_STATE_ZH = re.compile(alternation((*FIRST_PERSON_ZH, *FIRST_PLURAL_ZH)))
# A Chinese statement about something named, without 我: "新品发布会的地点是北京", "舅妈今年45岁了",
# "李梓轩喜欢骑自行车". Not one that opens with a pointer, a question word or a hedge of taste.
_NOT_ZH_SUBJECT = r"^(?!(?:这|那|它|你|您|哪|什么|谁|怎么|为什么|有没有|是不是|想想|感觉|觉得|好像|可能|也许|总的来说))"
_DECLARATIVE_ZH = re.compile(
    _NOT_ZH_SUBJECT + r"(?:[^，,。！？!?]{1,20}?的[" + CJK_RANGE + r"]{1,8}?(?:是|为|在|有|叫|定在)"
    r"|[" + CJK_RANGE + r"\w·]{2,12}?(?:喜欢|爱|讨厌|住在|在|是|有|去|来自|毕业于|出生|工作|负责|打算|计划|准备|想|要|会|养|买|参加))"
    r"[" + CJK_RANGE + r"\w\"“]"
    # a relative as the subject: "舅妈今年45岁了"
    r"|^" + alternation(ZH_RELATION_WORDS) + r"(?!们)[" + CJK_RANGE + r"\w]{2,}")
_NUMBER = re.compile(r"\d")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}\b")
_VAGUE = re.compile(
    r"^(?:I|we)\s+(?:think|guess|mean|see|know|agree|understand|hope\s+so|feel\s+like\s+(?:it|that))\b"
    r"(?:\s+(?:so|that|it|this))?[\s.!]*$"
    r"|^I(?:'m|\s+am)\s+not\s+(?:sure|certain)\b"
    # not knowing, said in passing ("I don't know if he's coming"); "I don't know how to swim" is a skill
    r"|^I\s+(?:don't|do\s+not)\s+know\b(?=[\s.!,~]*$|\s+(?:if|whether|what|why|where|when|who|which|yet|for\s+sure|tbh|lol|"
    r"exactly|either|man|haha|how(?!\s+to\b)))"
    # a state of the work said alone: "I'm getting stuck", "I was wondering", "I'm kinda curious", "I've decided"
    r"|^(?:I|we)(?:'m|'re|\s+am|\s+are|\s+was|\s+were|'ve(?:\s+been)?|\s+have(?:\s+been)?)?\s+(?:(?:kinda|kind\s+of|a\s+bit|a\s+little|"
    r"so|really|just|still|getting|also|now|currently|totally)\s+)*(?:stuck|curious|confused|wondering|thinking|asking|"
    r"talking|decided|practicing|practising|lost|having\s+(?:some\s+)?(?:trouble|issues|problems))[\s.!,~…]*$"
    r"|^I\s+(?:will|'ll|must|have\s+to|gotta)\s+(?:admit|say)[\s.!,~…]*$|^I\s+can't\s+wait[\s.!,~…]*$"
    # an object that names nothing: "I love it", "I like that one"
    r"|^(?:I|we)\s+(?:\w+\s+){0,2}(?:it|that|this|them|you|him|her|those|these)(?:\s+(?:one|too|so\s+much|a\s+lot))?[\s.!]*$"
    # ordering something, not a preference: "I'd like a coffee"
    r"|^I(?:'d|\s+would)\s+like\s+(?:a|an|some|the|one|two)\s+\w+(?:\s+\w+)?[\s.!]*$"
    r"|^我叫了"
    # how-are-you small talk: "I'm doing well, thanks for asking", "我挺好的"
    r"|^(?:I|we|Im)(?:'m|\s+am|'re|\s+are)?\s+(?:doing\s+|feeling\s+)?(?:really\s+|pretty\s+|very\s+)?"
    r"(?:well|good|great|fine|ok(?:ay)?|alright|not\s+(?:too\s+)?bad)(?:\s+(?:too|also|as\s+well|today|now|myself))*"
    r"(?:[\s,.!]+(?:thanks|thank\s+you|thx)(?:\s+for\s+asking)?|[\s,.!]+(?:how|and|what)\s+about\s+you)?[\s.!]*$"
    r"|^我(?:也)?(?:很好|挺好的?|还不错|还行|不错|一切都好)[\s。!！~～]*$", _I)
_PAST_TASTE = re.compile(r"\bused\s+to\s+(?:like|love|enjoy|prefer|hate)\b", _I)  # not a current taste
_META = re.compile(r"\b(?:your\s+(?:answer|response|suggestion|list|plan|draft|message|reply|system)|"
                   r"you\s+(?:said|mentioned|suggested|asked|wrote|provided|gave)|as\s+(?:I|you)\s+(?:said|mentioned))\b", _I)
_WORDS = re.compile(r"\w+")  # CJK characters are word characters
_CJK = re.compile(CJK)

# -- pronouns ------------------------------------------------------------------------------------------
_PRONOUN_EN = re.compile(rf"\b({alternation(PERSON_PRONOUNS_EN)[3:-1]})\b", _I)
_PRONOUN_ZH = re.compile(rf"({alternation(THIRD_PERSON_ZH)[3:-1]})(?!们)")
_FEMALE = frozenset("she her shes".split())
# "Fahim Khan: text", and a name typed in lower case ("elise: text")
_SPEAKER = re.compile(r"^([A-Z][\w'.\-]*(?:\s+[A-Z][\w'.\-]*){0,3}|[a-z][a-z'\-]{1,20}):\s+(?=\S)")
_NOT_SPEAKERS = frozenset("note edit update ps p.s re fyi q a step btw tip tips eg e.g ie i.e also example answer question "
                          "reason result summary goal goals budget todo total update important warning error http https "
                          "input output source ref".split())


@dataclass(frozen=True)
class Fact:
    """One atomic statement: the fact as stored, the speaker's words it came from, its derivation."""

    text: str
    quote: str
    sentence: str
    speaker: str | None
    hedged: bool
    sensitive: bool
    derived: Derived
    #: The fact as it reads alone (subject named, relative dates made absolute): what a reader sees.
    statement: str = ""
    #: Whether the speaker's words of the fact are their whole line (what ``user_grounded`` admits).
    whole_line: bool = False
    #: The fact as said (speaker-led in a multi-party log), its relative dates made absolute.
    dated: str = ""

    def said(self) -> str:
        """The speaker's fact as they said it, led by their name in a multi-party log."""
        return f"{self.speaker}: {self.text}" if self.speaker else self.text


def split_speaker(line: str) -> tuple[str | None, str]:
    """``("Fahim Khan", "text")`` for a multi-party line ``Fahim Khan: text``, else ``(None, line)``."""
    m = _SPEAKER.match(line)
    if m and m.group(1).casefold() not in _NOT_SPEAKERS:
        return m.group(1), line[m.end():]
    return None, line


def _multi_party(split: Sequence[tuple[str | None, str]]) -> bool:
    # a prefix that names no one ("Monday: ", "Today: ") is a diary's label, not a speaker
    names = [who for who, _ in split if who and could_be_name(who)]
    return bool(split) and len(names) * 2 > len(split) and len(set(names)) <= 8


def multi_party(user_lines: Iterable[str]) -> bool:
    """Whether a session's user lines are a multi-party log: most of them start ``Name: `` and at
    most eight names speak. Then each line's ``Name: `` is its speaker, whose facts they are."""
    return _multi_party([split_speaker(text) for text in user_lines])


def _sentences(text: str) -> list[str]:
    return [sentence for sentence, _ in _sentences_closing(text)]


def _sentences_closing(text: str) -> list[tuple[str, str]]:
    """The sentences of ``text``, each with the closing quotes and brackets that the cut between it
    and the next one took (the ” of “I eat bread.” Then …): what :func:`_quotation` needs to see a
    quotation close."""
    if "&" in text:
        text = html.unescape(text)  # "Poincar&eacute;": an entity's ";" is no clause boundary
    text = _FENCE.sub("\n", text)
    text = _BULLET.sub("\n", text)
    text = _MARKUP.sub("", text)
    out, start = [], 0
    for m in _SENTENCE.finditer(text):
        out.append((text[start:m.start()], m.group(0).strip()))
        start = m.end()
    out.append((text[start:], ""))
    return [(sentence.strip(), closing) for sentence, closing in out if sentence and sentence.strip()]


def _clauses(sentence: str) -> list[str]:
    """The clauses of a sentence; "my family and I" is one subject, not a cut ("… the costs that
    my family and I spent", "My wife and I moved to Lisbon")."""
    parts: list[str] = []
    start = 0
    in_view = False
    for m in _CLAUSE.finditer(sentence):
        if m.group(0).strip() == "and" and _WITH_ME.search(sentence, 0, m.start()):
            continue
        # "When I'm stressed, I eat chocolate": the main clause keeps the clause it leans on
        # ("While that's happening, I usually make the coffee" points back: its main clause is cut free)
        if m.group(0).startswith(",") and (lean := LEANS_ON.match(sentence, start, m.start())) \
                and not _POINTS_BACK_LEAN.match(sentence, lean.end()) \
                and "," not in LEANS_ON.sub("", sentence[start:m.start()], count=1) \
                and len(sentence[start:m.start()].split()) <= _LEANING_MAX_WORDS:
            continue
        if m.group(0).startswith("，") and _LEANS_ON_ZH.search(sentence, start, m.start()) \
                and "，" not in sentence[start:m.start()]:
            continue  # 我压力大的时候，我会吃巧克力
        parts.append(sentence[start:m.start()])
        start = m.end()
        in_view = in_view or bool(_IN_VIEW.match(m.group(0)))
    last = sentence[start:]
    # the "?" of "What's the best way …, considering I've never done one?" belongs to the question
    parts.append(last.rstrip().rstrip("?？") if in_view else last)
    return [p for p in parts if p and p.strip()] or [sentence]


_PAIRS = (("\"", "\""), ("“", "”"), ("'", "'"), ("‘", "’"), ("(", ")"), ("[", "]"), ("「", "」"), ("《", "》"))
#: What is left of a list or a label before the words: "：我的上司…", "6我家…" (a list number glued on).
_STRAY_LEAD = re.compile(r"^(?:[：:、，,]+\s*|\d{1,2}(?=我))")


def _unwrap(clause: str) -> str:
    """``clause`` without the quotes or brackets around it, keeping a pair that opens it and
    closes inside ("“春节联欢会”的规模是二百人" keeps its title's quotes)."""
    out = _STRAY_LEAD.sub("", clause.strip()).strip()
    for _ in range(3):
        before = out
        for left, right in _PAIRS:
            if out.startswith(left) and (left == right and out.count(left) % 2 == 1
                                         or left != right and out.count(left) > out.count(right)):
                out = out[len(left):].strip()
            if out.endswith(right) and (left == right and out.count(right) % 2 == 1
                                        or left != right and out.count(right) > out.count(left)):
                out = out[:-len(right)].strip()
            pair = out.count(left) == 2 if left == right else out.count(left) == out.count(right) == 1
            if len(out) > 1 and out.startswith(left) and out.endswith(right) and pair:
                out = out[len(left):-len(right)].strip()
        if out == before:
            break
    return out


def _trim(clause: str) -> str:
    out = _unwrap(clause)
    for _ in range(3):
        before = out
        out = _LIKE_FILLER.sub("", _LEAD.sub("", out)).strip()
        out = _ZH_LEAD.sub("", out).strip()
        out = _TRAIL.sub("", out).strip()
        if out == before:
            break
    return out


def _words(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return len(_WORDS.findall(_CJK.sub(" ", text))) + cjk


#: Entity kinds that are someone a statement can be about.
_SOMEONE = frozenset({"person", "pet"})
#: Someone named doing something ("Mia sings in a jazz band", "Grandpa Joe sold the farm"): a verb
#: then a small word, which a plural noun ("Local islands alcohol …") or a verdict ("Twitter sounds
#: like …") does not give.
_SOMEONE_DOES = re.compile(rf"^(?![A-Z][a-z]+ing\b){_NAME_AND_ADVERB}(?!(?:sounds|looks|seems|feels|tastes|smells)\b)"
                           rf"{_NAMED_VERB}\s+(?:in|at|to|the|a|an|with|for|on|up|out|her|his|their|my|our|about|from|"
                           rf"into|last|this|every|as|\d)\b")
_WHOSE = frozenset("my our your their his her its user user's".split())


def _lead_alone(clause: str) -> bool:
    """A lead that sets up what follows and says little itself ("Given our funding goals and upcoming
    pitch", "考虑到我们的预算"): no verb, no number, at most four words of its own. "Given my total
    expenses of $3,580" and "Given the user's trip starts on May 10" say something."""
    if _PREPOSED_ZH.match(clause):
        return True
    if not _PREPOSED.match(clause) or _NUMBER.search(clause):
        return False
    own = own_words(clause, _WHOSE)
    return len(own) <= 5  # the lead is one of them


def _states_something(clause: str, speaker_named: bool) -> bool:
    """Whether ``clause`` says something about someone (not a request, a question or small talk).

    A boundary ("please don't bring up my ex") is a request that is also a memory."""
    zh = bool(_CJK.search(clause))
    if is_boundary(clause) and not _QUESTION.search(clause) and _words(clause) >= 3:
        return True
    n = _words(clause)
    if n < (4 if zh else 3) or n > 60:
        return False
    if _QUESTION.search(clause) or _REQUEST.search(clause) or _META.search(clause) or (zh and is_one_off_zh(clause)):
        return False
    if _ABOUT_YOU.search(clause) and not _FIRST.search(clause):
        return False
    if _VAGUE.match(clause) or _PAST_TASTE.search(clause) or _TACT.match(clause) or _GREETING.match(clause) \
            or _QUANTITY.match(clause):
        return False
    if _lead_alone(clause):
        return False
    if zh:
        return bool(_STATE_ZH.search(clause) or _THIRD.match(clause) or _DECLARATIVE_ZH.search(clause))
    if _DEICTIC.match(clause) or _TO_YOU.search(clause) or points_back(clause):
        return False  # about what the other side said, not about the speaker's world
    if _FRAGMENT.search(clause):
        return False
    if (_SUBORDINATE.match(clause) and n <= 5) or (_REASON.match(clause) and not _FIRST.search(clause)) \
            or _LIKE_WHEN.match(clause) or (_LIKE_OTHER.match(clause) and not _FIRST.search(clause)):
        return False
    if _STATE_EN.search(clause) or _DECLARATIVE.search(clause) or _SUBJECTLESS.match(clause) or _ABOUT_ME.search(clause):
        return True
    if _THIRD.match(clause) or (speaker_named and _NAME.search(clause)):
        return True
    m = _NAMED_SUBJECT.match(clause)
    return m is not None and m.group(1).split()[0].casefold() not in _CALENDAR and could_be_name(m.group(1))


#: A verb that takes a person and then a thing: "her" after it is who gets it ("I gave her flowers"
#: → "I gave Lena flowers", not "Lena's flowers").
_GIVES = re.compile(rf"\b{alternation(GIVING_VERBS_EN)}\s+$", _I)


def _resolve(clause: str, people: list[tuple[str, str]]) -> str:
    """Replace a pronoun pointing outside the clause by the one person it can point to."""
    if not people:
        return clause
    zh = bool(_CJK.search(clause))
    m = (_PRONOUN_ZH if zh else _PRONOUN_EN).search(clause)
    if m is None:
        return clause
    word = m.group(1)
    female = word.casefold() in _FEMALE or word == "她"
    # a relation said without a name answers an English pronoun only ("my mom"; 他 stays 他)
    fits = [name for name, gender in people if gender in ("", "f" if female else "m") and not (zh and name.startswith("my "))]
    fits = list(dict.fromkeys(fits))
    if len(fits) != 1:
        return clause
    name = fits[0]
    if zh:
        return clause[: m.start()] + name + clause[m.end():]
    low = word.casefold()
    if low in ("shes", "hes"):
        repl = f"{name}'s"  # a chat "Shes got sharp claws" is "she's"
    elif low in ("his",) or (low == "her" and m.start() == 0) or (
            low == "her" and not re.match(r"\s+(?:to|about|with|and|at|for|on)\b", clause[m.end():])
            and re.match(r"\s+[a-z]", clause[m.end():]) and m.start() > 0
            and not _GIVES.search(clause[:m.start()])):
        repl = f"{name}'s"  # ("Her car is red": at the start "her" owns what follows)
    else:
        repl = name
    if m.start() == 0:
        repl = repl[:1].upper() + repl[1:]  # "my mom teaches piano" opens a sentence as "My mom"
    return clause[: m.start()] + repl + clause[m.end():]


# two or more people or animals named together ("Luna and Oliver", "Mia, Leo and Sam"), whom a
# "they" in a later clause means when the text names no other such group
_GROUP_EN = re.compile(r"\b([A-Z][a-z]+(?:,\s+[A-Z][a-z]+)*,?\s+and\s+[A-Z][a-z]+)\b")
_PLURAL_EN = re.compile(r"^(they|their|them)\b", _I)
_PLURAL_ZH = re.compile(r"^(他们|她们|它们)")


def _groups(text: str, derived: Derived | None = None) -> list[str]:
    """The groups of names ``text`` names together, as it writes them ("Luna and Oliver", "小雨和小明")."""
    out = []
    for group in _GROUP_EN.findall(text):
        names = re.split(r",\s*(?:and\s+)?|\s+and\s+", group)
        if len(names) >= 2 and all(could_be_name(n) for n in names):
            out.append(group)
    if derived is not None and _CJK.search(text):
        named = [e.name for e in derived.entities if e.kind in ("person", "pet")]
        out += [f"{a}和{b}" for a, b in zip(named, named[1:]) if f"{a}和{b}" in text]
    return out


def _resolve_group(clause: str, groups: list[str]) -> str:
    """Replace a "they" / "their" / 他们 that opens the clause by the one group it can mean."""
    if len(set(groups)) != 1:
        return clause
    group = groups[0]
    m = (_PLURAL_ZH if _CJK.search(clause) else _PLURAL_EN).match(clause)
    if m is None:
        return clause
    word = m.group(1).casefold()
    repl = group + ("'" if group.endswith("s") else "'s") if word == "their" else group
    return repl + clause[m.end():]


def _people(derived: Derived) -> list[tuple[str, str]]:
    """``(name, gender)`` of the people a derivation names, gender from the relation that names them
    ("my mom": f); a relation said without a name stands for the person only when it gives a gender
    ("my mom", not "my friend"). Pets answer no pronoun: in chat a capital that opens a line is
    too often taken for one ("Remember my puppy from earlier")."""
    out = []
    for e in derived.entities:
        if e.kind != "person":
            continue
        gender = ""
        for alias in (e.name, *e.aliases):
            rel = relation_alias(alias)
            if rel is not None and rel[2]:
                gender = rel[2]
                break
        if e.name.startswith("my ") and not gender:
            continue
        out.append((e.name, gender))
    return out


#: A question asked in a statement's words, ending on "?" ("Like I choose one super hero and I get all
#: of their powers?"). A word that asks or reaches the other side anywhere in it ("…, was it worth it?",
#: "I'm wondering if …?", "… for me?") leaves the statements before it said, and "…, right?" or
#: "…, you know?" only seeks a nod.
_ASKS_SOMEWHERE = re.compile(r"\b(?:" + alternation(QUESTION_OPENERS_EN)[3:-1] + r"|what's|how's|whether|if|was|were|might|"
                             r"must|any|anyone|anything|anybody|wonder|wondering|know|help|advice|suggest|suggestions|"
                             r"recommend|recommendations|tips|ideas|thoughts|think|you|your|you're|u|ur|right|okay|ok|eh|"
                             r"huh|no|yeah)\b", _I)
_ASKED_AT_END = re.compile(r"(?<![.!。！])[?？]+[\s\"'”’)）]*$")
#: Longer than this, a "?" after statements is more often a slip than a question asked in their words.
_ASKED_MAX_WORDS = 20


def _asked_whole(clauses: Sequence[str]) -> bool:
    """Whether a sentence of several clauses is one question: it ends on "?" and no word in it asks
    or turns to the other side, so every clause is asked in a statement's words, not said. "I have a
    dog named Rex, can you suggest a name for a cat?" and "I tried it, was it worth it?" state their
    first clause."""
    if len(clauses) < 2:
        return False
    sentence = " ".join(clauses)
    return bool(_ASKED_AT_END.search(clauses[-1].strip())) and not _CJK.search(sentence) \
        and _words(sentence) <= _ASKED_MAX_WORDS and not _ASKS_SOMEWHERE.search(sentence)


_QUOTE_MARK = re.compile(r'["“”]')


def _quotation(sentence: str, inside: bool) -> tuple[bool, bool]:
    """Whether ``sentence`` is someone else's words in double quotes — wholly quoted ("“I eat
    bread.” -> Yo como pan", an example or a line of a story) or inside a quotation an earlier
    sentence opened — and whether a quotation is still open after it. A " after a letter or digit
    closes (5'10"), one before a word opens."""
    depth = 1 if inside else 0
    opened_at_start = inside
    closed_at = -1
    for mark in _QUOTE_MARK.finditer(sentence):
        i, ch = mark.start(), mark.group(0)
        before = sentence[i - 1] if i else " "
        after = sentence[i + 1] if i + 1 < len(sentence) else " "
        if ch == "“" or (ch == '"' and depth == 0 and (before.isspace() or before in "([{:") and not after.isspace()):
            if depth == 0 and i == 0:
                opened_at_start = True
            depth += 1
        elif ch == "”" or (ch == '"' and depth > 0 and not before.isspace()):
            depth = max(0, depth - 1)
            if depth == 0:
                closed_at = i
    if not opened_at_start:
        return False, depth > 0
    # a quotation that runs past the sentence, or closes at its end ("I eat bread.", "… dat," he said. is not)
    whole = depth > 0 or not sentence[closed_at + 1:].strip(" .,!?;:…)]")
    return whole or inside, depth > 0


def _asides(split: Sequence[tuple[str, str]]) -> list[bool]:
    """For each of :func:`_sentences_closing`'s sentences, whether it is someone else's words in
    quotes (:func:`_quotation`). A quote never closed ("buffet food that is "meh# at best") is a
    slip, not a quotation, and a message wrapped in quotes whole is the speaker's own."""
    inside, opened = False, 0
    quoted = []
    for index, (sentence, closing) in enumerate(split):
        opened = opened if inside else index
        said = sentence + closing
        aside, inside = _quotation(said, inside) if inside or _QUOTE_MARK.search(said) else (False, False)
        quoted.append(aside)
    if inside:
        quoted[opened:] = [False] * (len(quoted) - opened)
    return [False] * len(quoted) if all(quoted) else quoted


@lru_cache(maxsize=1 << 14)
def _extract(text: str, speaker: str | None, context: tuple[str, ...]) -> tuple[Fact, ...]:
    facts: list[Fact] = []
    people: list[tuple[str, str]] = []
    for earlier in context[-3:]:
        people = _people(derive(earlier, speaker=speaker)) + people
    groups: list[str] = []
    for earlier in context[-3:]:
        groups = _groups(earlier, derive(earlier, speaker=speaker) if _CJK.search(earlier) else None) or groups
    seen: set[str] = set()
    before: list[str] = list(context)
    pasted = len(text) > _LONG_MESSAGE
    split = _sentences_closing(text)
    for (sentence, _), aside in zip(split, _asides(split)):
        if aside or len(sentence) > _MAX_SENTENCE or len(sentence) < 3:
            continue
        folded = sentence.replace("’", "'").replace("‘", "'")
        if is_hypothetical(folded) or has_secret(folded):
            continue
        clauses = _clauses(folded)
        if _asked_whole(clauses):
            continue
        for clause in clauses:
            fact = _trim(clause)
            if is_hypothetical(fact) or is_hypothetical(main_clause(fact)):
                continue  # a clause in the conditional after a lead ("While that's happening, I'd call …")
            headless = bool(_HEADLESS.match(fact)) and not _HEADLESS.match(clause.strip().strip("\"'“”‘’()[]")) \
                and not _FIRST.search(fact)
            if headless or is_reported(clause) or not _states_something(fact, speaker is not None) or (
                    pasted and not _FIRST.search(fact)):
                if _NAME.search(clause) or _CJK.search(clause):
                    said = derive(clause, speaker=speaker)
                    people = (_people(said) + people)[:6]
                    groups = _groups(clause, said) or groups
                continue
            here = derive(fact, speaker=speaker, context=tuple(before[-4:]))
            named = _people(here)
            if speaker is not None and not _CJK.search(fact) and not (
                    _FIRST.search(fact) or _SUBJECTLESS.match(fact) or _THIRD.match(fact) or _SOMEONE_DOES.match(fact)
                    or any(e.kind in _SOMEONE for e in here.entities)):
                # between people, a statement that names no one is about the world or the other's news
                # ("Airplanes are cool", "9 hours of lessons must have been intense")
                continue
            # the speaker's own characters (curly quotes kept): ``folded`` only swapped them 1:1
            at = folded.find(fact)
            original = sentence[at:at + len(fact)] if at >= 0 else fact
            # a clause that names its own people keeps its pronouns ("My mom said she …"); in Chinese
            # a relation alone does not (我婶婶她是 … : 她 is the aunt the context named)
            own = [p for p in named if not p[0].startswith("my ")] if _CJK.search(fact) else named
            resolved = original if own else _resolve(original, people)
            here_groups = _groups(fact, here)
            resolved = resolved if here_groups else _resolve_group(resolved, groups)
            groups = here_groups or groups
            key = resolved.casefold()
            if key in seen:
                continue
            seen.add(key)
            stored = resolved[:MAX_FACT_CHARS]
            if stored != original:
                here = derive(stored.replace("’", "'"), speaker=speaker, context=tuple(before[-4:]))
            facts.append(Fact(text=stored, quote=original, sentence=sentence, speaker=speaker, hedged=has_hedge(fact),
                              sensitive=is_sensitive(folded), derived=here))
            people = (named + people)[:6]
        before.append(folded)
    return tuple(facts)


def extract_facts(text: str, *, speaker: str | None = None, context: Sequence[str] = ()) -> list[Fact]:
    """The atomic facts of one message by ``speaker`` (None: the user); ``context`` holds the
    speaker's earlier messages, whose named people a pronoun here may point to."""
    return list(_extract(text, speaker, tuple(context)))


_CLOSERS = "\"'”’)）"


def last_question(text: str) -> str | None:
    """The last sentence of ``text`` when it is a question (its ? or ？ before closing quotes and
    space), else None. Read from the end: a long message is never scanned once per position."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in _CLOSERS):
        end -= 1
    if not end or text[end - 1] not in "?？":
        return None
    return text[max(text.rfind(c, 0, end - 1) for c in ".!?。！？") + 1:end]


def answer_fact(question: str, answer: str, *, speaker: str | None = None, context: Sequence[str] = ()) -> Fact | None:
    """A short answer that states nothing alone ("Luna and Oliver!") joined to the other side's
    question before it ("What are their names?") as one fact ("their names are Luna and Oliver"),
    or None when the answer states something itself, is no answer (a thanks, a yes, a question)
    or the question is not one riko can turn into a statement."""
    asked = last_question(question.strip())
    said = _trim(answer.replace("’", "'"))
    if asked is None or not said or (_words(said) > 8 and not _CJK.search(said)) or _QUESTION.search(said) or _TO_YOU.search(said) \
            or _ABOUT_YOU.search(said) or _REQUEST.search(said) or _META.search(said) or has_secret(said) \
            or is_hypothetical(said):
        return None
    if _CJK.search(said) and (_STATE_ZH.search(said) or _words(said) > 12):
        return None  # an answer that says 我 … states something itself
    if not _CJK.search(said) and (_STATE_EN.search(said) or _DECLARATIVE.search(said) or _SUBJECTLESS.match(said)
                                  or _ABOUT_ME.search(said)):
        return None
    joined = answer_statement(asked.strip(), said)
    if joined is None:
        return None
    at = answer.find(said)
    quote = answer[at:at + len(said)] if at >= 0 else said
    return Fact(text=joined, quote=quote, sentence=answer.strip(), speaker=speaker, hedged=has_hedge(said),
                sensitive=is_sensitive(answer), derived=derive(joined, speaker=speaker, context=tuple(context)[-4:]))


def statement_of(fact: Fact, when: datetime | None) -> str:
    """``fact`` as it reads alone: relative dates said against ``when``, the subject named — the
    speaker's name leads a multi-party fact (``Fahim Khan: I went running on 2023-05-07``), and
    in one user's scope "I" is "The user" ("The user loves hiking", "用户喜欢爬山")."""
    text = resolve_dates(fact.text, when)
    if fact.speaker:
        return f"{fact.speaker}: {text}"
    named = name_subject(text, USER[0])
    return named[:1].upper() + named[1:]
