"""Governance request cues as token patterns: remember, forget, suppress, restore (EN and ZH).

People do not ask in fixed phrases: they insert adverbs and politeness ("please don't *ever*
bring it up", "别*老是*说我胖"), particles, a subject or an object between the parts of a
request, and they negate a request from a little way off ("I'd never ask you to forget
that", "别把孩子的事删了"). A cue here is a sequence of token slots; between two slots any
run of modifiers may stand (:data:`EN_MODIFIERS`, :data:`ZH_MODIFIERS`), and an object
slot takes a few words of anything. A match is then checked for negation scope: a negator
earlier in the same clause (up to a few tokens before the verb, across modifiers; a whole
Chinese clause) turns an accepting cue off — unless the negation is the cue itself, as in
"don't mention" (suppress) or "千万别忘了" (remember).
"""

from __future__ import annotations

import re
import unicodedata

from .language.lexicon import CJK

__all__ = ["ACTIONS", "EN_MODIFIERS", "ZH_MODIFIERS", "fold", "has_request", "strip_request"]

#: Words that may stand between the parts of an English request without changing it.
EN_MODIFIERS = (
    "please", "kindly", "just", "really", "ever", "again", "actually", "honestly", "simply", "completely",
    "totally", "now", "also", "even", "possibly", "maybe", "perhaps", "truly", "seriously", "constantly",
    "always", "all", "so", "very", "still", "do", "go ahead and", "go and", "go on and", "once again",
    "from now on", "for now", "for me", "for good", "at all", "anymore", "any more", "more", "you", "the",
    "ok", "okay", "hey", "oh", "well", "alright", "then", "already", "once", "earlier", "before",
    "back", "go back to", "start", "gladly", "happily", "politely", "quickly", "right", "kindly just",
)
#: Characters and words that may stand between the parts of a Chinese request.
ZH_MODIFIERS = (
    "再", "老是", "老", "总是", "总", "一直", "千万", "就", "可", "都", "也", "还", "请", "麻烦", "拜托", "求你",
    "以后", "现在", "今后", "从今以后", "一定", "务必", "跟我", "和我", "对我", "给我", "你", "您", "又", "重新",
    "随便", "尽管", "帮我", "哈", "啊", "呀", "哦", "嘛", "吧", "了", "一下", "彻底", "全部", "全", "都给我",
)

_EN_MOD = "|".join(sorted((re.escape(m) for m in EN_MODIFIERS), key=len, reverse=True))
_ZH_MOD = "|".join(sorted((re.escape(m) for m in ZH_MODIFIERS), key=len, reverse=True))
_EN_GAP = rf"(?:\s+(?:{_EN_MOD})(?![a-z']))*\s+"  # whitespace with any modifiers in it
_ZH_GAP = rf"(?:{_ZH_MOD})*"
_OBJ = r"(?:\s+\S+){0,6}?\s+"  # a short object between a verb and its particle
_CLAUSE = r"(?:^|[,.;:!?，。；：！？]\s*|\bbut\s+|\band\s+|但是?|不过)"


def fold(text: str) -> str:
    """NFKC, casefold, straight apostrophes and single spaces."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(text.casefold().split())


def _en(*slots: str) -> str:
    """English slots as one pattern: word boundaries, modifiers allowed between slots and
    between the words of a slot ("i'd *really* like you to", "feel free *once again* to")."""
    return r"(?<![a-z'])" + _EN_GAP.join(f"(?:{s.replace(' ', _EN_GAP)})" for s in slots) + r"(?![a-z'])"


def _neg(pattern: str) -> tuple[str, bool]:
    """A cue whose negation is part of the request itself ("don't mention", "别记")."""
    return (pattern, True)


def _zh(*slots: str) -> str:
    return _ZH_GAP.join(f"(?:{s})" for s in slots)


# -- the slots -------------------------------------------------------------------------------
_NEG = r"don't|dont|do not|never|won't|will not|not|didn't|did not|can't|cannot|no need to|wouldn't|would not|shouldn't"
_POLITE = (r"please|kindly|can you|could you|would you|will you|you can|you may|go ahead and|i'd like you to|"
           r"i would like you to|i want you to|i need you to|make sure to|make sure you|be sure to|just|honestly|"
           r"hey|ok|okay|so|now|and|then")
_TALK = (r"mention(?:s|ing)?|bring(?:ing)?" + _OBJ + r"up|bring(?:ing)? up|rais(?:e|ing)(?: the topic of)?|"
         r"talk(?:ing)? about|remind(?:ing)? me|discuss(?:ing)?|speak(?:ing)? about|go(?:ing)? on about|"
         r"referenc(?:e|es|ing)")
_ZH_TALK = r"提起|提到|提醒|提|说起|说|讲|聊|谈"
_REMEMBER = (r"remember|memori[sz]e|note(?: down)?|make a (?:mental )?note|keep a note|write(?:" + _OBJ + r")?down|"
             r"jot(?:" + _OBJ + r")?down|store|save|hang on to|hold on to|for future reference|"
             r"keep(?: it| this| that)? in mind|commit(?: it| this| that)? to memory|add(?: it| this| that)? to your memory")
_FORGET = (r"forget|delete|remove|erase|wipe|purge|get rid of|scratch|scrap|throw (?:away|out)|clear out|"
           r"stop remembering|drop (?:the|that|this|my|it)")
_RESTORE = (r"restore|unhide|un-hide|unsuppress|un-suppress|unmute|un-mute|reinstate|"
            r"undo the (?:suppression|hiding|ban)|lift the (?:suppression|hiding|ban)")
# The word the suppress tool is named after, and its plain synonyms ("please suppress the memory about …").
_SUPPRESS = r"suppress|mute|hide"

_ACCEPT: dict[str, tuple[str | tuple[str, bool], ...]] = {
    "remember": (
        _CLAUSE + r"(?:(?:" + _EN_MOD + r")\s+)*(?:" + _REMEMBER + r")(?![a-z'])(?!\s+(?:when|how|what|where|who|the time)\b)",
        _en(_POLITE, _REMEMBER),
        _neg(_en(r"don't|dont|do not|never|please never|please don't", r"forget|lose track of")),
        r"(?:记住|记下来|记下|记好|记牢|记着|记一下|记一笔|存一下|存下来|记到|写下来|留个心|记在心上)",
        _zh(r"一定要|要|以后要|你要|以后|下次|往后", r"记得"),
        _neg(_zh(r"千万别|别|不要|可别", r"忘了|忘记")),
    ),
    "forget": (
        _CLAUSE + r"(?:(?:" + _EN_MOD + r")\s+)*(?:" + _FORGET + r")(?![a-z'])",
        _en(_POLITE, _FORGET),
        _en(r"(?:i|we) (?:want|need|would like|'d like)", r"(?:that|this|the|my|it|those)(?:\s+\S+){0,6}?",
            r"deleted|erased|removed|forgotten|gone|wiped"),
        r"(?<![a-z'])(?:forget|delete|erase|remove|wipe)(?:\s+(?:" + _EN_MOD + r"))*\s+(?:it|that|this|about|everything|what|i said|i told|i ever)(?![a-z'])",
        _neg(_CLAUSE + r"(?:" + _EN_MOD + r"\s+)*(?:don't|dont|do not|stop)\s+remember(?:ing)?\s+(?:that|this|it|where|my)(?![a-z'])"),
        # 忘记 is a request, not "I keep forgetting to bring …" (总是忘记带)
        r"(?<!总是)(?<!老是)(?<!经常)忘记(?!带|拿|关|锁|交|买)|忘掉|忘了[^，。！？]{0,16}?吧|删除|删掉|删一下|删去|删干净|"
        r"删了吧|把[^，。！？]{0,24}删了|从记忆里去掉|抹掉|抹去|清除|清掉|当我没说",
        _neg(r"(?<![没])(?:别|不要|不用)记"),
    ),
    "suppress": (
        _neg(_en(r"don't|dont|do not|never|stop|stopped|quit|avoid|refrain from|please not|let's not|let us not|"
            r"i don't want you to|i do not want you to|i'd rather you didn't|i'd rather you not|rather you (?:didn't|did not|don't|not)|"
            r"prefer (?:that )?you (?:never|didn't|did not|don't|not)|(?:can|could|would) you(?: please| kindly)? not|"
            r"if you (?:could )?(?:stop|stopped)", _TALK)),
        _neg(_en(r"no more", r"talk|mentions?|reminders|mentioning")),
        _en(r"stop it with", r"the reminders|the mentions|the talk|reminders|mentions"),
        _en(r"leave|keep", r"\S+(?:\s+\S+){0,4}?\s+out of"),
        _CLAUSE + r"(?:(?:" + _EN_MOD + r")\s+)*suppress(?![a-z'])",
        _en(_POLITE, _SUPPRESS),
        r"(?<![a-z'-])(?:suppress|mute)(?:\s+(?:" + _EN_MOD + r"))*\s+(?:it|that|this|those|the|my|any|everything)(?![a-z'])",
        r"(?<!un)(?<![a-z'])hide(?![a-z'])",
        _neg(_zh(r"别|不要|不用|不许|千万别|可别|求你别|拜托别|不想再?听你|少", _ZH_TALK)),
        r"(?<!取消)隐藏",
        r"(?<!取消)(?<!解除)屏蔽|藏起来|收起来|封存",
    ),
    "restore": (
        _en(_RESTORE),
        _en(r"bring|allow|put", r"\S+(?:\s+\S+){0,4}?\s+back|back"),
        _en(r"you can|you may|you're allowed to|you are allowed to|you're welcome to|you are welcome to|"
            r"feel free to|it's (?:ok|okay|fine|alright|all right) to|it is (?:ok|okay|fine|alright) to|"
            r"it's (?:ok|okay|fine|alright) (?:now|again) to|go ahead and|i'm (?:ok|okay|fine) with you|"
            r"i am (?:ok|okay|fine) with you|i'm (?:ok|okay|fine) now with you|"
            r"it is fine by me if you|it's fine by me if you", _TALK),
        _neg(_en(r"i don't mind if you|i do not mind if you|i don't mind you", _TALK)),
        r"(?<![不别])(?:取消隐藏|取消屏蔽|解禁|解除[^，。！？]{0,12}?(?:屏蔽|隐藏)|把[^，。！？]{0,24}恢复|恢复(?:一下|吧|过来|那条|这条|记忆|它)|"
        r"(?:记忆|那条|这条)恢复|^恢复|请恢复)",
        _zh(r"(?<![不别])(?:可以|允许你?|能)", _ZH_TALK),
        _neg(_zh(r"不介意你?|没关系", _ZH_TALK)),
        _zh(r"再", _ZH_TALK) + r"[^，。！？]{0,12}(?:也没关系|也行|也可以)",
    ),
}
# Negators that turn an accepting match off when they stand before it in its clause.
_EN_NEGATORS = re.compile(rf"(?<![a-z'])(?:{_NEG}|dare)(?![a-z'])")
_ZH_NEGATORS = re.compile(r"千万不要|千万别|不要|别|不许|不能|不会|不想|不用|没说要|没让你|没叫你|没说|没要你|希望你别|不可以")
_ZH_QUESTION = re.compile(r"能不能|可不可以|要不要|会不会|是不是")
_PATTERNS: dict[str, list[tuple[re.Pattern[str], bool]]] = {
    action: [(re.compile(p), False) if isinstance(p, str) else (re.compile(p[0]), p[1]) for p in patterns]
    for action, patterns in _ACCEPT.items()
}
ACTIONS = tuple(_ACCEPT)
_NEGATION_WINDOW = 4  # English tokens between a negator and the verb it still governs


def _clause_start(text: str, at: int) -> int:
    cut = max(text.rfind(mark, 0, at) for mark in ",.;:!?，。；：！？")
    for word in (" but ", "但是", "不过"):
        found = text.rfind(word, 0, at)
        if found > cut:
            cut = found + len(word) - 1
    return cut + 1


def _negated(text: str, start: int, end: int) -> bool:
    """Is the cue at ``text[start:end]`` negated from earlier in its clause?"""
    clause = text[_clause_start(text, start):start]
    if re.search(CJK, text[start:end]):
        clause = _ZH_QUESTION.sub("请", clause)
        return _ZH_NEGATORS.search(clause + _ZH_NEGATION_HEAD(text[start:end])) is not None
    inside = text[start:end]
    if _EN_NEGATORS.search(inside):
        return True
    words = clause.split()
    tail = words[-(_NEGATION_WINDOW + 1):] if words else []
    return any(_EN_NEGATORS.fullmatch(w) or w in ("not", "never") for w in tail) or \
        _EN_NEGATORS.search(" ".join(tail)) is not None


def _ZH_NEGATION_HEAD(matched: str) -> str:
    """The part of a Chinese match before its verb (a negator there negates it: "别把…删了")."""
    return matched[:1] if matched.startswith(("别", "不")) else ""


def has_request(action: str, text: str) -> bool:
    """True when ``text`` holds an un-negated ``action`` request (see the module doc)."""
    folded = fold(text)
    for pattern, negation_in_cue in _PATTERNS[action]:
        for match in pattern.finditer(folded):
            if negation_in_cue:
                if not _overruled(folded, match.start()):
                    return True
            elif not _negated(folded, match.start(), match.end()):
                return True
    return False


def _overruled(text: str, start: int) -> bool:
    """A cue that is itself a negation, under a further negation or a permission earlier in
    its clause ("I don't mind you …", "I didn't say don't …", "我没说不让你提"), is no request."""
    clause = text[_clause_start(text, start):start]
    return re.search(r"(?:don't|do not) mind|didn't say|did not say|not asking|没说|没让", clause) is not None


def strip_request(action: str, text: str) -> str:
    """``text`` (folded) with its ``action`` cue phrases removed, leaving what they point at."""
    folded = fold(text)
    for pattern, _ in _PATTERNS[action]:
        folded = pattern.sub(" ", folded)
    return folded
