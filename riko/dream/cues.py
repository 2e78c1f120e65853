"""Statement cues for the offline heuristic provider, in English and Chinese.

Each cue recognises one kind of first-person statement the user made about themselves
(a preference, a boundary, a plan ...). Cues only ever point at the user's own words; the
heuristic never rewrites a statement into a claim the user did not make. Sentences that are
questions, hypotheticals, reported speech or that carry secrets are filtered out before any
cue runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Cue",
    "CUES",
    "split_sentences",
    "split_clauses",
    "is_question",
    "is_hypothetical",
    "has_secret",
    "has_hedge",
    "is_sensitive",
    "is_reported",
]

_I = re.IGNORECASE

# Adverbs that may sit between "I" and the verb without changing who is speaking.
_ADV = (
    r"(?:really|truly|also|still|just|genuinely|absolutely|actually|totally|kind\s+of|kinda|sort\s+of|"
    r"honestly|definitely|do|always|usually|generally|very\s+much|much|probably|might|may|maybe|"
    r"kinda|pretty\s+much|secretly|now|quite)"
)
_ZH_ADV = r"(?:真的|特别|非常|一直|比较|可能|也许|大概|好像|有点|其实|还是|很|也|还|超|最|真|挺|蛮|更|都|就|好)"
_SEP = r"[,，;；:：]"


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("ADV", _ADV), _I)


def _zh(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("ZHADV", _ZH_ADV))


@dataclass(frozen=True)
class Cue:
    """A statement kind and the patterns that recognise it; a match's start marks the clause."""

    kind: str
    folder: str
    category: str
    tag: str
    patterns: tuple[re.Pattern[str], ...]
    # Words right after the match that make it vacuous or not about the user ("I love it").
    reject_object: re.Pattern[str] | None = None
    # A pattern that must also occur in the sentence (e.g. a first-person subject).
    requires: re.Pattern[str] | None = None
    # Whether words other than the cue itself must be present ("I like." says nothing).
    needs_object: bool = True


_VAGUE_EN = re.compile(r"^(?:it|that|this|them|you|your|yours|him|her|us|these|those|one|when|how)\b", _I)
_VAGUE_ZH = re.compile(r"^(?:你|您|的|它|这个|那个|了|过|着)")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|me|my|we|our)\b|我", _I)

_RELATIONS_EN = (
    r"(?:best\s+friend|friends?|sister|brother|mom|mum|mother|dad|father|parents|partner|wife|husband|"
    r"boyfriend|girlfriend|fianc[eé]e?|son|daughter|kids?|children|boss|manager|colleague|co-?worker|"
    r"roommate|flatmate|neighbou?r|grandma|grandmother|grandpa|grandfather|cousin|aunt|uncle|"
    r"dog|cat|puppy|kitten|pet)"
)
_RELATIONS_ZH = (
    r"(?:好朋友|男朋友|女朋友|朋友|闺蜜|姐姐|妹妹|哥哥|弟弟|妈妈|母亲|爸爸|父亲|父母|男友|女友|对象|老婆|老公|"
    r"妻子|丈夫|儿子|女儿|孩子|老板|领导|同事|室友|邻居|奶奶|爷爷|外婆|外公|姥姥|姥爷|表姐|表妹|表哥|表弟|"
    r"妈|爸|猫|狗|宠物)"
)
_EMOTIONS_EN = (
    r"(?:tired|exhausted|stressed(?:\s+out)?|anxious|sad|happy|excited|lonely|nervous|overwhelmed|upset|"
    r"angry|frustrated|bored|depressed|burn(?:ed|t)\s+out|worried|scared|afraid|hopeful|grateful|proud|"
    r"calm|relaxed|down|heartbroken|homesick|miserable|thrilled|relieved|hurt|drained)"
)
_EMOTIONS_ZH = (
    r"(?:压力(?:很|好|特别|太)?大|疲惫|难过|伤心|开心|高兴|焦虑|紧张|孤独|寂寞|沮丧|生气|烦躁|崩溃|害怕|担心|"
    r"兴奋|失落|郁闷|抑郁|幸福|委屈|心累|累|烦)"
)
_TIME_AHEAD_EN = (
    r"\b(?:tomorrow|next\s+(?:week|weekend|month|year|summer|spring|fall|autumn|winter|semester|monday|"
    r"tuesday|wednesday|thursday|friday|saturday|sunday)|this\s+(?:weekend|coming)|soon|later\s+this\s+"
    r"(?:week|month|year)|in\s+(?:a|\d+|two|three|few)\s+(?:days?|weeks?|months?|years?))\b"
)
_TIME_AHEAD_ZH = r"(?:明天|后天|下个?月|下周|下个?星期|下礼拜|明年|今年年底|过几天|这个?周末|月底)"
_TIME_PAST_EN = (
    r"\b(?:yesterday|last\s+(?:night|week|weekend|month|year|summer|winter|spring|fall|autumn|time)|"
    r"this\s+morning|earlier\s+today|the\s+other\s+day|a\s+few\s+days\s+ago|\d+\s+(?:days|weeks|months|years)\s+ago)\b"
)
_TIME_PAST_ZH = r"(?:昨天|昨晚|前天|上周|上个?星期|上礼拜|上个?月|去年|前几天|今天早上|前阵子)"
_GOAL_VERBS = (
    r"(?:learn|start|try|visit|move|become|finish|quit|travel|buy|build|run|write|change|switch|save|"
    r"improve|lose|get\s+better|go\s+back|study|apply|launch|adopt|retire)"
)

CUES: tuple[Cue, ...] = (
    Cue(
        kind="boundary",
        folder="concepts",
        category="interaction_rules",
        tag="boundary",
        patterns=(
            _en(
                r"(?:^|\bplease[,!]?\s+|" + _SEP + r"\s*|\band\s+)(?:please\s+)?(?:don't|do\s+not|never|stop|quit)\s+(?:ever\s+)?"
                r"(?:mention(?:ing)?|bring(?:ing)?\s+up|talk(?:ing)?\s+about|ask(?:ing)?(?:\s+me)?\s+about|call(?:ing)?\s+me|"
                r"remind(?:ing)?\s+me\s+(?:of|about)|joke\s+about|joking\s+about)\b"
            ),
            _en(r"\bI\s+(?:ADV\s+)?(?:don't|do\s+not)\s+want\s+to\s+(?:talk|hear|be\s+asked)\s+about\b"),
            _en(r"\bplease[,!]?\s+(?:don't|do\s+not|never)\b"),
            _en(r"\bI'd\s+rather\s+you\s+(?:didn't|did\s+not|not)\b"),
            _zh(r"(?:请|麻烦)?你?(?:不要再|不要|别再|别|不许)(?:再)?(?:提起|提到|提|问我|问|聊|谈|说起|叫我|讲)"),
            _zh(r"我不想(?:再)?(?:聊|谈|讨论|提|听)"),
            _zh(r"请不要"),
        ),
    ),
    Cue(
        kind="dislike",
        folder="concepts",
        category="dislikes",
        tag="dislike",
        patterns=(
            _en(
                r"\bI\s+(?:ADV\s+){0,3}(?:hate|dislike|detest|loathe|can't\s+stand|cannot\s+stand|can\s+not\s+stand|"
                r"can't\s+bear|(?:don't|do\s+not)\s+(?:ADV\s+)?(?:like|enjoy|love))\b"
            ),
            _en(r"\bI(?:'m|\s+am)\s+(?:ADV\s+)?not\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of\b"),
            _zh(r"我(?:ZHADV){0,3}(?:讨厌|不喜欢|不爱|受不了|反感|厌恶|烦透了)"),
        ),
        reject_object=re.compile(r"^\s*(?:it\b|that\b|this\b|you\b|你|它)", _I),
    ),
    Cue(
        kind="preference",
        folder="concepts",
        category="preferences",
        tag="preference",
        patterns=(
            _en(r"\bI\s+(?:ADV\s+){0,3}(?:like|love|prefer|enjoy|adore)\b"),
            _en(r"\bI(?:'m|\s+am)\s+(?:ADV\s+)?(?:a\s+)?(?:big\s+|huge\s+)?(?:fan\s+of|into)\b"),
            _en(r"\bmy\s+(?:all-time\s+)?favou?rite\s+\w+(?:\s+\w+)?\s+(?:is|are)\b"),
            _zh(r"我(?:ZHADV){0,3}(?:喜欢|热爱|喜爱|偏好|爱上了|迷上了|钟意|爱)"),
            _zh(r"我最喜欢的"),
        ),
        reject_object=re.compile(_VAGUE_EN.pattern + "|" + _VAGUE_ZH.pattern, _I),
    ),
    Cue(
        kind="identity",
        folder="entities",
        category="identity",
        tag="identity",
        patterns=(
            _en(r"\bmy\s+name\s+is\b"),
            _en(
                r"(?:^|\bplease\s+|" + _SEP + r"\s*)(?:just\s+)?call\s+me\s+"
                r"(?!(?:tomorrow|later|back|when|if|tonight|sometime|anytime|now|again|soon)\b)(?=\w)"
            ),
            _en(
                r"\bI(?:'m|\s+am)\s+(?:ADV\s+)?(?:a|an)\s+(?!(?:bit|little|lot|fan|mess|wreck|big\s+fan|huge\s+fan|"
                r"few|couple|total|complete)\b)(?=\w)"
            ),
            _en(r"\bI\s+(?:ADV\s+)?(?:currently\s+|now\s+)?(?:live|grew\s+up|was\s+born)\s+in\b"),
            _en(r"\bI\s+(?:ADV\s+)?(?:currently\s+|now\s+)?work\s+(?:as|at|for|in)\b"),
            _en(r"\bI(?:'m|\s+am)\s+(?:originally\s+)?from\b"),
            _en(r"\bI(?:'m|\s+am)\s+\d{1,3}\s+(?:years\s+old|yo)\b"),
            _zh(r"我叫(?!了|过|着|他|她|你|人|外卖|车|醒)(?=[\u4e00-\u9fffA-Za-z·])"),
            _zh(r"我的名字(?:是|叫)"),
            _zh(r"我是(?:一名|一个|一位|个)"),
            _zh(r"我是(?=[\u4e00-\u9fff]{1,6}(?:人|师|员|生|家|者|工|手)(?:$|[，。！,.!；;\s]))"),
            _zh(r"我(?:现在|目前)?住在"),
            _zh(r"我(?:现在|目前)?在[^，。！？,.!?]{1,20}?(?:工作|上班|上学|读书)"),
            _zh(r"我来自"),
            _zh(r"我(?:今年)?\d{1,3}岁"),
        ),
    ),
    Cue(
        kind="relationship",
        folder="relationships",
        category="people",
        tag="relationship",
        patterns=(
            _en(
                r"\bmy\s+(?:(?:older|younger|little|big|best|old|new|oldest|youngest|twin|ex-?)\s*)?"
                + _RELATIONS_EN
                + r"\b(?=\s*\S+\s+\S+)"
            ),
            _en(
                r"\bI\s+have\s+(?=(?:a|an|two|three|\d+)\s+(?:(?:older|younger|little|big|twin)\s+)?"
                + _RELATIONS_EN
                + r"s?\b)"
            ),
            _zh(r"我(?:的)?" + _RELATIONS_ZH + r"(?!圈)(?=.{2,})"),
            _zh(r"我有(?=(?:一个|一只|一位|两个|三个|个|只)" + _RELATIONS_ZH + ")"),
        ),
    ),
    Cue(
        kind="plan",
        folder="episodes",
        category="open_thread",
        tag="plan",
        patterns=(
            _en(r"\bI(?:'m|\s+am)\s+(?:ADV\s+)?(?:planning|hoping|aiming|intending|thinking\s+about|considering)\b"),
            _en(r"\bI\s+(?:ADV\s+)?(?:plan|intend|hope|have\s+decided|decided)\s+to\b"),
            _en(r"\bI\s+(?:ADV\s+)?(?:want|would\s+like|'d\s+like)\s+to\s+" + _GOAL_VERBS + r"\b"),
            _en(r"\bmy\s+(?:goal|plan|dream|resolution)\s+is\s+to\b"),
            _en(r"\bI(?:'m|\s+am)\s+(?:ADV\s+)?going\s+to\b(?=.*" + _TIME_AHEAD_EN + ")"),
            _en(r"\bI(?:'ll|\s+will)\b(?=.*" + _TIME_AHEAD_EN + ")"),
            _en(_TIME_AHEAD_EN),
            _zh(r"我(?:ZHADV){0,2}(?:打算|计划|准备|决定|想要|想去|希望)"),
            _zh(_TIME_AHEAD_ZH),
            _zh(r"我(?=.*" + _TIME_AHEAD_ZH + r")(?:要|会)"),
        ),
        requires=_FIRST_PERSON,
    ),
    Cue(
        kind="emotion",
        folder="emotions",
        category="current_state",
        tag="emotion",
        patterns=(
            _en(
                r"\bI(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+(?:(?:ADV|so|really|very|a\s+bit|a\s+little|"
                r"pretty|quite|extremely|super|feeling|getting)\s+){0,3}" + _EMOTIONS_EN + r"\b"
            ),
            _en(
                r"\bI\s+(?:ADV\s+)?feel(?:ing)?\s+(?:(?:ADV|so|really|very|a\s+bit|a\s+little|pretty|quite)\s+){0,3}"
                r"(?:" + _EMOTIONS_EN[3:-1] + r"|good|great|bad|awful|terrible|better|worse|fine|okay|ok|lost|stuck)\b"
            ),
            _zh(r"我(?:今天|最近|现在|这几天|真的|有点|有些|好|很|非常|特别|超|太|觉得|感觉|感到|挺){0,3}" + _EMOTIONS_ZH),
        ),
        needs_object=False,
    ),
    Cue(
        kind="episode",
        folder="episodes",
        category="experience",
        tag="episode",
        patterns=(_en(_TIME_PAST_EN), _zh(_TIME_PAST_ZH)),
        requires=_FIRST_PERSON,
    ),
)

_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;…])\s*|\s*\n+\s*")
_CLAUSE_BREAK = re.compile(r"[,，;；:：]|\s+but\s+|但是|不过|可是", _I)
_QUESTION_START = re.compile(
    r"^\s*(?:do|does|did|are|is|am|can|could|would|should|will|shall|may|have|has|what|why|how|when|"
    r"where|who|whom|whose|which)\b(?!['’]|\s+not\b)",
    _I,
)
_QUESTION_END = re.compile(r"(?:[?？]|[吗呢嘛][\s。.!！~～]*)\s*$")
_HYPOTHETICAL = re.compile(
    r"\b(?:if|suppose|supposing|imagine|hypothetically|pretend|assuming|unless|in\s+theory|"
    r"what\s+if|would\s+you)\b|如果|假如|假设|要是|假使|万一|想象一下|倘若",
    _I,
)
_SECRET = re.compile(
    r"\b(?:password|passcode|passphrase|pin\s+code|api\s+key|secret\s+key|private\s+key|ssn|"
    r"social\s+security|credit\s+card|card\s+number|bank\s+account|account\s+number|cvv)\b"
    r"|密码|验证码|身份证号|银行卡号|卡号|私钥|\b\d{9,}\b|\b(?:\d{4}[\s-]){3}\d{4}\b",
    _I,
)
_HEDGE = re.compile(
    r"\b(?:maybe|might|perhaps|probably|possibly|i\s+think|i\s+guess|i\s+suppose|not\s+sure|kind\s+of|"
    r"sort\s+of|kinda|sorta|i\s+don't\s+think|seems?|apparently|not\s+really|not\s+exactly|just\s+kidding)\b"
    r"|可能|也许|大概|好像|或许|不确定|说不定|似乎|应该|开玩笑",
    _I,
)
_REPORTED = re.compile(
    r"(?<!\bI )\b(?:says|said|thinks|thought|told\s+me|tells\s+me|claims?|claimed|according\s+to|believes?)\b"
    r"|说我|觉得我|认为我|以为我",
    _I,
)
_SENSITIVE = re.compile(
    r"depress|anxiety\s+disorder|panic\s+attack|therap(?:y|ist)|medication|diagnos|cancer|\bhiv\b|pregnan|"
    r"suicid|self-harm|sexual|sexuality|\bgay\b|lesbian|bisexual|transgender|\bdebt|salary|income|bankrupt|"
    r"religio|abortion|disease|illness|surgery|psychiatr|mental\s+health|\badhd\b|autism|bipolar|\bptsd\b|"
    r"抑郁|焦虑症|惊恐|心理医生|心理咨询|治疗|吃药|药物|诊断|癌|怀孕|自杀|自残|性取向|同性恋|欠债|负债|工资|收入|"
    r"破产|宗教|信仰|堕胎|疾病|生病|手术|精神科",
    _I,
)


def split_sentences(text: str) -> list[str]:
    """Sentences of one message, terminal punctuation kept."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def split_clauses(sentence: str) -> list[tuple[int, int]]:
    """``(start, end)`` spans of the comma/semicolon/"but" clauses of a sentence."""
    spans: list[tuple[int, int]] = []
    start = 0
    for brk in _CLAUSE_BREAK.finditer(sentence):
        spans.append((start, brk.start()))
        start = brk.end()
    spans.append((start, len(sentence)))
    return spans


def is_question(sentence: str) -> bool:
    return bool(_QUESTION_END.search(sentence) or _QUESTION_START.match(sentence))


def is_hypothetical(sentence: str) -> bool:
    return bool(_HYPOTHETICAL.search(sentence))


def has_secret(sentence: str) -> bool:
    return bool(_SECRET.search(sentence))


def has_hedge(text: str) -> bool:
    return bool(_HEDGE.search(text))


def is_sensitive(text: str) -> bool:
    return bool(_SENSITIVE.search(text))


def is_reported(prefix: str) -> bool:
    """True when the words before a cue attribute it to someone else ("she says I ...")."""
    return bool(_REPORTED.search(prefix))
