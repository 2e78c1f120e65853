"""Statement cues for the offline heuristic provider, in English and Chinese.

Two kinds of statement are recognised by their phrasing: a boundary (what the speaker asks
never to be brought up: "please don't mention my ex", "请不要再提我的前任"; or a standing
instruction for how the other side answers or addresses them: "From now on, answer in Spanish",
"以后都用中文回答我") and a feeling ("I'm so tired", "我今天好累"). Beside them, the filters
every fact passes: questions, hypotheticals, reported speech, secrets, hedges and sensitive
topics. The word classes come from
:mod:`riko.language.lexicon`.
"""

from __future__ import annotations

import re

from ..language.lexicon import (
    BOUNDARY_NEGATORS_ZH,
    BOUNDARY_VERBS_EN,
    BOUNDARY_VERBS_ZH,
    EMOTIONS_EN,
    EMOTIONS_ZH,
    FIRST_PERSON_EN,
    FIRST_PERSON_ZH,
    HABIT_WORDS_EN,
    ONE_OFF_EN,
    ONE_OFF_ZH,
    QUESTION_OPENERS_EN,
    STANDING_ABOUT_EN,
    STANDING_ABOUT_ZH,
    STANDING_EN,
    STANDING_VERBS_EN,
    STANDING_VERBS_ZH,
    STANDING_ZH,
    WHETHER_BEFORE_IF_EN,
    alternation,
)

__all__ = [
    "BOUNDARY",
    "EMOTION",
    "is_boundary",
    "is_standing",
    "is_one_off_zh",
    "standing_rule",
    "is_emotion",
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
_SEP = r"[,，;；:：]"
_BOUNDARY_VERBS = "(?:" + "|".join(BOUNDARY_VERBS_EN) + ")"
_EMOTIONS_EN = alternation(EMOTIONS_EN)
_EMOTIONS_ZH = alternation(EMOTIONS_ZH)


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("ADV", _ADV), _I)


#: What a boundary is said with: "please don't mention …", "I don't want to talk about …", "别再提 …".
BOUNDARY: tuple[re.Pattern[str], ...] = (
    _en(r"(?:^|\bplease[,!]?\s+|" + _SEP + r"\s*|\band\s+)(?:please\s+)?(?:don't|do\s+not|never|stop|quit)\s+(?:ever\s+)?"
        + _BOUNDARY_VERBS + r"\b"),
    _en(r"\bI\s+(?:ADV\s+)?(?:don't|do\s+not)\s+want\s+to\s+(?:talk|hear|be\s+asked)\s+about\b"),
    _en(r"\bplease[,!]?\s+(?:don't|do\s+not|never)\b"),
    _en(r"\bI'd\s+rather\s+you\s+(?:didn't|did\s+not|not)\b"),
    re.compile(r"(?:请|麻烦)?你?" + alternation(BOUNDARY_NEGATORS_ZH) + r"(?:再)?" + alternation(BOUNDARY_VERBS_ZH)),
    re.compile(r"我不想(?:再)?(?:聊|谈|讨论|提|听)"),
    re.compile(r"请不要"),
)
#: What a feeling is said with: "I'm so tired", "I feel lost", "我今天好累".
EMOTION: tuple[re.Pattern[str], ...] = (
    _en(r"\bI(?:'m|\s+am|'ve\s+been|\s+have\s+been)\s+(?:(?:ADV|so|really|very|a\s+bit|a\s+little|"
        r"pretty|quite|extremely|super|feeling|getting)\s+){0,3}" + _EMOTIONS_EN + r"\b"),
    _en(r"\bI\s+(?:ADV\s+)?feel(?:ing)?\s+(?:(?:ADV|so|really|very|a\s+bit|a\s+little|pretty|quite)\s+){0,3}"
        r"(?:" + _EMOTIONS_EN[3:-1] + r"|good|great|bad|awful|terrible|better|worse|fine|okay|ok|lost|stuck)\b"),
    re.compile(r"我(?:今天|最近|现在|这几天|真的|有点|有些|好|很|非常|特别|超|太|觉得|感觉|感到|挺){0,3}" + _EMOTIONS_ZH),
)


_WHEN_EN = ("whenever", "every time", "each time")
#: "Just please …" before a standing instruction.
_POLITE_LEAD = r"^(?:(?:just|please)[,!]?\s+)*"
# "From now on, (please) (always) answer …", "Never use emoji …", "Whenever I ask for a recipe, give me …"
_STANDING_OPENS_EN = _en(
    _POLITE_LEAD + r"(?:" + alternation(w for w in STANDING_EN if w not in _WHEN_EN)[3:-1]
    + r"|" + alternation(_WHEN_EN)[3:-1] + r"\s+[^,;]{1,60},)[,!]?\s+(?:please[,!]?\s+)?(?:you\s+(?:should|must)\s+)?"
    r"(?:(?:always|never|don't|do\s+not|only)\s+)?" + alternation(STANDING_VERBS_EN) + r"\b")
# "Answer in Spanish from now on", "Call me Sam going forward"
_STANDING_CLOSES_EN = _en(_POLITE_LEAD + r"(?:(?:always|don't|do\s+not)\s+)?" + alternation(STANDING_VERBS_EN)
                          + r"\b.*\b" + alternation(w for w in STANDING_EN if w != "never") + r"\b")
# "Always confirm delivery dates when I ask about accessory orders": any verb, for whenever the speaker asks
_STANDING_ON_ASKING_EN = _en(r"^(?:please[,!]?\s+)?(?:always|never|don't|do\s+not)\s+[a-z]+\b[^.?!]*\bwhen(?:ever)?\s+"
                             r"(?:i|i'm|i\s+am)\s+(?:ask|asking|request|requesting|inquire|inquiring|mention|mentioning|"
                             r"bring\s+up|talk\s+about|discuss|discussing)\b")
# (an instruction to the other side says nothing of him or her: 每次给我打电话他都很开心 is no rule)
_STANDING_ZH = re.compile(
    r"^(?!.*[他她])(?:请|麻烦)?你?" + alternation(STANDING_ZH) + r"[，,]?\s*(?:请|麻烦|你|都|也|就|要|一律|一定要|务必|再)*"
    r"(?:不要|别|不许|不准)?" + alternation(STANDING_VERBS_ZH) + r"(?![得着])")  # not 以后用得着我
_STANDING_MARK = _en(r"\b" + alternation(STANDING_EN) + r"\b|" + alternation(STANDING_ZH))
_ABOUT_EN = _en(r"(?<![\w'])" + alternation((*FIRST_PERSON_EN, *STANDING_ABOUT_EN)) + r"(?![\w'])")
_ABOUT_ZH = re.compile(alternation((*FIRST_PERSON_ZH, *STANDING_ABOUT_ZH)))
_ONE_OFF = _en(r"\b" + alternation(ONE_OFF_EN) + r"\b|" + alternation(ONE_OFF_ZH))


def is_standing(text: str) -> bool:
    """Whether ``text`` is a standing instruction: it says how the other side is to answer,
    address or treat the speaker from now on ("Always use metric units for me", "From now on,
    answer in Spanish", "In future, call me Sam", "以后都用中文回答我", "从现在开始叫我小李").
    One pointing at what is in hand is one-off ("Always double-check the numbers in this draft",
    "这次用中文回答我"), as is one about neither the speaker nor the answers ("Always keep your
    head up")."""
    said = text.strip().replace("’", "'")
    if _STANDING_ZH.search(said):
        about = _ABOUT_ZH
    elif _STANDING_OPENS_EN.search(said) or _STANDING_CLOSES_EN.search(said) or _STANDING_ON_ASKING_EN.search(said):
        about = _ABOUT_EN
    else:
        return False
    return bool(about.search(said)) and not _ONE_OFF.search(_STANDING_MARK.sub(" ", said))


#: A one-off instruction in Chinese: it opens on how to answer, after at most what is in hand
#: ("这次用中文回答我", "现在用英文回答"), and is about the answer.
_ONE_OFF_ZH = re.compile(r"^(?=.*" + alternation(STANDING_ABOUT_ZH) + r")" + alternation(ONE_OFF_ZH) + r"?[，,]?\s*"
                         r"(?:请|你|就|都|先|再)*(?:不要|别)?" + alternation(STANDING_VERBS_ZH))


def is_one_off_zh(text: str) -> bool:
    """Whether ``text`` is a one-off instruction in Chinese ("这次用中文回答我", "用表格回答这个问题"):
    a request for the answer in hand, which states nothing about the speaker."""
    said = text.strip()
    return bool(_ONE_OFF_ZH.search(said)) and not is_standing(said)


_RULE_LEAD = _en(r"^[\s,，:：!！]*(?:(?:please|请)[,!，]?\s*)?")


def standing_rule(text: str) -> str:
    """What a standing instruction asks, without the words that make it standing: "From now on,
    answer in Spanish" → "answer in Spanish", "以后都用中文回答我" → "都用中文回答我"."""
    return _RULE_LEAD.sub("", " ".join(_STANDING_MARK.sub(" ", text).split()))


def is_boundary(text: str) -> bool:
    """Whether ``text`` says what must not be brought up ("please don't mention my ex"), or is a
    standing instruction (:func:`is_standing`)."""
    return any(p.search(text) for p in BOUNDARY) or is_standing(text)


def is_emotion(text: str) -> bool:
    """Whether ``text`` says how the speaker feels ("I'm so tired lately", "我今天好累")."""
    folded = text.replace("’", "'")
    return any(p.search(folded) for p in EMOTION)


_QUESTION_START = re.compile(r"^\s*" + alternation(QUESTION_OPENERS_EN) + r"\b(?!['’]|\s+not\b)", _I)
_QUESTION_END = re.compile(r"(?:[?？]|[吗呢嘛][\s。.!！~～]*)\s*$")
_HYPOTHETICAL = re.compile(
    r"\b(?:suppose|supposing|imagine|hypothetically|pretend|assuming|unless|in\s+theory|"
    r"what\s+if|would\s+you)\b"
    # an imagined case at the head of a sentence ("Let's say I had a million dollars"); mid-sentence it
    # brings an example ("the derivative of a function, let's say f(x) = x^3")
    r"|^(?:(?:ok(?:ay)?|alright|so|now|well)[,!.\s]+)*(?:let's\s+say|say\s+that)\b"
    # an answer in the conditional to a what-would-you-do ("Id leave lol", "I would take Galileo and show him
    # Interstellar"); a taste or a want said so is the speaker's ("I'd love to visit Japan", "I'd rather walk")
    r"|^(?:(?:ok(?:ay)?|well|hmm+|honestly|lol|haha|probably|personally)[,!.\s]+)*(?:i['’]d|i\s+would|(?-i:Id|id))\s+"
    r"(?!(?:\w+\s+)*?" + alternation(HABIT_WORDS_EN) + r"\b)"  # "I would usually …" is a habit
    r"(?:(?:\w+ly|just|also|still|only|even|probably|definitely|prob|much|far)\s+)*+(?!(?:love|like|prefer|rather|enjoy|"
    r"hate|say|recommend|want|wanna|need|never|not|appreciate|be\s+(?:happy|glad|interested|keen|open|up\s+for|down))\b)[a-z]"
    r"|如果|假如|假设|要是|假使|万一|想象一下|倘若",
    _I,
)
_IF = re.compile(r"\bif\b", _I)
_WORD_BEFORE = re.compile(r"\b(\w+)\s$")
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


def is_question(sentence: str) -> bool:
    return bool(_QUESTION_END.search(sentence) or _QUESTION_START.match(sentence))


def is_hypothetical(sentence: str) -> bool:
    """Whether a sentence states a condition or an imagined case ("If I won the lottery …"), not an
    "if" that means whether ("I'm wondering if I should …", :data:`WHETHER_BEFORE_IF_EN`)."""
    if _HYPOTHETICAL.search(sentence):
        return True
    for m in _IF.finditer(sentence):
        before = _WORD_BEFORE.search(sentence, 0, m.start())
        if before is None or before.group(1).casefold() not in WHETHER_BEFORE_IF_EN:
            return True
    return False


def has_secret(sentence: str) -> bool:
    return bool(_SECRET.search(sentence))


def has_hedge(text: str) -> bool:
    return bool(_HEDGE.search(text))


def is_sensitive(text: str) -> bool:
    return bool(_SENSITIVE.search(text))


def is_reported(prefix: str) -> bool:
    """True when the words before a cue attribute it to someone else ("she says I ...")."""
    return bool(_REPORTED.search(prefix))
