"""Every word class riko reads statements by, defined once as data, in English and Chinese.

Dream (atoms, cues, derivation, consolidation, selection) and review (conflicts) build their
patterns from these tuples and strings instead of spelling the words again, so two modules can
no longer disagree about what counts as a negation, a relative, a first-person word or a CJK
character. The classes are plain data; :func:`alternation` turns one into a regex alternative,
longest word first, so "best friend" wins over "friend".

    >>> import re
    >>> bool(re.search(alternation(NEGATION_EN), "i don't eat pork"))
    True
    >>> RELATIONS["sister"]
    (('妹妹', '姐姐'), 'person', 'f')
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "CJK_RANGE", "CJK", "alternation",
    "FIRST_PERSON_EN", "FIRST_PERSON_CHAT_EN", "FIRST_PLURAL_EN", "FIRST_PERSON_ZH", "FIRST_PLURAL_ZH",
    "NEGATION_EN", "NEGATION_CHAT_EN", "NEGATION_ZH", "DISLIKE_EN", "DISLIKE_ZH",
    "RELATIONS", "ZH_RELATIONS", "RELATIONS_EN", "KINSHIP_EN", "PETS_EN", "RELATION_MODIFIERS_EN",
    "WEEKDAYS_EN", "WEEKDAY_ABBREVIATIONS_EN", "MONTHS_EN", "ZH_WEEKDAYS",
    "TIME_PAST_EN", "TIME_AHEAD_EN", "TIME_PAST_ZH", "TIME_AHEAD_ZH", "TIME_NOW_EN", "TIME_NOW_ZH", "OF_THE_DAY_EN", "OF_THE_DAY_ZH",
    "BOUNDARY_VERBS_EN", "BOUNDARY_VERBS_ZH", "BOUNDARY_NEGATORS_EN", "BOUNDARY_NEGATORS_ZH",
    "EMOTIONS_EN", "EMOTIONS_ZH",
    "HOLLOW_PHRASES_EN", "HOLLOW_WORDS_EN", "HOLLOW_ZH", "LIKE_VERBS_EN", "LIKE_VERBS_ZH", "HANDED_VERBS_EN",
    "HANDED_VERBS_ZH",
    "TASK_OPENERS_EN", "TASK_OPENERS_WE_EN", "TASK_VERBS_EN", "TASK_REQUESTS_EN", "TASK_PASTES_EN", "DANGLING_ENDS_EN", "TASK_ZH",
    "TASK_IMPERATIVES_EN", "STANDING_EN", "STANDING_ZH", "STANDING_VERBS_EN", "STANDING_VERBS_ZH",
    "STANDING_ABOUT_EN", "STANDING_ABOUT_ZH", "ONE_OFF_EN", "ONE_OFF_ZH", "FOR_NOW_EN",
    "CONVERSATION_TALK_EN", "CONVERSATION_TALK_ZH", "WASTED_TIME_EN", "PASSING_TALK_EN", "PASSING_TALK_ZH", "MOODS_ALONE_EN",
    "MOODS_ALONE_ZH",
]

# -- scripts -----------------------------------------------------------------------------------------
#: The CJK ideographs riko reads as Chinese (the unified block and extension A), as the inside of a
#: character class: ``f"[{CJK_RANGE}]"``. Every module spells a Chinese character class with this.
CJK_RANGE = "\u3400-\u9fff"
#: One CJK ideograph, as a pattern.
CJK = f"[{CJK_RANGE}]"


def alternation(words: Iterable[str]) -> str:
    """``(?:w1|w2|…)`` of ``words``, escaped (a space matching any whitespace), longest first."""
    escaped = {re.escape(w).replace(r"\ ", r"\s+") for w in words}
    return "(?:" + "|".join(sorted(escaped, key=lambda w: (-len(w), w))) + ")"


# -- first person ------------------------------------------------------------------------------------
#: The speaker as a singular subject, object or owner.
FIRST_PERSON_EN = ("i", "i'm", "i've", "i'll", "i'd", "me", "my", "mine", "myself")
#: Chat spellings without the apostrophe ("Im making pasta", "ive been learning").
FIRST_PERSON_CHAT_EN = ("im", "ive")
#: The speaker with others.
FIRST_PLURAL_EN = ("we", "we're", "we've", "we'll", "we'd", "our", "ours", "us", "ourselves")
#: 我 alone is the speaker; 我们 / 咱们 / 咱 are the speaker with others.
FIRST_PERSON_ZH = ("我",)
FIRST_PLURAL_ZH = ("我们", "咱们", "咱")

# -- negation and polarity ---------------------------------------------------------------------------
#: Words that negate a statement ("no" only as a word: "No mucking around" is a negation too).
NEGATION_EN = ("not", "never", "no", "no longer", "nor", "don't", "doesn't", "didn't", "won't", "can't", "cannot",
               "isn't", "aren't", "wasn't", "weren't", "haven't", "hasn't", "hadn't", "wouldn't", "shouldn't",
               "couldn't", "nobody", "nothing", "none", "neither")
#: The same negations typed without their apostrophe, as chat often has them ("I dont like calculus", "i cant
#: swim"): a statement built on one is as negated as one spelled in full.
NEGATION_CHAT_EN = ("dont", "doesnt", "didnt", "wont", "cant", "isnt", "arent", "wasnt", "werent", "havent",
                    "hasnt", "hadnt", "wouldnt", "shouldnt", "couldnt")
#: Chinese negation, as a pattern: 别 is "don't" on its own, not inside 性别 (sex), 区别, 特别, 分别,
#: 告别 … or in 别人 / 别的 / 别处 (others).
NEGATION_ZH = r"不|没|(?<![性区特分告识级类差个辨鉴派离送道])别(?![人的处])|从不|从来不"
#: Verbs that state the opposite taste: a like slot said with one of these is negated.
DISLIKE_EN = ("hate", "hates", "dislike", "dislikes", "detest", "detests", "loathe", "loathes", "can't stand",
              "cant stand", "cannot stand")
DISLIKE_ZH = ("讨厌", "厌恶", "受不了", "反感")

# -- relations: relatives, partners, friends, colleagues and pets ------------------------------------
#: English relation noun -> (Chinese forms, entity kind, pronoun gender: f, m or "").
RELATIONS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "sister": (("妹妹", "姐姐"), "person", "f"),
    "older sister": (("姐姐",), "person", "f"),
    "big sister": (("姐姐",), "person", "f"),
    "younger sister": (("妹妹",), "person", "f"),
    "little sister": (("妹妹",), "person", "f"),
    "brother": (("哥哥", "弟弟"), "person", "m"),
    "older brother": (("哥哥",), "person", "m"),
    "big brother": (("哥哥",), "person", "m"),
    "younger brother": (("弟弟",), "person", "m"),
    "little brother": (("弟弟",), "person", "m"),
    "mother": (("妈妈", "母亲"), "person", "f"),
    "mom": (("妈妈",), "person", "f"),
    "mum": (("妈妈",), "person", "f"),
    "father": (("爸爸", "父亲"), "person", "m"),
    "dad": (("爸爸",), "person", "m"),
    "parents": (("父母",), "person", ""),
    "wife": (("老婆", "妻子"), "person", "f"),
    "husband": (("老公", "丈夫"), "person", "m"),
    "girlfriend": (("女朋友", "女友"), "person", "f"),
    "boyfriend": (("男朋友", "男友"), "person", "m"),
    "partner": (("伴侣", "对象"), "person", ""),
    "fiance": (("未婚夫",), "person", "m"),
    "fiancee": (("未婚妻",), "person", "f"),
    "son": (("儿子",), "person", "m"),
    "daughter": (("女儿",), "person", "f"),
    "kid": (("孩子",), "person", ""),
    "child": (("孩子",), "person", ""),
    "children": (("孩子们",), "person", ""),
    "baby": (("宝宝",), "person", ""),
    "grandmother": (("奶奶", "外婆", "姥姥"), "person", "f"),
    "grandma": (("奶奶", "外婆"), "person", "f"),
    "grandfather": (("爷爷", "外公", "姥爷"), "person", "m"),
    "grandpa": (("爷爷", "外公"), "person", "m"),
    "aunt": (("阿姨", "姑姑", "舅妈", "婶婶", "姨妈", "姑妈", "伯母"), "person", "f"),
    "uncle": (("叔叔", "舅舅", "伯伯", "姨父", "姑父"), "person", "m"),
    "cousin": (("表姐", "表妹", "表哥", "表弟", "堂哥", "堂姐", "堂弟", "堂妹"), "person", ""),
    "nephew": (("侄子", "外甥"), "person", "m"),
    "niece": (("侄女", "外甥女"), "person", "f"),
    "sister-in-law": (("嫂子", "弟媳"), "person", "f"),
    "brother-in-law": (("姐夫", "妹夫"), "person", "m"),
    "father-in-law": (("岳父", "公公"), "person", "m"),
    "mother-in-law": (("岳母", "婆婆"), "person", "f"),
    "best friend": (("好朋友", "闺蜜"), "person", ""),
    "friend": (("朋友",), "person", ""),
    "boss": (("老板", "领导", "上司"), "person", ""),
    "subordinate": (("下属",), "person", ""),
    "manager": (("经理",), "person", ""),
    "colleague": (("同事",), "person", ""),
    "coworker": (("同事",), "person", ""),
    "co-worker": (("同事",), "person", ""),
    "roommate": (("室友", "舍友"), "person", ""),
    "flatmate": (("室友",), "person", ""),
    "neighbor": (("邻居",), "person", ""),
    "neighbour": (("邻居",), "person", ""),
    "teacher": (("老师",), "person", ""),
    "mentor": (("导师",), "person", ""),
    "doctor": (("医生",), "person", ""),
    "therapist": (("心理咨询师",), "person", ""),
    "classmate": (("同学",), "person", ""),
    "dog": (("狗", "小狗"), "pet", ""),
    "puppy": (("小狗",), "pet", ""),
    "cat": (("猫", "小猫"), "pet", ""),
    "kitten": (("小猫",), "pet", ""),
    "pet": (("宠物",), "pet", ""),
    "kitty": (("小猫",), "pet", ""),
    "bunny": (("兔子", "小兔子"), "pet", ""),
    "rabbit": (("兔子",), "pet", ""),
    "hamster": (("仓鼠",), "pet", ""),
    "parrot": (("鹦鹉",), "pet", ""),
    "bird": (("鸟", "小鸟"), "pet", ""),
    "horse": (("马",), "pet", ""),
    "goldfish": (("金鱼",), "pet", ""),
    "turtle": (("乌龟",), "pet", ""),
    "retriever": (("金毛", "拉布拉多"), "pet", ""),
    "labrador": (("拉布拉多",), "pet", ""),
    "poodle": (("贵宾犬",), "pet", ""),
    "corgi": (("柯基",), "pet", ""),
    "husky": (("哈士奇",), "pet", ""),
}
#: Chinese relation word -> its English relation (the first listed form wins; bare 妈 / 爸 too).
ZH_RELATIONS: dict[str, str] = {}
for _en, (_forms, _kind, _gender) in RELATIONS.items():
    for _form in _forms:
        ZH_RELATIONS.setdefault(_form, _en)
ZH_RELATIONS.update({"姐姐": "older sister", "妹妹": "younger sister", "哥哥": "older brother",
                     "弟弟": "younger brother", "妈": "mom", "爸": "dad", "母亲": "mother", "父亲": "father",
                     "老婆": "wife", "老公": "husband", "妻子": "wife", "丈夫": "husband"})
del _en, _forms, _kind, _gender
#: Every English relation noun, and the two classes the entities keep apart.
RELATIONS_EN = tuple(RELATIONS)
KINSHIP_EN = tuple(r for r, (_, kind, _) in RELATIONS.items() if kind == "person")
PETS_EN = tuple(r for r, (_, kind, _) in RELATIONS.items() if kind == "pet")
#: Words before a relation noun that keep it the same relation ("my *little* sister").
RELATION_MODIFIERS_EN = ("older", "younger", "little", "big", "best", "old", "new", "oldest", "youngest", "twin", "ex")

# -- time --------------------------------------------------------------------------------------------
WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: Short forms people type for a weekday ("last Fri"), by weekday number (Monday 0).
WEEKDAY_ABBREVIATIONS_EN = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
                            "sat": 5, "sun": 6}
MONTHS_EN = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
             "november", "december")
#: 周一 … 周日 / 星期天: the character after 周 / 星期 / 礼拜, by weekday number.
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
#: Words that place a statement in the past, ahead, or now (as phrases; a space is any whitespace).
TIME_PAST_EN = ("yesterday", "last night", "last week", "last weekend", "last month", "last year", "last summer",
                "last winter", "last spring", "last fall", "last autumn", "last time", "this morning",
                "earlier today", "the other day", "a few days ago", "the day before yesterday")
TIME_AHEAD_EN = ("tomorrow", "next week", "next weekend", "next month", "next year", "next summer", "next spring",
                 "next fall", "next autumn", "next winter", "next semester", "this weekend", "this coming", "soon",
                 "later this week", "later this month", "later this year", "the day after tomorrow")
TIME_NOW_EN = ("today", "tonight", "this week", "this month", "this year", "this afternoon", "this evening")
__all__ += ["TIME_NOUNS_EN"]
#: Stretches of time after "this", "last", "every": "This morning, …" says when, not what was shown.
TIME_NOUNS_EN = ("morning", "afternoon", "evening", "night", "week", "weekend", "month", "year", "summer", "winter",
                 "spring", "fall", "autumn", "semester", "term", "time", "day", "season", *WEEKDAYS_EN)
__all__ += ["SUBORDINATORS_EN", "LEAN_LEADS_EN", "DISCOURSE_MARKERS_EN", "HABIT_WORDS_EN", "HABIT_WORDS_ZH"]
#: Words that open a clause leaning on a main clause ("When I'm stressed, …", "After we moved, …").
SUBORDINATORS_EN = ("after", "before", "when", "whenever", "once", "while", "until", "till", "although", "though",
                    "as soon as", "every time")
#: Words before such a clause that leave it leaning ("Later, when I feel better, …").
LEAN_LEADS_EN = ("later", "and", "but", "so", "then", "now", "even", "only", "especially", "just", "except")
#: Phrases that open a sentence without saying when, where or as what ("For example, …", "On the other hand, …").
DISCOURSE_MARKERS_EN = (r"for\s+(?:example|instance|now|sure|real|one|me)", r"in\s+(?:fact|general|short|other\s+words|"
                        r"any\s+case|addition|particular|my\s+opinion|the\s+end|that\s+case)", r"of\s+course",
                        r"at\s+(?:least|first|the\s+end\s+of\s+the\s+day)",
                        r"on\s+(?:the\s+other\s+hand|top\s+of\s+that|that\s+note|the\s+flip\s+side)", r"by\s+the\s+way",
                        r"with\s+(?:that|this)\s+(?:said|in\s+mind)",
                        r"as\s+(?:always|well|i|you|we|mentioned|such|far\s+as|long\s+as|much\s+as|for\s+(?:me|now))")
#: What makes a clause a habit: "in two weeks" after it is how long, not when ("… they always give up on in
#: two weeks", 他们总是两周后就放弃); "I would usually …" is no answer to a what-if; "My head is usually
#: foggy" is how the speaker is, not a passing state.
HABIT_WORDS_EN = ("always", "usually", "often", "sometimes", "typically", "generally", "normally", "tend to", "tends to",
                  "every", "whenever", "most people")
HABIT_WORDS_ZH = ("总是", "通常", "一般", "每次", "往往", "经常", "老是")
#: Words any clause may use that name nothing of its own: what is left when they are taken out is
#: what a clause says ("I'll get it done" says nothing; "I'll get the visa done" names the visa).
GENERIC_WORDS_EN = frozenset("""i'm i've i'll i'd im ive the and but for with have has had was were are just really very
also still some any much more most not don't can't won't get got need needs want wants make made going done ready sure
think know like would could should will let's okay yes yeah now right time way thing things lot all one back here there
this that these those them it's that's what when how try keep take put bring send see look give start finish away soon
""".split())
TIME_PAST_ZH = ("昨天", "昨晚", "前天", "上周", "上个星期", "上星期", "上礼拜", "上个月", "上月", "去年", "前年", "前几天",
                "今天早上", "前阵子")
TIME_AHEAD_ZH = ("明天", "后天", "大后天", "下个月", "下月", "下周", "下个星期", "下星期", "下礼拜", "明年", "后年",
                 "今年年底", "过几天", "这个周末", "这周末", "月底")
TIME_NOW_ZH = ("今天", "今晚", "今早", "这周", "本周", "这个月", "本月", "今年")
#: The last character of an activity before a count of days or weeks: "工作一天后", "用了三天后" is a
#: stretch of doing something (after a day of work), never a date counted from when it was said.
ACTIVITY_ENDS_ZH = "了过作习练用累忙待住持跑玩做吃睡读写干试"
#: Words that tie a statement to the very day it was said (a mood, the weather, a plan for the afternoon).
OF_THE_DAY_EN = ("today", "tonight", "this morning", "this afternoon", "this evening")
OF_THE_DAY_ZH = ("今天", "今晚", "今早")

# -- boundary phrasing: what the speaker asks never to be brought up ---------------------------------
#: The negators that open a boundary ("don't …", "never …", "stop …").
BOUNDARY_NEGATORS_EN = ("don't", "do not", "never", "stop", "quit", "please don't")
#: What a boundary forbids: talking about, asking about, reminding of …
BOUNDARY_VERBS_EN = (r"mention(?:ing)?", r"bring(?:ing)?\s+up", r"talk(?:ing)?\s+about", r"ask(?:ing)?(?:\s+me)?\s+about",
                     r"call(?:ing)?\s+me", r"remind(?:ing)?\s+me\s+(?:of|about)", r"jok(?:e|ing)\s+about",
                     # what must not be passed on ("Don't tell my sister about the party", "Never share my address")
                     r"tell(?:ing)?(?=\s+(?:my|anyone|anybody|others|other\s+people|people|him|her|them)\b)",
                     r"shar(?:e|ing)(?=\s+my\b)", r"pass(?:ing)?\s+on(?=\s+my\b)")
BOUNDARY_NEGATORS_ZH = ("不要再", "不要", "别再", "别", "不许")
BOUNDARY_VERBS_ZH = ("提起", "提到", "提", "问我", "问", "聊", "谈", "说起", "叫我", "讲", "告诉别人", "告诉任何人", "跟别人说",
                     "透露")

# -- feelings ----------------------------------------------------------------------------------------
#: How a speaker says they feel (regex fragments: "stressed out", "burned out", "压力很大").
EMOTIONS_EN = ("tired", "exhausted", "stressed", "stressed out", "anxious", "sad", "happy", "excited", "lonely",
               "nervous", "overwhelmed", "upset", "angry", "frustrated", "bored", "depressed", "burned out",
               "burnt out", "worried", "scared", "afraid", "hopeful", "grateful", "proud", "calm", "relaxed", "down",
               "heartbroken", "homesick", "miserable", "thrilled", "relieved", "hurt", "drained")
EMOTIONS_ZH = ("压力大", "压力很大", "压力好大", "压力特别大", "压力太大", "疲惫", "难过", "伤心", "开心", "高兴", "焦虑", "紧张",
               "孤独", "寂寞", "沮丧", "生气", "烦躁", "崩溃", "害怕", "担心", "兴奋", "失落", "郁闷", "抑郁", "幸福", "委屈",
               "心累", "累", "烦")
#: How the speaker is this moment, when it is all a clause says ("I'm so tired", "I'm a bit nervous", "I'm
#: busy"): a mood that passes, not a memory; what a mood recurs over shows in reflection, across sessions. A
#: state of health or of life stays ("I feel so sick", "I'm still quite weak", "I'm depressed", "I'm homesick"),
#: as does a mood with what it is about or when ("I'm nervous about the interview", "I feel happy today").
MOODS_ALONE_EN = (*(e for e in EMOTIONS_EN if e not in ("depressed", "heartbroken", "homesick", "lonely", "miserable",
                                                        "hurt", "burned out", "burnt out")),
                  "busy", "sleepy", "hungry", "freezing", "stuck", "lost", "desperate", "panicking", "struggling",
                  "confused", "unsure", "undecided", "confident", "optimistic", "stoked", "pumped", "lazy", "motivated",
                  "accomplished", "reflective", "jealous", "curious", "shocked", "surprised", "glad", "buzzing",
                  "unprepared", "frazzled", "ashamed", "embarrassed", "annoyed", "impatient", "restless", "safer")
#: The same, in Chinese: 我好累, 我有点紧张, 我很开心啊.
MOODS_ALONE_ZH = tuple(e for e in EMOTIONS_ZH if e not in ("抑郁", "孤独", "寂寞"))

# -- what says nothing on its own: agreeing, thanking, greeting, encouraging, asking for a kind of answer --
#: Phrases that say nothing a later reader can use ("go get 'em", "just what I wanted"), as a pattern.
HOLLOW_PHRASES_EN = (
    r"\b(?:go\s+get\s+(?:'?em|them)|you(?:'ve|\s+have)?\s+got\s+this|(?:doing|do|did|tried|try|trying)\s+my\s+best|"
    r"just\s+what\s+I\s+(?:wanted|needed|was\s+looking\s+for|asked\s+for)|makes?\s+sense|fair\s+enough|"
    r"(?:how|what)\s+about\s+you|how\s+are\s+you|nice\s+(?:to\s+)?(?:meet|chat|talk|hear)|talk\s+(?:to\s+you\s+)?(?:soon|later)|"
    r"see\s+you|take\s+care|have\s+a\s+(?:good|great|nice|lovely|wonderful)\s+(?:one|day|night|evening|weekend|time)|"
    r"good\s+(?:luck|job|work|morning|night|evening|afternoon|idea|point|question|call)|well\s+done|"
    r"keep\s+(?:it\s+up|going|me\s+posted)|hang\s+in\s+there|fingers\s+crossed|no\s+(?:problem|worries|way)|"
    r"(?:for|in)\s+(?:sure|real)|of\s+course|let\s+me\s+know|(?:thanks|thank\s+you)\s+for\s+(?:asking|sharing|the\s+\w+)|"
    r"not\s+just|sounds\s+like\s+a\s+plan|I\s+hear\s+you|me\s+too|same\s+here)\b"
)
#: Words that, with function words, say nothing on their own.
HOLLOW_WORDS_EN = frozenset("""
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
can will his her hers their theirs him she they he our too has isn't aren't wasn't don't doesn't didn't can't won't user users
yo sup wassup poppin popping latter former oh ohh ohhh ooh ah ahh aha hmm hmmm huh yea ya nah lmao
once twice earlier same updated update updates later mentioned previously already again""".split())
#: The Chinese of both, as a pattern.
HOLLOW_ZH = (
    "谢谢|感谢|多谢|辛苦了?|不客气|没问题|没关系|好的|好吧|好呀|好啊|太好了|太棒了|真棒|很棒|不错|可以|行吧|当然|同意|赞同|"
    "明白了?|了解了?|知道了|懂了|收到|是的|对的|没错|确实|加油|祝你|祝您|顺利|成功|好运|你好|您好|再见|拜拜|晚安|早安|早上好|"
    "哈哈+|嘿嘿|呵呵|嗯+|哦+|啊+|呀|吧|呢|吗|啦|嘛|我尽力了?|尽力|简单明了|清楚|清晰|正是我想要的|就是我想要的|我想要的|"
    "具体的?步骤|步骤|建议|分析|回答|答案|解释|总结|例子|方案|很|真|太|也|都|就|还|挺|非常|特别|一些|一下|这个|那个|这样|那样|"
    "我们|我|你们|你|您|他们|她们|他|她|它|的|了|是|在|有|这|那|个|和|与|给|要|想|需要|希望|觉得|认为|喜欢"
    "|用户"
    # what points back into the conversation: "I tried once", "as I said before", "I'll keep you posted"
    "|试过|一次|两次|之前|以前|刚才|刚刚|说过|提过|上面|同样|一样|随时|告诉|进展|更新|再|又|过|会")
#: Task talk: what the speaker says about the work in hand with the assistant, not about
#: themselves ("I'll include all the necessary descriptions", "I want to make sure I understand the
#: formula", "My instruction was to find…", "Can you check this?").
TASK_OPENERS_EN = ("i'll", "i will", "i'm going to", "i am going to", "i'm gonna", "let me", "let's", "i want to",
                   "i'd like to", "i need to", "i'm trying to", "i am trying to", "i've identified that i can",
                   "i have identified that i can", "i think i can", "i think i could", "i think i should",
                   "i'm scheduled to", "i am scheduled to", "i'll also", "i will also", "i'm about to", "now i", "next i", "first i",
                   "i would like to", "i'd love to", "i would love to", "i just want to", "i just need to", "i'd just like to",
                   "i'd also like to", "i would also like to", "i also want to", "i also need to")
#: The same step of the work said of the speaker and the other side as one ("We need to check the logs", "We can
#: start with the intro"); what "we" go on doing in life stays ("We can continue our coastal walks").
TASK_OPENERS_WE_EN = ("we'll", "we will", "we need to", "we can", "we could", "we should", "we have to", "we must",
                      "we're going to", "we are going to")
TASK_VERBS_EN = ("understand", "include", "double-check", "double check", "check", "make sure", "ensure",
                 "figure out", "calculate", "compute", "apply", "explain", "fix", "debug", "implement", "update",
                 "review", "clarify", "confirm", "test", "proceed", "continue", "focus on", "go through",
                 "go over", "look into", "work through", "revise", "edit", "format", "reformat", "organize",
                 "structure", "outline", "draft", "incorporate", "summarize", "summarise", "compare", "analyze",
                 "analyse", "start with", "begin with", "start by", "begin by", "generate", "derive", "verify", "refine", "tweak", "adjust",
                 "integrate", "add", "use sigma", "use the", "rewrite", "restructure", "simplify", "elaborate",
                 "break down", "walk through", "keep updating", "cross-check", "proofread",
                 # seeing how something is done is asking for it ("I'd like to see an example of the flag")
                 "see an example", "see examples", "see some examples", "see a sample", "see a demo", "see the code",
                 "see how", "see why", "see whether", "see if", "see exactly",
                 # the exercise in hand ("I want to find f'(x) using the power rule" is no plan of the speaker's)
                 "solve", "evaluate", "determine", "prove", "differentiate", "integrate", "factor", "simplify",
                 # what is on the table ("I'd also like to look at the Insurance Policies")
                 "look at the", "look at this", "look at these", "look at those", "look at your")
#: Requests and instructions addressed to the other side, and talk about the prompt itself.
TASK_REQUESTS_EN = (r"(?:can|could|would|will)\s+you\b", r"please\b(?!\s+(?:don't|do\s+not|never|stop|avoid|no)\b)",
                    r"help\s+me\b", r"no\s+need\s+(?:to|for)\b",
                    # asking for help with the task in hand, or not knowing where it goes next
                    r"i(?:'d|\s+would)\s+(?:really\s+)?(?:love|like|appreciate)\s+(?:some\s+|any\s+|your\s+)?(?:advice|help|tips|"
                    r"guidance|suggestions|ideas|input|feedback|pointers|recommendations)\b",
                    r"(?:i'm|i\s+am|im)\s+(?:just\s+|really\s+|still\s+|also\s+)*looking\s+for\s+(?:some\s+|any\s+)?(?:advice|"
                    r"help|tips|guidance|suggestions|ideas|input|feedback|pointers|recommendations|ways)\b",
                    # waiting to hear someone's view ("Looking forward to getting some expert advice", "I'm curious
                    # about Michael's take on …"); "I'm looking forward to the meeting on June 5" says what is coming
                    r"(?:(?:i'm|im|i\s+am)\s+(?:really\s+|so\s+|also\s+)?)?looking\s+forward\s+to\s+(?:getting|hearing|"
                    r"receiving|gaining|gathering|collecting|seeing)\s+(?:some\s+|any\s+|more\s+|the\s+|your\s+|their\s+|his\s+|"
                    r"her\s+|everyone's\s+|[\w-]+'s\s+)?(?:[\w-]+\s+)?(?:advice|insights?|input|feedback|thoughts|tips|"
                    r"suggestions|ideas|perspectives?|take|guidance|recommendations|opinions?|response|reply)\b",
                    r"(?:i'm|im|i\s+am)\s+(?:really\s+|also\s+|just\s+|kinda\s+|kind\s+of\s+)?curious\s+(?:about|to\s+(?:hear|"
                    r"know|see))\s+(?:your|their|his|her|[\w-]+'s)\s+(?:take|thoughts|opinion|perspective|views?|input|advice)\b",
                    r"(?:i'm|i\s+am|im)\s+(?:still\s+|just\s+|a\s+bit\s+|a\s+little\s+|kind\s+of\s+|kinda\s+|really\s+)?(?:not\s+(?:entirely\s+|"
                    r"totally\s+|quite\s+|really\s+|completely\s+)?sure|unsure|uncertain|confused|stuck)\s+(?:about\s+|on\s+|as\s+to\s+)?"
                    r"(?:where|how|what|which|whether|if)\b",
                    r"i\s+(?:really\s+|just\s+|still\s+)?need\s+(?:some\s+|a\s+little\s+|a\s+bit\s+of\s+|your\s+)?help\b",
                    r"i(?:\s+want|'d\s+like|\s+would\s+like|\s+need)\s+to\s+(?:know|learn|hear|see)\s+more\s+about\s+(?:these|those|"
                    r"this|that|it|them|how|what|why|which)\b",
                    r"i\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to\b",
                    # a question or a request put as a need ("I need to know the exact steps", "I need some recipe ideas")
                    r"i\s+(?:really\s+|just\s+|still\s+|also\s+)?need\s+to\s+(?:know|see(?!\s+(?:a|an|my|our)\b)|understand|find\s+out|figure\s+out|hear|"
                    r"talk\s+about|discuss|go\s+over)\b",
                    r"i\s+(?:really\s+|just\s+|still\s+|also\s+|urgently\s+)?need\s+(?:some|a\s+few|more|a\s+couple\s+of)\s+"
                    r"(?:[\w-]+\s+){0,2}?(?:advice|suggestions?|ideas|recommendations?|tips|guidance|input|examples?|options|"
                    r"alternatives)\b",
                    r"let\s+me\s+know\b", r"my\s+(?:instruction|question|request|prompt|task)\s+(?:was|is)\b",
                    r"question\s+to\b", r"prompt\s*:", r"feel\s+free\s+to\b",
                    # what the work needs from the other side ("Need the confirmations", "I need the breakdown now")
                    r"(?:still\s+|just\s+)?need\s+(?:the|those|these|that|this|your|more|it|them)\b",
                    r"i\s+(?:need|want)\s+(?:the|this|that|those|these|it|them|your)\b.*\b(?:now|immediately|right\s+away|asap)\b",
                    r"i\s+(?:expect|demand|require)\s+(?:a|an|the|this|that|it|these|those|everything|you|your|all|nothing)\b",
                    # stuck on the task in hand ("I think I made a mistake in my calculation", "I'm stuck on this step")
                    r"i\s+think\s+i(?:'ve|\s+have)?\s+(?:made|got)\s+(?:a\s+|an\s+|some\s+)?(?:mistake|error)s?\b",
                    r"i(?:'ve|\s+have)?\s+(?:made|got)\s+(?:a\s+|an\s+)?(?:mistake|error)s?\s+(?:in|with|on)\s+(?:my|the|this|that)\s+"
                    r"(?:calculation|code|math|answer|work|step|derivation|formula|solution|equation|proof|setup|integral|script|"
                    r"query|function|program)s?\b",
                    # what names no topic: a learner's trouble with a topic ("I'm having trouble understanding
                    # hyperbolic geometry") is a memory of them, trouble with "this" is not
                    r"(?:i'm|i\s+am|im|i've\s+been)\s+(?:still\s+|just\s+|a\s+bit\s+|a\s+little\s+|kind\s+of\s+|kinda\s+|really\s+|so\s+)?"
                    r"(?:unsure|uncertain|confused|stuck|lost|having\s+(?:some\s+)?(?:trouble|difficulty|a\s+hard\s+time)|struggling)\s+"
                    r"(?:(?:about|on|with|as\s+to|by|figuring\s+out|\w+ing)\s+)?"
                    r"(?:this|that|it|these|those|them)(?:\s+(?:one|part|step|problem|question|bit|equation|exercise))?[\s.!,~]*$",
                    r"(?:i'm|i\s+am|im)\s+(?:still\s+|just\s+|a\s+bit\s+|kinda\s+|really\s+|so\s+|completely\s+|totally\s+)?"
                    r"(?:stuck|lost|confused)[\s.!,~]*$",
                    r"(?:i'm|i\s+am|im)\s+(?:just\s+|really\s+|still\s+)*(?:wondering|curious)(?:\s+to\s+know)?\s+(?:how|what|why|if|whether|which)\b",
                    r"i\s+(?:just\s+|also\s+|sometimes\s+|really\s+|always\s+)?wonder(?:ed)?\s+(?:if|whether|how|what|why|which)\b",
                    r"i(?:'d|\s+would)\s+(?:really\s+|also\s+)*(?:like|love|appreciate)\s+(?:an?\s+|some\s+|more\s+)?"
                    r"(?:[\w-]+\s+){0,2}?(?:explanation|example|examples|walkthrough|walk-through|breakdown|summary|overview)s?\b",
                    # a question put as a wish ("I'd also like to know what tools are available for monitoring")
                    r"i(?:'d|\s+would)\s+(?:really\s+|also\s+)*(?:like|love)\s+to\s+(?:know|find\s+out|understand|see)\s+"
                    r"(?:how|what|which|why|whether|if|where|when)\b", r"(?:here\s+is|here's)\s+(?:my|the)\s+(?:code|draft|text|question|error)\b")
#: Code, links and log lines pasted into the conversation.
TASK_PASTES_EN = (r"://", r"```", r"\blooking\s+in\s+indexes\b", r"\bpip\s+install\b", r"\btraceback\b",
                  r"[{}();=<>\[\]].*[{}();=<>\[\]].*[{}();=<>\[\]]",
                  # working an exercise through ("I get 3^1 - 1 = 2", "the hypothesis that 7^k - 1 is divisible by 6");
                  # a learner's state stays ("I'm having trouble with variation of parameters for y'' + 4y = tan 2x")
                  r"^(?!.*\b(?:trouble|struggl\w*|working\s+on|practic\w*|stuck|learn\w*|stud(?:y|ying|ied)|completed|improved|"
                  r"master\w*|confident|explored|drafted|solved)\b|.*(?:练习|学习|在学|不懂|不会|卡在|搞不懂|掌握|完成了)).*?(?:\w\s*\^\s*\(?[\w+-]|[\w)]\s*[=≡]\s*[\w(-]|\(mod\s+\d)")
#: A line of a program's output, read before any speaker's name is taken off it ("ERROR: Could not find a
#: version that satisfies …", "ValueError: invalid literal …").
LOG_LINE_EN = r"^(?:ERROR|WARNING|WARN|FATAL|CRITICAL|DEBUG|Exception|[A-Z]\w*(?:Error|Exception)|E\d{3,4})\s*:"
__all__ += ["LOG_LINE_EN"]
#: A quiz or exam item pasted to work on ("Question: Korean spelling rule (incorrect)", "Question 1: B. Check
#: for breathing", "问题一：…"): read before a ``Name: `` prefix is taken off, which it would pass for.
QUIZ_ITEM = r"^(?:Question|QUESTION|问题)\s*(?:\d+|[一二三四五六七八九十]+)?\s*[:：]"
__all__ += ["QUIZ_ITEM"]
#: A statement cut before it says anything: it ends on a word that leads into more.
DANGLING_ENDS_EN = ("but first", "but", "and", "or", "because", "with", "to", "of", "the", "a", "an", "for", "which",
                    "such as", "are", "is", "include", "just", "includes", "as follows", "and then", "and suddenly",
                    "then suddenly")
TASK_ZH = (r"(?:请你?|麻烦你?|帮我|帮忙|你能不能|你可以|能不能帮|告诉我|给我讲|解释一下|看一下|检查一下|"
           r"我(?:很|真的|一直)?(?:想知道|好奇)(?:怎么|如何|为什么|是不是|能不能|哪)|我想看(?:看|一下)?(?:例子|示例|代码)|"
           r"(?:我|我们|咱们)(?:想|要|需要|得|会|打算)(?:先|再|也)?(?:确认|确保|弄清楚|搞清楚|理解|检查|核对|计算|修改|补充|加上|整理|继续|完善|优化|调整)|"
           r"(?:我们|咱们)(?:可以|应该)(?:先|再|也)?(?:确认|确保|弄清楚|搞清楚|检查|核对|计算|修改|补充|整理|继续|完善|优化|调整)|"
           # not knowing where the task goes next, wanting to hear more of what was just said
           r"我(?:还|也)?不(?:太|是很|大)?(?:确定|清楚|知道)(?:该|要|应该)?(?:用|选)?(?:从哪|怎么|如何|先|哪)|"
           r"我(?:需要|想要|要)(?:一些|你的|点)?帮助|我(?:需要|想要)(?:一些|几个|更多|点)(?:\w{0,4})?(?:建议|想法|推荐|选择|例子|方案|点子)|"
           r"我(?:需要|得)(?:知道|了解|弄清楚)(?:具体|确切|详细)?的?(?:步骤|流程|做法|细节)|"
           r"我(?:想|要|希望)(?:多)?(?:了解|知道|听听)(?:更多)?(?:关于)?(?:这些|那些|这个|那个)|我们(?:接下来|然后|下一步)(?:可以|就|再)|"
           # stuck on the task in hand: 我不太明白这个公式, 我好像算错了 (not 我不懂日语)
           r"我(?:还是|有点|真的)?(?:不太|不是很|没太?|不)(?:明白|懂|理解|看懂|搞懂)(?:这|那|为什么|怎么|如何|你的?|[。！!？?]|$)|"
           r"我(?:好像|可能|觉得我?|感觉我?)(?:算|写|做|弄|搞)错了)")

#: Verbs that open an instruction to the other side when they start a clause with no subject
#: ("Based on this discussion organize the criteria in a table", "List three options").
#: Not *remember*, *note* or *keep in mind*: what follows them is often about the speaker.
TASK_IMPERATIVES_EN = ("organize", "organise", "list", "create", "write", "give", "make", "summarize", "summarise",
                       "provide", "draft", "generate", "rewrite", "compare", "explain", "describe", "outline",
                       "suggest", "recommend", "show", "tell", "put", "format", "translate", "calculate", "find",
                       "include", "remove", "change", "update", "fix", "convert", "expand", "shorten", "combine",
                       "sort", "rank", "prepare", "design", "build", "continue", "proceed", "elaborate", "clarify",
                       "break down", "walk me through", "go ahead", "add", "turn", "double-check", "check",
                       "verify", "review", "analyze", "analyse", "identify", "highlight", "focus", "assume",
                       "lay out", "map out", "spell out", "go through", "run through", "send", "draw", "pick",
                       "start", "begin", "figure out", "narrow down",
                       # reworking what is on the table ("Run the diagnostic on Act I", "Grab the best 5")
                       "run", "rerun", "re-run", "redo", "apply", "grab", "pull", "fetch", "polish", "edit", "proofread",
                       "simplify", "refine", "adjust", "tweak", "optimize", "optimise", "search", "incorporate",
                       "integrate", "insert", "replace", "split", "merge", "reorganize", "reorganise", "restructure",
                       "reformat", "rephrase", "reword", "condense", "modify", "revise", "finalize", "finalise",
                       "compile", "evaluate", "assess", "estimate", "dig into", "dive into", "look up", "crunch",
                       "fill in", "prep", "simulate", "act as", "role-play", "roleplay",
                       # "Get me a list of …", "Expect my update once it's done", "Take the raw script and …"
                       "get", "expect", "take",
                       # "Share the details about Day 8-10", "Detail the steps for week two"
                       "share", "detail", "walk through",
                       # "Pinpoint where the context is bleeding …", "Ingest and start structuring that narrative"
                       "pinpoint", "locate", "diagnose", "debug", "troubleshoot", "determine", "ingest", "execute",
                       "confirm")
#: What makes an instruction one-off even when it names the speaker's own things ("Apply this to my
#: bullet points immediately"): it is for the work in hand, now.
FOR_NOW_EN = ("now", "right now", "immediately", "right away", "asap", "at once", "this time")
#: What makes an instruction standing rather than one-off: a standing one is a boundary to keep.
STANDING_EN = ("always", "never", "from now on", "going forward", "in future", "in the future", "every time",
               "whenever", "each time", "as always")
#: The same, in Chinese: 以后都用中文回答我, 从现在开始叫我小李, 每次回答我都先给结论.
STANDING_ZH = ("以后", "今后", "往后", "从此", "从今以后", "从今往后", "从现在开始", "从现在起", "从今天开始", "从今天起",
               "每次", "每一次", "永远", "总是", "始终")
#: The other side's doing a standing instruction shapes: how it answers, addresses or treats the
#: speaker ("*use* metric units", "*answer* in Spanish", "*call me* Sam", "*keep* your answers short").
STANDING_VERBS_EN = ("use", "answer", "reply", "respond", "write", "speak", "talk to me", "call me", "address me",
                     "refer to me", "keep", "give me", "include", "avoid", "format", "cite", "add", "ask me",
                     "remind me", "greet me", "start", "end", "stick to", "skip", "leave out", "show me", "explain",
                     "list", "convert", "round", "double-check", "check", "mention", "put", "spell", "be",
                     "make sure", "ensure")
STANDING_VERBS_ZH = ("用", "使用", "以", "回答", "回复", "答复", "叫我", "称呼我", "称我", "跟我说", "和我说", "对我说",
                     "给我", "提醒我", "问我", "先给", "先说", "保持", "控制", "加上", "附上", "写")
#: The other side's answers, which a standing instruction is about when it does not name the speaker
#: ("keep your *answers* short", "*answer* in Spanish"; "for me", "call me" name the speaker):
#: "Always keep your head up" is about neither.
STANDING_ABOUT_EN = ("answer", "answers", "answering", "reply", "replies", "replying", "respond", "response",
                     "responses", "message", "messages", "explanation", "explanations", "example", "examples")
STANDING_ABOUT_ZH = ("回答", "回复", "答复", "称呼")
#: What makes an instruction one-off: it points at what is in hand ("in *this* draft", "*now*",
#: "*here*", "the paragraph *above*"), however "always" it is said.
ONE_OFF_EN = ("this", "these", "those", "here", "now", "right now", "for now", "today", "tonight", "above", "below",
              "the draft", "the document", "the essay", "the article", "the paragraph", "the passage")
ONE_OFF_ZH = ("这次", "这一次", "这回", "这个", "这篇", "这份", "这段", "这些", "这里", "这儿", "上面", "下面", "刚才",
              "现在", "今天", "今晚", "这道", "这题")
#: What a taste may be of that the other side just gave ("I like that *it's* not too extreme", "I love
#: how *you* laid it out"): no thing of the speaker's own.
WHAT_WAS_GIVEN_EN = ("it", "it's", "this", "these", "they", "they're", "you", "you've", "you're", "that")
#: One of the options the other side just gave, as what a taste is of ("I like *the idea of* setting
#: intentions", "I really like *option 2*", "I like *the first two*"): picked from the table, not the
#: speaker's own taste. A wish for someday ("I love the idea of living abroad someday") is the speaker's.
OPTION_GIVEN_EN = (r"(?:the\s+idea\s+of\b(?![^.!?]*\b(?:someday|some\s+day|one\s+day|eventually|in\s+the\s+future|"
                   r"when\s+i\s+retire)\b)|options?\s+(?:\d+|[a-d]|one|two|three)\b|the\s+(?:first|second|third|last|latter|"
                   r"former)(?:\s+(?:one|two|three|options?|versions?|drafts?|ideas?))?(?=\s*(?:$|[,.!;~]|\s+(?:better|best|more|"
                   r"most|too|as\s+well)\b)))")
#: The same, in Chinese (我更喜欢*第二个*, 我喜欢*方案二*); 我喜欢第二季的《暗黑》 names a thing of its own.
OPTION_GIVEN_ZH = r"(?:第[一二三四五1-5]个|前[两三]个|方案\s*[一二三四五1-5A-Da-d]|选项\s*[一二三四五1-5A-Da-d])(?=[\s，。！？,.!?~…]|$)"
#: Words that open a question ("Do you …", "What …"), in English.
QUESTION_OPENERS_EN = ("do", "does", "did", "are", "is", "am", "can", "could", "would", "should", "will", "shall", "may",
                       "have", "has", "what", "why", "how", "when", "where", "who", "whom", "whose", "which")
#: Verbs after which "if" means whether ("I'm wondering if I should", "not sure if", "to see if"), and "even"
#: or "as" before it: no condition on what the sentence says.
WHETHER_BEFORE_IF_EN = frozenset(("wondering", "wonder", "wondered", "know", "sure", "see", "check", "ask", "asking",
                                  "unsure", "curious", "tell", "decide", "even", "as", "verify", "confirm", "out"))
__all__ += ["WHAT_WAS_GIVEN_EN", "OPTION_GIVEN_EN", "OPTION_GIVEN_ZH", "QUESTION_OPENERS_EN", "WHETHER_BEFORE_IF_EN"]

#: How advice is taken up ("Okay, I'll …", "I'm going to …"), and a move or trip the speaker will be
#: making, which is no advice taken up ("I'll also be moving to Denver"): shared by the take-up rules below.
_TAKING_UP_EN = (r"^(?:(?:ok(?:ay)?|so|alright|great|thanks|yes|yeah|cool)[,!.\s]+)*(?:i'll|i\s+will|i'm\s+going\s+to|"
                 r"i'm\s+gonna)\s+")
_ON_THE_MOVE_EN = r"(?!be\s+(?:moving|starting|going|travel+ing|visiting|living|working|staying|flying|leaving)\b)"
__all__ += ["PLEASED_WITH_WORK_EN"]
#: Pleased with what the conversation produced: "(happy) with how it turned out", "with this", "with your plan".
PLEASED_WITH_WORK_EN = (r"(?:happy|pleased|satisfied|thrilled|glad|content|impressed)\s+(?:with|about|by)\s+"
                         r"(?:how\s+(?:it|this|that|these|they|you|we|the|our|your)|the\s+way|it|this|that|these|those|"
                         r"what\s+(?:you|we)|your|our\s+(?:plan|list|progress|work|session|chat|conversation))\b")
#: Time wasted or lost on the work, as impatience with its pace ("waste any more time", "lose another
#: minute"): what a "don't want" or "can't afford" governs then names nothing of the speaker's. "Don't waste
#: my time with pleasantries" says what the speaker wants left out, and stays.
WASTED_TIME_EN = (r"(?:waste|wasting|lose|losing)\s+(?:any\s+(?:more\s+)?|more\s+|a\s+single\s+|another\s+|much\s+|"
                  r"precious\s+|valuable\s+|my\s+|our\s+)?(?:time|minute|second)s?\b(?!\s+with\b)")
#: Talk about the conversation itself: where it stands, what was covered, what comes next
#: ("Looks like we're good to go", "We can move on to packing", "Since we already have the main
#: outline", "I'm still sitting here, waiting").
CONVERSATION_TALK_EN = (
    r"\bwhere\s+(?:we|i)\s+left\s+off\b",
    r"\bgood\s+to\s+go\b", r"\bready\s+to\s+go[\s.!,~]*$", r"\ball\s+(?:good|set|sorted)\b", r"\bon\s+the\s+same\s+page\b",
    r"(?:^|[,;:]\s*|\b(?:so|then|and|now|but|reckon|think|first|next)\s+)(?:let's|let\s+us)\s+(?:just\s+|definitely\s+|now\s+)*"
    r"(?!(?:go\s+with|lock\s+in|stick\s+with|settle\s+on|choose|pick|book|buy|keep(?!\s+(?:it\s+)?(?:moving|going|rolling|"
    r"pushing)\b))\b)",
    r"\b(?:we|we've|we\s+have|we're|we\s+are|we\s+can|we\s+could|we\s+should)\s+(?:already\s+|just\s+|now\s+|finally\s+|then\s+)*"
    r"(?:move\s+on|moving\s+on|get\s+started|getting\s+started|wrap\s+up|wrapping\s+up|nail\s+down|go\s+ahead|proceed|"
    r"covered\s+(?:everything|all|both|the\s+(?:main|key|first|last)|those|these)|done\s+(?:here|with\s+(?:this|that|it)))\b",
    r"\bi\s+heard\s+(?:ya|you|u)\s+the\s+first\s+time\b",
    r"^(?:so\s+|and\s+|now\s+)?(?:since|now\s+that|as)\s+we\s+(?:already\s+)?(?:have|'ve|got|know|covered|discussed)\b",
    r"^(?:so\s+|and\s+|now\s+)?(?:based\s+on|given|following|according\s+to)\s+(?:all\s+(?:of\s+)?)?(?:this|that|our|the|"
    r"your|these|those)\s+(?:above\s+|previous\s+|last\s+)?(?:content|discussion|conversation|chat|information|info|analysis|advice|answer|"
    r"suggestions?|recommendations?|breakdown|list|plan|outline|points?|details|above)\b",
    r"\b(?:i'm|i\s+am|im|the\s+user\s+is)\s+(?:still\s+|just\s+|now\s+|right\s+)*(?:(?:sitting|standing)\s+here|waiting|all\s+ears|"
    r"starting\s+now|ready\s+(?:to\s+(?:start|begin|go|move\s+on|move\s+forward|proceed|continue|resume|dive|delve|dig\s+(?:in|deeper)|go\s+deeper|get\s+started)|for\s+the\s+next|"
    r"when\s+you)|(?:here|back)(?:\s+(?:now|again|on\s+deck|with\s+you))*[\s.!,~]*$)",
    r"\b(?:to|can|could|should|will|'ll)\s+(?:work\s+on|go\s+over|get\s+back\s+to|move\s+on\s+to|revisit|finaliz(?:e|ing))\s+"
    r"(?:\w+ing\s+)?(?:our|this|that|these|those)\b",
    r"\bthat's\s+(?:all|it|everything)\s+for\s+now\b", r"^(?:just\s+)?checking\s+in\s+(?:on|about|with)\b",
    r"\bmy\s+(?:last\s+|previous\s+|earlier\s+|original\s+)?(?:question|prompt|request|instruction|message)\s+(?:was|wasn't|is|isn't)\b", r"\b(?:we're|we\s+are)\s+good\s+for\s+now\b",
    # ready or eager for the next step of the work ("I'm ready", "I'm eager to get more dialogue done")
    r"^(?:i'm|i\s+am|im)\s+(?:so\s+|really\s+|totally\s+|fully\s+|absolutely\s+|now\s+|more\s+than\s+|all\s+|definitely\s+)*"
    r"ready[\s.!,~]*$",
    r"^(?:i'm|i\s+am|im)\s+(?:so\s+|really\s+|totally\s+|fully\s+|all\s+|now\s+)*ready\s+for\s+(?:the\s+(?:next|new)|this|"
    r"that|it|these|those|day\s+\d|step|part|phase|round|section|more|what(?:'s|\s+is|\s+comes)\s+next)\b",
    r"^(?:i|we)\s+feel\s+(?:(?:a\s+little|a\s+bit|much|so|a\s+lot|way)\s+)?(?:more\s+)?ready[\s.!,~]*$",
    r"\b(?:i'm|i\s+am|im|we're|we\s+are)\s+(?:\w+ly\s+|so\s+|now\s+|still\s+|just\s+)*(?:ready|eager|keen|itching|curious)\s+"
    r"to\s+(?:\w+ly\s+)?(?:see|hear|read|tackle|dive|focus|get|integrate|look|review|work|try|keep\s+\w+ing|build|crunch|plug|"
    r"plan|continue|proceed|track|implement|apply|put|use|incorporate|execute|roll\s+out|fine-tune|refine|tweak|edit|revise|"
    r"polish|discuss|talk|go\s+over|"
    r"jump|hop|finali[sz]e|do\s+(?:this|that|it))\b",
    # the conversation's own messages ("I will provide context data in the next several queries")
    r"\b(?:next|following|coming|previous|last|earlier|above)\s+(?:few\s+|several\s+|couple\s+of\s+)?"
    r"(?:queries|query|messages|prompts|replies|responses)\b",
    r"\b(?:anything|nothing|something)\s+(?:else\s+|more\s+)?to\s+(?:discuss|add|ask|cover|go\s+over)\b",
    # a verdict on what was shown ("The voice notes look solid", "this brief is finally what I needed")
    r"^(?:(?:so|and|but|ok(?:ay)?|yes|yeah|wow|great|perfect|i\s+think|i\s+feel\s+like)[,!.\s]+)*(?:all\s+)?(?:the|this|that|"
    r"these|those|your|it|they)\b[^,.;!?]{0,40}?\b(?:looks?|sounds?|seems?|feels?|is|are|will\s+be)\s+(?:an?\s+)?(?:\w+ly\s+|so\s+|"
    r"very\s+|pretty\s+|quite\s+|super\s+)*(?:good|great|solid|perfect|fine|right|amazing|awesome|excellent|brilliant|spot\s+on|"
    r"clear|helpful|useful|doable|manageable|reasonable|practical|comprehensive|direct|accurate|correct|insightful|impressive|nice|"
    r"thorough|detailed|well[\s-]structured|well[\s-]written|concise|informative|thoughtful|compelling|sound|logical|"
    r"airtight)\b"
    r"(?!\s+(?:for|to)\s+(?:me|us|my|our)\b)",
    # the same without its subject ("Looks solid, perfectly captures the architecture", "Solid choices, totally aligned
    # with …")
    r"^(?:(?:ok(?:ay)?|yes|yeah|wow|great|alright)[,!.\s]+)*(?:(?:looks?|sounds?|seems?)\s+(?:\w+ly\s+|so\s+|really\s+|"
    r"pretty\s+|very\s+)*(?:good|solid|great|perfect|fine|spot\s+on|amazing|awesome|excellent|brilliant|clear|promising|"
    r"doable|reasonable|sharp|legit|like\s+a\s+plan)|(?:solid|great|good|perfect|excellent|smart|nice|sharp|brilliant)\s+"
    r"(?:choices?|picks?|plan|call|idea|list|options?|work|start|summary|breakdown|suggestions?|points?|stuff))\b",
    # agreeing with what was given ("Reducing the weight makes perfect sense", "I appreciate that it's
    # designed to be flexible"); "I appreciate good coffee" is a taste
    r"^(?!(?:i|i'm|i've|my|we|our)\b)[^.!?]{0,80}?\bmakes?\s+(?:(?:perfect|total|complete|good|so\s+much|a\s+lot\s+of)\s+)?sense\b",
    r"^(?:(?:ok(?:ay)?|and|also|yes|yeah|thanks)[,!.\s]+)*i\s+(?:really\s+|truly\s+|do\s+|also\s+)*appreciate\s+(?:that|how|the\s+way|the\s+(?:[\w-]+\s+){0,3}?(?:breakdown|explanation|help|advice|tips|"
    r"suggestions?|feedback|clarification|details|summary|overview|guidance|support|reminder|update|walkthrough|examples?|"
    r"info|information|insight|insights|input|options|ideas|plan|list|recommendations?|heads[\s-]up|offer|thought)\b|"
    r"your|you|it|this|all\s+(?:your|the|this|that|of\s+(?:your|this|that|it))|everything\s+you)\b",
    # taking up what was proposed ("I'm definitely on board with trying that modified version", "I like that it's not
    # too extreme", "I'm so glad we cleared that up", "The recalculated critical path is noted")
    r"\bon\s+board\s+with\s+(?:\w+ing\s+)?(?:that|this|these|those|it|them|your|the\s+(?:idea|plan|suggestion|proposal|"
    r"approach|change|changes|update|version|modified|revised))\b",
    r"^(?:(?:ok(?:ay)?|yes|yeah|and|also)[,!.\s]+)*i\s+(?:\w+ly\s+|do\s+|also\s+)?(?:like|love|appreciate)\s+(?:that|how)\s+"
    + alternation(WHAT_WAS_GIVEN_EN) + r"\b",
    r"^(?:(?:ok(?:ay)?|yes|yeah|and|also|oh|wow)[,!.\s]+)*i\s+(?:\w+ly\s+|do\s+|also\s+)?(?:like|love|prefer)\s+"
    + OPTION_GIVEN_EN,
    r"\b(?:glad|relieved|happy|pleased)\s+(?:that\s+)?we(?:'ve|\s+have)?\s+(?:\w+\s+){0,2}?(?:cleared|clarified|sorted|figured|worked|"
    r"straightened|settled|squared|ironed|nailed)\s+(?:that|this|it|those|these|them|everything|all\s+that)\b",
    r"^(?:(?:ok(?:ay)?|right|got\s+it)[,!.\s]+)*(?:(?:the|this|that|your)\s+(?:[\w-]+\s+){0,4}?(?:is|are)\s+|duly\s+)noted[\s.!,~]*$",
    # agreeing with what the other side said ("I agree that frozen waterfall is pretty sick", "I agree with that
    # last sentiment"): what is agreed to is theirs
    r"^(?:(?:oh|yeah|yes|yep|and|well|honestly|lol|haha)[,!.\s]+)*i\s+(?:\w+ly\s+|do\s+|also\s+|100%\s+)?agree\b",
    # a verdict on what was just shown ("Aww thats a cute cat", "What a lovely view")
    r"^(?:(?:aw+|oh|omg|wow|lol|haha|ooh)[,!.\s]+)*(?:that's|thats|that\s+is|what)\s+(?:a\s+|an\s+|so\s+|such\s+a\s+|really\s+)?"
    r"(?:\w+\s+)?(?:cute|nice|cool|great|good|beautiful|lovely|awesome|amazing|funny|sweet|adorable|pretty|fun|wild|crazy|"
    r"interesting|gorgeous|hilarious)(?:\s+\w+)?[\s.!~]*$",
    # a one-word verdict on what was just said ("Steve sounds mischievous", "Paris sounds amazing", "it looks like …")
    r"^(?:(?:oh|dang|wow|lol|haha|aw+|omg|yeah|ah|ooh|i\s+think)[,!.\s]+)*[a-z]+\s+(?:sounds|looks|seems)\s+(?:(?:so|really|"
    r"very|pretty|super|quite|kinda|absolutely|totally)\s+)?[a-z]+[\s.!~]*$",
    r"^(?:i\s+think\s+)?(?:it|that|this|they|he|she)\s+(?:looks|sounds|seems)\s+like\b",
    # the conversation's earlier turns ("I saw a suggestion earlier", "when we talked about the pantry")
    r"\b(?:suggestion|answer|response|reply|message|list|point|idea)s?\s+(?:you\s+(?:made|gave|had)\s+)?(?:earlier|"
    r"before|above|last\s+time)\b", r"\b(?:when|while|after|before|once)\s+we\s+(?:\w+ly\s+|already\s+|just\s+)?(?:talked|discussed|spoke|chatted|"
    r"went\s+over)\b(?!\s+(?:to|with)\b)",
    # frustration with the other side ("I feel like I'm talking to a brick wall"), "Not like I'm …"
    r"\btalking\s+to\s+a\s+(?:brick\s+)?wall\b", r"^not\s+like\s+(?:i|i'm|we|we're)\b",
    r"^we\s+(?:already\s+|just\s+|briefly\s+)?(?:talked|spoke|chatted)\s+about\s+(?:the|this|that|these|those|it|them)\b"
    r"(?![^.!?]*\bwith\s+(?:my|our|his|her|their|(?-i:[A-Z])))",
    r"^we\s+(?:already\s+|just\s+|briefly\s+)?(?:discussed|covered|went\s+over)\s+(?:the|this|that|these|those|it|them)\b"
    r"(?![^.!?]*\bwith\s+(?:my|our|his|her|their|(?-i:[A-Z])))",
    r"\bbefore\s+we\s+(?:dive|get|jump|go)\s+(?:deep\s+|deeper\s+|right\s+)?(?:in|into)\b",
    # what the speaker has been thinking about, as a way into the talk: the work already done together ("I've been
    # thinking about what we discussed", "… that customer story we practiced") or a bare topic ("I've been thinking
    # about my budget", "I'm reflecting on my progress"); a plan stays ("I'm thinking about visiting Pisa"), as
    # does a topic that names someone or something ("I'm thinking about Michael's presentation at the Summit")
    r"^(?:(?:so|and|but|well|ok(?:ay)?|hey|hi|honestly|also)[,!.\s]+)*(?:i've|ive|i\s+have|i\s+was|i'm|im|i\s+am)\s+"
    r"(?:been\s+)?(?:just\s+|really\s+|also\s+|still\s+)?(?:thinking|wondering|reflecting|mulling)\s+(?:about|over|on)\s+"
    r"(?![^.!?]*(?-i:\b[A-Z][a-z]))(?:[^.!?]*\bwe\s+(?:\w+\s+)?(?:discussed|talked|drafted|picked|practiced|booked|found|made|"
    r"did|went\s+over|covered|chose|built|came\s+up|planned|worked|agreed|decided)\b|(?:what|how)\s+we\b|our\s+(?:discussion|"
    r"chat|conversation|talk|last\s+(?:chat|conversation|session)|breakthrough)|(?:the|my|our|that|this|those|these|it|them)"
    r"(?:\s+[a-z][\w'-]*){0,2}(?:\s+(?:again|lately|recently|specifically|a\s+lot|more|too|earlier))*[\s.!~]*$)",
    # what is pasted beside the words ("I received this below sales email", "the following text")
    r"\b(?:this|the)\s+(?:below|following|attached)\b(?!\s+(?:day|days|week|weeks|weekend|month|months|year|years|quarter|"
    r"season|semester|term|morning|afternoon|evening|night|summer|winter|spring|autumn|fall|" + alternation(WEEKDAYS_EN)[3:-1]
    + r")\b)",
    # agreeing on when to meet ("Monday works for me", "3pm is fine with us"); "Yoga works for me" is a taste
    r"^(?:(?:oh|ok(?:ay)?|yeah|yes|sure|great|perfect)[,!.\s]+)*(?:(?:next|this|on)\s+)?(?:" + alternation(WEEKDAYS_EN)[3:-1]
    + r"|tomorrow|today|tonight|next\s+week|this\s+weekend|the\s+weekend|noon|midnight|either|both|"
    r"any\s*time|that\s+time|that\s+day|\d{1,2}(?::\d{2})?\s*(?:am|pm|o'clock)?)\b[^.!?]{0,24}?\b(?:works\s+a\s+treat\b|(?:works|"
    r"suits|is\s+(?:fine|good|great|perfect|ok(?:ay)?))\s+(?:for|with)\s+(?:me|us)\b)",
    # acting on what was just given ("I'll download some of these songs right away", "I'll try them tonight")
    r"^(?:(?:ok(?:ay)?|so|alright|great|perfect|thanks|yes|yeah|right|cool)[,!.\s]+)*(?:i|we)(?:'ll|\s+will|'m\s+going\s+to|"
    r"'m\s+gonna|\s+am\s+going\s+to)\s+(?:\w+\s+){0,4}?(?:these|those|them|this|that)\b(?!\s+(?:morning|afternoon|evening|"
    r"week|weekend|month|year|summer|winter|spring|fall|autumn|time|day|night|semester|term|season)\b)",
    # a wish for how something turns out ("I really hope this template helps", "I hope so"); "I hope to
    # become a doctor" is an aim, and a dated one stays ("I hope my demo on August 30 goes well")
    r"^(?:(?:and|but|so|well)[,\s]+)*(?:i|we)\s+(?:really\s+|just\s+|truly\s+|do\s+|sure\s+)*hope\b(?!\s+to\b)",
    # the same said to the other side without an "I" ("Hope ya had a fun day out", "Fingers crossed it works out")
    r"^(?:(?:and|but|so|well|oh)[,!.\s]+)*(?:hope\s+(?:you|ya|u|y'all|you're|your|it|it's|this|that|all|everything|things|"
    r"the|he|she|they)\b|fingers\s+crossed\b)",
    # looking forward to how the work turns out or to the next talk ("Looking forward to seeing how it goes",
    # "Looking forward to our Friday chat"); "I'm looking forward to visiting Golden Gate Park" is a plan
    r"^(?:(?:i'm|i\s+am|im|we're|we\s+are)\s+(?:\w+ly\s+|so\s+|really\s+)*)?looking\s+forward\s+to\s+(?:seeing\s+(?:how|what|"
    r"where|if|whether|the\s+(?:results|progress|difference))|hearing\s+(?:back|from\s+you|your|what|how)|(?:our|the|this|that)\s+"
    r"(?:\w+\s+){0,2}?(?:session|chat|call|review|conversation|discussion|check-in|catch-up|iteration)s?\b|(?:getting|keeping|"
    r"trying|putting|implementing|applying|testing|using|starting|continuing|making|working)\s+(?:on\s+)?(?:this|that|these|those|"
    r"it|them)\b|(?:the\s+)?next\s+(?:steps?|session|part|phase|round|iteration)\b)",
    # thanks, news taken in, nothing to add ("Thanks for the clarification", "I had no idea but that's great",
    # "I cant think of any right now"); "I had no idea I was allergic" says what the speaker learned
    r"^(?:(?:oh|ok(?:ay)?|and|well|hey|wow|aw+)[,!.\s]+)*(?:thanks|thank\s+you|thx)\s+(?:so\s+much\s+|a\s+lot\s+|again\s+)?for\b",
    r"^(?:(?:oh|wow|omg|really|huh|ah)[,!.\s]+)*i\s+(?:had\s+no\s+idea|didn't\s+know|did\s+not\s+know|never\s+knew)"
    r"(?=[\s.!,~]*$|\s+(?:that[\s.!~]*$|but\b|about\s+(?:that|this|it)\b|(?:that\s+)?(?:you|ya|u)\b))",
    r"^i\s+(?:can't|cant|cannot)\s+think\s+of\s+(?:any|anything|one|much)(?:\s+(?:else|really|right\s+now|at\s+the\s+moment|"
    r"off\s+the\s+top\s+of\s+my\s+head))*[\s.!,~]*$",
    # a message about the conversation itself ("Just wanted to confirm the auto-save is on", "Just wanted to share")
    r"^(?:(?:hi|hey|hello|ok(?:ay)?|so)[,!.\s]+)*(?:i\s+)?just\s+(?:wanted|want)\s+to\s+(?:confirm|make\s+sure|check|clarify|"
    r"double[\s-]check|follow\s+up|touch\s+base|share(?=[\s.!,~]*$)|say\s+(?:hi|hello|thanks|thank\s+you|bye))\b",
    # ready for the next piece of the work ("I'm ready to formalize our long-term maintenance plan", "I'm ready to
    # roll"); a step in the speaker's life stays ("I think I'm ready to quit my job at the bank", and a dated one:
    # "I'm ready to move to Lisbon in May")
    r"^(?:(?:ok(?:ay)?|so|alright|right|well|now|and)[,!.\s]+)*(?:i\s+think\s+|i\s+guess\s+|i\s+reckon\s+)?(?:i'm|i\s+am|im|"
    r"we're|we\s+are)\s+(?:\w+ly\s+|so\s+|now\s+|all\s+|just\s+|back\s+and\s+|relieved\s+and\s+)*ready\s+to\s+"
    r"(?!(?:apply|quit|retire|resign|move\s+(?:to|out|in|house|abroad)|have\s+(?:a\s+)?(?:baby|kids|children|child)|take\s+the\s+"
    r"plunge|get\s+married|propose|settle|buy\s+a\s+(?:house|home|car|flat|place)|adopt|start\s+(?:a\s+family|my\s+own|a\s+new\s+"
    r"job|dating)|learn\s+(?!how\b|more\b|properly\b)\w+\s+\w))",
    # ready for the work, without an "I" ("Ready to get back into the remittance stuff now")
    r"^(?:(?:ok(?:ay)?|alright|right|so)[,!.\s]+)*ready\s+to\s+(?:get\s+(?:back|stuck|started|going|cracking|into)|dive|jump|hop|"
    r"start|begin|move\s+on|continue|proceed|tackle|crack\s+on)\b",
    # a point of the work taken in ("work experience part, got it"), and nothing more wanted ("I think I'm good on food
    # for now")
    r",\s*(?:got\s+it|gotcha|understood|noted)[\s.!~]*$",
    r"^(?:(?:but|ok(?:ay)?|so)[,!.\s]+)*(?:i\s+think\s+)?(?:i'm|im|i\s+am|we're)\s+good\s+(?:on\s+[\w\s]{1,20}?\s+)?for\s+now\b",
    # what the work should deliver, said as a need ("I need a concrete plan, not more research", "I need the actual
    # analysis"); "I need a new laptop for my design work" is the speaker's
    r"^(?:(?:ok(?:ay)?|so|look|now|but)[,!.\s]+)*i\s+(?:really\s+|just\s+|still\s+|now\s+)*need\s+(?:a|an|the|your)\s+"
    r"(?:[\w'-]+\s+){0,3}?(?:plan|analysis|recommendation|breakdown|summary|draft|answer|report|table|outline|checklist|"
    r"overview|numbers|specifics|list|version|itinerary|schedule|proposal|script|template)s?\b(?=[\s.!,~]*$|,?\s+not\b|\s+(?:now|"
    r"first|immediately|asap|today)\b|\s+(?:and|with|for|on|of)\s+(?:the|this|that|these|those|it|them)\b)",
    # the same by contrast ("I need actionable data, not just estimates", "I want to see the concrete ideas, not just
    # talk about the process"); what the speaker needs for themselves stays ("I need some actual rest, not more planning")
    r"^(?:(?:ok(?:ay)?|so|look|now|but|honestly)[,!.\s]+)*(?:i|we)\s+(?:really\s+|just\s+|absolutely\s+|definitely\s+|"
    r"still\s+)*(?:need|want|expect|require)\s+(?!to\s+(?:feel|be)\b)(?![^,.;!?]*\b(?:rest|sleep|break|time\s+off|"
    r"funding|money|job|help\s+with\s+(?:my|this)\s+(?:health|exhaustion)))[^,.;!?]{3,80}?,?\s+not\s+(?:just\s+|more\s+|"
    r"another\s+)",
    # not knowing something said in passing ("i dunno how those pads work", "I don't know if he's coming"); "I don't
    # know how to swim" is a skill
    r"^(?:(?:oh|hmm+|well|idk|honestly)[,!.\s]+)*i\s+(?:dunno|don't\s+know|dont\s+know|do\s+not\s+know)\s+(?:if|whether|why|"
    r"what\s+(?:to\s+)?(?:say|think|do|else)|how\s+(?:those|these|that|this|it|they|he|she|you|u)\b)",
    r"^(?:(?:hmm+|well|oh)[,!.\s]+)*(?:i'm|im|i\s+am)\s+(?:still\s+|just\s+)?trying\s+to\s+think\s+of\b",
    r"^(?:(?:but|and|so|well|oh)[,!.\s]+)*nothing\s+(?:specific|special|much|really|in\s+particular)\b",
    # taking up the advice just given ("I'll definitely try the gevent worker class", "I'll keep an eye on my
    # spending", "I'll give it a shot"); a dated plan stays ("I'll make sure to attend mass on June 13th")
    _TAKING_UP_EN
    + r"(?:definitely\s+|certainly\s+|also\s+|surely\s+|for\s+sure\s+|probably\s+|def\s+)*(?:try(?!\s+to\b)(?:\s+out)?|"
    r"give\s+(?:\w+\s+){1,3}?an?\s+(?:try|shot|go)|keep\s+(?:\w+\s+){1,3}?in\s+mind|keep\s+an\s+eye|look\s+into|consider|"
    r"make\s+sure)\b",
    # the same, said with the word that takes it up ("I'll definitely talk to my landlord about it", "I'll also
    # keep up with my walking"); a move or a trip the speaker will be making stays ("I'll also be moving to Denver")
    _TAKING_UP_EN
    + r"(?:definitely|certainly|also|surely|for\s+sure|probably|def|totally|absolutely)\s+" + _ON_THE_MOVE_EN
    + r"(?!(?:definitely|certainly|also)\b)\w",
    # the same, weighed aloud ("Maybe I'll try a short meditation during my breaks", "Perhaps I could ask Bryan")
    r"^(?:(?:ok(?:ay)?|so|hmm+|well|yeah)[,!.\s]+)*(?:maybe|perhaps)\s+(?:i'll|i\s+will|i\s+can|i\s+could|i\s+should|"
    r"i\s+might)\s+" + _ON_THE_MOVE_EN + r"\w",
    # what the work needs next, said of "we" ("We can refine it later", "We need a strategy to handle this")
    r"^(?:we\s+(?:can|could|should|will)|we'll)\s+(?:always\s+|just\s+|then\s+)?(?:refine|sort\s+out|revisit|fix|adjust|tweak|"
    r"finali[sz]e|figure\s+out|decide|discuss|look\s+at|handle|deal\s+with|cover|work\s+out|polish|go\s+over|iron\s+out)\b",
    r"^we\s+(?:need|needed|have\s+to\s+(?:find|come\s+up\s+with)|should\s+(?:find|come\s+up\s+with))\s+(?:a|an|some)\s+(?:\w+\s+)?"
    r"(?:strategy|plan|way|approach|system|process|solution|framework|method|template|structure)\b",
    r"^we\s+(?:\w+\s+)?(?:need|don't\s+need|do\s+not\s+need|should|have)\s+to\s+(?:discuss|talk\s+about|go\s+over|cover|"
    r"look\s+at|decide\s+on)\b",
    r"\bmy\s+(?:next|last|first|other|final|follow-up|main)\s+question\b",
    r"^i\s+need\s+to\s+see\s+(?:the|this|that|those|these|it|your|an?\s+(?:example|draft|version|plan|list|sample))\b",
    # impatience with the pace of the work ("I don't want to waste any more time talking about it", "I can't afford to
    # lose more time"); "I can't be wasting hours driving" says how the speaker wants a trip to go
    r"\b" + WASTED_TIME_EN,
    # the piece of the work the speaker waits for ("I need the breakdown", "I need the actual PDF file", "I just need the
    # real link"), and what was shown, seen ("I see the flashcard for the Eulsa Treaty", "I can see the plan in action")
    r"^(?:(?:ok(?:ay)?|so|now|right|look|and|but|well|alright)[,!.\s]+)*i\s+(?:just\s+|really\s+|still\s+|only\s+)?need\s+"
    r"(?:the|your)\s+(?:[\w,'-]+\s+){0,3}?(?:breakdown|file|files|data|document|doc|content|details|wording|status|quotes?|"
    r"names?|list|plan|draft|summary|design|template|links?|urls?|numbers|info|information|output|version|answer|steps|code|"
    r"script|report|table|spreadsheet|email|pdf|text|figures|options|results?|analysis|overview)\b",
    r"^(?:(?:ok(?:ay)?|so|now|right|ah|oh|alright|yes|yeah)[,!.\s]+)*i\s+(?:can\s+)?see\s+(?:the|your|those|these|this)\b"
    r"(?![^.!?]*(?:\d|\b(?:my|our|every|each|once|twice|weekly|daily|monthly)\b))(?!\s+(?:doctor|dentist|therapist|physio|"
    r"specialist|counsel+or|vet|nurse|news|kids|children|grandkids|family|parents|twins)\b)",
    # what was said before in the conversation ("… the accelerated descent we discussed")
    r"(?:\b(?:as|like)\s+|^(?:the|this|that|it|regarding)\b.*\b)(?:we|you)\s+(?:just\s+)?(?:discussed|talked\s+about|covered|"
    r"went\s+over|agreed\s+on)(?:\s+(?:earlier|before|last\s+time|yesterday))?[\s.!,~]*$",
    r"^(?:the|those|these)\s+(?:\w+\s+){1,3}?(?:i|we|you)\s+(?:mentioned|listed|described|noted)\s+(?:are|were|is|was)[\s:.]*$",
    # an explanation taken in ("I understand the 16 million JPY now"; "I understand Japanese" is a skill)
    r"^(?:(?:ok(?:ay)?|right|ah|oh|alright)[,!.\s]+)*i\s+(?:\w+ly\s+|now\s+|finally\s+)?(?:understand\s+(?:the|it|this|that|what|how|"
    r"why|your|these|those)|(?:get|see)\s+(?:how|why|what|that|it|this|these|those|your|the\s+(?:idea|point|concept|logic|"
    r"reasoning|difference|appeal|importance|plan|breakdown|vision|picture)))\b",
    # the same with "can" ("I can see how it's supposed to work", "I can see how the chain rule is used", "I can
    # understand why he's so famous")
    r"^(?:(?:ok(?:ay)?|so|and|ah|oh|yeah|well)[,!.\s]+)*i\s+(?:can\s+|could\s+)?(?:now\s+|totally\s+|definitely\s+|really\s+|"
    r"finally\s+|kinda\s+)*(?:see|understand)\s+(?:how|why)\b",
    r"^(?:(?:ok(?:ay)?|so|and|ah|oh|yeah|well)[,!.\s]+)*i\s+can\s+(?:totally\s+|definitely\s+|really\s+)?understand\b",
    # what was promised or said before, and nothing more ("just as I promised", "like we agreed")
    r"^(?:just\s+)?(?:as|like)\s+(?:i|we)\s+(?:promised|said|mentioned|planned|agreed|discussed|told\s+you)[\s.,!~]*$",
    # a clarification of what was said ("I meant the 'Quiet Oasis' studio details")
    r"^(?:(?:yes|no|sorry|oh|ah)[,!.\s]+)*i\s+(?:meant|was\s+referring\s+to|was\s+talking\s+about)\b",
    # what was handed over in the conversation ("I've uploaded about 75 questions now")
    r"^(?:i|we)(?:'ve|\s+have)\s+(?:\w+ly\s+)?(?:uploaded|attached|pasted|shared|copied|forwarded|sent\s+(?:you|over|it|them))\b",
    # the state of a piece of the work ("The text message for my mom is ready")
    r"^(?:the|this|that|these|those)\s+(?:\w+\s+){0,5}?(?:is|are)\s+(?:now\s+|all\s+)?(?:ready|done|finished|complete|sent|"
    r"uploaded|attached|drafted|set)[\s.!,~]*$",
    r"\bon\s+the\s+right\s+track\b",
    r"\b(?:we're|we\s+are|i'm|i\s+am)\s+(?:\w+\s+)?(?:back\s+)?on\s+track(?:\s+now)?[\s.!,~]*$",
    r"\b(?:we|you)\s+did\s+(?:a\s+|such\s+a\s+)?(?:good|great|nice|solid|fantastic|brilliant|amazing)\s+job\b",
    # what the work should hand over ("I need that as a clear checklist", "I want to see it added to our itinerary")
    r"^(?:(?:so|but|and|now|ok(?:ay)?)[,\s]+)*(?:i|we)\s+(?:really\s+|just\s+|still\s+|definitely\s+|absolutely\s+)*(?:need|want|'d\s+like|"
    r"would\s+like)\s+(?:to\s+see\s+)?(?:that|this|these|those|it|them)\s+(?:\w+\s+){0,3}?(?:as\s+an?|in\s+an?|added|included|done|"
    r"ready|sorted|finished|formatted|laid\s+out|broken\s+down|organi[sz]ed|written|updated|revised|(?:\w+\s+)?(?:list|summary|"
    r"breakdown|table|draft|checklist|outline|itinerary|overview|report|version|template|document|analysis)s?)\b",
    # a piece of the work just settled together ("We fixed that pixelation bug"; "We fixed the roof" is the speaker's life)
    r"^(?:(?:ok(?:ay)?|so|great|perfect|nice)[,!.\s]+)*we(?:'ve|\s+have)?\s+(?:just\s+|finally\s+|now\s+|already\s+)?(?:fixed|solved|"
    r"resolved|cracked|nailed|squashed|debugged|sorted\s+out|ironed\s+out)\s+(?:that|this|those|these)\b",
    # judging what the other side proposed ("The proposed channels are acceptable", "… aligns perfectly with my objectives")
    r"\b(?:aligns?|fits?|matches|resonates)\s+(?:\w+ly\s+)?with\s+(?:my|our|the\s+user's)\s+(?:\w+\s+)?(?:objectives?|goals?|"
    r"vision|needs|requirements|criteria|brief|priorities)\b",
    r"^(?:regarding\s+[^,]+,\s*)?the\s+(?:proposed|suggested|recommended|revised|updated)\s+(?:\w+\s+){0,3}?(?:is|are|looks?|"
    r"seems?|sounds?)\s+(?:\w+\s+)?(?:acceptable|fine|good|great|perfect|solid|ok(?:ay)?)\b",
    # an answer to a quiz ("I reckon B. Wash the bite site …")
    r"^i\s+(?:reckon|think|guess|choose|pick|'ll\s+go\s+with|go\s+with|'d\s+say|would\s+say)\s+(?:option\s+|answer\s+)?(?-i:[A-D])\b(?!['’])",
    r"^i\s+feel\s+like\s+(?:that's|thats|it's|its|this\s+is|that\s+is)\b",
    # the best way forward, said of what is on the table ("I believe this is the best way going forward")
    r"^(?:i\s+(?:believe|think|feel)\s+)?(?:this|that|it)\s+(?:is|'s|seems|sounds\s+like)\s+the\s+(?:best|right|perfect|ideal|"
    r"smartest)\s+(?:way|approach|option|plan|choice|move|path|call)\b",
    # a step of the work taken at once ("I'm initiating Week 1 immediately")
    r"^(?:i'm|i\s+am|i'll|i\s+will|we're|we'll)\s+(?:\w+\s+){1,6}?(?:immediately|right\s+away|asap|straight\s+away)[\s.!,~]*$",
    # nothing more is needed of the work ("No further adjustments are needed for this tool")
    r"^no\s+(?:further|more|other)\s+(?:adjustments|changes|edits|questions|revisions|tweaks|input)\b",
    # eager to start the work now ("I'd love to start now")
    r"^(?:i'd\s+love|i\s+would\s+love|i'd\s+like|i\s+want|i'm\s+ready|i'm\s+eager)\s+to\s+(?:start|begin|get\s+started|get\s+going|"
    r"go|dive\s+in|jump\s+in)(?:\s+(?:now|right\s+away|right\s+now|today|immediately))?[\s.!,~]*$",
    # offering more of what was just said ("I can elaborate on that point")
    r"^(?:i|we)\s+(?:can|could)\s+(?:\w+ly\s+)?(?:elaborate|explain|clarify|expand|go\s+into\s+(?:more\s+)?detail)\b",
    # leaving the conversation ("I need to get back to studying", "I gotta go now lol")
    r"^(?:(?:ok(?:ay)?|well|anyway|alright|so|sorry|hi)[,!.\s]+)*(?:(?:i|im|i'm|i\s+am|we)\s+)?(?:really\s+|just\s+)?(?:gotta|got\s+to|"
    r"have\s+to|need\s+to|must|should|'ve\s+got\s+to|going\s+to\s+have\s+to|gonna\s+have\s+to)\s+(?:go|run|stop|leave|dash|"
    r"head\s+out|get\s+going|sign\s+off|log\s+off|step\s+away|jump\s+off|hop\s+off|"
    r"get\s+back\s+to\s+(?:work|it|studying|my\s+studies|my\s+work|the\s+books))(?:\s+(?:now|here|for\s+(?:now|today|the\s+day)))*"
    r"[\s.!,~]*(?:lol|haha|sadly|though|bye)?[\s.!~]*$",
    r"\b(?:is|are|was|'s)\s+(?:exactly\s+|finally\s+|just\s+|precisely\s+)*what\s+(?:i|we)\s+(?:needed|need|wanted|want|expected|"
    r"asked\s+for|was\s+looking\s+for|were\s+looking\s+for|had\s+in\s+mind)\b",
    r"\bexactly\s+what\s+(?:i|we)\s+(?:was|were)\s+hoping\s+for\b",
    # thanks for what was given, said as appreciation ("I appreciate the additionalProperties approach for
    # flexibility", "I really appreciate your patience"); "I appreciate a wide range of genres" is a taste
    r"^(?:(?:and|but|so|also|thanks|ok(?:ay)?|great|honestly)[,!.\s]+)*(?:i|the\s+user)\s+(?:(?:\w+ly|also|just|do|still)\s+)*"
    r"appreciates?\s+(?:your|that|this|these|those|it|how|you|everything|the\s+(?:[\w\-'\"]+\s+){0,3}?"
    r"(?:approach|reassurance|encouragement|recap|idea|ideas|enthusiasm|structure|focus|emphasis|note|notes|caution|"
    r"integration|suggestions?|advice|help|tips?|breakdown|explanation|details?|clarity|insights?|feedback|support|"
    r"list|plan|update|reminder|options|thoroughness|input|perspective|effort|guidance|mention|summary|overview|"
    r"examples?|info|information|points?|offer|clarification|quick\s+response|patience))\b",
    # pleased with how the work turned out ("I'm really happy with how the itinerary turned out", "I'm pleased
    # with this"); "I'm happy with my new job" is the speaker's
    r"^(?:(?:and|but|so|overall|honestly|ok(?:ay)?|wow|great)[,!.\s]+)*(?:i'm|i\s+am|im|i\s+feel|the\s+user\s+is)\s+"
    r"(?:(?:\w+ly|so|very|quite|pretty|super|also)\s+)*" + PLEASED_WITH_WORK_EN,
    # a verdict on what was suggested, said of it alone ("Monthly process review meetings sound like a great idea",
    # "The user thinks designating every Sunday as a rest day sounds good"); "My new flat looks great" is the speaker's
    r"^(?=[^.!?]*\b(?:sounds?|seems?|looks?)\s)(?:(?:so|and|but|yeah|honestly|overall|ok(?:ay)?|also)[,!.\s]+)*"
    r"(?:i\s+(?:really\s+)?(?:think|feel\s+like|guess|reckon)\s+)?"
    r"(?![^.!?]*\b(?:i|i'm|i've|my|mine|we|we're|we've|our)\b[^.!?]*\b(?:sounds?|seems?|looks?)\b)[^.!?]{3,120}?\b(?:sounds?|"
    r"seems?|looks?)\s+(?:like\s+)?(?:(?:a|an|really|very|so|pretty|quite|super|exactly|just|such\s+a|like\s+a)\s+)*"
    r"(?:good|great|perfect|ideal|solid|fun|doable|manageable|reasonable|amazing|interesting|helpful|useful|awesome|"
    r"excellent|brilliant|fantastic|smart|sensible|promising|lovely|wonderful|nice|cool)(?:\s+(?:idea|ideas|plan|option|"
    r"options|approach|start|first\s+step|fit|choice|way|activity|compromise|solution))?(?:\s+(?:to|for)\s+(?:me|us))?"
    r"[\s.!,~]*$",
    # wanting to hear how the other's news goes ("I'd love to hear how it turns out"); "I'd love to see the
    # Northern Lights" is the speaker's wish
    r"^(?:(?:oh|wow|aw+|well)[,!.\s]+)*i(?:'d|\s+would)\s+(?:really\s+)?love\s+to\s+(?:hear|know|see)\s+(?:how|what|about\s+(?:it|that|them)|"
    r"more|if|whether)\b",
    # no answer ("I wouldnt be surprised", "I just dunno when")
    r"^i\s+(?:wouldn'?t|would\s+not)\s+be\s+surprised[\s.!~]*$",
    r"^(?:i\s+)?(?:just\s+|really\s+|honestly\s+)?(?:(?:don'?t|do\s+not)\s+know|dunno)(?:\s+(?:when|what|how|why|where|if|"
    r"yet|anymore|tbh|lol))?[\s.!?~]*$",
    # a verdict on the plan in hand ("I think setting clear boundaries and sticking to them will be key", "I think
    # it would be a great way to relax and reconnect", "I think this will help me see where I can cut back")
    r"^(?:(?:so|and|but|yeah|honestly|ok(?:ay)?|overall)[,!.\s]+)*i\s+(?:really\s+|also\s+)?(?:think|feel|guess|believe|reckon)\s+"
    r"(?:that\s+)?(?:that|it|this|these|those)\s+(?:would|will|'ll|could|might|should|can)\s+(?:(?:really|definitely|probably|"
    r"also|actually|totally)\s+)*(?:be\s+(?:a|an|the|really\s+(?:helpful|useful)|(?:very\s+|super\s+)?(?:helpful|useful|"
    r"beneficial|effective))\b|help|make|give|work|add|keep|allow|let|provide)\b",
    r"^(?:(?:so|and|but|yeah|overall|honestly)[,!.\s]+)*i\s+(?:really\s+)?(?:think|believe|feel\s+like|guess|reckon)\s+"
    r"[^.!?]{3,160}?\b(?:will|'ll|is\s+going\s+to|would)\s+be\s+(?:absolutely\s+|really\s+|so\s+)?(?:key|crucial|"
    r"essential|vital|critical|the\s+key|a\s+game[-\s]changer)\b",
    # a verdict on a step proposed for the work, its subject a gerund ("I think categorizing the feedback first will
    # really help", "I think diving into the birthday paradox next would be really interesting", "I think using Tina and
    # Zoe as references would work well"); one that says "my" stays ("I think learning Spanish will help me at my new
    # job in Madrid"), as does what has helped ("I think running every morning has helped my sleep")
    r"^(?:(?:so|and|but|yeah|honestly|ok(?:ay)?|overall|for\s+[\w\s]{1,30}?)[,!.\s]+)*i\s+(?:really\s+|also\s+)?(?:think|feel\s+like|"
    r"believe|reckon|guess)\s+(?:that\s+)?(?:(?:also|maybe|perhaps|just)\s+)?[a-z]+ing\b(?![^.!?]*\bmy\b)[^.!?]{0,160}?\b(?:will|'ll|would|could|"
    r"might|can)\s+(?:(?:really|definitely|probably|also|actually|totally|certainly|surely)\s+)*(?:help|work\s+(?:well|best|"
    r"great|better)|make\s+(?:a|all\s+the)\s+(?:big\s+|huge\s+|real\s+)?difference|enhance|improve|be\s+(?:(?:really|super|very|"
    r"so|quite|pretty|extremely|especially|particularly)\s+)?(?:helpful|useful|beneficial|effective|interesting|fun|important|"
    r"valuable|great|good|perfect|ideal|smart|wise|a\s+(?:great|good|fun|nice|smart|solid)\s+(?:idea|way|start|step|first\s+step|"
    r"next\s+step|approach|option|addition)|the\s+(?:first|next|best|right)\s+(?:step|move|approach|way)))\b",
    # the next step of the shared work, pointing at what is on the table ("We need to get that locked down so we can
    # move to logo", "We can split this sum into two parts"); "We can continue our coastal walks" says what is theirs
    r"^(?:(?:so|and|but|ok(?:ay)?|alright|right|now|then|first|also)[,!.\s]+)*we\s+(?:(?:also|just|really|still|definitely|"
    r"then|now|first)\s+)*(?:need\s+to|have\s+to|must|gotta|got\s+to|should|can|could|'ll|will)\s+(?:\w+\s+){1,2}?"
    r"(?:it|that|this|these|those|them)\b(?!\s+(?:is|was|are)\b)",
    # what the speaker has heard or read about the world, brought to the work in hand ("I've heard that PostgreSQL
    # has better support for concurrent connections", "I know that the author knows …"); what it says of the
    # speaker stays ("I heard that I need to configure an API key"), as does a dated one (checked before)
    r"^(?:(?:so|and|but|also|well|yeah|plus|now|ok(?:ay)?)[,!.\s]+)*i(?:'ve|\s+have)?\s+(?:(?:also|recently|just|once|"
    r"always|often|even|actually)\s+)*(?:heard|read|know|learned|learnt)\s+(?:(?:somewhere|online|before|recently)\s+)?"
    r"that\s+(?!(?:study|article|book|post|paper|piece|report|thread|blog|story|review|guide|chapter|one)\b)"
    r"(?![^.!?]*\b(?:i|i'm|i've|i'd|i'll|im|ive|my|me|mine|myself|we|we're|we've|our|us)\b)",
    # coming back to the conversation with the work ("I'll return with my compiled list once I'm done", "I'll report
    # back after the meeting"); "I'll return to Lisbon in May" is a trip
    r"^(?:(?:ok(?:ay)?|so|alright|great|thanks)[,!.\s]+)*(?:i|we)(?:'ll|\s+will)\s+(?:\w+ly\s+|then\s+|soon\s+)?(?:return|"
    r"come\s+back|report\s+back|circle\s+back|check\s+back|be\s+back)\b(?!\s+(?:to|from|home|in\s+(?-i:[A-Z])))",
    # moving the conversation on, said as a need ("We need to move on", "We can't waste another second")
    r"^(?:(?:so|ok(?:ay)?|alright|right|now)[,!.\s]+)*we\s+(?:really\s+|just\s+)?(?:need\s+to|have\s+to|must|gotta)\s+"
    r"(?:move\s+on|keep\s+moving|move\s+forward)\b(?!\s+with\b)",
    r"\b(?:can't|cannot|can\s+not|shouldn't|don't)\s+waste\s+(?:another|any\s+more|more|any)\s+(?:second|minute|moment|time)\b",
    # asking for where a piece of the work stands ("I need an update on the Hemu Grand Hotel booking")
    r"^(?:(?:ok(?:ay)?|so|now|hi|hey)[,!.\s]+)*i\s+(?:just\s+|still\s+|really\s+)?(?:need|want|'d\s+like|would\s+like)\s+"
    r"(?:an?\s+|the\s+|a\s+quick\s+)?(?:update|status\s+update|recap|refresher|rundown)\s+(?:on|of|about|for)\b",
    # what was handed over, taken in ("I've got the instructions", "I've reviewed the refined prompt engineering
    # plan"); "I've got a new job" is the speaker's
    r"^(?:(?:ok(?:ay)?|so|alright|great|right)[,!.\s]+)*i(?:'ve|\s+have)\s+(?:now\s+|just\s+)?got\s+(?:the|your|all\s+the)\s+"
    r"(?:instructions|details|info|information|steps|breakdown|notes|summary|list|plan|gist|idea|message|scenarios?|"
    r"questions|options|examples|links?|files?|drafts?|template|outline|points|answers)[\s.!,~]*$",
    r"^(?:(?:ok(?:ay)?|so|alright|great|right)[,!.\s]+)*i(?:'ve|\s+have)\s+(?:now\s+|just\s+|already\s+|carefully\s+)?"
    r"(?:reviewed|gone\s+(?:through|over)|looked\s+(?:over|through)|skimmed|digested)\s+(?:the|your|this|that|these|those|"
    r"it|them|all|everything)\b",
    # figuring the rest out alone ("I'll figure it out myself")
    r"^(?:(?:ok(?:ay)?|so|alright|fine|never\s*mind)[,!.\s]+)*i(?:'ll|\s+will|\s+can)\s+(?:just\s+)?figure\s+(?:it|this|"
    r"that|the\s+rest)\s+out(?:\s+(?:myself|on\s+my\s+own|later))?[\s.!,~]*$",
    # a verdict on a piece of the work ("CustomerInfo is definitely the right move", "Kai's Core API is a solid
    # blueprint for his build", "Option 3 is so great", "The regenerated list is a start"); "I'm a solid swimmer" is
    # the speaker's
    r"^(?:(?:so|and|but|yeah|honestly|ok(?:ay)?|overall)[,!.\s]+)*(?!(?:i|i'm|im|my|we|we're|our|the\s+user)\b)"
    r"[^,.;!?]{3,60}?\b(?:is|are|'s)\s+(?:\w+ly\s+|so\s+|really\s+|definitely\s+|still\s+|just\s+)*(?:the\s+(?:right|"
    r"perfect|ideal|correct)\s+(?:[\w-]+\s+)?(?:foundation|choice|approach|call|fit|direction|option|move|way|tool|path|"
    r"framework|structure|balance|format|solution)|a\s+(?:solid|great|good|strong|decent|promising)\s+(?:[\w-]+\s+)?"
    r"(?:blueprint|foundation|choice|approach|call|option|move|structure|framework|first\s+step|solution|compromise|"
    r"starting\s+point)|a\s+(?:good\s+)?start[\s.!,~]*$)",
    r"^(?:option|choice|version|draft)\s+(?:\d+|[a-d]|one|two|three|four|five)\b[^.!?]{0,30}?\b(?:is|are|looks|sounds|"
    r"seems)\s+(?:\w+\s+){0,2}?(?:great|good|perfect|solid|best|logical|fine|ideal|better|amazing|the\s+(?:best|only|right))\b",
    # a verdict on an activity that is the subject ("Staying consistent is key", "Calling them directly is the real way
    # to get the most accurate info", "Trying to track everything separately just sounds like more work"); one the
    # speaker keeps up ("Swimming on Wednesdays has been great"), how it goes ("Coding is going smoothly") and one
    # said of the speaker ("Painting is my passion", "Finding time is hard with my schedule") stay
    r"^(?:(?:so|and|but|yeah|honestly|just|even|ok(?:ay)?)[,!.\s]+)*(?!(?:something|nothing|everything|anything|morning|"
    r"evening|spring|king|ring|thing|string|wedding|building|meeting|ceiling|clothing|sibling|darling|pudding|feeling|"
    r"earring|wing|during|bring|sing|swing|ping|sling|sterling|viking|pending|according|regarding|following|including|"
    r"outstanding|interesting|amazing|exciting|boring)\b)[a-z]{2,}ing\b(?![^.!?]*(?<![\w'])(?:i|i'm|im|i've|i'd|i'll|"
    r"my|me|mine|myself|we|we're|we've|we'll|our|us)(?![\w']))[^,.;:!?]{0,80}?\s(?:is|are|was|'s|feels?|felt|sounds?|"
    r"seems?|looks?|(?:will|would|could|might|can|should)\s+be)\s+(?!(?:\w+ly\s+)*\w+ing\b)",
    # steering the other side's next answer ("Don't just tell me what we'll do", "No long talk, straight to the
    # point", "I need a moment", "I'm going to ask five questions"); "Don't tell my
    # sister about the party" is a boundary and "I need a moment to myself after work every day" a habit
    r"^(?:(?:and|but|so|please)[,!.\s]+)*don't\s+just\s+(?:tell|give|ask|get\s+back\s+to|show|say|send|list|repeat|"
    r"explain)\b",
    r"^(?:(?:ok(?:ay)?|so|and)[,!.\s]+)*no\s+(?:more\s+)?(?:long\s+talk|long\s+explanations?|fluff|small\s+talk|"
    r"lectures?)\b",
    r"^(?:(?:ok(?:ay)?|hold\s+on|wait|sorry|so)[,!.\s]+)*i\s+(?:just\s+)?need\s+a\s+(?:minute|moment|second|sec)\b"
    r"(?![^.!?]*\b(?:every|always|usually|often|after|before|whenever)\b)",
    r"^(?:(?:ok(?:ay)?|so|now|next)[,!.\s]+)*i(?:'m|\s+am)\s+going\s+to\s+ask\s+(?:you\s+)?(?:\w+\s+)?(?:more\s+)?"
    r"(?:questions?|the\s+question)\b",
    r"^(?:(?:ok(?:ay)?|so|now|next)[,!.\s]+)*i(?:'ll|\s+will)\s+ask\s+(?:you\s+)?(?:the\s+)?questions?\s+"
    r"(?:number\s+|no\.?\s*)?\d",
    # a bare "I do remember"
    r"^(?:(?:ok(?:ay)?|yes|yeah|oh)[,!.\s]+)*i\s+(?:do\s+)?remember[\s.!,~]*$",
    # what the other side should wait for ("Expect my update once completed", "Expect me back once I've digested it")
    r"^(?:expect|watch\s+for|look\s+out\s+for)\s+(?:me\s+back|my\s+return|(?:my|an?|the)\s+(?:[\w-]+\s+){0,4}?(?:updates?|"
    r"message|reply|list|results?|drafts?|observations|findings|notes|feedback|thoughts|numbers|report|answers?|"
    r"prompts|metrics|changes|version))\b",
    # glad the work moves ("Glad we're moving forward after that payment gateway drama")
    r"^(?:(?:so|and|ok(?:ay)?)[,!.\s]+)*(?:i'm\s+|i\s+am\s+)?(?:\w+ly\s+|so\s+)?(?:glad|relieved|happy)\s+(?:that\s+)?"
    r"we(?:'re|\s+are)\s+(?:finally\s+|now\s+)?(?:moving|making\s+(?:progress|headway)|getting\s+(?:somewhere|there)|"
    r"on\s+track|back\s+on\s+track)\b",
)
#: The same, in Chinese: 我们刚才说到 …, 根据上面的讨论 …, 那就这样吧.
CONVERSATION_TALK_ZH = (r"^(?:那|那么|好)?(?:根据|基于|按照)(?:我们|你|上面|刚才|以上|前面)(?:所有)?的?(?:讨论|对话|内容|建议|分析|回答)",
                        # waiting to hear someone's view (期待你的建议, 我很好奇你怎么看)
                        r"^我?(?:很|非常|特别|真的)?期待(?:听到|得到|收到|听听)?(?:你|您|他|她|大家|专家)?的?(?:建议|意见|反馈|看法|想法|见解)",
                        r"^我(?:很|挺|有点|真的)?好奇(?:你|您|他|她|大家)(?:对[^，。！？]{0,12})?(?:怎么看|的看法|会怎么说)",
                        r"^我?(?:来|想)?(?:跟进|确认|核实)一下", r"(?:有|包括|如下)[:：]?\s*$",
                        r"(?:我们|咱们)(?:刚才|之前|已经)(?:说|聊|讨论|谈)(?:过|到|了)",
                        # the piece of the work the speaker waits for (我需要完整的文件, 我需要那个链接) and what was shown,
                        # seen (我看到你的清单了); 我需要一些休息 is the speaker's own
                        r"^我(?:只是|就|还)?(?:需要|要)(?:那个|这个|那份|这份|完整的|具体的|最新的|实际的|真正的)[^，。！？]{0,6}?"
                        r"(?:文件|文档|链接|数据|清单|报价|细节|草稿|表格|总结|方案|结果|版本)",
                        r"^我(?:已经)?看到(?:了)?(?:这个|那个|这些|那些|你的)[^，。！？]{0,8}?(?:了|啦)?[。！!~]*$",
                        # impatience with the pace of the work (我不想再浪费时间了); 浪费时间刷手机 is what the speaker does
                        r"^我?(?:真的|实在)?(?:不想|不能|没空|没时间)(?:再)?浪费(?:时间|一分钟|一秒)",
                        # an explanation taken in (我明白为什么了, 我能理解他为什么这么有名); 我懂日语 is a skill
                        r"^我(?:现在|终于|大概)?(?:能|可以)?(?:明白|理解|看出|懂)(?:了)?[^，。！？]{0,6}?(?:为什么|怎么|如何)",
                        # thinking over what was discussed (我一直在想我们讨论过的内容); 我一直在想去日本旅行 is a plan
                        r"^我(?:一直|最近|还)?在(?:想|思考|琢磨)(?:我们|咱们)[^，。！？]{0,6}?(?:讨论|聊|说|谈|定)(?:过|了)?的",
                        r"^(?:那就这样吧?|就这样吧|先这样吧?)",
                        r"^(?:整理|列出|总结|翻译|生成|推荐|提供|制定|写)(?:一下|一份|一个|出)",
                        r"^我(?:已经|都)?准备好了[。！!~]*$", r"^我(?:已经)?准备好(?:开始|继续|听|看)",
                        r"^我(?:得|要|该|先)(?:走|下|撤|去忙)了[。！!~]*$",
                        r"(?:这个|这些|你的|那个)[^，。！？]{0,12}(?:看起来|听起来)(?:很|挺|非常|真)?(?:不错|好|棒|完美|清楚|实用)",
                        r"(?:没有|没)(?:别的|其他的?|什么)(?:问题|要(?:问|讨论|补充)的)",
                        # a wish to the other side, looking forward to the next talk, thanks, news taken in
                        r"^(?:希望你|祝你|祝您)", r"^(?:我)?(?:很|真|好)?期待(?:我们的?)?(?:下次|下一次|明天|之后)的?(?:聊天|见面|交流|讨论|对话)",
                        r"^(?:谢谢|感谢|多谢)(?:你|您)",
                        r"^我?(?:都|还|竟然|真)?不知道(?:呢|诶|耶|啊|哎)?[，。！!~]*$", r"^我?(?:一时|暂时)?想不(?:出|起来)",
                        r"^(?:准备好|可以)(?:继续|开始)了?[。！!~]*$",
                        r"^我(?:现在|只是)?(?:需要|要)(?:一个|一份|你的)?(?:具体的|详细的|真正的|实际的)?(?:计划|分析|建议|方案|清单|总结|报告)"
                        r"[。！!~]*(?:$|，?而不是)",
                        r"^我?(?:还)?在想(?:还能|还要|还可以|该)(?:做|吃|买|写)(?:点)?什么", r"^(?:没什么|没有什么)(?:特别|具体)的?",
                        # a verdict on the plan in hand (我觉得设定清晰的界限会是关键), what was heard about the
                        # world (听说Redis很适合做缓存); 听说我需要配置环境变量 says something of the speaker
                        r"^我(?:觉得|认为|想)[^。！？]{2,40}(?:会是|将是|才是)(?:关键|重中之重)",
                        # a verdict on a step proposed for the work (我觉得先把反馈分类会很有帮助); 我的 keeps it the speaker's
                        r"^我(?:觉得|认为)(?:先|再|多|把|用)(?![^。！？]*我的)[^，。！？]{2,30}(?:会|能|应该)(?:很|非常|挺|特别|真的)?"
                        r"(?:有帮助|有用|管用|有效|有意思)",
                        # pleased with or grateful for what was given (我很满意这个行程安排, 我很欣赏你的建议,
                        # 我对这个计划很满意); 我很满意我的新工作 is the speaker's
                        r"^我(?:真的|非常|很|挺|特别|十分)?(?:满意|欣赏|感激|喜欢)(?:这个|这些|这份|这样的|你的|您的|你们的|你给的|你做的)",
                        r"^我对(?:这个|这些|这份|你的|您的|你给的|你做的)[^。！？]{0,12}(?:很|非常|挺|特别|十分)?(?:满意|欣赏)",
                        # a verdict on a piece of the work (方案三很好, 这正是我想要的)
                        r"^(?:选项|方案|版本)\s*[0-9一二三四五A-Da-d]+(?:是|就是)?(?:真的|非常|很|挺|最)?(?:好|棒|完美|合理|合适|不错)",
                        r"(?:正是|就是)我(?:们)?(?:一直)?(?:想要|需要|希望|期待)的",
                        r"^我(?:真的|非常|很|挺|特别|更|比较)?(?:喜欢|偏向|倾向于?|选)" + OPTION_GIVEN_ZH,
                        # steering the other side's next answer (别光说要做什么, 少废话, 我要问你五个问题,
                        # 问题一：…, 我需要一点时间)
                        r"^(?:别|不要)(?:光|只|只是)(?:说|告诉我|给我|问)", r"^(?:少|别|不要)(?:废话|啰嗦|长篇大论)",
                        r"^我(?:要|想|会)问(?:你)?(?:[一二三四五六七八九十几两\d]+个)?问题", QUIZ_ITEM,
                        r"^(?:等等|稍等)?[，,]?我(?:需要|得)(?:一点|一些)?时间(?:想想|消化|考虑)?(?:一下)?[。！!~]*$",
                        # a verdict on an activity that is the subject (保持冷静是关键, 设定界限很重要); 坚持跑步让我
                        # 睡得更好 is said of the speaker
                        r"^(?![^。！？]*[我咱])(?:保持|坚持|学习|练习|规划|计划|整理|准备|尝试|设定|设置|建立|记录|复习|锻炼|"
                        r"沟通|联系|检查|确认|安排|列出|提前)[^。！？，]{0,20}(?:是关键|很关键|是重中之重|至关重要|很重要|"
                        r"非常重要|很有必要|是个好主意|是个好办法|听起来(?:很|挺|不错|就))",
                        # coming back to the conversation with the work (我整理完再回来, 我晚点再跟你说)
                        r"^我(?:晚点|回头|稍后|等会儿?|一会儿?|弄完|做完|整理完|看完)了?(?:再|就)?(?:回来|来找你|跟你说|告诉你|汇报)",
                        r"^我(?:已经)?(?:看完|看过|读完)了?(?:你的|这个|这份|这些)(?:计划|建议|方案|清单|总结|草稿)",
                        r"^我?(?:听说|听人说|据说|看到有人说)(?![^。！？]*[我咱])[^。！？]*(?:可以|能够?|有助于|比较好|更好|"
                        r"很适合|适合|不错|是个好)")
#: What is said in passing, not a memory: a caption to something shown ("Heres a desert I made the
#: other day!", "Look at how nice the fresh pasta comes out!"), how the speaker is doing when
#: greeted ("I'm doing good, it's a sunny day here in Houston!") and the weather outside.
#: "Here's my new address: 12 Elm Street" names what it shows, after a colon, and stays a fact.
PASSING_TALK_EN = (
    # no energy or time for something right now ("I don't have the energy to search their website right now");
    # "I don't have time to cook on weekdays" is how the speaker's week goes
    r"^(?:(?:honestly|ugh|man|and|but|so)[,!.\s]+)*i\s+(?:don't|do\s+not|dont)\s+have\s+(?:the\s+|any\s+|much\s+|enough\s+)?"
    r"(?:energy|time|patience|bandwidth|headspace|strength)\b[^.!?]*\b(?:now|today|tonight|at\s+the\s+moment)\b",
    # a passing state of mind ("My brain is completely fried", "My head is still spinning"); "My brain is
    # usually too fried for pressure" is how the speaker is
    r"^(?:(?:honestly|ugh|man|and|but|so|plus)[,!.\s]+)*my\s+(?:head|brain|mind)\s+(?:(?:still|just|already|really|kind\s+of)\s+)*"
    r"(?:(?:is|'s|feels|was)\s+)?(?:(?:still|just|"
    r"completely|totally|so|really|absolutely|a\s+bit|a\s+little|kind\s+of|already|literally|like|finally|officially)\s+)*"
    r"(?:spinning|fried|mush|foggy|fuzzy|hazy|racing|buzzing|swimming|exploding|overloaded|blank|(?:so\s+)?full|a\s+mess|"
    r"all\s+over\s+the\s+place|clear(?:er)?)\b"
    r"(?![^.!?]*\b" + alternation(HABIT_WORDS_EN) + r"\b)",
    # the power or the connection this moment ("The internet is finally back", "The power is out"); "Power is too
    # unreliable here" is how the speaker's place is
    r"^(?:(?:ok(?:ay)?|so|good\s+news|yay|finally|and|but|hey|hi)[,!.\s]+)*(?:the\s+|my\s+|our\s+)?(?:internet|power|wi-?fi|"
    r"electricity|signal|connection|network|lights?|generator)\s+(?:is|are|was|'s|has\s+been|just\s+came|came)\s+(?:finally\s+|"
    r"now\s+|back\s+|still\s+|just\s+)*(?:back|out|down|on|off|stable|restored|working|fixed)\b",
    # the body in a passing fright or chill ("my heart is still pounding like crazy", "My chest feels so tight", "My hands
    # are a bit shaky", "My hands are especially cold")
    r"^(?:(?:honestly|ugh|man|and|but|so|plus|oh|okay)[,!.\s]+)*my\s+heart\s+(?:is\s+|'s\s+)?(?:still\s+|just\s+|really\s+|"
    r"literally\s+)*(?:pounding|racing|beating\s+(?:so\s+|really\s+)?(?:fast|hard))\b",
    r"^(?:(?:honestly|ugh|man|and|but|so|plus|oh|okay)[,!.\s]+)*my\s+(?:chest|breath|breathing|hands?|stomach)\s+(?:feels?|is|"
    r"are)\s+(?:so\s+|really\s+|still\s+|especially\s+|a\s+bit\s+|kind\s+of\s+)*(?:tight|heavy|shaky|shaking|cold|sweaty|"
    r"clammy|shallow|tense|in\s+knots)\b",
    # relief at how the work now stands ("I feel much better about the plan now", "I'm feeling a lot more confident
    # about the trip"); what it follows in the speaker's life stays ("I feel better since my surgery"), as does a
    # taste ("I'm less concerned with certifications than with …")
    r"^(?:(?:ok(?:ay)?|honestly|yeah|wow|phew|so|and|but|thanks|great)[,!.\s]+)*(?:i\s+|i'm\s+|im\s+|i\s+am\s+)"
    r"(?:(?:already|now|definitely|actually|really|also)\s+)*(?:feel(?:ing)?\s+)?(?:(?:so|much|a\s+lot|way|a\s+bit|"
    r"a\s+little|even|far|already|somewhat|kind\s+of|now)\s+)*(?:better|more\s+(?:confident|comfortable|prepared|ready|"
    r"relaxed|secure|optimistic|hopeful|at\s+ease|in\s+control|motivated|organi[sz]ed|settled|positive|clear|on\s+track)|"
    r"less\s+(?:stressed|worried|anxious|overwhelmed|nervous|concerned|confused|lost))\b"
    r"(?![^.!?]*\bthan\b)(?![^.!?]*\b(?:after|since|now\s+that)\s+(?!(?:our|we|we've|we're|you|your|this|that|these|"
    r"those|it|talking|chatting|discussing|going\s+over|sorting|seeing|hearing|reading|the\s+(?:chat|call|plan|breakdown|"
    r"changes?|adjustments?))\b))",
    # an apology to the other side, not for something in the speaker's life ("I'm sorry", "so sorry to hear that")
    r"^(?:(?:look|oh|ah|well|hey|no|nah|aw+|omg)[,!.\s]+)*(?:i'm|im|i\s+am)\s+(?:so\s+|really\s+|very\s+|truly\s+|terribly\s+)?sorry\b"
    r"(?=[\s.,!~]*$|\s+(?:to\s+(?:hear|bother|say)|for\s+(?:your|the|that|this|bothering|asking|being|not|taking)|about\s+(?:that|this|"
    r"your|the)|if|you|that\b))",
    r"\b(?:say|said|saying)\s+(?:hi|hello|hey|bye|goodbye|good\s+morning|good\s+night)\b",
    # an assistant's disclaimer in a person's turn ("I don't have personal preferences, but …", "as an AI"): it
    # says the speaker has no life to remember
    r"\b(?:as\s+an\s+ai|(?:a|an\s+ai)\s+language\s+model|(?:don't|do\s+not|dont)\s+have\s+(?:any\s+)?(?:a\s+)?personal\s+"
    r"(?:experiences?|preferences?|opinions?|feelings?|favou?rites?|tastes?)|(?:don't|do\s+not|dont)\s+have\s+(?:a\s+)?"
    r"(?:physical\s+)?body)\b",
    # off to a moment of the day's routine ("I'm gonna go get some lunch", "Im gonna head to bed", "I'm going to take
    # a shower"); what the speaker will do with their life stays ("I'm going to take a pottery class")
    r"^(?:(?:ok(?:ay)?|so|well|alright|anyway|anyways|yeah|and|but|then|welp|lol|haha|i\s+think|i\s+guess)[,!.\s]+)*"
    r"(?:i\s+think\s+|i\s+guess\s+)?(?:i'm|im|i\s+am)\s+(?:gonna|going\s+to|about\s+to|off\s+to)\s+(?:go\s+(?:and\s+)?)?"
    r"(?:head\s+(?:to\s+bed|out|home|off|to\s+sleep)|go\s+to\s+(?:bed|sleep)|sleep|nap|rest|shower|wash\s+up|"
    r"(?:take|have|grab)\s+(?:a\s+)?(?:quick\s+)?(?:nap|shower|bath|lunch\s+break|break|breather)|"
    r"take\s+(?:some\s+|my\s+|a\s+)?(?:meds|medicine|pain\s*killers?)|"
    r"(?:get|grab|eat|have|make)\s+(?:some\s+|a\s+|my\s+)?(?:lunch|breakfast|dinner|brunch|food|snack|something(?:\s+to\s+eat)?|"
    r"bite))\b",
    # a guess at how someone else is or will be ("Im sure she was understanding", "I'm sure it'll be a memorable
    # experience"); "I'm sure I left my keys at work" is the speaker's own
    r"^(?:(?:oh|yeah|well|and|but|so|lol|haha)[,!.\s]+)*(?:i'm|im|i\s+am)\s+(?:pretty\s+|very\s+|so\s+|quite\s+)?sure\s+"
    r"(?:that\s+)?(?:he|she|they|it|its|it's|it'll|you|there|this|people|everyone)\b",
    # where the speaker is at this moment, what they are doing or about to do, "now" closing it ("I'm heading to
    # the gym now", "I'll send the message now", "I'm pretty tired now"); a change that lasts stays ("I'm now
    # co-hosting a baking workshop", "I've been skiing for ten years now", "I used to play, but now I watch"), as
    # do a number ("it has 8 series now"), a school ("I'm in college now") and what holds "at the moment"
    r"^(?:(?:ok(?:ay)?|so|well|alright|right|yeah|and|but|then|anyway)[,!.\s]+)*(?:i\s+think\s+)?(?:i'm|im|i\s+am|i'll|"
    r"i\s+will|we're|we'll|let's|i\s+should|i\s+need\s+to|i\s+have\s+to|i\s+gotta)\b(?![^.!?]*\bnow\s+that\b)(?![^.!?]*\d)"
    r"(?![^.!?]*\b(?:for\s+(?:[\w-]+\s+){0,4}now|used\s+to|anymore|no\s+longer|until\s+now|till\s+now|by\s+now|since|ago|"
    r"years?|months?|from\s+now\s+on|but\s+now|in\s+(?:college|school|university|uni|grad\s+school|high\s+school))\b)"
    r"[^.!?]*(?<!\bi'm\s)(?<!\bim\s)(?<!\bam\s)(?<!\bare\s)(?<!\bwe're\s)\b(?:right\s+)?now\b(?=\s*(?:$|[,.!~;]|(?:to|and|so|"
    r"before|with|on|then|lol|haha|tho|though|sadly|fortunately|good\s+night|chilling|too)\b))",
    # where the speaker is in their day, and nothing more ("I just woke up lol", "I'm free now", "I need to wash up
    # and get ready for the day"); "I just woke up from a nap and didn't know what day it was" says more
    r"^(?:(?:hey|oh|yeah|lol|sorry|my\s+bad)[,!.\s]+)*i\s+(?:just\s+|finally\s+)?(?:woke\s+up|got\s+(?:home|back|up|off\s+work|"
    r"out\s+of\s+bed))(?:\s+(?:lol|haha|now|right\s+now|too|as\s+well))*[\s.!~]*$",
    r"^(?:(?:hey|oh|yeah|ok(?:ay)?|but)[,!.\s]+)*(?:i'm|im|i\s+am)\s+(?:free|back|home|up|awake|here)(?:\s+(?:now|lol|haha|again))*"
    r"[\s.!~]*$",
    r"^(?:(?:ok(?:ay)?|well|anyway)[,!.\s]+)*i\s+(?:need\s+to|have\s+to|gotta|got\s+to|should)\s+(?:go\s+)?(?:wash\s+up|shower|"
    r"get\s+ready|freshen\s+up|eat|grab\s+(?:some\s+)?food|go\s+to\s+bed|sleep)(?:\s+and\s+(?:get\s+ready|eat|sleep|rest))?"
    r"(?:\s+for\s+(?:the\s+day|bed|work|tonight))?[\s.!~]*$",
    r"^(?:(?:oh|and|so|also|ok(?:ay)?|yo|hey|lol|haha|omg|wow|look)[,!.\s]+)*(?:here's|heres|here\s+is|here\s+are|"
    r"here\s+it\s+is|look\s+at|check\s+out|check\s+(?:this|it)\s+out|take\s+a\s+look|this\s+is\s+(?:a|the|my)\s+"
    r"(?:photo|picture|pic|shot|snap))\b(?![^:]*:\s*\S)",
    r"^(?:(?:yo|hey|hi|hello|well|oh|ah|lol|haha|thanks)[,!.\s]+)*(?:i'm|im|i\s+am|i've\s+been|ive\s+been)\s+(?:doing\s+)?"
    r"(?:(?:quite|pretty|really|very|so|super|just|alright|all|not\s+too)\s+)*(?:good|well|great|fine|ok|okay|alright|"
    r"amazing|awesome|wonderful|fantastic|decent|not\s+bad)\b(?=\s*(?:[,.!~;]|$|(?:and|but|it's|its|it|thanks|thank|lol|"
    r"haha|today|too|now|here|myself)\b))",
    r"\b(?:it's|its|it\s+is|it\s+was)\s+(?:a\s+)?(?:(?:really|very|so|super|pretty|nice\s+and|beautiful)\s+)*(?:sunny|"
    r"rainy|cloudy|snowy|windy|cold|hot|warm|chilly|freezing|humid|gloomy|beautiful|lovely|nice)\s+(?:(?:day|morning|"
    r"afternoon|evening|night)\s+(?:today|here|outside|out)|(?:out\s+|outside\s+)?(?:today|now|right\s+now))\b",
)
#: The same, in Chinese: 你看我做的蛋糕！, 这是我昨天拍的照片, 我挺好的，今天天气不错.
PASSING_TALK_ZH = (r"^(?:你看|看看|快看|给你看看?|瞧)", r"^这(?:是|就是)我(?:刚|刚刚|昨天|前几天|今天|上周)?(?:拍|做|画|买|烤)的",
                   r"^我(?:还|都|也)?(?:挺|很|还|蛮)?(?:好|不错)的?(?:[，,。！!~]|$)", r"(?:今天|现在|这边|外面)天气(?:很|挺|真|特别)?(?:好|不错|晴朗|热|冷)",
                   # where the speaker is in their day (我刚起床, 我现在有空了, 我得去洗漱了); a verdict on what was shown (好可爱啊)
                   r"^我(?:刚|刚刚|才)?(?:起床|醒|到家|回来|下班)了?[。！!~]*$", r"^我(?:现在)?有空了?[。！!~]*$",
                   r"^我(?:得|要|先|该)去(?:洗漱|洗澡|吃饭|睡觉|睡)了?[。！!~]*$",
                   # a guess at how someone else is or will be (我相信她会理解的); 我相信我能做到 is the speaker's own
                   r"^我(?:相信|肯定|敢说|猜)(?:他|她|它|他们|她们|你|这|那)",
                   # the power or the connection this moment (网终于恢复了, 又停电了)
                   r"^(?:网|网络|电|信号|wifi|WiFi)(?:终于|已经|又)?(?:恢复|来|好|通|断)了",
                   r"^(?:又|刚刚?|现在)?停电了",
                   # the body in a passing fright (我的心跳得好快, 我心还在狂跳)
                   r"^我的?心(?:还|还在|一直)?(?:跳得(?:好|很|特别|太)?(?:快|厉害)|(?:在)?狂跳|怦怦(?:直)?跳)",
                   r"^我的?(?:胸口|手)(?:还|还在|一直)?(?:好|很|有点)?(?:闷|发紧|在?抖|发抖|冰凉?)",
                   # on the way this moment (我现在去健身房, 我这就去发消息); 我现在开始学日语 is a change that lasts
                   r"^我(?:现在|这就|马上)(?:就|要|准备)?(?:去|出发|回家|睡觉|下线)",
                   r"^(?:哇|啊|哈哈)?[，,]?(?:好|真|太)(?:可爱|漂亮|好看|酷|美)了?(?:吧|啊|呀)?[。！!~]*$")

#: Verbs of taste a first-person subject governs ("I prefer …", "The user likes …").
LIKE_VERBS_EN = ("prefer", "prefers", "like", "likes", "love", "loves", "enjoy", "enjoys", "hate", "hates", "dislike",
                 "dislikes", "detest", "detests", "loathe", "loathes", "can't stand", "cant stand", "cannot stand")
LIKE_VERBS_ZH = ("更喜欢", "不喜欢", "喜欢", "偏好", "偏爱", "讨厌", "受不了", "反感", "爱", "不想要", "不要")
#: What a boundary keeps from being handed over ("don't *give me* long lists", "别给我…").
HANDED_VERBS_EN = (r"give(?:\s+me)?", r"send(?:\s+me)?", r"show(?:\s+me)?", r"use", r"write", r"tell\s+me")
HANDED_VERBS_ZH = ("给我", "发给我", "用", "写")

# -- names: capitalised words that name nothing in a working conversation (riko.language.derive) ------
#: The endings of an abstract noun: a Title-Case run of several words that ends in one is a topic
#: or a heading ("Fire Alarm Installation", "GDPR Compliance", "Radical Acceptance"), not a name.
TOPIC_NOUN_ENDINGS = ("tion", "sion", "ance", "ence", "ment", "ity", "ness", "ism")
#: Such last words that do end a name: an event, a body, a document ("Donghak Peasant Revolution",
#: "First Nations", "Apple Developers Conference").
NAMED_ABSTRACT_HEADS = frozenset("""
revolution rebellion convention conference exhibition expedition competition championship federation
organization organisation nations commission constitution declaration dynasty institution coalition
alliance assembly parliament embassy ministry union division department
""".split())
#: Names that end like an abstract noun ("Jennifer Lawrence", "Florence", "Loch Ness").
NAMES_LIKE_TOPICS = frozenset("""
lawrence florence clarence terrence terence prudence constance provence laurence lance france clement vincent
city trinity inverness ness providence independence christianity confluence
""".split())
#: Abbreviations that name nothing alone: "lives in St" is what is left of "St. Louis" cut at its dot.
NAME_ABBREVIATIONS = frozenset("st st. mt mt. ft ft. pt pt. ave rd dr mr mrs ms jr sr no vol fig ch".split())
#: Titles whose dot ends no sentence: "by Dr. Linda Chen", "Mr. Smith", "St. Patrick's Day".
TITLE_ABBREVIATIONS_EN = ("Dr", "Mr", "Ms", "Mrs", "Prof", "St", "Jr", "Sr", "vs", "Mt", "Ft", "No", "Sgt", "Capt", "Gen",
                          "Rev")
#: Verbs that speak to someone: "talk to Ryan", "a letter to Lori" name a person, not a place.
SPEAK_TO_EN = ("talk", "talks", "talked", "talking", "speak", "speaks", "spoke", "speaking", "write", "wrote",
               "writing", "letter", "message", "note", "reach out", "reached out", "listen", "listened", "apologise",
               "apologize", "apologised", "apologized", "explain", "explained", "mention", "mentioned", "say", "said",
               "introduce", "introduced", "reply", "replied", "respond", "responded", "give", "gave", "email",
               "emailed", "text", "texted", "open up", "opened up")
#: What a quoted label is: "a 'Human Verification Required' flag", the "Deal of the Day" sections.
LABEL_NOUNS_EN = ("flag", "tag", "section", "heading", "status", "badge", "category", "categories", "filter", "mode",
                  "toggle", "banner", "screen", "panel", "widget", "error", "message", "prompt", "placeholder")
__all__ += ["TOPIC_NOUN_ENDINGS", "NAMED_ABSTRACT_HEADS", "NAMES_LIKE_TOPICS", "NAME_ABBREVIATIONS", "TITLE_ABBREVIATIONS_EN", "SPEAK_TO_EN", "LABEL_NOUNS_EN"]

# -- names: words around a name that say it is none, or whom it addresses (riko.language.derive) ------
#: Labels of a line whose Title-Case rest is a step, a goal or a topic, never a name: "Objective 1:
#: Streamline Production Processes", "**Step 2: Set Up the Repo**", "Phase 3 – Launch Prep" (not
#: "Day 2: Tokyo Tower and Shibuya": an itinerary's day names its places).
HEADING_LABELS_EN = ("objective", "objectives", "goal", "goals", "step", "steps", "phase", "task", "tasks", "milestone",
                     "milestones", "scope", "topic", "main topic", "module", "chapter", "section", "part", "lesson",
                     "unit", "stage", "priority", "focus", "theme", "subject", "heading", "action",
                     "action item", "outcome", "outcomes", "strategy", "tip", "key result", "deliverable",
                     "deliverables", "exercise", "drill", "activity", "agenda", "agenda item", "takeaway",
                     "key takeaway", "summary", "overview", "principle", "pillar", "level", "round", "block",
                     "sprint", "epic", "feature", "requirement", "criterion", "criteria", "metric", "kpi")
#: Words of address before a name, not part of it: "Pak Budi" is Mr Budi; "…, Pak AI" speaks to the assistant.
ADDRESS_TERMS_EN = ("pak", "bapak", "bu", "ibu", "mas", "mbak", "sir", "madam", "miss")
__all__ += ["HEADING_LABELS_EN", "ADDRESS_TERMS_EN"]

# -- names: what a Title-Case run names that is no page (riko.language.derive, riko.review.entities) ----
#: Nouns after a quoted label that say it is one of the user's routines, lists or story beats, not
#: a named thing: "the 'Coffee & Check-in' routine", "the 'Day of Close' checklist", "the 'Unveiling
#: a Secret' hook" (a named project, guide or course is a project: ``_PROJECT_WORD``).
ROUTINE_NOUNS_EN = ("routine", "ritual", "habit", "checklist", "list", "run", "recommendation", "principle", "rule",
                    "concept", "idea", "hook", "beat", "scene", "trope", "theme", "step", "phase", "stage", "part",
                    "exercise", "drill", "workout", "stretch", "pose", "technique", "method", "approach", "strategy",
                    "tactic", "plan", "session", "block", "slot", "note", "log", "entry", "journal", "question",
                    "card", "deck", "tracker", "database", "table", "spreadsheet", "sheet", "column", "row", "item",
                    "task", "goal", "milestone", "metric", "score", "rating", "bucket", "playlist", "mantra",
                    "motto", "mindset", "moment", "blotter", "protocol", "dashboard",
                    "acronym", "mnemonic", "vibe")
#: The last word of a Title-Case phrase that is one of the user's own work artefacts when its
#: other words are common words ("Apprentice Task List", "Stress-Response Protocol", "Pelvic Floor
#: Basics", "Quantified Learning Dashboard"); a name's word keeps it a name ("Kyoto Protocol",
#: "Schindler's List", "Google Sheet").
WORK_NOUNS_EN = ("dashboard", "protocol", "note", "notes", "list", "basics", "data", "log", "template", "checklist",
                 "routine", "plan", "framework", "module", "session", "exercise", "dose", "score", "tracker",
                 "sheet", "technique", "method", "drafting", "guide", "worksheet", "workflow", "system",
                 "schedule", "budget", "journal", "playbook", "blueprint", "roadmap", "strategy", "study", "period",
                 "menu", "takeaway", "takeaways", "reset", "loop", "block", "summary", "review",
                 # exercises, named by the movement ("Wall Angels", "Modified Side Planks", "Glute Bridges")
                 "planks", "bridges", "raises", "curls", "squats", "lunges", "rows", "pulls", "crunches", "push-ups",
                 "pushups", "pull-ups", "pullups", "angels", "tilts", "stretches", "deadlifts", "flyes", "dips",
                 "kicks", "twists", "circles", "shrugs", "swings", "thrusts", "holds", "bends", "rotations")
#: Foods, drinks, grapes and currencies a chat capitalises ("Jollof", "Merlot", "Sauvignon Blanc",
#: "Feijoas", "Naira"): no person, place or organisation, so no page (a name they lead stays:
#: "Jollof Palace"). Words that are names too (Champagne, Margarita, Kiwi, Yuan, Rand) are left out.
FOODS_EN = frozenset("""
jollof egusi suya fufu plantain plantains injera sushi sashimi ramen udon soba tempura kimchi bibimbap bulgogi
tteokbokki japchae paella tapas pho tacos taco burrito burritos quesadilla tiramisu lasagna lasagne risotto
gnocchi pesto hummus falafel shawarma kebab kebabs biryani samosa samosas naan tofu miso matcha boba espresso
cappuccino latte mocha croissant croissants baguette brioche gelato sorbet mochi onigiri okonomiyaki takoyaki
yakitori congee jiaozi baozi wonton wontons dumplings ceviche empanada empanadas arepa arepas churros poutine
haggis baklava goulash borscht pierogi sangria mojito tequila vodka whisky whiskey sake soju makgeolli kombucha
kefir avocado avocados mango mangoes papaya durian lychee lychees guava feijoa feijoas quinoa pavlova
merlot sauvignon blanc chardonnay pinot noir grigio gris riesling shiraz syrah malbec cabernet zinfandel
tempranillo sangiovese moscato prosecco rosé viognier gewürztraminer grenache soufflé souffle soufflés
naira cedi cedis rupee rupees rupiah peso pesos euro euros dollar dollars dirham dirhams baht ringgit shilling
shillings kwacha lira zloty forint krona krone
""".split())
#: Dishes named by more than one word, none of them a food alone ("Peking Duck", "Pad Thai").
FOOD_PHRASES_EN = frozenset(("peking duck", "pad thai", "dim sum", "tom yum", "eggs benedict", "caesar salad",
                             "fish and chips", "bánh mì", "banh mi", "mac and cheese", "chicken tikka masala",
                             "pad see ew", "kung pao chicken", "mapo tofu", "hot pot", "nasi goreng", "mee goreng"))
__all__ += ["ROUTINE_NOUNS_EN", "WORK_NOUNS_EN", "FOODS_EN", "FOOD_PHRASES_EN"]


#: Phrases of tact that say nothing about the speaker ("I hate to sound like that guy", "I don't want to
#: sound rude"): *hate* here is no taste.
TACT_EN = r"^(?:i|we)\s+(?:hate|don't\s+want|do\s+not\s+want|didn't\s+want|wouldn't\s+want)\s+to\s+(?:say|sound|admit|bother|" \
          r"interrupt|break\s+it|ask|burst|disappoint|rush|complain|nag|pester|be\s+(?:that\s+(?:guy|person)|a\s+(?:bother|pain|" \
          r"nag|downer)|rude|pushy|annoying|mean|harsh|negative))\b"
#: Leads that set up what follows ("Given our funding goals, …", "考虑到我们的预算，…"): a clause made of
#: the lead alone, with no subject and verb of its own, states nothing.
PREPOSED_LEADS_EN = ("given", "considering", "regarding", "concerning", "based on", "in light of", "with regard to",
                     "with respect to", "as for", "in terms of", "apart from", "aside from", "despite", "in spite of",
                     "due to", "thanks to", "according to", "on top of", "along with", "in addition to", "as part of")
PREPOSED_LEADS_ZH = ("考虑到", "鉴于", "根据", "基于", "关于", "对于", "针对", "按照", "结合")
__all__ += ["TACT_EN", "PREPOSED_LEADS_EN", "PREPOSED_LEADS_ZH"]

#: Greetings for a day or an occasion ("Happy New Years!", "Merry Christmas Kate", 新年快乐): said to someone,
#: not about anyone.
GREETINGS_EN = r"^(?:happy|merry)\s+(?:new\s+years?|christmas|xmas|holidays|birthday|bday|thanksgiving|easter|halloween|" \
               r"valentine'?s(?:\s+day)?|anniversary|friday|monday|weekend|hanukkah|diwali|eid|(?:lunar|chinese)\s+new\s+year|" \
               r"mother'?s\s+day|father'?s\s+day)\b|^good\s+(?:morning|night|evening|afternoon)\b"
GREETINGS_ZH = r"^(?:新年|春节|生日|中秋|节日|圣诞|周末)快乐|^(?:早上好|早安|晚安|下午好|晚上好)"
#: Units of a list of quantities ("2 Tbsp Oat Bran", "120 g Blueberry"): an ingredient line names no one.
QUANTITY_UNITS_EN = ("g", "kg", "mg", "ml", "l", "oz", "lb", "lbs", "tbsp", "tsp", "cup", "cups", "pcs", "piece", "pieces",
                     "slice", "slices", "clove", "cloves", "x", "pinch", "dash", "can", "cans")
__all__ += ["GREETINGS_EN", "GREETINGS_ZH", "QUANTITY_UNITS_EN"]

# -- third person ------------------------------------------------------------------------------------
#: Someone else as the subject or owner: a clause that opens with one is about a person ("She moved to
#: Berlin"), and a pronoun is resolved against the people named before it.
THIRD_PERSON_EN = ("he", "she", "they", "his", "her", "their", "hes", "shes")
#: Pronouns resolved to a named person (a singular he or she).
PERSON_PRONOUNS_EN = ("she", "he", "her", "him", "his", "shes", "hes")
#: Subjects that read as nothing alone when no one said who they are ("She's so messy", "Mine was chocolate cake",
#: "Their willingness to listen has been comforting").
UNRESOLVED_SUBJECTS_EN = ("he", "she", "he's", "she's", "hes", "shes", "they", "they're", "hers", "them", "him", "mine", "his", "her", "their",
                          "theirs", "one of them", "both of them", "some of them", "all of them", "most of them",
                          "none of them", "either of them", "neither of them")
#: 他 / 她 alone (not 他们, 她们): a singular third person in Chinese.
THIRD_PERSON_ZH = ("他", "她")
#: "One of them" in Chinese: a subject that leans on a group named before.
UNRESOLVED_SUBJECTS_ZH = ("其中一个", "其中一只", "其中一位", "其中一件")
#: Verbs in the past, irregular, that say what someone named or related did ("Grandpa Joe sold the farm", "My
#: brother bought a house", "Our dog ran away").
IRREGULAR_PAST_EN = ("went", "got", "made", "took", "left", "met", "came", "ran", "bought", "lost", "won", "sold", "told",
                     "began", "became", "grew", "moved", "found", "gave", "built", "wrote", "broke", "fell", "flew",
                     "drove", "sang", "saw", "kept", "brought", "caught", "taught", "spent", "paid", "sent", "held", "knew",
                     "ate", "swam", "slept", "chose", "spoke", "forgot", "threw", "wore", "rode", "fought", "stole",
                     "understood", "quit", "thought", "felt", "heard")
#: Adverbs that may come between a named subject and its verb ("Mia finally moved").
SUBJECT_ADVERBS_EN = ("just", "finally", "also", "still", "recently", "always", "never", "usually")
__all__ += ["THIRD_PERSON_EN", "PERSON_PRONOUNS_EN", "UNRESOLVED_SUBJECTS_EN", "UNRESOLVED_SUBJECTS_ZH", "THIRD_PERSON_ZH", "IRREGULAR_PAST_EN",
            "SUBJECT_ADVERBS_EN"]

# -- names: fields, roles and foreign common nouns a working chat capitalises (riko.language.derive) ----
#: Sectors, fields and technologies written with a capital, no thing of their own ("the Edtech
#: industry", "a focus in Fintech", "reliable Wi-Fi", "a SaaS business"): a firm in the sector has a
#: name of its own ("Logitech" is none of these).
SECTOR_WORDS_EN = frozenset("""
fintech edtech proptech insurtech healthtech medtech agritech agtech cleantech climatetech regtech legaltech
foodtech martech adtech greentech deeptech femtech govtech biotech saas paas iaas e-commerce ecommerce
m-commerce web3 defi wi-fi wifi internet intranet
""".split())
#: The teams of a workplace, written with a capital as if someone ("a day with Marketing", "Legal
#: signed off"): a part of the user's organisation, no person and no page of its own.
DEPARTMENTS_EN = frozenset("""
marketing sales finance legal hr engineering design product operations ops procurement compliance accounting
support admin administration recruiting recruitment logistics purchasing communications comms
""".split())
#: Pronouns that name no one though a person's verb may follow ("Nobody made a fuss").
INDEFINITE_PRONOUNS_EN = frozenset("nobody somebody someone anybody anyone everybody everyone noone".split())
#: The endings of German plural common nouns, which German writes with a capital ("Trekkingplätze",
#: "Biwakplätze", "Hofläden"): sites and shops of a kind, not one named place (a name is singular:
#: "Alexanderplatz", "Viktualienmarkt").
GERMAN_PLURAL_ENDINGS = ("plätze", "läden", "märkte", "höfe", "häuser", "gärten", "hütten", "ungen", "heiten",
                         "keiten", "schaften")
__all__ += ["SECTOR_WORDS_EN", "DEPARTMENTS_EN", "INDEFINITE_PRONOUNS_EN", "GERMAN_PLURAL_ENDINGS"]

#: The head of a Title-Case phrase that names a concept, a kind of document, a payment or an
#: exercise, not one thing ("Construction Contracts", "Debit Cards", "Wire Transfers", "Payback
#: Period", "Administrative Law", "Overhead Press", "End-of-Day Check-in", "Rule Evaluator",
#: "Sub-Saharan African Country", "Weighted Average Cost of Capital", "Finance Business
#: Services"): with no word of a name before it ("Moore's Law", "MIT Press", "Apple Card" stay),
#: the phrase names nothing (:meth:`riko.language.vocabulary.Vocabulary.concept_phrase`).
CONCEPT_HEADS_EN = frozenset("""
contract contracts card cards transfer transfers payment payments period law laws press plan check-in checkin
evaluator country countries capital rate rates ratio margin margins cost costs revenue income expenses services
""".split())
__all__ += ["CONCEPT_HEADS_EN"]

#: Keeping in touch about the work ("I'll be in touch once we've had a good squiz", "I'll report back
#: tomorrow", "We'll touch base on May 17th"): talk about the conversation even when it names a day.
KEEPING_IN_TOUCH_EN = r"\b(?:i'll|i\s+will|we'll|we\s+will)\s+(?:\w+ly\s+)?(?:be\s+in\s+touch|get\s+back\s+to\s+you|" \
                      r"keep\s+you\s+(?:posted|updated|in\s+the\s+loop)|report\s+back|circle\s+back|touch\s+base|" \
                      r"let\s+(?:you|ya|u|y'all)\s+know\s+(?:how|what|when|if|whether))\b"
__all__ += ["KEEPING_IN_TOUCH_EN"]

#: Verbs that take a person and then a thing: "her" after one is who gets it ("I gave her flowers").
GIVING_VERBS_EN = ("give", "gave", "given", "giving", "gives", "buy", "bought", "buying", "send", "sent", "sending", "show",
                   "showed", "shown", "tell", "told", "bring", "brought", "offer", "offered", "owe", "owed", "lend", "lent",
                   "hand", "handed", "teach", "taught", "make", "made", "get", "got", "pay", "paid", "wish", "wished",
                   "ask", "asked", "promise", "promised", "text", "texted", "call", "called")
__all__ += ["GIVING_VERBS_EN"]

#: Roles before "of" ("the President of Kenya", "Head of Marketing"): the name, if any, is what follows.
ROLE_HEADS_EN = frozenset(("head", "chief", "minister", "king", "queen", "prince", "princess", "governor", "mayor"))
__all__ += ["ROLE_HEADS_EN"]

#: Where the speaker stands in the work at this moment, not a memory of them: the step or page
#: they are on ("I'm on step 3 of that guide", "Now I'm on a page asking for passenger details"),
#: what they are doing with it right now ("I'm literally running the code right now"), a step
#: just taken or finished ("I've just run the code in my notebook", "I've just finished running
#: through the first exercise"), heading off to do the next thing ("I'm off to get those quotes
#: sorted"), what they can now start on ("I can start making a call"), wanting to know how the
#: task stands ("I need to know what's happening with that charge"), keeping the work going
#: ("We must keep the momentum going") and the exercise in hand down to its variable ("solve for
#: x"). "I just finished my PhD" and "I'm off to Japan" say something of the speaker and stay facts.
TASK_PROGRESS_EN = (
    r"^(?:(?:so|now|ok(?:ay)?|alright|right)[,!.\s]+)*(?:i'm|i\s+am|im|we're|we\s+are)\s+(?:now\s+|currently\s+|still\s+|"
    r"already\s+|just\s+)*(?:on|at|up\s+to|stuck\s+on)\s+(?:a\s+|the\s+|this\s+|that\s+)?(?:step|page|slide|question|"
    r"screen|stage|phase|section|lesson|module|exercise|item|task|part|checkout|payment\s+page)\b",
    r"^(?:(?:ok(?:ay)?|so|now|yes)[,!.\s]+)*(?:i'm|i\s+am|im)\s+(?:literally\s+|actually\s+|just\s+|now\s+)*(?:running|"
    r"looking\s+at|reading|typing|checking|testing|trying|staring\s+at|going\s+through|pasting|copying|opening|"
    r"scrolling|clicking)\b[^.!?]*\b(?:right\s+now|as\s+we\s+speak|at\s+the\s+moment)\b",
    r"^(?:(?:ok(?:ay)?|so|alright|done|great)[,!.\s]+)*(?:i|we)(?:'ve|\s+have)\s+run\s+(?:the|your|this|that)\s+(?:code|"
    r"script|snippet|query|test|tests|program|command)\b",
    r"^(?:(?:ok(?:ay)?|so|alright|done|great)[,!.\s]+)*(?:i|we)(?:'ve|\s+have)?\s+(?:just|now|already)\s+"
    r"(?:run|ran|tried|gone\s+through|went\s+through|confirmed|updated|added|copied|pasted|uploaded|saved|fixed|"
    r"applied|implemented|set\s+up|plugged\s+in|filled\s+in)\s+(?:the|that|this|those|these|it|them|your|our)\b",
    r"^(?:(?:ok(?:ay)?|so|hi|hello|alright)[,!.\s]+)*(?:i've|i\s+have|ive|i)\s+just\s+(?:finished|completed|done|wrapped\s+up)\s+"
    r"(?:\w+ing\s+(?:through\s+|over\s+)?)?(?:the|this|that|these|those|your|my)\s+(?:\w+\s+){0,2}?(?:step|steps|"
    r"exercise|exercises|task|tasks|lesson|section|part|module|application|drill|round|chapter|reading|assignment|"
    r"practice|review|draft|questions?|quiz|list|plan|checklist|outline|set)\b",
    r"^(?:(?:ok(?:ay)?|right|righto|alright|cheers|anyway)[,!.\s]+)*(?:i'm|im|i\s+am)\s+off\s+to\s+(?:get|sort|do|make|grab|"
    r"start|check|try|put|find|call|book|work\s+on)\b",
    r"^(?:(?:so|now|then)[,\s]+)*(?:i|we)\s+can\s+(?:now\s+|finally\s+|then\s+)?(?:(?:start|begin)\s+(?:\w+ing\b|(?:on|with)\s+"
    r"(?:the|this|that|it|these|those)\b|now\b|[\s.!,~]*$)|get\s+started|move\s+on|get\s+going|"
    r"(?:proceed|continue)(?:\s+(?:with|to)\s+(?:the|this|that|it|these|those)\b|[\s.!,~]*$))",
    r"^(?:(?:ok(?:ay)?|so|alright|right)[,!.\s]+)*(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:now\s+|finally\s+|all\s+)?done\s+\w+ing\s+"
    r"(?:through\s+|over\s+)?(?:the|this|that|these|those|it|them|your)\b",
    r"^(?:(?:so|but|and|look)[,\s]+)*i\s+(?:just\s+|really\s+|still\s+)?(?:need|want)\s+to\s+(?:know|understand|see|find\s+out|"
    r"figure\s+out)\s+(?:what|how(?!\s+to\b)|why|which|where|when|whether|if)\b",
    r"\b(?:we|i)\s+(?:must|need\s+to|have\s+to|gotta|got\s+to)\s+keep\s+(?:the\s+)?(?:momentum|ball\s+rolling|pushing|moving|"
    r"going|at\s+it)\b",
    # stuck on the exercise or the code in hand ("I'm having trouble understanding the multinomial distribution",
    # "I'm having trouble with the fetchWeatherData() function"); "I'm having trouble sleeping" is the speaker's
    r"^(?:(?:so|but|and|also|now|hi|hey|ok(?:ay)?|however)[,!.\s]+)*(?:i'm|i\s+am|im)\s+(?:still\s+|really\s+|also\s+|just\s+)*"
    r"(?:having|facing|running\s+into)\s+(?:some\s+|a\s+(?:bit\s+of\s+|little\s+|lot\s+of\s+)?)?(?:trouble|difficulty|"
    r"difficulties|issues?|problems?|hard\s+time|tough\s+time)\s+(?:(?:understanding|seeing|grasping|figuring\s+out|"
    r"wrapping\s+my\s+head\s+around|following|visuali[sz]ing|interpreting)\s+(?:how|why|what|which|where|whether|when|this|"
    r"that|these|those|it|the\s+(?:\w+\s+)?(?:difference|concept|relationship|connection|step|part|logic|formula|theorem|"
    r"proof|question|problem|example|method|approach|code|error|output|results?)\b)|applying|solving|deriving|proving|"
    r"calculating|computing|implementing|debugging|deciding|choosing|with\s+(?:the|this|that|these|those|a|an|understanding)\b)",
    # an error or issue that names nothing ("I'm still seeing some issues - here's my current code", "I'm still getting
    # the error"); "I'm getting an error when I deploy to Render.com" says where
    r"^(?:(?:but|and|so|however|still|ok(?:ay)?|hmm)[,\s]+)*(?:i'?m|i\s+am|i've\s+been|i\s+keep)\s+(?:still\s+|also\s+|now\s+|"
    r"just\s+)?(?:not\s+)?(?:seeing|getting|running\s+into|hitting|facing|encountering|having)\s+(?:some\s+|any\s+|the\s+same\s+|"
    r"the\s+|a\s+few\s+|an?\s+|more\s+|other\s+|this\s+|that\s+|these\s+|those\s+)?(?:(?:weird|strange|odd|similar|same|new|"
    r"unexpected|other)\s+)?(?:issues?|errors?|problems?|exceptions?|warnings?|bugs?|trouble)(?:\s+(?:here|now|though|again|"
    r"too))*(?:\s*[-–—,:]\s*(?:here's|here\s+is|see)\b.*)?[\s.!~]*$",
    # a look at what is on the table, or a check of it, said alone ("I've looked at the itinerary", "I've checked the
    # logs", "I've gone through your list"); "I've read the documentation", "I've seen the Northern Lights" and what
    # the check found ("I've checked the Redis configuration and it's running on port 6379") stay
    r"^(?:(?:ok(?:ay)?|so|alright|right|yes|yeah|well|and|also)[,!.\s]+)*(?:i've|i\s+have|ive|we've|we\s+have)\s+(?:just\s+|"
    r"already\s+|now\s+|finally\s+|also\s+|quickly\s+|carefully\s+)*(?:looked\s+(?:at|over|through)|reviewed|gone\s+(?:through|over)|"
    r"checked|double-checked|skimmed|read\s+(?:through|over))\s+(?:the|your|this|that|these|those|all|both|it|them)\b"
    r"(?:\s+[\w'’./-]+){0,5}[\s.!~]*$",
    # the exercise in hand, down to its variable ("solve for x", "I need to find the values of r", "prove n")
    r"\b(?:prove|show|find|solve\s+for|values?\s+of|compute|calculate|evaluate|simplify|differentiate|integrate)\s+"
    r"(?-i:[a-z])[\s.!?]*$",
)
#: The same, in Chinese: 我现在在第三步, 我刚做完第一个练习, 我们得保持这个势头.
TASK_PROGRESS_ZH = (r"^我(?:现在|目前|已经)?(?:在|到了?|做到了?)第[0-9一二三四五六七八九十]+(?:步|页|题|节|课|部分)",
                    r"^我(?:刚|刚刚)(?:做完|完成|写完|看完|弄完)了?(?:第[0-9一二三四五六七八九十]+个|这个|那个|你给的)?(?:练习|步骤|任务|作业|题|部分|章节)",
                    r"(?:我们|咱们)(?:得|要|必须)保持(?:这个)?(?:势头|节奏|进度)",
                    # a look at what is on the table, or a check of it (我看过你的清单了, 我已经检查了日志)
                    r"^我(?:已经|刚|刚刚|也)?(?:看过|看了|检查过|检查了|核对过|核对了|浏览过|浏览了|过了一遍)(?:一遍|一下)?"
                    r"(?:你的|这个|那个|这些|那些|日志|配置|草稿|清单|行程|文档)",
                    # an error or issue that names nothing (我还是遇到一些问题, 还是报错)
                    r"^我?(?:还是|依然|仍然|又)(?:遇到|碰到|看到|出现|有)?了?(?:一些|同样的|这个|那个|新的)?(?:问题|错误|报错|bug)了?[。！!~]*$",
                    # stuck on the exercise in hand (我不太理解这个公式, 我搞不懂二项分布和多项分布的区别); 我不懂日语 is the speaker's
                    r"^我(?:还是|一直|有点|有些|实在)?(?:不太|不大|不怎么|没)?(?:理解|明白|懂|搞懂|弄懂|搞明白|弄明白)"
                    r"(?:这个|这道|这段|这些|这里|怎么|如何|为什么)",
                    r"^我(?:还是|一直|有点|实在)?(?:搞不懂|弄不懂|想不通|看不懂|理解不了)(?:这个|这道|这段|这些|这里|怎么|如何|为什么|"
                    r"[^。！？]{1,20}的(?:区别|推导|用法|原理|含义))")
__all__ += ["TASK_PROGRESS_EN", "TASK_PROGRESS_ZH"]

# -- occupations and people ------------------------------------------------------------------------
#: Job nouns: what makes "I'm a …" or "是…" an occupation rather than any self-description.
JOB_NOUNS_EN = (
    "accountant", "actor", "actress", "administrator", "agent", "analyst", "animator", "architect", "artist",
    "assistant", "attorney", "auditor", "author", "baker", "banker", "barber", "barista", "bartender", "blogger",
    "bookkeeper", "broker", "builder", "businessman", "businesswoman", "butcher", "carpenter", "cashier",
    "caregiver", "carer", "ceo", "cfo", "chef", "chemist", "cleaner", "clerk", "coach", "composer", "consultant",
    "contractor", "cook", "copywriter", "counselor", "counsellor", "courier", "cto", "dancer", "dentist", "designer",
    "detective", "developer", "dietitian", "diplomat", "director", "doctor", "driver", "economist", "editor",
    "electrician", "engineer", "entrepreneur", "executive", "farmer", "firefighter", "fisherman", "founder",
    "freelancer", "gardener", "guard", "guide", "hairdresser", "historian", "housekeeper", "illustrator",
    "influencer", "instructor", "intern", "janitor", "journalist", "judge", "landlord", "lawyer", "lecturer",
    "librarian", "lifeguard", "lobbyist", "machinist", "manager", "marketer", "mechanic", "midwife", "miner",
    "model", "musician", "nanny", "novelist", "nurse", "officer", "painter", "paralegal", "paramedic", "pharmacist",
    "photographer", "physician", "physicist", "physio", "physiotherapist", "pilot", "plumber", "poet", "policeman",
    "policewoman", "politician", "postdoc", "president", "producer", "professor", "programmer", "psychiatrist",
    "psychologist", "publisher", "realtor", "receptionist", "recruiter", "reporter", "researcher", "salesman",
    "salesperson", "saleswoman", "scientist", "secretary", "senator", "singer", "soldier", "solicitor",
    "statistician", "streamer", "student", "supervisor", "surgeon", "surveyor", "tailor", "teacher", "technician",
    "therapist", "tradesman", "tradie", "trader", "translator", "tutor", "underwriter", "vet", "veterinarian",
    "waiter", "waitress", "welder", "writer", "youtuber",
)
JOB_NOUNS_ZH = (
    "工程师", "程序员", "设计师", "医生", "护士", "老师", "教师", "律师", "会计", "会计师", "审计师", "学生", "大学生", "研究生", "博士生", "硕士生", "本科生",
    "高中生", "中学生", "小学生", "留学生", "实习生", "记者", "作家", "编辑", "厨师", "司机", "警察", "销售", "经理", "产品经理", "项目经理", "公务员", "员工",
    "店员", "服务员", "演员", "歌手", "画家", "摄影师", "翻译", "教授", "研究员", "科学家", "分析师", "架构师", "咨询师", "顾问", "主管", "老板", "创业者",
    "自由职业者", "农民", "工人", "军人", "飞行员", "空姐", "导游", "药剂师", "牙医", "兽医", "保安", "快递员", "外卖员", "主播", "博主", "模特", "运动员",
    "教练", "音乐家", "艺术家", "建筑师", "心理咨询师", "治疗师", "营养师", "健身教练", "律师助理", "会计助理", "秘书", "前台", "客服", "兵", "士兵", "主任",
    "主席", "总监", "总经理", "董事长", "经纪人", "导演", "制片人", "主持人", "网红", "厨子", "木匠", "电工", "技术员", "操作员", "数据分析师", "运营", "策划",
)
#: Nouns for someone that a name may follow ("a friend called Jon"), beside the person relations.
PEOPLE_NOUNS_EN = ("friend", "guy", "girl", "boy", "man", "woman", "lady", "person", "someone", "kid", "son", "daughter")
__all__ += ["JOB_NOUNS_EN", "JOB_NOUNS_ZH", "PEOPLE_NOUNS_EN"]
