"""A speaker's clause as a statement that reads alone, and cuts that never drop a negation.

Dream keeps the speaker's own words as a fact's evidence; what a reader sees (a page's title,
and its description where the authority rule allows) is the same fact stated on its own: the
subject named ("I" → "The user", or the speaker of a multi-party log), a relative date said
against the time of the line ("yesterday" → "on 2023-05-07", "上周五" → "2023年5月5日"), a
short answer joined to the question it answers. Pure and deterministic; the word classes come
from :mod:`riko.language.lexicon`.

    >>> from datetime import datetime
    >>> when = datetime(2023, 5, 8, 14, 0)
    >>> resolve_dates("I went hiking yesterday", when)
    'I went hiking on 2023-05-07'
    >>> resolve_dates("我上周五去了杭州", when)
    '我2023年5月5日去了杭州'
    >>> name_subject("I love hiking with my sister", "The user")
    'The user loves hiking with their sister'
    >>> name_subject("My mom is a hairdresser", "The user")
    "The user's mom is a hairdresser"
    >>> clip("I want cabins or campsites, all along the coast road, definitely no hotels", 50)
    'I want cabins or campsites … definitely no hotels'
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from .lexicon import (
    ACTIVITY_ENDS_ZH,
    CJK,
    FIRST_PERSON_CHAT_EN,
    HABIT_WORDS_EN,
    HABIT_WORDS_ZH,
    IRREGULAR_PAST_EN,
    MONTHS_EN,
    NEGATION_CHAT_EN,
    NEGATION_EN,
    NEGATION_ZH,
    WEEKDAY_ABBREVIATIONS_EN,
    WEEKDAYS_EN,
    ZH_WEEKDAYS,
    alternation,
)

__all__ = ["clip", "drops_negation", "has_negation", "resolve_dates", "relative_dates", "date_spellings",
           "name_subject", "answer_statement", "USER"]

_I = re.IGNORECASE
#: How a statement names the user of a one-person scope.
USER = ("The user", "用户")
_CJK = re.compile(CJK)

# -- cutting ---------------------------------------------------------------------------------------
_NEGATION = re.compile(r"(?<![\w'’])" + alternation((*NEGATION_EN, *NEGATION_CHAT_EN)) + r"(?![\w'’])|n['’]t\b|"
                       + NEGATION_ZH, _I)
# where a clause may end: after , ; : — – ( and before and / but / because … (EN); after ，；：、 (ZH)
# (every run of space is tried where it starts: a long run costs one try, not one per character)
_BOUNDARY = re.compile(r"(?<!\s)\s*[,;:]\s+|[,;:]\s+|(?<!\s)\s+[—–-]\s+|(?<!\s)\s+\(|[，；：、。！？]|(?<=[.!?])\s+"
                       r"|(?<!\s)\s+(?=(?:but|because|which|while|although|though|whereas)\s)"
                       r"|(?<!\s)\s+(?=(?:and|so)\s+(?:I|I'm|I've|we|he|she|they|it|my|our|there)\b)", _I)
_GAP = " … "


def has_negation(text: str) -> bool:
    """Whether ``text`` holds a negation word (English or Chinese)."""
    return bool(_NEGATION.search(text))


def _negations(text: str) -> int:
    return len(_NEGATION.findall(text))


def drops_negation(whole: str, shown: str) -> bool:
    """Whether ``shown`` (a cut of ``whole``) holds fewer negations than ``whole``."""
    return _negations(shown) < _negations(whole)


def _pieces(text: str) -> list[tuple[str, str]]:
    """``(separator before, clause)`` pairs of ``text``; joined back they give ``text``."""
    out: list[tuple[str, str]] = []
    last, sep = 0, ""
    for m in _BOUNDARY.finditer(text):
        if m.start() > last:
            out.append((sep, text[last:m.start()]))
            sep = m.group(0)
        else:
            sep += m.group(0)
        last = m.end()
    out.append((sep, text[last:]))
    return [(s, c) for s, c in out if c.strip()]


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at clause boundaries, never dropping a negation.

    The first clause and every clause holding a negation are kept; the clauses between them
    fill the rest in order, and a gap left by a dropped clause reads " … ". When no clause
    boundary gives a short enough cut that keeps every negation, ``text`` is kept whole: a
    longer line is better than one that says the opposite. A text within the limit is returned
    unchanged; a text without a negation and without a clause boundary is cut at its last word
    boundary (inside its one word only when it has no other), and "…" marks the cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    pieces = _pieces(text)
    if len(pieces) > 1:
        keep = [i == 0 or has_negation(c) for i, (_, c) in enumerate(pieces)]

        def render(flags: list[bool]) -> str:
            parts: list[str] = []
            gap = False
            for i, (sep, clause) in enumerate(pieces):
                if not flags[i]:
                    gap = True
                    continue
                if parts:
                    parts.append(_GAP if gap else sep)
                parts.append(clause.strip() if gap or not parts else clause)
                gap = False
            out = "".join(parts).strip()
            return out + ("…" if gap and not out.endswith("…") else "")

        if len(render(keep)) <= limit:
            for i in range(len(pieces)):
                if not keep[i]:
                    trial = keep[:i] + [True] + keep[i + 1:]
                    if len(render(trial)) <= limit:
                        keep = trial
                    else:
                        break
            return render(keep)
    if not has_negation(text):
        cut = text[: max(1, limit - 1)]
        space = cut.rfind(" ")
        if space > limit // 2:
            return cut[:space].rstrip(" ,;:") + "…"
        return cut + "…"  # no word boundary to cut at (one long token, or CJK text)
    return text


# -- relative dates --------------------------------------------------------------------------------
_WEEKDAY_WORD = alternation([*WEEKDAYS_EN, *WEEKDAY_ABBREVIATIONS_EN])
_PARTS = r"(?:morning|afternoon|evening|night)"
_EN_RELATIVE = re.compile(
    r"\b(?:(?P<daybefore>the\s+day\s+before\s+yesterday)|(?P<dayafter>the\s+day\s+after\s+tomorrow)"
    r"|(?P<yday>yesterday)(?:\s+(?P<ypart>" + _PARTS + r"))?|(?P<lastnight>last\s+night)"
    r"|(?P<today>today|earlier\s+today)|(?P<tonight>tonight)|this\s+(?P<thispart>morning|afternoon|evening)"
    r"|(?P<tmrw>tomorrow)(?:\s+(?P<tpart>" + _PARTS + r"))?"
    # "the last week of March", "for the next month", "the last Sunday of each month" are spans or
    # rules of their own, not a date counted from the line
    r"|(?<!the\s)(?P<wrel>last|this|next|this\s+past|this\s+coming)\s+(?P<wday>" + _WEEKDAY_WORD + r")\.?(?![\w'])(?!\s+of\b)"
    r"|(?<!the\s)(?P<prel>last|this\s+past|this|next)\s+(?P<period>week(?:end)?|month|year)(?!\s+of\b)"
    # a span given as a range ("4-5 months ago", "two or three weeks ago") stays as said
    r"|(?<![\w][-–])(?<![\w]\s[-–]\s)(?<!\sto\s)(?<!\sor\s)"
    r"(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of)\s+"
    r"(?P<unit>days?|weeks?|months?|years?)\s+(?P<dir>ago|from\s+now|later)"
    r"|in\s+(?P<inn>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<inunit>days?|weeks?)(?!\s+(?:ago|of|in|time))"
    r")\b", _I)
_EN_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10, "a few": 3, "a couple of": 2}
_ZH_NUM = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "几": 3}
_ZH_WD = "".join(ZH_WEEKDAYS)
_ZH_RELATIVE = re.compile(
    r"(?P<dq>大前天|前天|昨天|昨晚|今天|今晚|今早|明天|明晚|后天|大后天)"
    r"|(?P<wrel>上上|上|这|本|下下|下)个?(?:周|星期|礼拜)(?P<wday>[" + _ZH_WD + r"])"
    r"|(?P<prel>上个?|这个?|本|下个?)(?P<period>周末|周|星期|礼拜|月)(?![一二三四五六日天末])"
    r"|(?P<year>前年|去年|今年|明年|后年)"
    r"|(?<![" + ACTIVITY_ENDS_ZH + r"])(?P<n>\d+|[一两二三四五六七八九十几])(?P<unit>天|周|个星期|个月|年)(?P<dir>前|后|以前|以后)")
_DAY_OFFSET_ZH = {"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "今早": 0, "明天": 1,
                  "明晚": 1, "后天": 2, "大后天": 3}
_PART_ZH = {"昨晚": "晚上", "今晚": "晚上", "今早": "早上", "明晚": "晚上"}
_YEAR_ZH = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}


def _iso(day: datetime) -> str:
    return day.strftime("%Y-%m-%d")


def _zh_date(day: datetime) -> str:
    return f"{day.year}年{day.month}月{day.day}日"


def _month_name(year: int, month: int) -> str:
    return f"{MONTHS_EN[month - 1].capitalize()} {year}"


def date_spellings(iso: str) -> tuple[str, ...]:
    """Every way :func:`resolve_dates` writes the day ``YYYY-MM-DD``, month ``YYYY-MM`` or year
    ``YYYY``: ``2023-05-07`` / ``2023年5月7日``, ``May 2023`` / ``2023年5月``, ``2023`` / ``2023年``."""
    parts = [int(p) for p in iso.split("-")]
    if len(parts) == 3:
        return iso, _zh_date(datetime(parts[0], parts[1], parts[2]))
    if len(parts) == 2:
        return iso, _month_name(parts[0], parts[1]), f"{parts[0]}年{parts[1]}月"
    return iso, f"{parts[0]}年"


def _add_months(when: datetime, months: int) -> tuple[int, int]:
    index = when.year * 12 + when.month - 1 + months
    return index // 12, index % 12 + 1


def _weekday(when: datetime, target: int, rel: str) -> datetime:
    """The day of weekday ``target`` that ``rel`` ("last", "this", "next", 上, 这, 下) means, said on ``when``."""
    rel = rel.casefold()
    if rel in ("last", "this past", "上"):
        back = (when.weekday() - target) % 7 or 7
        return when - timedelta(days=back)
    if rel in ("上上",):
        return when - timedelta(days=((when.weekday() - target) % 7 or 7) + 7)
    if rel in ("next", "this coming", "下"):
        if rel == "下":  # 下周五: Friday of next week
            monday = when - timedelta(days=when.weekday()) + timedelta(days=7)
            return monday + timedelta(days=target)
        ahead = (target - when.weekday()) % 7 or 7
        return when + timedelta(days=ahead)
    if rel == "下下":
        monday = when - timedelta(days=when.weekday()) + timedelta(days=14)
        return monday + timedelta(days=target)
    # "this Friday", 这周五 / 本周五: that day of the current week
    return when - timedelta(days=when.weekday()) + timedelta(days=target)


def _en_weekday(word: str) -> int:
    word = word.casefold().rstrip(".")
    if word in WEEKDAYS_EN:
        return WEEKDAYS_EN.index(word)
    return WEEKDAY_ABBREVIATIONS_EN[word]


def _resolve_en(m: re.Match[str], when: datetime) -> str:
    g = m.groupdict()
    if g["daybefore"]:
        return f"on {_iso(when - timedelta(days=2))}"
    if g["dayafter"]:
        return f"on {_iso(when + timedelta(days=2))}"
    if g["yday"]:
        day = _iso(when - timedelta(days=1))
        return f"on the {g['ypart'].casefold()} of {day}" if g["ypart"] else f"on {day}"
    if g["lastnight"]:
        return f"on the night of {_iso(when - timedelta(days=1))}"
    if g["today"]:
        return f"on {_iso(when)}"
    if g["tonight"]:
        return f"on the night of {_iso(when)}"
    if g["thispart"]:
        return f"on the {g['thispart'].casefold()} of {_iso(when)}"
    if g["tmrw"]:
        day = _iso(when + timedelta(days=1))
        return f"on the {g['tpart'].casefold()} of {day}" if g["tpart"] else f"on {day}"
    if g["wday"]:
        rel = " ".join(g["wrel"].split())
        return f"on {_iso(_weekday(when, _en_weekday(g['wday']), rel))}"
    if g["period"]:
        rel, period = " ".join(g["prel"].casefold().split()), g["period"].casefold()
        step = {"last": -1, "this past": -1, "this": 0, "next": 1}[rel]
        rel = "last" if rel == "this past" else rel
        if period == "week":
            monday = when - timedelta(days=when.weekday()) + timedelta(weeks=step)
            return f"in the week of {_iso(monday)}"
        if period == "weekend":
            saturday = when - timedelta(days=when.weekday()) + timedelta(days=5, weeks=step)
            if rel == "last" and when.weekday() >= 5:
                saturday -= timedelta(weeks=0)
            return f"on the weekend of {_iso(saturday)}"
        if period == "month":
            return f"in {_month_name(*_add_months(when, step))}"
        return f"in {when.year + step}"
    if g["unit"] or g["inunit"]:
        raw = (g["n"] or g["inn"]).casefold()
        count = int(raw) if raw.isdigit() else _EN_COUNT.get(" ".join(raw.split()), 1)
        unit = (g["unit"] or g["inunit"]).casefold().rstrip("s")
        sign = -1 if (g["dir"] or "").casefold() == "ago" else 1
        if unit == "day":
            return f"on {_iso(when + timedelta(days=sign * count))}"
        if unit == "week":
            return f"around {_iso(when + timedelta(weeks=sign * count))}"
        if unit == "month":
            return f"in {_month_name(*_add_months(when, sign * count))}"
        return f"in {when.year + sign * count}"
    return m.group(0)


def _resolve_zh(m: re.Match[str], when: datetime) -> str:
    g = m.groupdict()
    if g["dq"]:
        day = when + timedelta(days=_DAY_OFFSET_ZH[g["dq"]])
        return _zh_date(day) + _PART_ZH.get(g["dq"], "")
    if g["wday"]:
        return _zh_date(_weekday(when, ZH_WEEKDAYS[g["wday"]], g["wrel"]))
    if g["period"]:
        rel = g["prel"].rstrip("个")
        step = {"上": -1, "这": 0, "本": 0, "下": 1}[rel]
        if g["period"] == "月":
            year, month = _add_months(when, step)
            return f"{year}年{month}月"
        if g["period"] == "周末":
            saturday = when - timedelta(days=when.weekday()) + timedelta(days=5, weeks=step)
            return f"{_zh_date(saturday)}那个周末"
        monday = when - timedelta(days=when.weekday()) + timedelta(weeks=step)
        return f"{_zh_date(monday)}那一周"
    if g["year"]:
        return f"{when.year + _YEAR_ZH[g['year']]}年"
    if g["unit"]:
        raw = g["n"]
        count = int(raw) if raw.isdigit() else _ZH_NUM[raw]
        sign = -1 if g["dir"].endswith("前") else 1
        unit = g["unit"]
        if unit == "天":
            return _zh_date(when + timedelta(days=sign * count))
        if unit in ("周", "个星期"):
            return f"{_zh_date(when + timedelta(weeks=sign * count))}前后"
        if unit == "个月":
            year, month = _add_months(when, sign * count)
            return f"{year}年{month}月"
        return f"{when.year + sign * count}年"
    return m.group(0)


def relative_dates(text: str) -> list[str]:
    """The relative date expressions ``text`` holds ("yesterday", "last Fri", "昨天", "上周五")."""
    return [m.group(0) for m in _EN_RELATIVE.finditer(text)] + [m.group(0) for m in _ZH_RELATIVE.finditer(text)]


_NOWADAYS = re.compile(r"today['’]s\s+(?:\w+\s+)?(?:world|society|audiences?|markets?|economy|youth|generation|kids|"
                       r"children|students|standards|age|climate|landscape|culture|times|technology|workplace|"
                       r"workforce|consumers|media|industry)\b", _I)


_GOVERNED = re.compile(r"\b(?:for|by|from|since|until|till|to|before|after|of|through|starting)\s+$", _I)


def _in_place(m: re.Match[str], resolved: str) -> str:
    """``resolved`` as the text around ``m`` needs it: a date that owns a noun takes no preposition
    ("today's activities" → "2024-01-06's activities"), a capital stays a capital, and a name that
    only begins like a date ("Today.io") is left alone; after a preposition of its own ("for
    tomorrow") the date brings none."""
    after = m.string[m.end():m.end() + 2]
    if re.fullmatch(r"\.[a-z]", after, _I):  # a name, not a day: "Today.io"
        return m.group(0)
    if after in ("'s", "’s"):
        if _NOWADAYS.match(m.string, m.start()):
            return m.group(0)  # "today's audiences" are audiences of these times, not of one day
        resolved = re.sub(r"^(?:on|in|around)\s+", "", resolved)
    elif _GOVERNED.search(m.string, 0, m.start()):
        # the text's own preposition governs the date: "for tomorrow" → "for 2026-05-24", "by next
        # month" → "by February 2024", "since last year" → "since 2023"
        resolved = re.sub(r"^(?:on|in)\s+", "", resolved)
    # a sentence that opened on the date still opens on a capital
    return resolved[:1].upper() + resolved[1:] if m.group(0)[:1].isupper() else resolved


_HABITUAL = re.compile(r"\b" + alternation(HABIT_WORDS_EN) + r"\b", _I)
_HABITUAL_ZH = re.compile(alternation(HABIT_WORDS_ZH))


def _in_habit(text: str, at: int, habit: re.Pattern[str], cuts: tuple[str, ...]) -> bool:
    """Whether the clause of ``text`` that ``at`` falls in (back to the last of ``cuts``) states a habit,
    so a span there ("in two weeks") is how long, not when."""
    start = max(text.rfind(cut, 0, at) for cut in cuts) + 1
    return bool(habit.search(text, start, at))


def resolve_dates(text: str, when: datetime | None) -> str:
    """``text`` with every relative date turned into the absolute one it means when said at ``when``
    ("yesterday" → "on 2023-05-07", "last month" → "in April 2023", "上周五" → "2023年5月5日"). Without
    a time nothing changes. A preposition the text already put before the date is not repeated, and a
    date that owns a noun takes none ("yesterday's game" → "2023-05-07's game")."""
    if when is None:
        return text
    def relative(m: re.Match[str]) -> str:
        # "… resolutions they always give up on in two weeks": a span in a habit, not a day
        if m.group("inn") and _in_habit(text, m.start(), _HABITUAL, (",", ";", " and ", " but ")):
            return m.group(0)
        return _in_place(m, _resolve_en(m, when))

    out = _EN_RELATIVE.sub(relative, text)
    # "on last Friday" / "in last month": the resolved date brings its own preposition
    out = re.sub(r"\b(?:on|in|at|during)\s+(?=(?:on|in|around)\s+(?:the\s+)?\d|(?:on|in)\s+the\s+(?:week|weekend|night|"
                 r"morning|afternoon|evening)\s+of\s+\d)", "", out, flags=_I)
    out = re.sub(r"\b(?:in|on)\s+(?=in\s+(?:" + "|".join(m.capitalize() for m in MONTHS_EN) + r")\s+\d)", "", out)
    def relative_zh(m: re.Match[str]) -> str:
        if m.group("dir") in ("后", "以后") and _in_habit(out, m.start(), _HABITUAL_ZH, ("，", "。", "；", ",")):
            return m.group(0)  # 他们总是两周后就放弃: how long, in a habit
        return _resolve_zh(m, when)

    out = _ZH_RELATIVE.sub(relative_zh, out)
    return out


# -- the subject named -----------------------------------------------------------------------------
#: A negation typed without its apostrophe, spelled with it ("dont" → "don't", "cant" → "can't").
_SPELLED = {w: w[:-1] + "'t" for w in NEGATION_CHAT_EN}
_BE = {"am": "is", "'m": " is", "was": "was", "have": "has", "'ve": " has", "do": "does", "don't": "doesn't",
       "haven't": "hasn't",
       # a negation typed without its apostrophe: "I dont like calculus" → "The user doesn't like calculus"
       **_SPELLED, "dont": "doesn't", "havent": "hasn't",
       "'ll": " will", "'d": " would",
       # chat spellings of a verb and its "to": "I wanna know" → "The user wants to know"
       "wanna": "wants to", "gotta": "has to", "dunno": "doesn't know"}
_MODAL = frozenset("can could will would should shall may might must can't cannot won't wouldn't shouldn't "
                   "couldn't didn't did was wasn't had hadn't used also just really still always never often usually "
                   "sometimes recently finally actually already".split())
_ADVERB = frozenset("also just really still always never often usually sometimes recently finally actually already "
                    "truly totally absolutely definitely honestly mostly generally kind sort "
                    # when, between the subject and its verb: "I now live", "I later realized"
                    "now then later soon once first even ever almost only".split())
_ADVERBS = r"(?:(?:kind|sort)\s+of|" + "|".join(sorted(_ADVERB - {"kind", "sort"})) + r"|[a-z]{3,}ly)"
#: Past forms a verb keeps after "the user": the lexicon's irregular pasts (what someone did) and the forms that
#: are also present ("read", "put", "cut") or that only a statement meets ("had", "said", "did").
_IRREGULAR_PAST = frozenset(IRREGULAR_PAST_EN) | frozenset("""bent cost cut dealt did drank drew dug fed fled froze had
hid hit hung hurt laid leapt learnt led lent let lit meant put rang read rose said sank sat set shook shot shut slid sought
spilt spun stood struck stuck swept swore swung tore wept woke""".split())
#: A prefix before an irregular past that keeps it past: "overcame", "forgave", "withdrew", "misunderstood".
_PAST_PREFIXES = ("over", "under", "with", "for", "fore", "out", "mis", "re", "up", "be")
#: Someone before "and I" who makes the subject plural ("Lena and I play", "my wife and I live"); "I love it
#: and I think …" starts a clause of its own.
_WITH_SOMEONE = re.compile(r"(?:\b[A-Z][\w'’-]*|(?i:\b(?:my|our)\s+[\w'’-]+|\b(?:him|her|them|us)))\s+and\s+$")
#: A word that asks before the subject: "can I use", "should I take".
_ASKED_OF = re.compile(r"\b(?:can|could|should|would|will|shall|may|might|must|do|did)\s+$", _I)
_PAST_IN_EED = frozenset("agreed disagreed freed guaranteed decreed refereed".split())
_EN_SUBJECT = re.compile(r"(?<![\w'])(I|i(?!\.))(?:(['’](?:m|ve|ll|d))|\s+(am|was|have|haven['’]t|do|don['’]t|\w+))?(?![\w'])")
#: "I'm" and "I've" typed without the apostrophe, before a word ("Im going to Spain", "ive never been").
_CHAT_SUBJECT = re.compile(r"(?<![\w'’])([Ii])(" + "|".join(w[1:] for w in FIRST_PERSON_CHAT_EN) + r")(?=\s+[a-z])")
_THEIR = {"my": "their", "mine": "theirs", "me": "them", "myself": "themselves"}
_EN_OWN = re.compile(r"(?<![\w'])(my|mine|myself|me)(?![\w'])", _I)


def _third(verb: str) -> str:
    """The third-person present of ``verb`` (love → loves, go → goes, study → studies)."""
    low = verb.casefold().replace("’", "'")
    # "need", "succeed" are present; "agreed", "freed" are past
    past = (low.endswith("ed") and (not low.endswith("eed") or low in _PAST_IN_EED)) \
        or any(low.startswith(pre) and low[len(pre):] in _IRREGULAR_PAST for pre in _PAST_PREFIXES)
    if low in _MODAL or low in _IRREGULAR_PAST or low in NEGATION_EN or past or "'" in low:
        return verb
    if (low in _ADVERB or low.endswith("ly")) and low not in ("kind", "sort"):
        return verb
    if low.endswith(("s", "x", "z", "ch", "sh", "o")):
        out = verb + "es"
    elif low.endswith("y") and len(low) > 2 and low[-2] not in "aeiou":
        out = verb[:-1] + "ies"
    else:
        out = verb + "s"
    return out.upper() if verb.isupper() and len(verb) > 1 else out


#: Anyone else a "they" could point at: a second "I" of a sentence that holds one stays named.
_SOMEONE_ELSE = re.compile(r"(?<![\w'’])(?:he|she|him|her|his|hers|they|them|their|theirs|themselves|he's|she's|they're|"
                           r"they've|they'll|they'd)(?![\w'’])", _I)
_OWNED_BETWEEN = re.compile(r"\b(?:my|our)\s+[\w'’-]+", _I)
_WITH_OTHERS = re.compile(r"\band\s+I\b|\bI\s+and\b", _I)
#: A second "I" said as "they": its verb keeps the first person's form but for "am" and "was".
_THEY = {"'m": "they're", "'ve": "they've", "'ll": "they'll", "'d": "they'd"}
_THEY_VERB = {"am": "are", "was": "were", "wasn't": "weren't", **_SPELLED, "wasnt": "weren't", "wanna": "want to",
              "gotta": "have to", "dunno": "don't know"}


def _again(text: str, at: int) -> bool:
    """Whether the "I" at ``at`` follows another "I" of its sentence with no one else a "they"
    could mean ("I think I'll call Mia": yes; "I told my parents I'd call", "I said she and I …": no)."""
    head = text[:at]
    begin = max(head.rfind(". "), head.rfind("! "), head.rfind("? "), head.rfind("\n")) + 1
    end = min([i for i in (text.find(". ", at), text.find("! ", at), text.find("? ", at)) if i >= 0] or [len(text)])
    first = next(_EN_SUBJECT.finditer(text, begin, at), None)
    if first is None or first.group(1) != "I":
        return False
    return not (_SOMEONE_ELSE.search(text, begin, end) or _WITH_OTHERS.search(text, begin, end)
                or _OWNED_BETWEEN.search(text, first.start(), at))


def _they(m: re.Match[str]) -> str:
    if m.group(2):
        return _THEY[m.group(2).replace("’", "'").casefold()]
    verb = m.group(3)
    if verb is None:
        return "they"
    return f"they {_THEY_VERB.get(verb.casefold().replace('’', chr(39)), verb)}"


#: 我 as the subject of a verb: what may follow it for a second 我 of the sentence to read 自己.
_ZH_SUBJECT = re.compile(r"我(?=会|要|想|觉得|认为|应该|能|可以|得|需要|是|在|也|还|都|就|已经|不|没|真|很|挺|有点|一直)")
_ZH_SOMEONE_ELSE = re.compile(r"[他她它]|和我|我和|跟我|我跟")
_ZH_SENTENCE = re.compile(r"[^。！？；!?;\n]+[。！？；!?;\n]*")


def _name_subject_zh(text: str, subject: str) -> str:
    """我 → ``subject`` (我们 stays); a second 我 of a sentence whose first 我 did something is 自己
    ("我觉得我应该多休息" → "用户觉得自己应该多休息"), unless he, she or someone with the speaker is in it."""
    out, last = [], 0
    for sentence in _ZH_SENTENCE.finditer(text):
        part = sentence.group(0)
        first = _ZH_SUBJECT.search(part)
        if first is not None and not _ZH_SOMEONE_ELSE.search(part):
            head, tail = part[:first.end()], part[first.end():]
            part = head + _ZH_SUBJECT.sub("自己", tail)
        out.append(text[last:sentence.start()] + part)
        last = sentence.end()
    out.append(text[last:])
    return re.sub(r"我(?!们)", subject, "".join(out))


def name_subject(text: str, subject: str) -> str:
    """``text`` with the speaker named: "I" → ``subject`` (its verb agreeing: "I love" → "The user
    loves", "I'm" → "… is"), "my" / "mine" → ``subject``'s, "me" / "myself" → ``subject``; in
    Chinese 我 → ``subject`` (我们 stays). A text that does not speak of the speaker is unchanged."""
    if _CJK.search(text):
        return _name_subject_zh(text, USER[1] if subject == USER[0] else subject)
    text = _CHAT_SUBJECT.sub(lambda m: f"{m.group(1)}'{m.group(2)}", text)  # "Im going" is "I'm going"

    def subj(m: re.Match[str]) -> str:
        start = m.start() == 0 or bool(re.search(r"[.!?]\s*$", text[:m.start()]))
        name = subject if start or not subject[:1].isupper() or subject != USER[0] else "the user"
        if not start and m.group(1) == "I" and _again(text, m.start()):
            return _they(m)
        if m.group(2):
            return name + _BE[m.group(2).replace("’", "'").casefold()]
        verb = m.group(3)
        if verb is None:
            return name
        if _WITH_SOMEONE.search(text, 0, m.start()):
            return f"{name} {verb}"  # "Lena and I play": a plural subject
        if _ASKED_OF.search(text, 0, m.start()):
            return f"{name} {verb}"  # "what can I use": the verb belongs to the question's "can"
        low = verb.casefold().replace("’", "'")
        if low in _BE:
            return f"{name} {_BE[low]}"
        if low in ("kind", "sort") and not re.match(r"\s+of\b", text[m.end():]):
            return f"{name} {_third(verb)}"  # "I sort my savings first"; "I sort of agree" is an adverb
        if low in _ADVERB or (low.endswith("ly") and len(low) > 4):
            return f"{name} {verb}"
        return f"{name} {_third(verb)}"

    named = [m.start() for m in _EN_SUBJECT.finditer(text)]
    out = _EN_SUBJECT.sub(subj, text)
    # an adverb between the subject and its verb: "The user really love" → "really loves"
    out = re.sub(r"\b(" + re.escape(subject) + r"|the user)\s+((?:" + _ADVERBS + r"\s+){1,3})([A-Za-z][A-Za-z'’]*)(?![\w'’])",
                 lambda m: f"{m.group(1)} {m.group(2)}"
                           f"{_BE.get(m.group(3).casefold().replace('’', chr(39))) or _third(m.group(3))}",
                 out, flags=_I)
    lower = "the user" if subject == USER[0] else subject
    # once the subject is named, "my" is "their" ("The user met their sister"); before it is named,
    # the first "my" names it ("My girlfriend trusts me less since I moved" → "The user's girlfriend")
    anchor = re.search(re.escape(lower), out, _I) if named else None
    before = anchor.start() if anchor else len(out) + 1
    first = [True]

    def own(m: re.Match[str]) -> str:
        word = m.group(1).casefold()
        if first[0] and m.start() < before:
            first[0] = False
            return (lower + ("'" if lower.endswith("s") else "'s")) if word in ("my", "mine") else lower
        return _THEIR[word]

    out = _EN_OWN.sub(own, out)
    if out.startswith(lower) and lower != subject:
        out = subject + out[len(lower):]
    return out


# -- answers ---------------------------------------------------------------------------------------
_WH_BE = re.compile(r"^\s*(?:so\s+|and\s+|oh\s+)?(?P<wh>what|who|where|when|which)(?:\s+(?P<noun>[a-z]+))?"
                    r"\s*(?P<be>is|are|was|were|'s)\s+(?P<rest>[^?]{2,80}?)\s*\?+\s*$", _I)
_YOUR = {"your": "my", "yours": "mine", "you": "I", "yourself": "myself"}


_ZH_ASK = re.compile(r"^(?P<x>[^？?，,。]{1,20}?)(?P<v>叫|是|在|住在|去了|去|喜欢|养了|有)(?:什么|哪儿|哪里|哪|谁|多少|几个?)"
                     r"(?P<n>[^？?，,。吗呢]{0,6})[呀啊呢]?[？?]\s*$")


def answer_statement(question: str, answer: str) -> str | None:
    """A short answer joined to the question it answers, as one statement in the answerer's
    words ("What are their names?" → "Luna and Oliver!" gives "their names are Luna and Oliver";
    "你的猫叫什么名字？" → "Luna和Oliver" gives "我的猫叫Luna和Oliver"), or None when the question is
    not a *what / who / where / when / which … is* question (in Chinese: … 叫 / 是 / 在 什么 / 哪里 …)."""
    answer = answer.strip().strip(" .!~…。！～").strip()
    zh = _ZH_ASK.match(question.strip())
    if zh is not None and answer:
        subject = zh.group("x").replace("您", "我").replace("你", "我")
        return f"{subject}{zh.group('v')}{answer}"
    m = _WH_BE.match(question.replace("’", "'").strip())
    if m is None or not answer:
        return None
    rest = re.sub(r"\b(your|yours|you|yourself)\b", lambda w: _YOUR[w.group(1).casefold()], m.group("rest"), flags=_I)
    be = m.group("be").casefold()
    be = "is" if be == "'s" else be
    if m.group("noun") and m.group("wh").casefold() in ("what", "which") and m.group("noun").casefold() not in (
            "is", "are", "was", "were"):
        rest = f"{rest}'s {m.group('noun')}" if not rest.endswith("s") else f"{rest}' {m.group('noun')}"
    where = m.group("wh").casefold() == "where"
    place = "in " if where and not re.match(r"(?:in|at|on|near)\b", answer, _I) else ""
    return f"{rest} {be} {place}{answer}"
