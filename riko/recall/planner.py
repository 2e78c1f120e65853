"""The recall planner: decide, without a model call, whether and where to look.

Most turns do not need memory. The planner reads English and Chinese cues in the query and
opens only the channels a personal question needs; a utility request (explain, translate,
compute, write code) opens nothing unless the user also speaks about themselves.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from functools import lru_cache

from ..clock import utc
from ..errors import ConfigError
from .exact import classify_term, exact_terms
from ..language.text import STOPWORDS, normalize, tokenize
from ..sensitivity.rules import classify_text

__all__ = [
    "RecallPlan",
    "analyze_recall_query",
    "INTENTS",
    "CHANNEL_ORDER",
    "TEMPORAL_MODES",
    "parse_query_time",
    "strip_recall_cues",
]

INTENTS = ("correction_check", "temporal", "multi_hop", "episodic", "stable_profile", "entity", "none")
from ..vocabulary import CHANNEL_ORDER  # noqa: E402
TEMPORAL_MODES = ("current", "at", "history")


# English cues match whole words: no letter or digit may touch either end.
_EN_OPEN, _EN_CLOSE = "(?<![A-Za-z0-9'])(?:", ")(?![A-Za-z0-9])"


def _en(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(f"{_EN_OPEN}{p}{_EN_CLOSE}") for p in patterns)


#: Modifiers that may stand inside an explicit-recall verb phrase.
_RM = r"(?:(?:ever|already|once|maybe|perhaps|really|just|actually|again|earlier|before|previously|still) )*"


def _zh(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


# Cue families. English patterns match whole words of the normalised query; Chinese
# patterns match substrings. Each family has both languages.
_CUES: dict[str, tuple[re.Pattern[str], ...]] = {
    "correction": _en(
        r"correct(?:ion|ed|ing)?", r"actually", r"update[ds]?", r"wrong", r"mistaken?",
        r"no longer", r"not (?:true|right) any ?more", r"fix (?:that|this|it)", r"incorrect",
        r"misspoke", r"misremembered", r"(?:that's|that is) not (?:true|right)", r"got (?:that|it) wrong",
    ) + _zh(r"纠正", r"更正", r"其实", r"实际上", r"更新", r"不对", r"错了", r"搞错", r"改成", r"改为", r"不再", r"修正"),
    "temporal": _en(
        r"when", r"yesterday", r"today", r"tonight", r"recently", r"earlier", r"ago",
        r"last (?:week|month|year|time|night|weekend|summer|winter|spring|autumn|fall)",
        r"this (?:week|month|year|morning)", r"(?:next|past) (?:week|month|year)",
        r"(?:in|during|since|until) (?:19|20)\d\d", r"used to", r"previously", r"back then",
        r"at the time", r"formerly", r"in the past", r"before",
        r"jan(?:uary)?|feb(?:ruary)?|march|april|june|july|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?",
    ) + _zh(
        r"什么时候", r"何时", r"几时", r"哪天", r"哪一年", r"上周", r"上个?星期", r"上个?月", r"去年", r"前年",
        r"昨天", r"前天", r"今天", r"今年", r"最近", r"那时", r"当时", r"以前", r"之前", r"曾经",
        r"过去", r"几天前", r"前几天", r"\d+年", r"\d+月", r"\d+号",
    ),
    "historical": _en(
        r"used to", r"previously", r"before", r"back then", r"formerly", r"in the past",
        r"at the time", r"originally", r"did (?:i|we|you) use to",
    ) + _zh(r"以前", r"之前", r"曾经", r"当时", r"从前", r"原来", r"那时候"),
    "multi_hop": _en(
        r"what happened (?:to|with)", r"who\b.*\bthen", r"and then", r"after that", r"afterwards",
        r"what became of", r"how did .+ turn out", r"followed up", r"led to", r"because of that",
    ) + _zh(
        r"后来", r"结果怎么样", r"怎么样了", r"之后呢", r"然后呢", r"接着", r"谁.*然后", r"发生了什么",
        r"最后怎么", r"导致",
    ),
    # Token patterns: modifiers may stand between the words ("did I *ever* tell you",
    # "have I *already* mentioned", "我*之前跟你*讲过"), so the cue is the verb phrase, not a string.
    "explicit_recall": _en(
        r"remember", r"recall", r"remind me", rf"did i {_RM}(?:tell|mention|say|share)",
        rf"what (?:did|had) i {_RM}(?:tell|say|mention|share|told|said|mentioned|shared)",
        rf"i {_RM}(?:told|mentioned|said|shared)", rf"you (?:know|remember) {_RM}(?:about|that|what)",
        rf"have i {_RM}(?:told|mentioned|said|shared)", r"(?:refresh|jog) my memory",
        rf"(?:do|did) you {_RM}know what i", r"what was it (?:that )?i",
    ) + _zh(
        r"还记得", r"记得", r"回忆", r"想起", r"记起", r"回想", r"回顾", r"提醒我", r"提醒一下", r"来着",
        r"我(?:之前|以前|刚才|上次|早先|是不是|有没有|也|都)*(?:跟你|和你|对你|给你|向你)?(?:说|讲|提|聊|谈|告诉)(?:起|到)?过",
        r"我告诉过你", r"我跟你说过", r"我和你说过",
    ),
    # The user asking for a detail of their own: a user-initiated request, like explicit recall,
    # though the question itself is about an entity or a fact rather than an episode.
    "own_detail": _en(
        r"what(?:'s| is| was| are| were) my", r"what(?:'s| is| was) the \w+ of my", r"tell me my", r"(?:do|did) you (?:still )?(?:have|know) my",
        r"look up my", r"what did i (?:call|name)",
    ) + _zh(r"我的[^，。？！?]{0,16}(?:是什么|是多少|是哪|叫什么|多少)", r"告诉我我的", r"查一下我的"),
    "experience": _en(
        r"we (?:talked|discussed|spoke|chatted|decided|agreed)", r"last time", r"that time",
        r"did (?:i|we)", r"have (?:i|we) ever", r"where did (?:i|we)", r"when did (?:i|we)",
        r"our (?:trip|conversation|chat|talk|meeting)", r"i went", r"we went", r"happened",
        r"what did \w+(?: \w+)? (?:say|tell|do|mention|decide)",
    ) + _zh(
        r"上次", r"那次", r"那天", r"聊过", r"讨论过", r"谈过", r"说过", r"去过", r"做过", r"经历",
        r"发生过", r"我们决定",
    ),
    "profile": _en(
        r"prefer(?:s|red|ence|ences)?", r"likes?", r"loves?", r"hates?", r"dislikes?",
        r"favou?rites?", r"usually", r"always", r"never", r"habits?", r"routines?",
        r"allergic", r"allerg(?:y|ies)", r"boundar(?:y|ies)", r"call me", r"address me",
        r"nicknames?", r"pronouns?", r"(?:don't|do not) (?:want|like)", r"comfortable with",
    ) + _zh(
        r"喜欢", r"偏好", r"爱好", r"讨厌", r"最爱", r"习惯", r"通常", r"总是", r"从不", r"不要",
        r"别再", r"叫我", r"称呼", r"过敏", r"底线", r"口味",
    ),
    "detail": _en(
        r"numbers?", r"phone", r"address(?:es)?", r"e-?mail", r"id", r"code", r"account",
        r"birthday", r"names?", r"password", r"plate", r"serial", r"ticket", r"room",
        r"flight",
    ) + _zh(
        r"号码", r"电话", r"地址", r"邮箱", r"编号", r"账号", r"生日", r"名字", r"密码", r"订单",
        r"车牌", r"单号", r"航班", r"房间", r"型号", r"\d{2,}",
    ),
    "utility": _en(
        r"explain", r"explanation", r"how (?:do|can|should|would|could|does) (?:i|you|we|one)",
        r"how to", r"write (?:me )?(?:a |an |the |some )?(?:code|function|script|program|class|query|regex|test|snippet|poem|essay|email|story)",
        r"python|javascript|typescript|java|rust|golang|sql|regex|c\+\+|bash|html|css",
        r"compile|debug|stack trace|algorithm|function|syntax|bug",
        r"calculate|compute|solve|square root|sum of|multiply|divide",
        r"translate|translation|translated", r"define|definition|meaning of",
        r"what does .+ mean", r"what(?:'s| is| are) (?:a|an|the)", r"what(?:'s| is) \d+",
        r"summari[sz]e", r"convert",
    ) + _zh(
        r"解释", r"翻译", r"什么是", r"是什么意思", r"什么意思", r"的定义", r"定义", r"计算", r"算一下",
        r"等于多少", r"写一个", r"写个", r"写一段", r"代码", r"函数", r"编程", r"怎么写", r"如何写",
        r"怎么用", r"如何实现", r"总结一下", r"换算",
    ),
    "personal": _en(
        r"i", r"me", r"my", r"mine", r"myself", r"we", r"our", r"ours", r"ourselves",
        r"i'm", r"i've", r"i'd", r"i'll", r"we're", r"we've", r"remember", r"recall",
    ) + _zh(r"我", r"咱们", r"记得"),
    # A question: an interrogative word, a leading auxiliary, a question mark (NFKC folds
    # the full-width one), or a Chinese interrogative particle.
    "question": _en(
        r"what|where|who|whom|whose|which|when|why|how",
        r"^(?:do|does|did|is|are|am|was|were|can|could|will|would|should|have|has|had)",
    ) + _zh(r"\?", r"吗", r"什么", r"哪", r"谁", r"几", r"多少", r"怎么", r"为什么", r"是否", r"呢"),
    "observation": _en(
        r"observ(?:e|ed|ation|ations)", r"noticed?", r"patterns?", r"infer(?:red|ence)?",
        r"tendenc(?:y|ies)", r"what do you think (?:i|about me)", r"seem to",
    ) + _zh(r"观察", r"注意到", r"你发现", r"规律", r"倾向", r"推断", r"看出"),
}

# Arithmetic is utility whatever words surround it: 17*23, 3.5 / 7, 2^10, 17 x 23. A bare
# "-" or "/" counts only between spaces, so dates, phone numbers and codes do not.
_ARITHMETIC_RE = re.compile(r"\d\s*[+*×÷^]\s*\(?\d|\d\s+[-/x]\s+\(?\d|\d\s*=\s*\?")
# The user naming one of their own things ("my knee", "我的体检报告") is a detail cue.
# Chinese drops the 的 before family, home and close relations ("我妹妹", "我妈", "我家").
_POSSESSIVE_RE = re.compile(
    r"(?<![a-z0-9'])(?:my|our)\s+[a-z0-9]|我的|我们的|咱们的|"
    r"(?:我们?|咱们?)(?:妹妹?|姐姐?|哥哥?|弟弟?|妈妈?|爸爸?|爷爷|奶奶|外公|外婆|姥姥|姥爷|老公|老婆|丈夫|妻子|太太|"
    r"男朋友|女朋友|男友|女友|对象|儿子|女儿|孩子|宝宝|家人|家里|家|朋友|同事|同学|室友|邻居|老板|领导|上司|老师|"
    r"医生|牙医|公司|单位|猫|狗)"
)

# Phrasings that address the assistant rather than the user's own life: "how do I",
# "tell me", "帮我". Their pronouns are not a personal-context cue.
_REQUEST_PHRASES = _en(
    r"how (?:do|can|should|would|could) (?:i|we)", r"(?:help|tell|show|give|teach|let) me",
    r"can you", r"could you", r"i (?:want|need|would like|'d like) you to", r"for me",
    r"i (?:want|need) to know", r"can i", r"may i", r"should i",
) + _zh(r"帮我", r"给我", r"告诉我", r"教我", r"请你", r"我想让你", r"让我", r"我想知道", r"我想问", r"请问")

# Identifier-shaped detail: an alphanumeric code or a run of two or more digits.
_DETAIL_SHAPE_RE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]+[-_]?\d+[A-Za-z0-9]*|\d+[A-Za-z]+\w*|\d{2,})(?![A-Za-z0-9])")
# Calendar expressions are temporal cues, not identifiers: they are removed before looking
# for an identifier-shaped detail.
_CALENDAR_RE = re.compile(
    r"(?<![\d-])\d{4}-\d{1,2}(?:-\d{1,2})?(?!\d)|\d+\s*[年月日号]|(?<![A-Za-z0-9-])(?:19|20)\d\d(?![A-Za-z0-9-])"
)
_DIGIT_RUN_RE = re.compile(r"\d{2,}")
_CAPITALISED_RE = re.compile(r"(?<![A-Za-z'])[A-Z][a-z]+(?: [A-Z][a-z]+)*(?![A-Za-z])")
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?。！？]\s*)$")

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
            ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
            ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_NOT_NAMES = STOPWORDS | frozenset(_MONTHS) | frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow "
    "remember recall tell did do does can could please hey hi hello thanks".split()
)
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
# Explicit calendar periods, most specific first (day, then month, then year); named groups
# year, month or mname (a month name), and day.
_DATE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?<![\d-])(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})(?!\d)"),
    re.compile(r"(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号]"),
    re.compile(rf"(?<![a-z])(?P<mname>{_MONTH_NAMES})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})(?!\d)", re.I),
    re.compile(r"(?<![\d-])(?P<year>\d{4})[-/](?P<month>\d{1,2})(?![\d/-])"),
    re.compile(r"(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月"),
    re.compile(rf"(?<![a-z])(?P<mname>{_MONTH_NAMES})\.?,?\s+(?:of\s+)?(?P<year>\d{{4}})(?!\d)", re.I),
    re.compile(r"(?P<year>\d{4})\s*年"),
    re.compile(r"(?<![A-Za-z0-9-])(?P<year>(?:19|20)\d\d)(?![A-Za-z0-9-])"),
)


def _family(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str]:
    """One pattern for a whole family: the English cues share a single word-boundary check."""
    english = [p.pattern[len(_EN_OPEN):-len(_EN_CLOSE)] for p in patterns if p.pattern.startswith(_EN_OPEN)]
    others = [f"(?:{p.pattern})" for p in patterns if not p.pattern.startswith(_EN_OPEN)]
    branches = ([_EN_OPEN + "|".join(english) + _EN_CLOSE] if english else []) + others
    return re.compile("|".join(branches))


# Each family scanned once per query.
_FAMILIES: dict[str, re.Pattern[str]] = {name: _family(patterns) for name, patterns in _CUES.items()}


def _has(family: str, text: str) -> bool:
    return _FAMILIES[family].search(text) is not None


@lru_cache(maxsize=256)
def strip_recall_cues(query: str) -> str:
    """The query without explicit-recall cue phrases, so only its topic remains (computed once
    per query: the planner, the channels and the gate all ask for it)."""
    text = normalize(query)
    for pattern in _CUES["explicit_recall"]:
        text = pattern.sub(" ", text)
    return normalize(text)


def parse_query_time(query: str) -> datetime | None:
    """Start (UTC) of the earliest explicit period the query names: a day, a month or a year.

    Only explicit calendar periods count ("2026-03", "March 2026", "2026年3月", "2026");
    relative phrases such as "last week" never yield a time.
    """
    best: tuple[int, datetime] | None = None
    claimed: list[tuple[int, int]] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(query):
            if any(s < match.end() and match.start() < e for s, e in claimed):
                continue
            groups = match.groupdict()
            year = int(groups["year"])
            month = _MONTHS[groups["mname"].lower()] if groups.get("mname") else int(groups.get("month") or 1)
            day = int(groups.get("day") or 1)
            try:
                when = datetime(year, month, day, tzinfo=timezone.utc)
            except ValueError:
                continue
            claimed.append((match.start(), match.end()))
            if best is None or match.start() < best[0]:
                best = (match.start(), when)
    return best[1] if best else None


def _entities(query: str, terms: list[str]) -> list[str]:
    """Identifier-like exact terms, then runs of capitalised Latin words (likely names)."""
    found = [t for t in terms if classify_term(t) in ("identifier", "tag", "email")]
    for match in _CAPITALISED_RE.finditer(query):
        words = match.group().split()
        if _SENTENCE_START_RE.search(query[: match.start()]):
            words = words[1:]  # sentence-initial capitals say nothing about names
        words = [w for w in words if w.lower() not in _NOT_NAMES]
        if words:
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class RecallPlan:
    """What one query needs from memory: intent, search terms, open channels, time, budgets."""

    intent: str
    keywords: tuple[str, ...]
    entities: tuple[str, ...]
    exact_terms: tuple[str, ...]
    explicit_recall: bool
    personal: bool
    utility: bool
    search_canonical: bool
    search_evidence: bool
    search_observation: bool
    search_graph: bool
    search_vector: bool
    search_exact: bool
    temporal_mode: str
    at_time: datetime | None
    max_candidates: int
    max_context_chars: int
    asks_observations: bool
    cues: tuple[str, ...] = ()
    time_hints: tuple[str, ...] = ()

    def channels(self) -> tuple[str, ...]:
        """Names of the opened channels, in the fixed order of :data:`CHANNEL_ORDER`."""
        opened = (
            self.search_canonical,
            self.search_exact,
            self.search_evidence,
            self.search_observation,
            self.search_graph,
            self.search_vector,
        )
        return tuple(name for name, on in zip(CHANNEL_ORDER, opened) if on)

    @property
    def is_open(self) -> bool:
        """True when at least one channel is open."""
        return bool(self.channels())

    def sanitized(self) -> dict:
        """The plan as debug surfaces show it (``/recall/debug``, ``riko recall --debug``):
        every field, with identifier-shaped and protected terms masked as :data:`MASK`.

        A term is masked when it holds a digit or an identifier shape, or when the
        sensitivity classifier protects it; in a query the classifier protects as a whole,
        the entities and exact terms (what the protected detail is) are masked too.
        """

        data = self.to_dict(include_terms=True)
        protected = classify_text(" ".join([*self.keywords, *self.entities, *self.exact_terms]), "normal") != "normal"
        for key in ("keywords", "entities", "exact_terms", "time_hints"):
            whole = protected and key in ("entities", "exact_terms")
            data[key] = [MASK if whole or _identifier_like(t) or classify_text(t, "normal") != "normal" else t
                         for t in data[key]]
        return data

    def to_dict(self, *, include_terms: bool = False) -> dict:
        """A JSON-ready view; query-derived terms are left out unless asked for."""
        data = asdict(self)
        data["at_time"] = self.at_time.isoformat() if self.at_time else None
        data["channels"] = list(self.channels())
        for key in ("keywords", "entities", "exact_terms", "cues", "time_hints"):
            data[key] = list(data[key])
        if not include_terms:
            for key in ("keywords", "entities", "exact_terms", "time_hints"):
                data.pop(key)
        return data


#: What a masked term reads as on the debug surfaces.
MASK = "[masked]"


def _identifier_like(term: str) -> bool:
    return any(ch.isdigit() for ch in term) or bool(_DETAIL_SHAPE_RE.search(term))


def _time_hints(text: str) -> list[str]:
    hints: list[str] = []
    for pattern in _CUES["temporal"]:
        hints.extend(m.group() for m in pattern.finditer(text))
    return list(dict.fromkeys(h.strip() for h in hints if h.strip()))


def analyze_recall_query(
    query: str,
    *,
    now: datetime | None = None,
    raw_evidence_enabled: bool = True,
    observation_enabled: bool = False,
    graph_enabled: bool = False,
    vector_enabled: bool = False,
    max_candidates: int = 8,
    max_context_chars: int = 3000,
    at_time: datetime | str | None = None,
    history: bool = False,
) -> RecallPlan:
    """Plan recall for ``query`` from cues alone (no model call, no store access).

    ``at_time`` / ``history`` are the explicit route arguments and override what the query
    says; otherwise an explicit calendar period in the query selects ``at`` mode and a
    historical cue selects ``history``. ``now`` is accepted for a caller's clock and is
    never used to resolve relative dates, which the planner does not invent.

    >>> analyze_recall_query("what is 17*23").channels()
    ()
    >>> analyze_recall_query("do you remember my dentist appointment?").channels()
    ('lexical', 'rawEvidence')
    """
    if not 1 <= max_candidates <= 32:
        raise ConfigError("recall_max_candidates", f"must be an integer from 1 to 32, got {max_candidates}")
    if not 256 <= max_context_chars <= 16000:
        raise ConfigError("recall_max_context_chars", f"must be an integer from 256 to 16000, got {max_context_chars}")
    del now  # relative dates are never resolved against the clock

    text = normalize(query)
    request_free = text
    for pattern in _REQUEST_PHRASES:
        request_free = pattern.sub(" ", request_free)

    terms = exact_terms(query)
    correction = _has("correction", text)
    explicit = _has("explicit_recall", text)
    own_detail = _has("own_detail", text)
    historical = _has("historical", text)
    # A historical cue ("used to", "以前") speaks of the user's past: it is an experience cue.
    experience = _has("experience", text) or historical
    episodic = explicit or experience
    named_time = parse_query_time(query)
    temporal_cue = _has("temporal", text)
    temporal = historical or temporal_cue or named_time is not None
    multi_hop = _has("multi_hop", text)
    profile = _has("profile", text)
    entities = _entities(query, terms)
    detail = (
        _has("detail", text)
        or bool(_DETAIL_SHAPE_RE.search(query))
        or bool(entities)
        or bool(_POSSESSIVE_RE.search(text))
    )
    utility = _has("utility", text) or bool(_ARITHMETIC_RE.search(text))
    personal = _has("personal", request_free)
    asks_observations = _has("observation", text)
    question = _has("question", text)

    identifier_shaped = any(classify_term(t) in ("identifier", "tag") for t in terms) or bool(
        _DIGIT_RUN_RE.search(_CALENDAR_RE.sub(" ", query))
    )
    cue_flags = {
        "correction": correction, "temporal": temporal, "historical": historical,
        "multi_hop": multi_hop, "explicit_recall": explicit, "experience": experience,
        "profile": profile, "detail": detail, "identifier": identifier_shaped,
        "utility": utility, "personal": personal, "question": question,
        "observation": asks_observations,
    }
    # An identifier-shaped detail (a code, a run of digits) is on its own no sign of a
    # personal question ("status of B-417?", "RFC 7231"): like a utility request it needs
    # a personal cue to open anything.
    shutdown = (utility or identifier_shaped) and not personal
    if shutdown:
        intent = "none"
    elif correction:
        intent = "correction_check"
    elif temporal and episodic:
        intent = "temporal"
    elif multi_hop:
        intent = "multi_hop"
    elif episodic:
        intent = "episodic"
    elif profile:
        intent = "stable_profile"
    elif detail:
        intent = "entity"
    elif personal and question:
        # A question about the user's own life ("Where do I work?", "我在哪里工作？")
        # with no sharper cue: at least the canonical profile is worth a look.
        intent = "stable_profile"
    else:
        intent = "none"

    open_ = not shutdown
    search_canonical = open_ and (intent != "none" or explicit or detail or (asks_observations and personal))
    search_evidence = search_canonical and raw_evidence_enabled and (episodic or detail or correction)
    search_observation = search_canonical and observation_enabled
    search_graph = search_canonical and graph_enabled and (multi_hop or detail)
    search_vector = open_ and vector_enabled and intent != "none"
    search_exact = open_ and bool(terms)

    if at_time is not None:
        mode, when = "at", utc(at_time, where="at_time")
    elif history:
        mode, when = "history", None
    else:
        when = named_time
        mode = "at" if when is not None else ("history" if historical else "current")

    return RecallPlan(
        intent=intent,
        keywords=tuple(dict.fromkeys(tokenize(strip_recall_cues(query)))),
        entities=tuple(entities),
        exact_terms=tuple(terms),
        explicit_recall=explicit or own_detail,
        personal=personal,
        utility=utility,
        search_canonical=search_canonical,
        search_evidence=search_evidence,
        search_observation=search_observation,
        search_graph=search_graph,
        search_vector=search_vector,
        search_exact=search_exact,
        temporal_mode=mode,
        at_time=when,
        max_candidates=max_candidates,
        max_context_chars=max_context_chars,
        asks_observations=asks_observations,
        cues=tuple(name for name, on in cue_flags.items() if on),
        time_hints=tuple(_time_hints(text)) if temporal_cue else (),
    )
