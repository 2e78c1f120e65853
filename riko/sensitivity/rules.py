"""Sensitivity as a usage permission: the deterministic classifier and the authority rules.

Three levels, ranked ``normal < provisional_sensitive < sensitive``. Tightening (a move to
a strictly higher rank) is open to every authority; anything else needs ``user`` or
``management``. The classifier only ever tightens the caller's baseline: a sensitive cue
(private, medical, psychological, sexual, credential, identity, financial; English and
Chinese) makes a text ``sensitive``, identifier-shaped content (phone numbers, e-mail
addresses, ID/passport/card/account numbers, IBANs, digit runs of six or more, street
addresses) makes it at least ``provisional_sensitive``.

    >>> classify_text("I like oolong tea")
    'normal'
    >>> classify_text("my email is anna@example.com")
    'provisional_sensitive'
    >>> classify_text("我最近在看心理医生")
    'sensitive'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import lru_cache

from ..errors import ConfigError

__all__ = [
    "LEVELS",
    "AUTHORITIES",
    "RELAXING_AUTHORITIES",
    "DISCLOSURES",
    "CUE_CATEGORIES",
    "rank",
    "stricter",
    "classify_text",
    "sensitive_cue_categories",
    "has_identifier",
    "can_transition",
    "disclosure_for",
    "observation_is_sensitive",
    "safe_classify",
    "protected_title",
]

LEVELS = ("normal", "provisional_sensitive", "sensitive")
AUTHORITIES = ("deterministic_rule", "model_proposal", "user", "management")
RELAXING_AUTHORITIES = frozenset({"user", "management"})
DISCLOSURES = {
    "normal": "normal",
    "provisional_sensitive": "user_explicit_only",
    "sensitive": "never_explicit",
}
_UNCLASSIFIED_DISCLOSURES = ("never_explicit", "user_explicit_only")
_RANK = {level: index for index, level in enumerate(LEVELS)}

# English cues are regular-expression fragments matched on word boundaries, case-insensitive.
# Chinese cues are plain substrings (Chinese has no spaces to bound a word on).
_CUES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "private": (
        (
            r"secrets?", r"confidential", r"keep (?:this|it|that) (?:private|secret|between us)",
            r"(?:it's|it is|this is) private", r"private matters?", r"just between us",
            r"between you and me", r"don'?t tell (?:anyone|anybody|my \w+)",
            r"nobody knows", r"no one knows",
        ),
        ("秘密", "隐私", "私密", "别告诉", "不要告诉", "不能告诉", "没人知道", "只告诉你"),
    ),
    "medical": (
        (
            r"diagnos(?:is|es|ed|e)", r"diseases?", r"illness(?:es)?", r"cancer", r"tumou?rs?",
            r"diabet(?:es|ic)", r"hiv", r"hepatitis", r"epilep(?:sy|tic)", r"asthma",
            r"dementia", r"alzheimer'?s?", r"parkinson'?s?", r"surgery", r"surgical",
            r"medications?", r"prescriptions?", r"prescribed", r"chemo(?:therapy)?",
            r"radiotherapy", r"hospitali[sz]ed", r"pregnan(?:t|cy)", r"miscarriage",
            r"abortion", r"infertil(?:e|ity)", r"ivf", r"disabilit(?:y|ies)", r"chronic pain",
            r"insulin", r"medical (?:condition|history|record)s?", r"sleeping pills?",
            r"blood pressure", r"biopsy", r"heart attack", r"sexually transmitted",
        ),
        (
            "诊断", "确诊", "疾病", "生病", "癌症", "肿瘤", "糖尿病", "艾滋", "肝炎", "癫痫",
            "哮喘", "痴呆", "手术", "药物", "处方", "吃药", "服药", "怀孕", "流产", "堕胎",
            "人流", "不孕", "试管婴儿", "做试管", "试管都", "化疗", "放疗", "住院", "病情", "病史", "残疾", "慢性病", "胰岛素", "中风",
            "心脏病", "高血压", "体检报告", "安眠药",
        ),
    ),
    "psychological": (
        (
            r"depress(?:ion|ed|ive)", r"anxiety", r"anxiety disorder", r"panic attacks?",
            r"bipolar", r"ptsd", r"trauma(?:tic|tised|tized)?", r"suicid(?:e|al)",
            r"self[- ]harm(?:ing)?", r"eating disorders?", r"anorexi[ac]", r"bulimi[ac]",
            r"ocd", r"adhd", r"autis(?:m|tic)", r"schizophreni[ac]", r"psychosis",
            r"therap(?:y|ist)", r"psychiatri(?:st|c)", r"psychologist", r"counsell?(?:ing|or)",
            r"mental (?:health|illness|breakdown)", r"antidepressants?", r"addict(?:ion|ed)",
            r"rehab", r"nervous breakdown", r"relaps(?:e|ed|ing)", r"sober", r"sobriety",
        ),
        (
            "抑郁", "焦虑", "双相", "躁郁", "创伤", "自杀", "自残", "轻生", "想死", "强迫症",
            "进食障碍", "厌食", "暴食", "精神分裂", "精神病", "精神科", "心理医生", "心理咨询",
            "心理治疗", "心理健康", "心理疾病", "惊恐发作", "恐慌症", "成瘾", "戒毒", "多动症",
            "自闭症", "戒酒", "复吸", "复饮",
        ),
    ),
    "sexual": (
        (
            r"sex", r"sexual(?:ity|ly)?", r"sexual orientation", r"gay", r"lesbian",
            r"bisexual", r"transgender", r"queer", r"asexual", r"porn(?:ography)?",
            r"erotic", r"fetish(?:es)?", r"kinky", r"(?:came|coming) out as", r"intercourse",
        ),
        (
            "性生活", "性行为", "性取向", "性关系", "性癖", "性别认同", "同性恋", "双性恋",
            "跨性别", "色情", "出柜", "做爱", "约炮",
        ),
    ),
    "credential": (
        (
            r"passwords?", r"passcodes?", r"passphrases?", r"pin (?:code|number)s?",
            r"api[- ]?keys?", r"access tokens?", r"auth(?:entication)? tokens?",
            r"secret keys?", r"private keys?", r"ssh keys?", r"2fa", r"otp",
            r"one[- ]time (?:code|password)s?", r"verification codes?",
            r"security (?:question|answer)s?", r"credentials?", r"login (?:details|info)",
            r"seed phrases?", r"recovery (?:phrase|code)s?", r"(?:bank|card|atm|sim|phone|debit|credit) pins?",
            r"pins? (?:is|was|for)", r"two[- ]factor", r"backup codes?",
        ),
        ("密码", "口令", "验证码", "密钥", "私钥", "助记词", "令牌", "登录凭证", "支付密码"),
    ),
    "identity": (
        (
            r"social security(?: number)?", r"ssn", r"passport (?:number|no)", r"passport",
            r"national id", r"id (?:number|card)", r"identity (?:card|number)",
            r"driver'?s? licen[cs]e", r"date of birth", r"tax (?:id|number)",
            r"immigration status", r"visa status", r"undocumented", r"criminal record",
            r"convicted", r"arrested", r"jail(?:ed)?", r"prison", r"probation",
            r"religio(?:n|us) beliefs?", r"ethnicity", r"home address",
        ),
        (
            "身份证", "护照", "社保号", "驾照号", "驾照编号", "驾驶证", "出生日期", "户口", "家庭住址",
            "住址", "宗教信仰", "犯罪记录", "坐过牢", "坐牢", "拘留", "判刑", "缓刑", "移民身份", "签证状态",
        ),
    ),
    "financial": (
        (
            r"bank accounts?", r"account numbers?", r"credit cards?", r"debit cards?",
            r"card numbers?", r"salary", r"salaries", r"income", r"debts?", r"loans?",
            r"mortgages?", r"bankrupt(?:cy)?", r"tax returns?", r"net worth", r"iban",
            r"routing numbers?", r"cvv", r"paychecks?", r"payslips?", r"savings",
            r"credit score",
        ),
        (
            "银行卡", "银行账户", "银行账号", "信用卡", "卡号", "账号", "工资", "薪水", "薪资",
            "月薪", "年薪", "收入", "负债", "欠债", "欠款", "贷款", "房贷", "破产", "存款",
            "税号", "资产", "信用分", "网贷", "借贷", "借钱", "高利贷",
        ),
    ),
}
CUE_CATEGORIES = tuple(_CUES)
_OBSERVATION_CATEGORIES = ("psychological", "medical", "sexual", "credential", "identity", "financial")


def _english_pattern(fragments: Iterable[str]) -> re.Pattern[str]:
    joined = "|".join(sorted(fragments, key=len, reverse=True))
    return re.compile(rf"(?<![0-9a-z])(?:{joined})(?![0-9a-z])", re.IGNORECASE)


_CUE_PATTERNS = {
    category: (_english_pattern(english), chinese) for category, (english, chinese) in _CUES.items()
}

# tried where a run of address characters starts: a long word with no @ is read once, not once per character
_EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DIGIT_RUN_RE = re.compile(r"\d{6,}")
# Digit groups joined by single separators, optionally with a +country code or (area code).
_PHONE_RE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,5}\)[ .-]?)?\d{1,5}(?:[ .-]\d{1,5}){1,5}(?![\w])"
)
# Dates and clock times look like digit groups too; they are blanked before phone matching.
_DATE_RE = re.compile(
    r"(?<!\d)(?:\d{4}[./-]\d{1,2}[./-]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{1,2}:\d{2}(?::\d{2})?)(?!\d)"
)
_IBAN_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])")
_LABELLED_NUMBER_RE = re.compile(
    r"(?<![0-9A-Za-z])(?i:passport|id|identity|account|acct|card|licen[cs]e|membership|policy|ssn|member)"
    r"\s*(?i:no\.?|number|num|#)?\s*(?i:is|:|#)?\s*[A-Z]{0,3}\d[\d -]{3,}\d(?!\d)"
)
_LABELLED_NUMBER_ZH_RE = re.compile(
    r"(?:身份证|护照|卡号|账号|账户|证件|学号|工号|会员号|保单)[号码]*\s*(?:是|为|:|：)?\s*[A-Za-z]{0,3}\d[\d -]{3,}"
)
# A labelled code: a keyword naming a personal reference, then a value with at least two digits.
_CODE_KEYWORD_RE = re.compile(
    r"(?<![0-9a-z])(?:(?:locker|ticket|booking|reservation|confirmation|tracking|serial|parcel|voucher|"
    r"door|gate|alarm|safe|lock|access|combination)\s*(?:code|number|no\.?|num|#|ref(?:erence)?|id)?|"
    r"(?:order|customer|client|employee|staff|student|member(?:ship)?|patient|case|invoice|vin|plate|"
    r"registration|library card|badge)\s*(?:code|number|no\.?|num|#|id)|"
    r"licen[cs]e plate|room|seat|flight|vin|codes?(?:\s+[a-z]+){0,4}?\s+(?=is\b|:))"
    r"\s*(?:is|:|#|=)?\s*(?P<value>(?-i:[A-Z]{1,3}[ -]?)?[0-9][0-9A-Za-z -]*)",
    re.IGNORECASE,
)
# Reference codes on their own: C-928, HX-55821, SN4471-2209, QX7P2L, 7ABC123.
_CODE_RE = re.compile(
    r"(?<![\w-])(?:[A-Z]{1,3}\d{0,2}-\d{3,}(?:-\d+)?|[A-Z]{1,4}\d{4,}(?:-\d+)?|"
    r"(?=[A-Z0-9]{5,12}(?![\w-]))(?=(?:[A-Z]*\d){2})(?=(?:\d*[A-Z]){2})[A-Z0-9]{5,12})(?![\w-])"
)
# Chinese: a noun ending in 号 / 码 / 编号 / 单号, then a value with at least two digits.
_CODE_ZH_RE = re.compile(
    r"(?:(?<=[\u4e00-\u9fff])(?:号码|编号|单号|号|码)|车位|座位|微信|门牌|车牌)\s*(?:是|为|:|：)?\s*"
    r"(?P<value>[\u4e00-\u9fff]?[A-Za-z0-9_ -]*[0-9][A-Za-z0-9_ -]*)"
)
_STREET_RE = re.compile(
    r"(?<![\w])\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][\w'.-]*\s+){1,4}"
    r"(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|"
    r"terrace|parkway|pkwy|square|sq|crescent|close|highway|hwy)\b\.?"
)
_STREET_ZH_RE = re.compile(
    r"[\u4e00-\u9fff]{1,12}(?:路|街|大道|大街|巷|弄|胡同)\d{1,5}号|\d{1,4}号楼|\d{1,4}单元|\d{2,5}室"
)


def _check_level(level: object, field: str = "sensitivity") -> str:
    if level not in _RANK:
        raise ConfigError(field, f"unknown sensitivity level {level!r}; expected one of {', '.join(LEVELS)}")
    return level  # type: ignore[return-value]


def rank(level: str) -> int:
    """Rank of a level: normal 0, provisional_sensitive 1, sensitive 2."""
    return _RANK[_check_level(level)]


def stricter(a: str, b: str) -> str:
    """The tighter of two levels."""
    return a if rank(a) >= rank(b) else b


def _normalise(text: str) -> str:
    # Full-width letters and digits are folded so they cannot slip past the cue lists.
    return unicodedata.normalize("NFKC", text)


def sensitive_cue_categories(text: str) -> tuple[str, ...]:
    """The sensitive-cue categories a text matches, in ``CUE_CATEGORIES`` order."""
    folded = _normalise(text or "")
    found = []
    for category, (english, chinese) in _CUE_PATTERNS.items():
        if english.search(folded) or any(cue in folded for cue in chinese):
            found.append(category)
    return tuple(found)


def _phone_like(text: str) -> bool:
    for match in _PHONE_RE.finditer(_DATE_RE.sub(" ", text)):
        digits = sum(ch.isdigit() for ch in match.group(0))
        if 7 <= digits <= 15:
            return True
    return False


def _labelled_code(pattern: re.Pattern[str], text: str) -> bool:
    for match in pattern.finditer(text):
        if sum(ch.isdigit() for ch in match.group("value")) >= 2:
            return True
    return False


def has_identifier(text: str) -> bool:
    """True for identifier-shaped content: contact details, document or account numbers."""
    folded = _normalise(text or "")
    return bool(
        _EMAIL_RE.search(folded)
        or _DIGIT_RUN_RE.search(folded)
        or _IBAN_RE.search(folded)
        or _LABELLED_NUMBER_RE.search(folded)
        or _LABELLED_NUMBER_ZH_RE.search(folded)
        or _STREET_RE.search(folded)
        or _STREET_ZH_RE.search(folded)
        or _CODE_RE.search(folded)
        or _labelled_code(_CODE_KEYWORD_RE, _DATE_RE.sub(" ", folded))
        or _labelled_code(_CODE_ZH_RE, _DATE_RE.sub(" ", folded))
        or _phone_like(folded)
    )


def classify_text(text: str, baseline: str = "normal") -> str:
    """Classify a claim, never loosening ``baseline``.

    A sensitive cue gives ``sensitive``; identifier-shaped content gives at least
    ``provisional_sensitive``; anything else keeps ``baseline``.
    """
    _check_level(baseline, "baseline")
    if baseline == "sensitive":
        return baseline
    found = _reading(text) if len(text) <= _CACHED_CHARS else _read(text)
    if found == "sensitive":
        return "sensitive"
    if found == "identifier":
        return stricter(baseline, "provisional_sensitive")
    return baseline


_CACHED_CHARS = 2000  # claims repeat across a Dream batch (every proposal of a repeated statement)


def _read(text: str) -> str:
    """What the cues find in ``text``: ``sensitive``, ``identifier`` or ``""``."""
    if sensitive_cue_categories(text):
        return "sensitive"
    return "identifier" if has_identifier(text) else ""


_reading = lru_cache(maxsize=1 << 14)(_read)


def _check_authority(authority: object) -> str:
    if authority not in AUTHORITIES:
        raise ConfigError("authority", f"unknown authority {authority!r}; expected one of {', '.join(AUTHORITIES)}")
    return authority  # type: ignore[return-value]


def can_transition(current: str | None, new: str, authority: str) -> bool:
    """Whether ``authority`` may set a record at ``current`` to ``new``.

    A move to a strictly higher rank is always allowed; any other move needs ``user`` or
    ``management``. ``current=None`` is unclassified evidence, which reads as sensitive:
    writing ``normal`` over it relaxes that default and needs the same authority, while
    writing either protected level is a tightening any authority may perform.
    """
    _check_level(new, "new")
    _check_authority(authority)
    if current is None:
        return new != "normal" or authority in RELAXING_AUTHORITIES
    if rank(new) > rank(_check_level(current, "current")):
        return True
    return authority in RELAXING_AUTHORITIES


def disclosure_for(level: str | None, unclassified_disclosure: str = "never_explicit") -> str:
    """The raw-text disclosure policy for a sensitivity marker.

    ``None`` (unclassified) falls back to ``unclassified_disclosure``, which may only be
    ``never_explicit`` or ``user_explicit_only``. An unrecognised marker fails closed.
    """
    if unclassified_disclosure not in _UNCLASSIFIED_DISCLOSURES:
        raise ConfigError(
            "unclassified_disclosure",
            f"must be one of {', '.join(_UNCLASSIFIED_DISCLOSURES)}, got {unclassified_disclosure!r}",
        )
    if level is None:
        return unclassified_disclosure
    return DISCLOSURES.get(level, "never_explicit")


def observation_is_sensitive(text: str) -> bool:
    """True when an observation carries psychological, medical, sexual, credential,
    identity or financial cues, which keeps it out of automatic activation."""
    categories = sensitive_cue_categories(text)
    return any(category in _OBSERVATION_CATEGORIES for category in categories)


def safe_classify(classifier: Callable[[str, str], object], text: str, baseline: str) -> str:
    """Run ``classifier(text, baseline)``; an unusable answer persists ``sensitive``.

    A classifier that raises, or answers outside ``LEVELS``, denies use rather than
    granting it. A usable answer still never loosens the baseline.
    """
    if baseline not in _RANK:
        return "sensitive"
    try:
        answer = classifier(text, baseline)
    except Exception:
        return "sensitive"
    if not isinstance(answer, str) or answer not in _RANK:
        return "sensitive"
    return stricter(answer, baseline)


def protected_title(claim: str, source: str) -> str:
    """A page title for a protected claim that does not restate it: the cue category and its source.

    No digest of the claim is used: a short claim such as a PIN could be recovered from one.

    >>> protected_title("My bank PIN is 4412", "session:s1/event:3")
    'Protected credential memory (session:s1/event:3)'
    """
    categories = sensitive_cue_categories(claim)
    kind = categories[0] if categories else "identifier" if has_identifier(claim) else "private"
    return f"Protected {kind} memory ({source})"
