"""What one statement is about, derived by riko itself: its kind, slot and the entities it names.

A pure, deterministic function of the words (English and Chinese), like the sensitivity
classifier: no model, no state. Dream writes the result on its proposals, and automatic
admission derives it again from the user's own words, so what a model claims about a page's
type never decides where an admitted page lands.

    >>> d = derive("My sister Lena lives in Berlin.")
    >>> d.kind, d.slot
    ('relationship', 'Lena/lives_in')
    >>> [(e.name, e.kind, e.aliases) for e in d.entities]
    [('Lena', 'person', ('my sister',)), ('Berlin', 'place', ('柏林',))]
    >>> derive("我妹妹 Lena 住在柏林。").slot
    'Lena/lives_in'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from .cues import is_standing, standing_rule
from ..language.lexicon import (
    ADDRESS_TERMS_EN,
    BOUNDARY_NEGATORS_ZH,
    BOUNDARY_VERBS_EN,
    BOUNDARY_VERBS_ZH,
    CJK,
    FOODS_EN,
    FOOD_PHRASES_EN,
    CJK_RANGE,
    DEPARTMENTS_EN,
    DISLIKE_EN,
    DISLIKE_ZH,
    FIRST_PERSON_EN,
    GERMAN_PLURAL_ENDINGS,
    HEADING_LABELS_EN,
    INDEFINITE_PRONOUNS_EN,
    JOB_NOUNS_EN,
    JOB_NOUNS_ZH,
    LABEL_NOUNS_EN,
    MONTHS_EN,
    NAME_ABBREVIATIONS,
    NAMED_ABSTRACT_HEADS,
    NAMES_LIKE_TOPICS,
    NEGATION_CHAT_EN,
    NEGATION_EN,
    NEGATION_ZH,
    PEOPLE_NOUNS_EN,
    RELATIONS,
    ROLE_HEADS_EN,
    ROUTINE_NOUNS_EN,
    SECTOR_WORDS_EN,
    SPEAK_TO_EN,
    TIME_AHEAD_EN,
    TIME_AHEAD_ZH,
    TIME_PAST_EN,
    TOPIC_NOUN_ENDINGS,
    WEEKDAYS_EN,
    WEEKDAY_ABBREVIATIONS_EN,
    ZH_RELATIONS,
    alternation,
)

__all__ = ["KINDS", "ENTITY_KINDS", "derived_fields", "given_name", "could_be_name", "says_what_it_names", "KIND_PAGE_TYPES", "KIND_CATEGORIES", "Entity", "Derived", "derive",
           "relation_alias", "canonical_place", "ZH_RELATION_WORDS"]

#: The kinds of statement, most specific first (``fact`` is what is left).
KINDS = ("identity", "preference", "relationship", "event", "plan", "boundary", "fact")
ENTITY_KINDS = ("person", "pet", "place", "organisation", "project", "other")
#: The Wiki page type (the seed's vocabulary) a derived kind is stored under.
KIND_PAGE_TYPES = {
    "identity": "synthesis",
    "preference": "concept",
    "relationship": "relationship",
    "event": "episode",
    "plan": "episode",
    "boundary": "concept",
    "fact": "concept",
}
#: The page ``category`` of a derived kind (the seed's labels where it has one).
KIND_CATEGORIES = {
    "identity": "identity",
    "preference": "preferences",
    "relationship": "people",
    "event": "experience",
    "plan": "open_thread",
    "boundary": "interaction_rules",
    "fact": "facts",
}

_I = re.IGNORECASE


@dataclass(frozen=True)
class Entity:
    """Something a statement names: a canonical name, its kind and the other names the text ties to it."""

    name: str
    kind: str
    aliases: tuple[str, ...] = ()

    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class Derived:
    """The derivation of one statement.

    ``slot`` is ``subject/attribute``; an attribute that can hold several values at once (likes,
    plans, boundaries, events) carries its object key after a ``:`` (``user/likes:jazz``), so two
    statements share a slot only when they speak of the same thing. ``negated`` is the polarity
    ("I don't like coffee" has the slot of "I like coffee", negated), ``value`` the object words.
    """

    kind: str
    slot: str
    subject: str
    entities: tuple[Entity, ...] = ()
    value: str = ""
    negated: bool = False
    attribute: str = field(default="")

    @property
    def page_type(self) -> str:
        return KIND_PAGE_TYPES[self.kind]

    @property
    def category(self) -> str:
        return KIND_CATEGORIES[self.kind]


# -- relations (the lexicon's: English relation noun -> Chinese forms, entity kind, gender) ----------
_RELATIONS = RELATIONS
_ZH_RELATION = ZH_RELATIONS
_REL_EN = alternation(_RELATIONS)[3:-1]
_REL_ZH = alternation(_ZH_RELATION)[3:-1]
_PET_ZH = alternation(form for form, en in _ZH_RELATION.items() if _RELATIONS[en][1] == "pet")[3:-1]
#: The Chinese words for relatives and pets that riko recognises (妹妹, 舅妈, 小猫, ...).
ZH_RELATION_WORDS: frozenset[str] = frozenset(_ZH_RELATION)

# -- places (a small bilingual gazetteer, so a name said in two languages is one entity) ----------
_PLACES: dict[str, tuple[str, ...]] = {
    "Berlin": ("柏林",), "Kyoto": ("京都",), "Tokyo": ("东京", "東京"), "Osaka": ("大阪",),
    "Beijing": ("北京",), "Shanghai": ("上海",), "Shenzhen": ("深圳",), "Guangzhou": ("广州",),
    "Hangzhou": ("杭州",), "Chengdu": ("成都",), "Hong Kong": ("香港",), "Taipei": ("台北",),
    "Nanjing": ("南京",), "Wuhan": ("武汉",), "Xi'an": ("西安",), "Chongqing": ("重庆",),
    "Paris": ("巴黎",), "London": ("伦敦",), "New York": ("纽约",), "Los Angeles": ("洛杉矶",),
    "San Francisco": ("旧金山",), "Seattle": ("西雅图",), "Boston": ("波士顿",), "Chicago": ("芝加哥",),
    "Toronto": ("多伦多",), "Vancouver": ("温哥华",), "Sydney": ("悉尼",), "Melbourne": ("墨尔本",),
    "Singapore": ("新加坡",), "Seoul": ("首尔",), "Bangkok": ("曼谷",), "Munich": ("慕尼黑",),
    "Hamburg": ("汉堡",), "Vienna": ("维也纳",), "Zurich": ("苏黎世",), "Rome": ("罗马",),
    "Milan": ("米兰",), "Madrid": ("马德里",), "Barcelona": ("巴塞罗那",), "Lisbon": ("里斯本",),
    "Amsterdam": ("阿姆斯特丹",), "Prague": ("布拉格",), "Moscow": ("莫斯科",), "Dubai": ("迪拜",),
    "China": ("中国",), "Japan": ("日本",), "Germany": ("德国",), "France": ("法国",),
    "Italy": ("意大利",), "Spain": ("西班牙",), "Canada": ("加拿大",), "Australia": ("澳大利亚",),
    "Korea": ("韩国",), "Thailand": ("泰国",), "America": ("美国",), "United States": ("美国",),
    "England": ("英国",), "UK": ("英国",), "India": ("印度",), "Vietnam": ("越南",),
    "Portugal": ("葡萄牙",), "Switzerland": ("瑞士",), "Austria": ("奥地利",), "Netherlands": ("荷兰",),
    "Iceland": ("冰岛",), "Norway": ("挪威",), "Sweden": ("瑞典",), "Finland": ("芬兰",),
    "Mexico": ("墨西哥",), "Brazil": ("巴西",), "Egypt": ("埃及",), "Greece": ("希腊",),
    "Hokkaido": ("北海道",), "Okinawa": ("冲绳",), "Yunnan": ("云南",), "Tibet": ("西藏",),
    "Asia": ("亚洲",), "Europe": ("欧洲",), "Africa": ("非洲",),
}
_ZH_PLACE: dict[str, str] = {}
for _en, _forms in _PLACES.items():
    for _zh in _forms:
        _ZH_PLACE.setdefault(_zh, _en)
_PLACE_ZH_RE = re.compile("|".join(sorted((re.escape(z) for z in _ZH_PLACE), key=len, reverse=True)))
_PLACE_EN = {p.casefold(): p for p in _PLACES}

# -- words that start with a capital letter without naming anything --------------------------------
_NOT_NAMES = frozenset("""
i i'm i've i'll i'd im ive a an the and but or so if then this that these those it its my our your his her
their we you he she they me us them hi hello hey ok okay yes no yeah well oh also just please thanks
thank sorry sure great good nice cool wow lol what when where why how who which there here today
tomorrow yesterday tonight next last every after before
since until once my mine let let's can could would should will shall do does did is are was were be
been am have has had not don't can't won't didn't doesn't isn't aren't wasn't i'd maybe perhaps
actually honestly really still now then first second third one two three four five dear mr mrs ms dr like even
ah aha yep yup nope hmm huh oops haha hooray alright
in on at for with from to of by about into as most many some all any ill while because although though unless whether
they're we're you're he's she's it's that's there's what's here's
english french german spanish italian chinese japanese korean greek russian dutch swedish norwegian danish finnish
polish portuguese turkish arabic hindi thai vietnamese indonesian american british canadian australian mexican
brazilian indian irish scottish european asian african viking vikings latin christian muslim jewish buddhist catholic
christmas easter halloween thanksgiving ramadan diwali years covid
summer winter autumn spring fall summers winters
only total overall basically luckily hopefully currently additionally note update
ohh ohhh ahh ahhh umm um uh uhh hm mhm yay omg lmao haha hahaha wow fahrenheit celsius
""".split()) | set(WEEKDAYS_EN) | {day + "s" for day in WEEKDAYS_EN} | set(MONTHS_EN) \
    | {day for day in WEEKDAY_ABBREVIATIONS_EN if day != "sun"}  # "Last Fri"; "Sun" may be a name
_ORG_SUFFIX = re.compile(
    r"\b(?:Inc|Corp|Corporation|Ltd|LLC|GmbH|Company|Co|Bank|University|College|School|Institute|"
    r"Hospital|Group|Labs?|Studio|Studios|Agency|Foundation|Clinic|Cafe|Café|Restaurant|Hotel|Association|"
    r"Society|Club|Council|Ministry|Committee|Union|Team|Partners|Ventures|Capital|Insurance|Airlines?)\b")
_PROJECT_WORD = re.compile(
    r"\b(?:project|app|repo|repository|startup|novel|book|game|podcast|channel|blog|guide|fund|report|proposal|"
    r"document|doc|deck|playbook|handbook|manual|template|course|module|programme|program|initiative|campaign|"
    r"framework|newsletter|website|workshop|series|thesis|dissertation|paper|tool|platform|product|brand)s?\b", _I)
# the last word of a place's name ("Wangfujing Street", "Tekapo Hot Springs") or its first ("Mount Airy")
_PLACE_WORD = re.compile(
    r"Street|St|Avenue|Ave|Road|Rd|Boulevard|Lane|Park|Lake|Mount|Mt|Mountains?|Glacier|Springs|Islands?|Beach|"
    r"River|Bay|Valley|Canyon|Falls|Square|Bridge|Tower|Temple|Palace|Castle|Museum|Cathedral|Airport|Station|"
    r"Forest|Peak|Trail|Harbou?r|Coast|Desert|Village|Town|City|County|Province|State|Gardens?|Zoo|Stadium|Mall")
# adjectives that begin a name ("Great Wall", "First Street") rather than a sentence
# holidays of more than one word (one-word ones are in _NOT_NAMES)
_HOLIDAYS = frozenset(("new year", "new years", "new year's", "new year's eve", "new years eve", "chinese new year",
                       "lunar new year", "mother's day", "father's day", "valentine's day", "valentines day",
                       "labor day", "labour day", "memorial day", "independence day", "boxing day",
                       "christmas eve", "black friday", "cyber monday", "spring festival", "st patrick's day"))
_NAME_ADJECTIVES = frozenset("great first second third good new old".split())
# what a person does: the verbs that make a sentence-initial capital someone's name
_PERSON_VERB = (r"(?:said|says|told|tells|asked|asks|thinks|thought|wants|wanted|loves|loved|likes|liked|hates|hated|"
                r"lives|lived|works|worked|went|goes|intends|plans|planned|decided|feels|felt|married|moved|called|"
                r"texted|invited|visited|started|joined|bought|met|knows|knew|believes|believed|agreed|suggested|"
                r"mentioned|helped|wrote|writes|sent|sends|gave|gives|came|comes|left|got|gets|has\s+been|cooks|cooked|plays|"
                r"played|studies|studied|teaches|taught|runs|ran|died|graduated|adopted|cried|laughed|smiled|replied|"
                r"answered|needs|needed|works|lost|won|turned|turns|took|takes|made|makes|goes\s+by|"
                r"(?:is|was|'s)\s+(?:my|our|a\s+friend|an?\s+old\s+friend|curious|happy|sad|excited|worried|"
                r"coming|going|getting|moving|visiting|working|studying)|and\s+I)\b")
# a number and at most one unit before a capitalised word: an amount, not a name
_QUANTITY = re.compile(r"(?<![\w.])\d+(?:[.,/]\d+)?\s*(?:[A-Za-z]{1,5}\.?\s+)?$")
# an adjective's ending ("Powerful", "Delicious", "Affordable"): no name of a person or place
_ADJECTIVE = re.compile(r"[A-Z][a-z]{2,}(?:ful|ous|less|able|ible|ive)")
# ("Kubernetes-deployed", "GPU-accelerated": any participle after a hyphen)
_COMPOUND_ADJECTIVE = re.compile(r"-(?:(?i:based|powered|driven|style|like|friendly|free|ready|shot|level|first|oriented|"
                                 r"centric|focused|related|specific|heavy|native|aware|sized|scale)|[a-z]+ed|[a-z]{3,}ing)$")
_VERB_CAPITALISED = re.compile(r"[A-Z][a-z]{3,}ed")
# an adverb written with a capital ("Most Importantly", "Additionally"): no name ("Emily", "Kelly" end otherwise)
_ADVERB = re.compile(r"[A-Z][a-z]{2,}(?:ally|ously|ively|ently|antly|edly|ingly|fully|lessly|ately)")
_NAME_ADJECTIVE = re.compile(r"[A-Z][a-z]{3,}(?:ean|ian)")
_ADDRESS_TERMS = frozenset(ADDRESS_TERMS_EN)
# "Objective 1: ", "**Step 2 – ", "Main Topic: ": a label whose Title-Case rest is a heading's title
_HEADING_LABEL = re.compile(r"^[\s*_#>\-•]*(?i:" + alternation(HEADING_LABELS_EN)[3:] + r"(?:\s+(?:\d+[a-z]?|[IVX]+|[A-Z]))?"
                            r"\s*(?::|\s[-–—]\s)\s*[*_\"“]*")
_TITLE_WORD = re.compile(r"[A-Z0-9][\w'’\-&/]*|(?i:a|an|the|of|and|or|in|on|for|to|at|by|with|from|vs|via|&|-|–)")
_PEOPLE_NOUNS = r"(?:" + "|".join(PEOPLE_NOUNS_EN) + "|" + "|".join(
    sorted((re.escape(r) for r, (_, k, _g) in _RELATIONS.items() if k == "person"), key=len, reverse=True)) + ")"
_PET_NOUNS = r"(?:" + "|".join(sorted((re.escape(r) for r, (_, k, _g) in _RELATIONS.items() if k == "pet"), key=len,
                                      reverse=True)) + r")"
# "a friend called Jon" names a person, "a puppy named Max" a pet, "a dish called …" neither
_CALLED_SOMEONE = re.compile(r"\b" + _PEOPLE_NOUNS + r"s?,?\s+(?:(?:who\s+is\s+|is\s+)?(?:called|named))\s+$", _I)
_CALLED_PET = re.compile(r"\b" + _PET_NOUNS + r"s?,?\s+(?:(?:who\s+is\s+|is\s+)?(?:called|named))\s+$", _I)
# "talk to Ryan", "a letter to Lori": someone spoken to, not a place gone to
_SPEAK_TO = re.compile(r"\b" + alternation(SPEAK_TO_EN) + r"\s+to\s+$", _I)
# "Postman v10.15.0", "Chrome version 109": a product and its version, never a person or a place
_VERSION_AFTER = re.compile(r"\s+(?:v|version\s*)\d", _I)
# (an owner's day or month ends the run: "Leslie's April 18 workshop" names Leslie, not "Leslie's April")
_CAP_RUN = re.compile(r"\b[A-Z][\w'’\-]*(?:(?:(?<!['’]s)|(?!\s+(?i:" + alternation((*MONTHS_EN, *WEEKDAYS_EN))[3:] + r"\b))"
                      r"\s+(?:of\s+(?:the\s+)?|de\s+|van\s+|von\s+|&\s+)?[A-Z][\w'’\-]*)*")
_LATIN_IN_ZH = re.compile(r"[A-Za-z][A-Za-z0-9'\-]*(?:\s+[A-Z][A-Za-z0-9'\-]*)*")  # "华为Mate60": the model with its number
_CJK = re.compile(CJK)

# -- subjects and attributes -----------------------------------------------------------------------
_FIRST_PERSON_EN = re.compile(r"(?<![\w'])" + alternation(FIRST_PERSON_EN) + r"(?![\w'])", _I)
_FIRST_PERSON_ZH = re.compile(r"我(?!们)")
# a negation, or a verb of the opposite taste ("hate" makes a like slot negated)
_NEG_EN = re.compile(r"(?<![\w'’])" + alternation((*NEGATION_EN, *NEGATION_CHAT_EN, *DISLIKE_EN)) + r"(?![\w'’])|n['’]t\b",
                     _I)
_NEG_ZH = re.compile(NEGATION_ZH + "|" + alternation(DISLIKE_ZH)[3:-1])

# a word before the job noun ("data engineer", "retired teacher"), never one that starts a phrase of its own
# or judges ("a good cook", "an incredible director" say how well, not what someone does for a living)
_JOB_MODIFIER = (r"(?:(?!(?:of|the|a|an|for|with|to|in|at|on|or|but|who|that|which|my|your|his|her|their|our|"
                 r"like|than|as|not|from|by|big|huge|total|complete|bit|little|lot|good|great|bad|best|better|amazing|incredible|"
                 r"talented|brilliant|excellent|awesome|wonderful|fantastic|terrible|horrible|famous|real|true|natural|"
                 r"born|decent|terrific|genius|crazy)\b)[\w\-/&.']+\s+){0,4}")
_JOB_EN = (_JOB_MODIFIER + r"(?:" + "|".join(sorted(JOB_NOUNS_EN, key=len, reverse=True))
           + r"|\w+(?:ologist|ician|grapher|iatrist))s?\b")
_JOB_ZH = (r"[" + CJK_RANGE + r"]{0,4}(?:" + "|".join(sorted(set(JOB_NOUNS_ZH), key=len, reverse=True))
           + r"|(?<!会)(?<!成)(?<!党)(?<!队)(?<!团)(?<!学)员|[" + CJK_RANGE + r"]师)")

# (attribute, kind, multi-valued, English pattern, Chinese pattern); the first that matches wins.
# A pattern's last group, when it has one, is the value.
_ATTRS: tuple[tuple[str, str, bool, re.Pattern[str] | None, re.Pattern[str] | None], ...] = (
    ("boundary", "boundary", True,
     re.compile(r"\b(?:don't|do\s+not|never|stop|please\s+don't)\s+(?:ever\s+)?(?:" + "|".join(BOUNDARY_VERBS_EN) + r")\s+(.+)"
                r"|\bI\s+(?:don't|do\s+not)\s+want\s+to\s+(?:talk|hear|be\s+asked)\s+about\s+(.+)", _I),
     re.compile(alternation(BOUNDARY_NEGATORS_ZH) + r"(?:再)?" + alternation(BOUNDARY_VERBS_ZH) + r"(.+)"
                r"|我不想(?:再)?(?:聊|谈|讨论|提|听)(.+)")),
    ("name", "identity", False,
     re.compile(r"\bmy\s+name\s+is\s+(.+)|\b(?:just\s+)?call\s+me\s+(.+)|\bI(?:'m|\s+am)\s+called\s+(.+)", _I),
     re.compile(r"我(?:的名字)?(?:叫|是叫)(.+)|我的名字是(.+)")),
    ("age", "identity", False,
     re.compile(r"\bI(?:'m|\s+am)\s+(\d{1,3})\s*(?:years?\s+old|yo\b)|\bI\s+turned\s+(\d{1,3})\b", _I),
     re.compile(r"我(?:今年)?(\d{1,3})岁")),
    ("lives_in", "identity", False,
     re.compile(r"\b(?:live|lives|living|lived|reside|resides|based)\s+in\s+(.+)|\bmoved\s+to\s+(.+)", _I),
     re.compile(r"(?:住在|生活在|定居在?|搬到了?|搬去了?)(.+)")),
    ("from", "identity", False,
     re.compile(r"\b(?:(?:is|am|are|'m|'s)\s+(?:originally\s+)?from|grew\s+up\s+in|was\s+born\s+in)\s+(.+)", _I),
     re.compile(r"(?:来自|出生在|出生于|老家在|老家是)(.+)")),
    ("works_at", "identity", False,
     re.compile(r"\bworks?\s+(?:at|for)\s+(.+)|\bworking\s+(?:at|for)\s+(.+)|\bjob\s+at\s+(.+)", _I),
     re.compile(r"在(.{1,20}?)(?:工作|上班|实习)")),
    ("occupation", "identity", False,
     # a job: "works as a …", "I'm a (data) engineer", "Lena is a nurse" — not every "I'm a …"
     # ("I'm a beginner", "I'm a big fan of …", "I'm a morning person")
     re.compile(r"\b(?:I|I'm|I've|we|he|she|they|(?!(?:This|That|It|There|Here|What|Which|Everything|Something)\b)"
                r"(?-i:[A-Z][a-z]+))\b(?:\s+\w+){0,3}?\s+work(?:s|ed|ing)?\s+as\s+"
                r"(?:an?\s+|the\s+)(.+)|"
                r"\bI(?:'m|\s+am|\s+was)\s+(?:now\s+|currently\s+|also\s+|still\s+)?(?:an?|the)\s+(" + _JOB_EN + r")|"
                r"\b(?:he|she|(?-i:[A-Z][a-z]+)|" + _REL_EN + r"),?(?:'s|\s+is|\s+was)\s+(?:now\s+|currently\s+|also\s+)?"
                r"(?:an?|the)\s+(" + _JOB_EN + r")", _I),
     # said of oneself, a pronoun or a relative ("我是…", "她是…", "我同事是…"): a Chinese name is no subject
     # riko derives, so "李强是个警察" must not become the user's job
     re.compile(r"(?:我|他|她|" + _REL_ZH + r")(?:现在|目前|以前|曾经|已经|也|还|就|一直|在)?"
                r"(?:是|当(?!然|时|中|地|初|天|年|前|下|面))(?:了|过)?(?:一名|一个|一位|个|名|位)?(" + _JOB_ZH + r")"
                r"|我的(?:职业|工作)是(?:一名|一个|一位|个)?(" + _JOB_ZH + r")"
                r"|我(?:现在|目前|以前|一直|主要)?从事(.{1,10}?)(?:工作|行业)")),
    ("studies", "identity", False,
     # the subject studies a field; not "the study cafe", "my study session", "case studies"
     re.compile(r"\b(?:I|we|he|she|they|(?-i:[A-Z][a-z]+))(?:'m|\s+am|\s+is|\s+are|'re)?\s+(?:currently\s+|also\s+|now\s+)?"
                r"(?:study|studies|studying|studied|majoring\s+in|major\s+in|majored\s+in)\s+"
                r"(?!(?:session|plan|cafe|block|group|schedule|time|hard|for|the|a|an|it|this|that|with|at|in|on|all|every)\b)(.+)"
                r"|\bmy\s+major\s+is\s+(.+)", _I),
     re.compile(r"(?:学的是|专业是|在读|读的是)(.+)")),
    ("diet", "identity", False,
     # a diet someone keeps ("I'm vegan", "my vegan diet", "Lena is vegetarian"), not any mention of vegan food
     re.compile(r"(?:\b(?:'m|am|is|are|'re|been|I\s+(?:eat|follow|keep|went))\s+(?:a\s+|an\s+|strict(?:ly)?\s+|fully\s+|mostly\s+)*"
                r"|\b(?:my|our|his|her|their)\s+(?:strict\s+)?(?=\w+\s+diet\b))"
                r"(vegetarian|vegan|pescatarian|gluten[-\s]free|lactose[-\s]intolerant|halal|kosher)\b"
                r"(?!\s+(?:friendly|options?|food|restaurants?|places?|cafes?|meals?|menu|dishes?|community|kitchen|recipes?))|"
                r"\b(?:don't|do\s+not|never)\s+eat\s+(meat|pork|beef|fish|dairy|eggs)\b", _I),
     re.compile(r"(素食|吃素|不吃肉|不吃猪肉|不吃牛肉|乳糖不耐)")),
    ("allergy", "identity", False,
     re.compile(r"\ballergic\s+to\s+(.+)|\b(\w+)\s+allergy\b", _I),
     re.compile(r"对(.+?)过敏")),
    ("likes", "preference", True,
     # "like" as a comparison is no taste: "feels like it's splitting", "sounds like fun", "costs like $5"
     re.compile(r"(?<!feel\s)(?<!feels\s)(?<!felt\s)(?<!look\s)(?<!looks\s)(?<!sound\s)(?<!sounds\s)(?<!seem\s)"
                r"(?<!seems\s)(?<!just\s)(?<!,\s)(?<!something\s)(?<!stuff\s)(?<!things\s)(?<!more\s)(?<!less\s)"
                r"\b(?:like|likes)\s+(?!(?:this|that|it|a\s+(?:lot|bit|ton)|when|how|what|those|these|crazy|forever|\d)\b)(.+)|"
                r"\b(?:'m|am|are|'re|is|'s|really|totally|so|big|not)\s+into\s+(.+)|"
                r"\b(?:love|loves|prefer|prefers|enjoy|enjoys|adore|adores|fan\s+of|"
                + alternation(DISLIKE_EN)[3:-1] + r")\s+(.+)|"
                r"\bfavou?rite\s+(\w+(?:\s+\w+)?)\s+(?:is|are)\s+(.+)", _I),
     re.compile(r"(?:喜欢|热爱|喜爱|偏好|爱喝|爱吃|爱看|爱听|爱|迷上了|讨厌|受不了|反感|不喜欢|不爱)(.+)|最喜欢的(.+)")),
    ("plan", "plan", True,
     re.compile(r"\b(?:plan(?:ning)?|plans|intend(?:s|ing)?|hop(?:e|ing)|aim(?:ing)?|decided|going|want|wants|"
                r"would\s+like|'d\s+like|will|'ll|thinking\s+about|considering)\s+(?:to\s+)?(.+)|"
                r"\b(?:goal|plan|dream|resolution)\s+is\s+to\s+(.+)", _I),
     re.compile(r"(?:打算|计划|准备|决定|想要|想去|希望|要去|将要|会去)(.+)")),
    ("has", "fact", True,
     re.compile(r"\b(?:have|has|got|own|owns|bought|adopted)\s+(?:a|an|two|three|\d+|my|new)?\s*(.+)", _I),
     re.compile(r"(?:有一?[个只位台辆条]?|买了一?[个只台辆]?|养了一?[只条]?)(.+)")),
)
_TIME_AHEAD = re.compile(
    r"\b(?:" + alternation(TIME_AHEAD_EN)[3:-1] + r"|next\s+\w+|later\s+this\s+\w+|in\s+(?:a|\d+|two|three|few)\s+"
    r"(?:days?|weeks?|months?|years?))\b|" + alternation(TIME_AHEAD_ZH)[3:-1], _I)
_EVENT_EN = re.compile(
    r"\b(?:I|we|he|she|they|[A-Z][a-z]+)\s+(?:just\s+|finally\s+|recently\s+|also\s+)?"
    r"(went|got|started|finished|adopted|visited|moved|quit|joined|met|bought|won|lost|passed|failed|graduated|"
    r"married|broke|began|completed|launched|signed|left|returned|travell?ed|ran|hiked|cooked|made|wrote|read|"
    r"watched|saw|tried|took|had|attended|booked|sold|built|fixed|learned|learnt|decided|called|found|[a-z]{3,}ed)\b",
)
_EVENT_ZH = re.compile(r"了|过|刚刚|昨天|上周|去年|前天|上个?月")
_PAST_TIME = re.compile(
    r"\b(?:" + alternation(TIME_PAST_EN)[3:-1] + r"|\d+\s+(?:days|weeks|months|years)\s+ago|ago)\b", _I)
_VALUE_STOP = re.compile(r"[,，.。!！?？;；:：(（]|(?<!\s)\s+(?:and|but|because|since|so|when|while|with|which|who|over|than|"
                         r"instead|rather)\s+", _I)
_KEY_DROP = frozenset("a an the my our your his her their some any this that these those to of for in on at "
                      "really very so much more most go going get new i i'm i've i'll i'd me we we're us it it's "
                      "is am are was were be been again ever next last this year week month weekend tomorrow "
                      "today tonight yesterday lately recently now still just also".split())
_KEY_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'").replace("‘", "'")


def relation_alias(phrase: str) -> tuple[str, str, str] | None:
    """``(English relation, entity kind, gender)`` of a relation noun in either language, or None."""
    key = phrase.casefold().strip()
    key = re.sub(r"^(?:my|our)\s+", "", key)
    if key in _RELATIONS:
        forms, kind, gender = _RELATIONS[key]
        return key, kind, gender
    if phrase in _ZH_RELATION:
        en = _ZH_RELATION[phrase]
        return en, _RELATIONS[en][1], _RELATIONS[en][2]
    return None


def canonical_place(name: str) -> str | None:
    """The gazetteer's canonical (English) name of a place said in English or Chinese."""
    return _ZH_PLACE.get(name) or _PLACE_EN.get(name.casefold())


def _object_key(value: str) -> str:
    """A short, language-stable key for the object of a multi-valued slot."""
    value = _VALUE_STOP.split(value, maxsplit=1)[0].strip()
    place = _PLACE_ZH_RE.search(value)
    if place:
        return _ZH_PLACE[place.group(0)].casefold().replace(" ", "_")
    words = [w for w in _KEY_WORD.findall(value.casefold()) if w not in _KEY_DROP]
    if words:
        for w in words:
            if w in _PLACE_EN:
                return w.replace(" ", "_")
        return "_".join(words[:3])[:40]
    cjk = "".join(_CJK.findall(value))
    return cjk[:6]


def _clean_value(value: str) -> str:
    return _VALUE_STOP.split(value, maxsplit=1)[0].strip(" \t\"'“”「」*").strip()[:80]


class _Names:
    """Entities found in one text, keyed by canonical name, in first-seen order."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.kinds: dict[str, str] = {}
        self.aliases: dict[str, list[str]] = {}

    def canonical(self, name: str) -> str:
        """The entity ``name`` is an alias of (a nickname, a relation phrase), else ``name``."""
        for known, aliases in self.aliases.items():
            if name in aliases:
                return known
        return name

    def add(self, name: str, kind: str, *aliases: str) -> None:
        name = self.canonical(name.strip())
        if not name or not names_anyone(name):
            return
        if name not in self.kinds:
            self.order.append(name)
            self.kinds[name] = kind
            self.aliases[name] = []
        elif self.kinds[name] == "other" and kind != "other":
            self.kinds[name] = kind
        for alias in aliases:
            alias = alias.strip()
            if alias and alias != name and alias not in self.aliases[name]:
                self.aliases[name].append(alias)

    def entities(self) -> tuple[Entity, ...]:
        return tuple(Entity(n, self.kinds[n], tuple(self.aliases[n])) for n in self.order)


_MOD = r"(?i:(?P<mod>(?:older|younger|little|big|best|oldest|youngest|twin)\s+)?)"
# one name, or several ("Luna and Oliver", "Luna, Oliver and Max"): the names a plural relation ties
_TIED_NAMES = r"(?P<name>[A-Z][a-z][\w\-]*(?:\s+[A-Z][a-z][\w\-]*)?(?:(?:,\s*[A-Z][a-z][\w\-]*)*(?:,?\s+(?i:and)\s+|\s*&\s*)" \
              r"[A-Z][a-z][\w\-]*)?)"
_REL_GROUP = r"(?i:(?P<rel>" + _REL_EN + r"))"
# each names its groups: ``name`` (the names tied), ``mod`` (older, little …) and ``rel`` (the relation)
_TIE_EN = (
    # "my sister Lena", "our dog Max", "my cats Luna and Oliver" (the name keeps its capital: no IGNORECASE on it)
    re.compile(r"\b(?i:my|our)\s+" + _MOD + _REL_GROUP
               + r"(?:s)?,?\s+(?i:named\s+|called\s+)?" + _TIED_NAMES),
    # "Lena, my sister" / "Lena (my sister)" / "Luna is my cat"; with nothing between, not at the start
    # of a sentence, where the capital is a verb's ("Remember my puppy", "Meet my sister")
    re.compile(r"\b(?P<name>[A-Z][a-z][\w\-]*)(?:,\s*|\s+\(|\s+(?i:is|was)\s+)(?i:my|our)\s+" + _MOD + _REL_GROUP + r"\b"),
    re.compile(r"(?<=[a-z,;]\s)(?P<name>[A-Z][a-z][\w\-]*)\s+(?i:my|our)\s+" + _MOD + _REL_GROUP + r"\b"),
    # "my sister is Lena" / "my sister's name is Lena" / "my cats' names are Luna and Oliver"
    re.compile(r"\b(?i:my|our)\s+" + _MOD + _REL_GROUP
               + r"(?:s)?(?i:'s\s+name|'?\s+names|s'\s+names)?\s+(?i:is|are)\s+(?i:called\s+|named\s+)?" + _TIED_NAMES),
    # "I have a sister named Lena", "we adopted two cats, Luna and Oliver"
    re.compile(r"\b(?i:have|has|had|got|adopted|rescued|own)\s+(?i:a|an|two|three|four|\d+)\s+" + _MOD + _REL_GROUP
               + r"(?:s)?(?:\s+(?i:named|called)|,)\s+" + _TIED_NAMES),
)
# a nickname said to be one (the full name first, or the nickname): "Jonathan, Jon for short",
# "Jonathan (we call him Jon)", "Jonathan goes by Jon", "Jon is short for Jonathan"
_NICK_EN = (
    (re.compile(r"\b([A-Z][a-z][\w\-]*)\s*(?:,\s*|\(\s*)(?i:or\s+|aka\s+|a\.k\.a\.\s+|also\s+known\s+as\s+)?"
                r"([A-Z][a-z][\w\-]*)\s+(?i:for\s+short)\b"), False),
    (re.compile(r"\b([A-Z][a-z][\w\-]*)\s*(?:,\s*|\(\s*|\s+)(?i:(?:who\s+)?(?:goes|went)\s+by|(?:who\s+)?(?:we|everyone|they|i)\s+"
                r"(?:all\s+)?calls?\s+(?:him|her|them|it)|nicknamed|aka|a\.k\.a\.|also\s+known\s+as|"
                r"(?:but\s+)?(?:everyone|we|they)\s+(?:just\s+)?calls?\s+(?:him|her|them))\s+([A-Z][a-z][\w\-]*)"), False),
    (re.compile(r"\b([A-Z][a-z][\w\-]*)\s+(?i:is\s+)?(?i:short\s+for|a\s+nickname\s+for)\s+([A-Z][a-z][\w\-]*)"), True),
)
_NICK_ZH = (
    # "小雨，我们叫她雨雨", "李强的小名叫强强", "强强是李强的外号"
    (re.compile(r"([" + CJK_RANGE + r"]{2,3}|[A-Z][a-z][\w\-]*)[，,]?\s*(?:我们|大家|家里人|朋友们)?(?:都)?(?:叫|喊|管)(?:她|他|它)(?:叫)?"
                r"\s*([" + CJK_RANGE + r"]{2,3}|[A-Z][a-z][\w\-]*)"), False),
    (re.compile(r"([" + CJK_RANGE + r"]{2,3}|[A-Z][a-z][\w\-]*)的?(?:小名|外号|昵称|绰号)(?:是|叫)\s*([" + CJK_RANGE + r"]{2,3}|[A-Z][a-z][\w\-]*)"), False),
    (re.compile(r"([" + CJK_RANGE + r"]{2,3}|[A-Z][a-z][\w\-]*)是\s*([" + CJK_RANGE + r"]{2,3}|[A-Z][a-z][\w\-]*)\s*的(?:小名|外号|昵称|绰号)"), True),
)
_TIE_ZH = (
    re.compile(r"我(?:家)?(?:的)?(" + _REL_ZH + r")(?:叫|是|名叫|名字叫)?\s*([A-Z][A-Za-z'\-]+)"),
    re.compile(r"我(?:家)?(?:的)?(" + _REL_ZH + r")(?:叫|名叫|名字叫)\s*([" + CJK_RANGE + r"]{2,3}(?=[，,。\s]|$|住|在|是|喜欢|要|去))"),
    re.compile(r"我(?:有|养了)(?:一|两)?[个只位条](" + _REL_ZH + r")(?:[，,]\s*)?(?:叫|名叫|名字叫)\s*([A-Z][A-Za-z'\-]+|["
               + CJK_RANGE + r"]{1,3})"),
    # a pet's doubled or 小 name right after the pet ("我的猫豆豆特别爱睡觉", "我家狗小白")
    re.compile(r"我(?:家)?(?:的)?(" + _PET_ZH + r")((?P<c>[" + CJK_RANGE + r"])(?P=c)|小[" + CJK_RANGE + r"])"),
)
_ZH_NAME_STOP = frozenset("住在 在 是 喜欢 要 去 也 和 跟 说 的 今年 现在 最近 已经".split())

# -- Chinese personal names ------------------------------------------------------------------------
# A common surname and one or two given characters ("李强", "李梓轩", "欧阳娜娜"), or a nickname
# 小X / 老X / 阿X, counts as a person only where the words treat it as one: a relative or
# 朋友 / 和 / 跟 / 告诉 … before it, or 是我的… / 说 / 的 / a verb after it at the head of a clause.
_ZH_SURNAMES_2 = "欧阳 司马 诸葛 上官 慕容 东方 皇甫 令狐 司徒 夏侯 长孙 尉迟 公孙".split()
# the common single-character surnames, without those that are mostly a word of their own (于, 万, 向, 和 …)
_ZH_SURNAMES_1 = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕"
                  "丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严"
                  "覃武戴莫孔汤康施牛樊葛邢乔伍庞颜倪庄聂章鲁岳翟殷詹耿焦俞柳祝舒阮柯纪梅凌毕裴霍涂苗盛翁冉骆"
                  "辛靳柴鲍喻祁蒲滕饶牟艾穆卓缪娄窦戚岑晏柏瞿佟臧闵邬姬栾隋刁荣寇桑甄仲敖巩佘邝")
# words that begin with a surname character without naming anyone (the common ones a sentence
# starts with or puts before 的 / 是 / 说 …)
_ZH_NOT_NAMES = frozenset("""
万一 万人 万元 上官 丛林 东方 严格 严肃 严重 乔迁 于是 任何 任务 何况 何必 何时 余下 党员 全国 全家
全部 全面 关于 关心 关注 关系 关键 农业 农村 冷静 凌晨 包子 包容 包括 包装 华为 华丽 华人 卓越 单位
单身 卫生 古代 古典 古老 叶子 司机 吉他 向前 向往 向来 周一 周三 周二 周五 周六 周到 周四 周围 周年
周日 周期 周末 周边 和平 和谐 唐朝 商务 商场 商店 商量 夏天 夏季 孙女 孙子 季节 宁愿 安全 安心 安排
安装 安静 宗教 宫殿 尚未 尤其 岳母 岳父 左右 巫师 师傅 师兄 师妹 师姐 师弟 席子 常常 常见 常规 庄园
应用 应该 康复 张开 张望 张罗 张贴 成为 成功 成绩 成长 戴着 房东 房子 房间 文件 文化 文字 文学 文章
文艺 方便 方向 方式 方案 方法 方言 方面 施工 时候 时尚 时期 时间 明天 明年 明显 明白 易于 景区 景点
曲子 曾经 朱红 李子 杜绝 林业 林子 柯基 桂花 梅花 欧元 欧洲 欧美 武术 毕业 毛巾 毛衣 江湖 池塘 汤圆
沙发 沙滩 温度 温暖 温柔 游戏 游泳 熊猫 牛奶 牛肉 王国 王牌 王者 甘心 田地 田野 申请 白天 白色 白菜
盛宴 石头 祝福 祝贺 程序 穆斯林 章节 童年 符合 简单 管理 米饭 纪念 罗列 胡子 胡说 舒服 舒适 艾滋
苏醒 范围 萧条 董事 蒙古 蓝色 解决 解释 许久 许多 谢谢 谷歌 费劲 费用 路上 路过 车子 辛苦 边上 连续
连锁 迟到 郑重 金牌 金融 金钱 金额 钟头 钟表 钱包 阳光 陆地 陆续 陈列 陈旧 陈述 雷雨 韩剧 韩国 项目
顾客 马上 马拉松 马路 高中 高兴 高大 高尔夫 高度 高手 高效 高温 高端 高级 高考 高速 高铁 麦当劳 麻烦
黄昏 黄油 黄瓜 黄色 黄金 齐全 龙虾
""".split())
# 小 / 老 / 阿 before a word rather than a name, and more words a sentence may start with
_ZH_NOT_NAMES |= frozenset("""
颜色 高峰 高峰期 高铁站 周五晚 周六晚 周日晚 金牌 程度 施工 孔雀 熊孩 江边 石板 白领 黎明 秦朝 宋朝 明朝
小区 小时 小心 小孩 小说 小吃 小姐 小伙 小组 小米 小型 小事 小学 小费 小卖 小镇 小路 小屋 小店 小狗 小猫 小鸟 小鱼 小朋
小红 小便 小票 小数 小麦 小腿 小偷 小样 小菜 小品 小号 小声 小提 小额 小巧 小众 小城 小村 小河 小山 小车 小弟 小妹 小子
老家 老是 老实 老鼠 老虎 老年 老人 老爸 老妈 老大 老板 老师 老婆 老公 老友 老乡 老化 老式 老街 老店 老地 老样 老天 老总
阿姨 阿里 阿胶 阿拉
""".split())
_ZH_GIVEN_STOP = set("啥的是说和跟与也在住都就还很又要去有会对把被给让今刚已最一不没们我你他她它这那了着过吗呢吧啊呀个些么什怎"
                     "岁年月日号点天里上下中前后从到为以及或而且但因所如果如比较更太真挺特别些每各某位名叫")
# what may follow a name: a verb, a particle or the end of the clause
_ZH_AFTER_NAME = re.compile(
    r"(?:是|的|说|和|跟|与|也|在|住|喜欢|爱|今年|要|去|来|有|会|很|都|还|已经|最近|刚|一起|告诉|问|昨天|今天|明天|"
    r"打算|计划|准备|想|觉得|参加|买|送|请|带|让|给|对|把|被|就|又|正在|每|平时|经常|从|当|做|学|在|毕业|结婚|"
    r"生日|老家|工作|上班|家|这|那|[，,。.!！?？;；、\s]|$)")
# what may come before a bare name (besides the start of a clause): words that treat it as someone
_ZH_BEFORE_RE = re.compile(r"(?:和|跟|与|同|给|对|告诉|问|找|见|见到|遇到|认识|叫|名叫|朋友|同事|同学|邻居|"
                            + _REL_ZH + r")$")
_ZH_NICK_AFTER = re.compile(r"(?:说|告诉|问|是我(?:的)?(?:" + _REL_ZH + r")|和我|跟我)")
_ZH_NICK = re.compile(r"(?:小|老|阿)[" + CJK_RANGE + r"]")


def _zh_people(text: str, names: _Names) -> dict[str, str]:
    """Chinese personal names the text treats as someone, as person entities; returns the relation
    ties it states ("张涛是我的叔叔", "我妹妹小雨" → ``{"叔叔": "张涛"}``, ``{"妹妹": "小雨"}``).

    A surname with one or two given characters is a name where a verb or particle follows it and
    a clause starts or a person cue (和, 跟, 告诉, 朋友, a relative …) comes before it; a nickname
    (小雨, 老王, 阿杰) only with a person cue on either side, so 小时, 老师, 周末, 高兴 name nobody.
    """
    ties: dict[str, str] = {}
    i = 0
    while i < len(text):
        found = _zh_name_at(text, i) if text[i] in _ZH_NAME_STARTS else None
        if found is None:
            i += 1
            continue
        name, end = found
        rel = None
        before = re.search(r"我(?:的)?(" + _REL_ZH + r")(?:叫|名叫|名字叫|是)?$", text[:i])
        after = re.match(r"是我(?:的)?(" + _REL_ZH + r")", text[end:])
        if before:
            rel = before.group(1)
        elif after:
            rel = after.group(1)
        en = _ZH_RELATION.get(rel) if rel else None
        if en is not None and rel is not None:
            names.add(name, _RELATIONS[en][1], rel, f"my {en}")
            ties[rel] = name
            ties[f"my {en}"] = name
        else:
            names.add(name, "person")
        i = end
    return ties


# the last words of a named Chinese event ("金融科技精英论坛", "户外徒步模型创作之旅", "高尔夫欢乐友谊赛")
_ZH_EVENT_SUFFIX = re.compile(
    r"(?:论坛|盛宴|研讨会|招聘会|交流会|分享会|发布会|博览会|展览会|音乐会|演唱会|运动会|见面会|读书会|峰会|年会|"
    r"晚会|盛典|沙龙|之旅|之夜|购物节|艺术节|音乐节|电影节|文化节|美食节|嘉年华|友谊赛|锦标赛|邀请赛|大赛|训练营|提升营|"
    r"夏令营|冬令营|工作坊)")
# where the name of an event starts: after what one does with it, a possessive or a demonstrative
_ZH_EVENT_CUT = re.compile(r".*(?:参加了|参加|参与|举办|举行|组织|开展|报名|去了|去|叫|是|的|这个|那个|这次|那次|这场|那场|一场|"
                            r"一个|一次|享受|体验|感受|欣赏|观看|尽在|喜欢|爱|听|看|办)")
_ZH_GENERIC_PREFIX = frozenset("公司 学校 部门 我们 单位 班级 今年 去年 明年 本次 本届 年度 小型 大型 视觉 味觉 听觉 "
                               "视听 双重 一场 这场 精彩".split())


def _zh_events(text: str, names: _Names) -> None:
    """Named Chinese events ("我将要参加金融科技精英论坛" → ``金融科技精英论坛``) as ``other``
    entities: two or more words before an event word, so 音乐会 or 公司年会 alone names none."""
    for m in _ZH_EVENT_SUFFIX.finditer(text):
        if _ZH_EVENT_SUFFIX.match(text, m.end()):
            continue  # "乘务长年会盛典": the longer name is the event, not "乘务长年会"
        start = m.start()
        while start > 0 and _CJK.match(text[start - 1]):
            start -= 1
        head = text[start:m.start()]
        cut = _ZH_EVENT_CUT.match(head)
        if cut:
            head = head[cut.end():]
        head = head.lstrip("我将要会")
        tail = re.match(r"·[" + CJK_RANGE + r"]{1,8}?(?=的|[，,。\s]|$)", text[m.end():])
        if len(head) >= 2 and head not in _ZH_GENERIC_PREFIX and not _ZH_NEG_HEAD.match(head):
            # a name with a subtitle after "·" ("摄影盛宴·友聚光影") is one event
            names.add(head + m.group(0) + (tail.group(0) if tail else ""), "other")


_ZH_NEG_HEAD = re.compile(r"[不没这那哪每各某]")

# a name starts with a nickname's 小 / 老 / 阿 or a surname: no other character is tried
_ZH_NAME_STARTS = frozenset("小老阿") | frozenset(_ZH_SURNAMES_1) | frozenset(s[0] for s in _ZH_SURNAMES_2)


def _zh_name_at(text: str, i: int) -> tuple[str, int] | None:
    """The Chinese name that starts at ``text[i]`` and its end, when the words there treat it as someone."""
    if i and (_CJK.match(text[i - 1]) or text[i - 1] == "·") and not re.search(_ZH_BEFORE_RE, text[:i]):
        clause_start = False
    else:
        clause_start = True
    cue_before = bool(re.search(_ZH_BEFORE_RE, text[:i]))
    if _ZH_NICK.match(text, i):
        name, end = text[i:i + 2], i + 2
        if name in _ZH_NOT_NAMES or name in _ZH_RELATION or name[1] in _ZH_GIVEN_STOP:
            return None
        if (cue_before and _ZH_AFTER_NAME.match(text, end)) or re.match(_ZH_NICK_AFTER, text[end:]):
            return name, end
        return None
    surname = text[i:i + 2] if text[i:i + 2] in _ZH_SURNAMES_2 else text[i] if text[i] in _ZH_SURNAMES_1 else ""
    if not surname or not clause_start:
        return None
    for given in (2, 1):
        end = i + len(surname) + given
        name = text[i:end]
        if len(name) < len(surname) + given or not all(_CJK.match(c) for c in name[len(surname):]):
            continue
        if any(c in _ZH_GIVEN_STOP for c in name[len(surname):]) or name[-1] in "家人们" \
                or name[len(surname):] in _ZH_RELATION:
            continue
        if name in _ZH_NOT_NAMES or name[:2] in _ZH_NOT_NAMES or name in _ZH_RELATION or _PLACE_ZH_RE.match(name):
            continue
        if _ZH_AFTER_NAME.match(text, end):
            return name, end
    return None


def _ties(text: str, names: _Names) -> dict[str, str]:
    """Relation phrases tied to a name by the text: ``{"my sister": "Lena", "妹妹": "Lena"}``."""
    ties: dict[str, str] = {}
    for pattern in _TIE_EN:
        for m in pattern.finditer(text):
            tied, mod, rel = m.group("name"), m.group("mod") or "", m.group("rel")
            if m.start("name") < m.start("rel") and any(a.startswith("my ") for a in names.aliases.get(tied, ())):
                continue  # "Lena, my sister" after "my sister Lena, my brother Tom": Lena is already tied
            rel_key = rel.casefold().rstrip("s") if rel.casefold().rstrip("s") in _RELATIONS else rel.casefold()
            info = _RELATIONS.get(rel_key)
            if info is None:
                continue
            phrase = f"my {mod.casefold()}{rel_key}"
            for name in re.split(r",\s*|,?\s+(?i:and)\s+|\s*&\s*", tied):
                first, _, second = name.partition(" ")
                if second and (_common(second) or second.casefold() in _RELATIONS or not could_be_name(second)
                               or re.fullmatch(r"[A-Z][a-z]{2,}(?:ed|ing)", second)):
                    name = first  # "my sister Lena Monday": the name is one word
                if name.casefold() in _NOT_NAMES or name.casefold() in _RELATIONS:
                    continue
                if re.fullmatch(r"[A-Z][a-z]{3,}(?:ed|ing)", name) and re.match(
                        r"\s+(?!(?:and|or|is|was|who|has|had|will|would|and)\b)[a-z]", text[m.end():]) \
                        and not re.match(r"\s+" + _PERSON_VERB, text[m.end():]):
                    continue  # a verb typed with a capital: "my sister Wanted yeast …"
                names.add(name, info[1], phrase, *info[0][:1])
                ties.setdefault(phrase, name)
                ties.setdefault(f"my {rel_key}", name)
    for pattern in _TIE_ZH:
        for m in pattern.finditer(text):
            rel, name = m.group(1), m.group(2)
            if name in _ZH_NAME_STOP or any(name.startswith(s) for s in _ZH_NAME_STOP if len(s) > 1):
                continue
            en = _ZH_RELATION.get(rel)
            if en is None:
                continue
            names.add(name, _RELATIONS[en][1], rel, f"my {en}")
            ties[rel] = name
            ties[f"my {en}"] = name
    if _CJK.search(text):
        ties.update(_zh_people(text, names))
    for pattern, nick_first in (*_NICK_EN, *_NICK_ZH):
        for m in pattern.finditer(text):
            full, nick = (m.group(2), m.group(1)) if nick_first else (m.group(1), m.group(2))
            if _CJK.match(full) and not nick_first:
                # a Chinese name has no spaces around it: the one the text already names ("我妹妹小雨，…")
                full = next((full[i:] for i in range(len(full) - 1) if full[i:] in names.kinds), "")
                nick = nick.rstrip("".join(_ZH_GIVEN_STOP))
                if not full or len(nick) < 2 and _CJK.match(nick):
                    continue
            if full == nick or _common(full) or _common(nick) or full in _ZH_RELATION or nick in _ZH_RELATION \
                    or full.casefold() in _RELATIONS or nick.casefold() in _RELATIONS:
                continue
            full = names.canonical(full)
            # a nickname joins the person (or pet) it is said of: one entity, the nickname an alias
            names.add(full, names.kinds.get(full, "person"), nick)
            ties[nick] = full
    return ties


#: Where someone works or studies: what follows names an organisation ("a software engineer at
#: Shopify", "a job interview at Spotify", "I study biology at UCLA", "graduated from MIT").
_WORKS_AT = re.compile(r"\b(?:work|works|working|worked|job|intern|internship|interview|position|role|employed|hired|"
                       r"(?:study|studies|studying|studied|majoring)(?:\s+[a-z]+)?|student|graduated|degree|enrolled|"
                       r"engineer|developer|designer|manager|analyst|nurse|teacher|scientist|researcher|consultant|"
                       r"accountant|lawyer|professor|lecturer)\s+(?:at|for|from)\s+(?:the\s+)?$", re.IGNORECASE)


#: What follows a possessive that owns nothing ("Sotheby's, Christie's", "I love Trader Joe's."):
#: the 's is part of a shop's or a house's name.
_OWNS_NOTHING = re.compile(r"\s*(?:[,;:)!?]|\.(?:\s|$)|$|(?<=\s)(?:and|or|&)\s)")


def _find_entities(text: str, names: _Names) -> None:
    """Places, organisations, projects and people named in ``text`` (besides the relation ties)."""
    for m in _PLACE_ZH_RE.finditer(text):
        en = _ZH_PLACE[m.group(0)]
        names.add(en, "place", m.group(0))
    zh = bool(_CJK.search(text))
    if zh:
        _zh_events(text, names)
    quoted = [] if zh else _quoted_names(text, names)
    heading = None if zh else _heading_title(text)
    runs = _LATIN_IN_ZH.finditer(text) if zh else _CAP_RUN.finditer(text)
    for m in runs:
        if any(a <= m.start() < b for a, b in quoted):
            continue  # inside a quoted name (or a quoted word that names nothing)
        if heading is not None and heading <= m.start() and not says_what_it_names(m.group(0)):
            continue  # the title of a step, a goal or a topic ("Objective 1: Streamline Production Processes")
        # "Lena's cat" names Lena, "Michelle'll like it" Michelle; "& Saturday" is no name
        run = re.sub(r"['’](?:s|ll|d|ve|re)$", "", m.group(0).strip(" '-&"))
        owned = bool(re.search(r"['’]s$", m.group(0)))  # "Lena's": an owner, so a name
        if owned and _OWNS_NOTHING.match(text, m.end()):
            run, owned = m.group(0).strip(" '-&"), False  # "Sotheby's, Christie's", "at Macy's and": a shop's own name
        contracted = run != m.group(0) and not owned
        start = m.start()
        words = run.split()
        # a capital at the start of the text or of a sentence is no evidence of a name
        at_start = bool(_SENTENCE_START.search(text[:start]))
        # "The Ordinary" in mid-sentence is a title; "Great Wall" keeps its adjective
        keep_first = len(words) > 1 and words[1].casefold() not in _NOT_NAMES and (
            words[0].casefold() in _NAME_ADJECTIVES or (words[0] == "The" and not at_start))
        article = words[0] in ("A", "An") and len(words) > 1
        while words and not keep_first and (_common(words[0]) or words[0].casefold() in _RELATIONS or words[0] == "&"
                                            or re.fullmatch(r"[A-Z]{2,}s", words[0])  # "URLs", "IDs Q45": a plural
                                            or len(words) > 1 and words[0].casefold() in _ADDRESS_TERMS):
            words = words[1:]
            at_start = False
        if len(words) > 2 and words[1] == "of" and (_job_title(words[0]) or words[0].casefold() in ROLE_HEADS_EN):
            words = words[3:] if words[2].casefold() == "the" else words[2:]  # "the President of Kenya" names Kenya
            if not words:
                continue
        if article and len(words) == 1 and canonical_place(words[0]) is None and not owned:
            continue  # "A Layer is a set of units": a noun after "a", as mid-sentence ("a Research Problem")
        if len(words) > 1 and (re.fullmatch(r"[A-Z]|[IVX]+|\d+|V\d+", words[-1]) and (
                words[-1] != "I" or re.match(r"\s*(?:and|&|to|-|–|,)\s*[IVX]+\b", text[m.end():]))
                or re.fullmatch(r"[A-Z]{2,3}\d+", words[-1]) and words[-2] in ("Flight", "Train", "Bus", "Gate", "Seat")):
            continue  # a label: "Series A", "Plan B", "Act II", "Acts I and II", "Protocol V2", "Flight JL108"
        before_i = len(words)
        while words and (words[-1].casefold() in ("i", "i'm", "i've", "i'll", "i'd")
                         or len(words) > 1 and words[-1].isupper() and _common(words[-1])):
            words = words[:-1]  # "Previously I", "Personally I", "Vinland IS bugs bunny"
        if len(words) > 1 and re.fullmatch(r"[A-Z]{2,}s", words[-1]):
            words = words[:-1]  # "Python SDKs": SDKs for Python, a common noun after a name
        if not words or at_start and len(words) == 1 and len(words) < before_i:
            continue  # a word that opens a sentence before "I" ("Previously I played …") names no one
        if (all(w.casefold() in FOODS_EN for w in words) or words[-1].casefold() in FOODS_EN
                or " ".join(words).casefold() in FOOD_PHRASES_EN) and not re.search(
                r"\b(?:called|named|name\s+is|name['’]s|call(?:ed)?\s+(?:him|her|it|them))\s+$",
                text[max(0, start - 24):start], _I):
            continue  # a food, a drink, a grape or a currency ("Jollof", "Bordeaux Merlot", "Peking Duck", "Naira"): no page
        if _QUANTITY.search(text[:start]) and not re.match(r"\s+" + _PERSON_VERB, text[m.end():]):
            continue  # an ingredient or a price, not a name: "80 g Strawberry", "2 Tbsp Oat Bran", "5 Bucks"
        if _COMPOUND_ADJECTIVE.search(words[-1]):
            continue  # "Python-based", "AI-powered", "Few-Shot": a description, not a name
        if len(words) == 1 and (_ADJECTIVE.fullmatch(words[0]) or _VERB_CAPITALISED.fullmatch(words[0]) and re.match(
                r"\s+(?!(?:and|or|is|was|who|has|had|will|would|at|in|on|to|for|with|from|by|of|about|"
                r"yesterday|today|last|this|that|when|because|but|so)\b)[a-z]", text[m.end():])) \
                and not re.match(r"\s+" + _PERSON_VERB, text[m.end():]):
            continue  # a capitalised adjective ("fast and Powerful"), a verb ("my sister Wanted yeast")
        if len(words) == 1 and _NAME_ADJECTIVE.fullmatch(words[0]) and re.match(
                r"\s+(?!(?:and|or|but|over|in|on|at|to|from|with|for|of|is|was|are|were|has|had|which|who|that|than|"
                r"as|by|because|since|when|while|so)\b)[a-z]", text[m.end():]) \
                and not re.match(r"\s+(?:(?:just|also|then|really|finally|always|never)\s+)?" + _PERSON_VERB, text[m.end():]):
            continue  # an adjective made of a name before its noun: "the Pythagorean theorem", "Nigerian founders"
        if zh and not words[0][:1].isupper():
            continue
        run = " ".join(words)
        rest = text[m.end():]
        if len(words) == 1 and (run.casefold() in SECTOR_WORDS_EN or run.casefold() in DEPARTMENTS_EN
                                or run.casefold() in INDEFINITE_PRONOUNS_EN or _job_title(run) or _ADVERB.fullmatch(run)
                                or len(run) >= 8 and run.casefold().endswith(GERMAN_PLURAL_ENDINGS)):
            continue  # a sector ("the Edtech industry"), a team ("a day with Marketing"), "Nobody", a role
            # ("the Judge answered"), an adverb ("Most Importantly"), a German plural common noun ("Hofläden")
        if run == "God" and re.search(r"\b(?:thank|oh\s+my|my|for)\s+$", text[:start], _I) \
                or run == "God" and re.match(r"\s+(?:knows|willing|forbid|bless)\b", rest):
            continue  # an exclamation ("thank God", "oh my God", "God knows"), no one spoken of
        if len(words) == 1 and text[start - 1:start] == "[" and rest.startswith("]") and not rest.startswith("]("):
            continue  # a bracketed status or tag ("mark it [Blocked]"), not a link's text
        if not zh and _not_a_name(text, start, m.end(), run, at_start):
            continue
        if at_start and re.match(r"(?:\s+(?:and|&|or|[A-Z][\w\-]*))+\s*:", rest):
            continue  # a heading of several words ("Final Testing and Validation: 5 hours")
        if at_start and len(words) == 1 and run.casefold() not in _PLACE_EN and run not in names.kinds:
            # a sentence-initial capital names someone only when a verb that says what a person
            # does follows it ("Muhammad intends ...", not "Music has ...", "Snow is ...")
            if not re.match(r"\s+(?:(?:just|also|then|really|finally)\s+)?" + _PERSON_VERB, rest) \
                    and not (zh and re.match(r"\s*(?:是|说|住|在|要|去|喜欢|和|跟|今年|也|很)", rest)):
                continue
            if run.casefold() in _RELATIONS or run.endswith("ing"):
                continue
        if len(words) == 1 and run.casefold() in NAME_ABBREVIATIONS:
            continue  # "lives in St": what is left of "St. Louis" cut at its dot
        if "-" in run and all(_common(part) for part in run.split("-")):
            continue  # "Monday-Wednesday-Friday"
        if len(run) < 2 or run.isupper() and len(run) > 5 or len(words) == 1 and (
                _PROJECT_WORD.fullmatch(run) or _ORG_SUFFIX.fullmatch(run)) or run.casefold() in _HOLIDAYS:
            continue  # ("The App", "Project", "the Company": the word for a kind of thing; "New Year")
        if len(words) == 1 and re.search(r"[\"“]$", text[:start]) and not re.match(r"[^\"”\n]*[\"”]", text[m.end():]):
            continue  # the first word of a quotation left open ('I've clicked "Search')
        before = text[max(0, start - 12):start].casefold()
        after = text[m.end():m.end() + 12].casefold()
        titled = _job_title(words[-1])  # "Project Manager": a role, though a project word opens it
        place = canonical_place(run)
        if place:
            names.add(place, "place", *_PLACES.get(place, ()))
        elif _ORG_SUFFIX.search(run) or _WORKS_AT.search(text[max(0, start - 40):start]):
            names.add(run, "organisation")
        elif not titled and _PROJECT_WORD.search(before[-9:]) and not before.endswith(" by ") \
                or _PROJECT_WORD.match(after.strip()) or not titled and _PROJECT_WORD.match(run) \
                or (len(words) > 1 and _PROJECT_WORD.fullmatch(words[-1])) \
                or re.search(_PROJECT_WORD.pattern + r"\s+(?:called|named|titled)\s+$", text[max(0, start - 40):start], _I):
            names.add(run, "project")
        elif len(words) > 1 and re.fullmatch(r"[A-Z]{2,5}s?", words[-1]):
            names.add(run, "other")  # "Alpha Vantage API", "Hugging Face SDK": a product, not a place or a person
        elif len(words) > 1 and (_PLACE_WORD.fullmatch(words[-1]) or _PLACE_WORD.fullmatch(words[0])):
            names.add(run, "place")
        elif len(words) == 1 and re.fullmatch(r"[A-Z]{2,}s?", run):
            continue  # an acronym ("ID", "CV", "PIP") names a thing only where the words say what it is
        elif (len(words) > 1 and (_job_title(words[-1]) or _topic(words, text) or _LABEL_AFTER.match(rest))
              or len(words) == 1 and _abstract_word(run, text) and not re.search(r"[*_\"“'‘]$", text[:start])) \
                and not _cued_person(text, start, rest) \
                and not owned:  # ("Sustaining Action's mission": an owner, so a name)
            continue  # a job title ("Development Director"), a topic or a heading ("Fire Alarm Installation",
            # "GDPR Compliance", "Radical Acceptance"), not a name
        elif _VERSION_AFTER.match(rest):
            names.add(run, "other")  # "with Postman v10.15.0": a product, not someone
        elif re.search(r"\b(?:in|to|from|at|near|visit|visited|visiting)\s+(?:the\s+)?$", before) \
                and not (owned and re.match(r"\s+[a-z]", text[m.end():])) \
                and not re.search(r"[a-z][A-Z]", run) and not _SPEAK_TO.search(text[max(0, start - 30):start]):
            names.add(run, "place")  # (not "to Maxwell's equations": a name's term, not a place)
        elif run not in names.kinds:
            # a name is a person's only when the words treat it as someone: a verb after it, or
            # "with / met / told / and" before it ("usually Tieguanyin" names a tea, not a friend)
            # ("Las Vegas was amazing", "Tiramisu tastes great" name no one: "is" / "was" make a
            # person of one word only, any other verb must be one of what people do)
            someone = bool(re.match(r"\s+(?:(?:just|also|then|really|finally|always|never)\s+)?" + _PERSON_VERB, rest)) \
                or len(words) == 1 and bool(re.match(r"\s+(?:is|was|has|had|will|would|can|and\s+I)\b", rest)) \
                or bool(re.search(r"\b(?:with|met|meet|meeting|told|tell|asked|ask|call|friend|visit(?:ed|ing)?\s+my)\s+$",
                                  before)) \
                or bool(_CALLED_SOMEONE.search(text[max(0, start - 40):start])) \
                or bool(_SPEAK_TO.search(text[max(0, start - 30):start])) \
                or (len(words) == 2 and before.endswith(" by ")) or (zh and bool(re.match(r"\s*(?:是|说|住|在|要|去|喜欢|和|跟)", rest))) \
                or len(words) == 1 and contracted  # "Michelle'll really connect": the subject of a verb
            if _CALLED_PET.search(text[max(0, start - 40):start]):
                names.add(run, "pet")  # "a hamster called Peanut"
                continue
            if re.search(r"\b(?:called|named)\s+$", before) and not _CALLED_SOMEONE.search(text[max(0, start - 40):start]):
                names.add(run, "other")  # "a dish called Chicken and Waffles": a name, not a person's
                continue
            if not someone and len(words) == 1 and not at_start and \
                    re.search(r"\b(?:usually|often|always|mostly|sometimes|like|some|any|more|less)\s+$", before):
                continue  # "usually Tieguanyin": a word used as a common noun (a product before a noun,
                # "the Notion database", stays a name)
            camel = bool(re.search(r"[a-z][A-Z]", run))  # "OpenCV", "MediaPipe": a product, not a person
            names.add(run, "person" if someone and len(words) <= 2 and not camel else "other")


_JOB_WORDS = frozenset(JOB_NOUNS_EN)


def _job_title(word: str) -> bool:
    """Whether ``word`` is a job noun ("Director", "Managers"): the end of a job title."""
    folded = word.casefold()
    return folded in _JOB_WORDS or folded.endswith("s") and folded[:-1] in _JOB_WORDS


# a title's or a firm's cue in the words: "the movie Paranormal Activity", "the company Acadian Construction"
_TITLE_CUE = re.compile(r"\b(?:movie|film|show|series|song|album|book|novel|documentary|musical|play|watch(?:es|ed|ing)?|read(?:s|ing)?|"
                        r"company|firm|business|brand|organi[sz]ation|agency|publisher)\b", _I)


def _topic(words: Sequence[str], text: str) -> bool:
    """Whether a Title-Case run of several words ends in an abstract noun ("Fire Alarm Installation",
    "GDPR Compliance", "Radical Acceptance"): a topic or a heading, not a name — unless the noun
    names an event or a body ("Donghak Peasant Revolution"), is a name's ("Jennifer Lawrence"),
    a word is a product's ("GitHub Actions", "VMware Fusion") or the words say it is a title or a
    firm ("the movie Paranormal Activity")."""
    last = words[-1].casefold().removesuffix("s")
    if last in NAMED_ABSTRACT_HEADS or last + "s" in NAMED_ABSTRACT_HEADS or last in NAMES_LIKE_TOPICS \
            or not last.endswith(TOPIC_NOUN_ENDINGS):
        return False
    return not any(re.search(r".[A-Z]", w) and not w.isupper() for w in words) \
        and not _TITLE_CUE.search(text.replace(" ".join(words), " "))  # (the cue is another word's: "Business Operations")


def _abstract_word(word: str, text: str) -> bool:
    """Whether one capitalised word is a long gerund or abstract noun ("Scheduling", "Constructing",
    "Organization", "Description"): a topic, not a name, where nothing says it is a title."""
    folded = word.casefold()
    if len(folded) < 9 or folded in NAMES_LIKE_TOPICS or re.search(r".[A-Z]", word):
        return False
    # (not "Wangfujing", "Chongqing": a Chinese name's syllable; not "Buddhism": a faith)
    gerund = folded.endswith("ing") and not re.search(r"(?:[jqxy]|[mnp]|[^aeiou]e)ing$|eng$", folded)
    abstract = folded.endswith(TOPIC_NOUN_ENDINGS) and not folded.endswith("ism")
    return (gerund or abstract) and not _TITLE_CUE.search(text.replace(word, " "))


def _cued_person(text: str, start: int, rest: str) -> bool:
    """Whether the words around a run treat it as someone: a verb of what people do after it,
    "with / met / told / by" or a verb of speaking to before it."""
    before = text[max(0, start - 30):start]
    return bool(re.match(r"\s+(?:(?:just|also|then|really|finally|always|never)\s+)?" + _PERSON_VERB, rest)
                or re.search(r"\b(?:with|met|meet|meeting|told|tell|asked|ask|by)\s+$", before, _I)
                or _SPEAK_TO.search(before))


def _common(word: str) -> bool:
    """A capitalised word that names nothing ("The", "Monday", "We've", "They're")."""
    folded = word.casefold().strip("'")
    # ("Koreans", "Mondays": the plural of a word that names nothing)
    return folded in _NOT_NAMES or folded.split("'")[0] in _NOT_NAMES \
        or len(folded) > 4 and folded.endswith("s") and folded[:-1] in _NOT_NAMES


# the start of a sentence, a line or a list item, markdown marks included ("1. **Team:** Short, …")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:;\n])[\s\u200b-\u200d\u2060\ufeff*_#>•○●◦▪■□✓✔☐☑➢➤►\-–—\"'“(\[]*(?:\d+[.)\-]\s*)?[\s*_\"'“]*$")


def _not_a_name(text: str, start: int, end: int, run: str, at_start: bool = False) -> bool:
    """Whether the words around a capitalised run show it names nothing: a heading or label
    ("Situation/Problem:", "Day 4", "Key Result 2:"), a noun phrase after "a / an" ("a Research
    Problem", "a Greek island"), a field after "majoring in", or words the text also writes in
    lower case ("Hair Salon: visit a hair salon")."""
    rest, head = text[end:], text[:start]
    if re.match(r"\s*(?:\d+[.)]?\s*)?(?::|/|\|)|\s[-–—]\s", rest) or re.search(r"[/|]\s*$", head) \
            or re.match(r"\s+(?:\d|[IVX]+\b)", rest) and len(run.split()) == 1:
        return True
    if " " not in run and (re.search(r"\d", run) or re.search(r",\s*$", head) and re.match(r"\s*[.!?]*\s*$", rest)):
        return True  # "D15", "V2"; a word one speaks to at the end ("…, Mas")
    if re.search(r"\b(?:a|an)\s+(?:(?!(?:called|named|titled|dubbed|by|of|from|with|for|at|in|on|to|about|and|or)\b)[a-z][\w\-]*\s+){0,2}$", head) \
            and canonical_place(run) is None:
        return True
    if re.search(r"\b(?:major(?:ing|ed)?|degree|interested|experience|skilled|expert(?:ise)?|course|classes|class|"
                 r"background|phd|master'?s|bachelor'?s|diploma|specia\w+)\s+in\s+$", head, _I):
        return True
    # a single word mid-sentence stays a name though the user also types it in lower case ("python")
    folded = run.casefold()
    return (at_start or " " in run) and folded != run \
        and bool(re.search(r"(?<![\w'])" + re.escape(folded) + r"(?![\w'])", text))


#: a quoted span that reads as a title: capitalised words, small words between them
_QUOTED = re.compile(r"(?<![\w'])(['\"“‘])([A-Z0-9](?:[^'\"“”‘’\n]|(?<=\w)(?<!\b[IiTt]t)(?<!\b[Tt]hat)(?<!\b[Hh]ere)(?<!\b[Tt]here)(?<!\b[Ww]hat)(?<!\b[Ll]et)"
                     r"(?<!\b[Hh]e)(?<!\b[Ss]he)(?<!\b[Ww]ho)['’]s\b){0,80}?)(['\"”’])(?!\w)")
_TITLE_SMALL = frozenset("a an the of and or in on for to at by with from vs de la le y & - –".split())
# "the Marketing Rhetoric Analysis section", "a Human Verification Required flag": a label
_LABEL_AFTER = re.compile(r"\s*" + alternation(LABEL_NOUNS_EN) + r"s?\b", _I)
_NOT_A_TITLE_AFTER = re.compile(r"\s*" + alternation(("button", "tab", "menu", "option", "field", "column", "link", "key",
                                                         "icon", "setting", "checkbox", "label", *LABEL_NOUNS_EN,
                                                         *ROUTINE_NOUNS_EN))
                                + r"s?\b", _I)

# "the 'Quantified Self Daily Tracker' Notion database": a routine noun after a product's name or two
_ROUTINE_AFTER = re.compile(r"\s*(?:[A-Z][\w&\-]*\s+){1,2}" + alternation(ROUTINE_NOUNS_EN) + r"s?\b", _I)


def _heading_title(text: str) -> int | None:
    """Where the title of a labelled heading starts ("Objective 1: Streamline Production Processes",
    "**Step 2: Set Up the Repo**"): a label of a step, a goal or a topic, then Title-Case words to
    the end of the line or sentence; None when the text is no such heading."""
    m = _HEADING_LABEL.match(text)
    if m is None:
        return None
    rest = re.split(r"[.!?;\n]|[*_]{2}|\s\(", text[m.end():], maxsplit=1)[0].strip(" ,:*_\"”…")
    words = rest.split()
    if len(words) < 2 or not all(_TITLE_WORD.fullmatch(w.strip(",:")) for w in words):
        return None
    return m.end()


def _quoted_names(text: str, names: _Names) -> list[tuple[int, int]]:
    """Quoted titles the text names ('Managing Agent Liquidity', "Where the Crawdads Sing", the
    'Fast & Direct' KYC Training Guide) as project / organisation / other entities; returns the
    spans of every quoted capitalised word, so a quoted word that names nothing ('Hot' or 'Warm')
    is no capitalised name either."""
    spans: list[tuple[int, int]] = []
    for m in _QUOTED.finditer(text):
        if m.group(1) == "'" and m.group(3) not in "'’":
            continue
        title = m.group(2).strip(" .,;:!?")
        words = title.split()
        if re.search(r"\w['’]s\b", title) and len(words) <= 8 and len(title) <= 60:
            continue  # a short title with an owner ('Charlotte's Web'): read as capitalised words
        spans.append((m.start(), m.end()))
        if not words or len(words) > 8 or len(title) > 60:
            continue  # a long quoted title, a topic or a heading ('The Formation of … in Berlin's …')
        if not all(w[:1].isupper() or w[:1].isdigit() or w.casefold() in _TITLE_SMALL for w in words):
            continue
        if title.isupper() and len(words) > 1 or len(words) <= 2 and words[-1].isdigit():
            continue  # a shouted message or a label ('Step 0', 'Day 5')
        before = text[max(0, m.start() - 12):m.start()].casefold()
        after = text[m.end():m.end() + 40]
        if _NOT_A_TITLE_AFTER.match(after) or _ROUTINE_AFTER.match(after):
            continue
        cue = re.match(r"\s*(?:[A-Z][\w&\-]*\s+){0,3}(" + _PROJECT_WORD.pattern + r")", after, _I) \
            or _PROJECT_WORD.search(before[-9:]) or _PROJECT_WORD.match(title) \
            or re.search(r"\b(?:called|named|titled|dubbed|(?:working|work|worked)\s+on|building|launching|writing|"
                         r"drafting)\s+(?:the\s+|my\s+)?$", text[max(0, m.start() - 24):m.start()], _I)
        if len(words) == 1 and not cue and not _ORG_SUFFIX.search(title):
            continue  # one quoted word names something only where the words say what it is
        if len([w for w in words if w not in ("&", "-", "–")]) == 2 and not cue and not re.search(r"['’]s$", words[0]) and not _ORG_SUFFIX.search(title) and words[0] not in ("The", "A", "An") \
                and canonical_place(title) is None:
            continue  # two quoted words with no cue are mostly a label ('Occupation Status', 'Potential Hazards')
        kind = "project" if cue else "organisation" if _ORG_SUFFIX.search(title) else "other"
        names.add(title, kind)
    return spans


def _subject(text: str, speaker: str | None, ties: dict[str, str], names: _Names) -> tuple[str, bool]:
    """Who the statement is about, and whether it is a relative of the speaker (a relationship)."""
    me = speaker if speaker and speaker.casefold() not in ("user", "human", "me") else "user"
    head = text.lstrip(" *-•\"'“").strip()
    # "My sister Lena lives ...", "我妹妹 Lena 住在 ..." : the tied name leads the sentence
    m = re.match(r"(?:and\s+|but\s+|so\s+|also\s+)?my\s+((?:older|younger|little|big|best|oldest|youngest|twin|ex-?)\s*)?("
                 + _REL_EN + r")\b", head, _I)
    if m:
        rel = m.group(2).casefold()
        for phrase in (f"my {(m.group(1) or '').casefold()}{rel}", f"my {rel}"):
            if phrase in ties:
                return ties[phrase], True
        info = _RELATIONS.get(rel)
        if info:
            phrase = f"my {(m.group(1) or '').casefold()}{rel}"
            names.add(phrase, info[1], *info[0][:1])
            return phrase, True
    m = re.match(r"我(?:的)?(" + _REL_ZH + r")", head)
    if m:
        rel = m.group(1)
        if rel in ties:
            return ties[rel], True
        en = _ZH_RELATION[rel]
        names.add(f"my {en}", _RELATIONS[en][1], rel)
        return f"my {en}", True
    pronoun = re.match(r"(?i:(she|he|they|her|his|their))\b|(她|他)(?!们)", head)
    if pronoun:
        # an unresolved pronoun: about someone else, never the speaker
        return (pronoun.group(1) or pronoun.group(2)).casefold(), False
    for name, kind in names.kinds.items():
        # "李梓轩喜欢骑自行车", "小雨说…": a Chinese name the sentence starts with is its subject
        if kind in ("person", "pet") and _CJK.match(name) and head.startswith(name):
            return name, name in ties.values() or bool(names.aliases.get(name))
        if kind in ("person", "pet") and any(_CJK.match(a) and head.startswith(a) and relation_alias(a) is None
                                             for a in names.aliases.get(name, ())):
            return name, True  # "轩轩是李梓轩的小名": a nickname that starts the sentence is its person
    first = re.match(r"([A-Z][a-z][\w\-]*?)(?:'s)?(?=\b|[" + CJK_RANGE + r"])", head)
    if first and first.group(1) in ties.values():
        return first.group(1), True
    if first and first.group(1) in names.kinds and names.kinds[first.group(1)] in ("person", "pet"):
        return first.group(1), bool(names.aliases.get(first.group(1)))
    return me, False


@lru_cache(maxsize=1 << 14)
def _derive(text: str, speaker: str | None, context: tuple[str, ...]) -> Derived:
    text = _nfkc(text).strip()
    names = _Names()
    ties: dict[str, str] = {}
    for earlier in context:
        ties.update(_ties(_nfkc(earlier), _Names()))
    # ties stated earlier name the relatives this text only calls "my sister"
    for phrase, name in list(ties.items()):
        # (or the name itself: "He is a chef" resolved to "Tom is a chef" after "my husband Tom")
        if phrase in text.casefold() or (not phrase.startswith("my ") and phrase in text) or (
                name in text if _CJK.search(name) else re.search(rf"(?<![\w'’]){re.escape(name)}(?!\w)", text)):
            info = relation_alias(phrase)
            names.add(name, info[1] if info else "person", phrase)
    ties.update(_ties(text, names))
    _find_entities(text, names)
    subject, relative = _subject(text, speaker, ties, names)
    zh = bool(_CJK.search(text))
    negated = bool((_NEG_ZH if zh else _NEG_EN).search(text))

    attribute, kind, multi, value = "", "", False, ""
    for attr, akind, amulti, en, zhp in _ATTRS:
        pattern = zhp if zh else en
        if pattern is None:
            continue
        m = pattern.search(text)
        if m is None:
            continue
        if attr == "plan" and akind == "plan" and not zh:
            # "I want to" / "I will" only make a plan when they are about the speaker's own doing
            if not (_FIRST_PERSON_EN.search(text) or relative or subject[:1].isupper()):
                continue
            if re.search(r"\b(?:will|'ll|going)\b", m.group(0), _I) and not _TIME_AHEAD.search(text) \
                    and not re.search(r"\b(?:plan|intend|hope|aim|decided|want|like|thinking|considering|goal|dream)", text, _I):
                continue
        if attr == "has" and not (_FIRST_PERSON_EN.search(text) or zh or relative):
            continue
        groups = [g for g in m.groups() if g]
        attribute, kind, multi, value = attr, akind, amulti, _clean_value(groups[-1] if groups else m.group(0))
        if attr == "likes" and re.search(r"favou?rite", m.group(0), _I) and len(groups) >= 2:
            value = _clean_value(groups[-1])
        break

    if attribute != "boundary" and is_standing(text):
        # a standing instruction is a rule to keep ("From now on, answer in Spanish", "In future, call me Sam")
        attribute, kind, multi, value = "boundary", "boundary", True, _clean_value(standing_rule(text))
    if not attribute:
        if _PAST_TIME.search(text) or _EVENT_EN.search(text) or (zh and _EVENT_ZH.search(text)):
            ev = _EVENT_EN.search(text)
            verb = ev.group(1).casefold() if ev else ""
            rest = text[ev.end():] if ev else text
            attribute, kind, multi, value = "did", "event", True, _clean_value(f"{verb} {rest}".strip())
        elif _TIME_AHEAD.search(text):
            attribute, kind, multi, value = "plan", "plan", True, _clean_value(text)
        else:
            attribute, kind, multi, value = "states", "fact", True, _clean_value(text)

    if relative and kind in ("identity", "fact"):
        kind = "relationship"
    elif relative and kind == "event":
        kind = "relationship" if names.aliases.get(subject) else kind
    if attribute == "has" and any(names.kinds.get(n) in ("person", "pet") for n in names.order):
        kind = "relationship"
    if attribute == "has" and re.search(r"\b(?:" + _REL_EN + r")\b", value, _I) or (
            zh and attribute == "has" and re.search(_REL_ZH, value)):
        kind = "relationship"
    if kind == "identity" and subject != ("user" if not speaker or speaker.casefold() in ("user", "human", "me")
                                          else speaker) and not relative:
        kind = "fact"
    if attribute == "name" and value:
        first_name = value.split()[0].strip(".,!") if not zh else value[:4]
        if first_name in names.kinds:
            names.add(first_name, "person")
    if zh and attribute in ("works_at", "lives_in", "from"):
        value = re.sub(r"(?:的|了|啊|呢|吧)+$", "", value)  # "老家是江苏南京的": the place is 江苏南京
    if zh and value and attribute in ("works_at", "lives_in", "from") and not names.order[-1:] == [value]:
        if not _PLACE_ZH_RE.fullmatch(value) and len(value) <= 12:
            names.add(value, "organisation" if attribute == "works_at" else "place")
    if attribute in ("has", "likes"):
        value_key = re.split(r"\s+(?:named|called)\s+|叫", value, maxsplit=1)[0]
        value_key = re.sub(r"^(?:喝|吃|看|听|玩|去|做)", "", value_key)
    else:
        value_key = value
    slot_attr = attribute
    if multi:
        key = _object_key(value_key)
        slot_attr = f"{attribute}:{key}" if key else attribute
    slot = f"{subject}/{slot_attr}"
    return Derived(kind=kind, slot=slot, subject=subject, entities=names.entities(), value=value,
                   negated=negated, attribute=attribute)


def derive(text: str, *, speaker: str | None = None, context: Sequence[str] = ()) -> Derived:
    """Kind, slot and entities of one statement ``text`` said by ``speaker`` (None: the user).

    ``context`` holds earlier sentences of the same speaker; relation ties they state ("my
    sister Lena") name the relatives ``text`` only calls "my sister". Deterministic and pure.
    """
    return _derive(text, speaker, tuple(context))


# A name as people give it: one to four capitalised words ("Mira", "Mira Chen", "Jean-Luc"), or
# one to four CJK characters ("小明"), so "call me tomorrow" gives no name.
_GIVEN_NAME = re.compile(r"(?:[A-Z][\w'\-]*)(?:\s+[A-Z][\w'\-]*){0,3}|[" + CJK_RANGE + r"]{1,4}")


def given_name(derived: Derived) -> str | None:
    """The name a statement gives its own subject ("My name is Mira" → ``Mira``, "我叫小明" →
    ``小明``), or None when it gives none (another attribute, a negation, words that are no name).

    That name is the subject's own (an alias of the user's page, or of a speaker's), not another
    person the statement speaks of."""
    if derived.attribute != "name" or derived.negated:
        return None
    value = derived.value.strip(" .!?。！？")
    return value if _GIVEN_NAME.fullmatch(value) else None


def says_what_it_names(name: str) -> bool:
    """Whether ``name``'s own words say what it names: a place riko knows ("Tokyo"), a place by
    its first or last word ("Salt Lake City", "Grand Canyon", "Mount Cook") or a body by its last
    ("Coral Bay Hotel", "Stanford University", "University of Leeds"; not "Improve Team Collaboration").
    Such a name stays one whatever else its words are."""
    words = name.split()
    return canonical_place(name) is not None or len(words) > 1 and bool(
        _PLACE_WORD.fullmatch(words[-1]) or _PLACE_WORD.fullmatch(words[0]) or _ORG_SUFFIX.fullmatch(words[-1])
        or len(words) > 2 and words[1] == "of" and _ORG_SUFFIX.fullmatch(words[0]))


# a word that speaks of the speaker or the listener themselves: a heading's, no name's ("Information About Myself")
_REFLEXIVE = re.compile(r"\b(?:Myself|Yourself|Ourselves|Yourselves|About (?:Me|Us))\b")


def names_anyone(name: str) -> bool:
    """Whether ``name`` may be a name at all: not an identifier ("LLM_Output_Summary", "Prompt_Text")
    nor a heading about the speaker ("Information About Myself", "About Us")."""
    return "_" not in name and not _REFLEXIVE.search(name)


def could_be_name(text: str) -> bool:
    """Whether ``text`` (a speaker's ``Name: `` prefix) may name someone: not a word that starts a
    sentence without naming anything ("Next", "Monday") and not a shouted heading ("SUMMARISE")."""
    words = text.split()
    return bool(words) and not (text.isupper() and len(text) > 3) \
        and not any(w.casefold().strip("'.") in _NOT_NAMES for w in words)


def _not_given(derived: Derived) -> tuple[Entity, ...]:
    """The entities a statement speaks of, without the name it gives its own subject."""
    name = given_name(derived)
    if name is None:
        return derived.entities
    names = {name.casefold(), name.split()[0].casefold()}
    return tuple(e for e in derived.entities if e.name.casefold() not in names)


def derived_fields(derived: Derived) -> dict[str, object]:
    """The page frontmatter keys that carry a derivation: ``slot`` and ``entities`` (names; a
    name the statement gives its own subject is that subject's alias, not an entity of its own)."""
    fields: dict[str, object] = {"slot": derived.slot}
    entities = _not_given(derived)
    if entities:
        fields["entities"] = [e.name for e in entities]
    return fields
