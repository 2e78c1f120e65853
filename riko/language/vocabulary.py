"""The words a scope writes in lower case: what tells a common noun phrase written in Title Case
("Deep Learning", "Heavy Band Face Pulls", "Choosing the Right Builder") from a name ("Hudl",
"Saint Helena Bookstore").

One statement cannot tell "Glute Bridges" from "Jollof Palace"; the lines around it can.
A heading, a step or a product feature is spelt in Title Case once and in lower case elsewhere
("do 3 sets of glute bridges", "the learning session log"), by the user or by the assistant,
while a name keeps its capitals wherever it is written. The counts are kept over the prose (URLs,
file names, identifiers and code left out); a scope's are read once per batch, only as far as lines
are new, and only when a statement names something doubtful.

    >>> words = SessionWords([("assistant", "Try deep learning first."), ("user", "I want Deep Learning and Hudl.")])
    >>> words.common_phrase("Deep Learning"), words.common_phrase("Hudl")
    (True, False)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from .lexicon import CJK, CONCEPT_HEADS_EN, ROUTINE_NOUNS_EN, WORK_NOUNS_EN

__all__ = ["SessionWords", "Vocabulary"]

# what is no prose: code fenced or inline, and any token holding a dot, slash, @ or underscore
# before a letter (URLs, e-mail addresses, file and module names, snake_case identifiers)
_NOT_PROSE = re.compile(r"```.*?```|`[^`\n]*`|\S*[@/._][^\s@/._]*[A-Za-z]\S*", re.S)
_LOWER = re.compile(r"(?<![\w'’])[a-z]+(?=(?:['’]s)?(?![\w'’]))")
# a capitalised word after a lower-case word or a comma: mid-sentence, where a capital marks a name
# (the word before wholly lower case and no capitalised word after: the words of "the Glute Bridges"
# are no capitals of their own, the phrase is)
_MID_CAPITAL = re.compile(r"(?:(?<![\w'’])[a-z]+[,;]?|[,;]) ([A-Z][a-z]+)(?=(?:['’]s)?(?![\w'’])(?![ \-][A-Z]))")
# two capitalised words in a row: the first may be a word that heads names ("Rifugio Fanes", "Lake Tekapo")
_HEAD_PAIR = re.compile(r"(?<![\w'’])([A-Z][a-z]+) ([A-Z][a-z]+)(?![\w'’])")
_FENCED = re.compile(r"```.*?```", re.S)
# inline code, an identifier or a label the lines set as code ("`CalculationDelta`", "`Time-Lost-Index`")
_INLINE_CODE = re.compile(r"`([^`\n]{1,80})`")
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SMALL = frozenset("a an the of and or for to in on at by with from vs via per & n".split())
_PLAIN = re.compile(r"[A-Z]?[a-z]+")
_CJK = re.compile(CJK)


class Vocabulary:
    """Running counts of the lower-case words of user and assistant lines: fed with :meth:`add`,
    read by the questions below. :class:`SessionWords` counts the lines it is given;
    a memory scope keeps one of these over all of its evidence and feeds it the lines stored
    since (:meth:`riko.review.machine.Review.scope_words`).

    A user may type a name in lower case ("we watched toy story"); an assistant does not.
    """

    def __init__(self) -> None:
        self._lower: Counter[str] = Counter()
        self._capital: Counter[str] = Counter()
        self._said: list[str] = []     # the user's prose
        self._prose: list[str] = []    # all prose, user and assistant
        self._text: tuple[str, str] | None = None  # both joined, on first use after a change
        self._phrases: dict[str, tuple[int, int, int]] = {}
        self._counts: dict[tuple[str, str], int] = {}  # (question, name) -> how often the prose has it
        self._code: Counter[str] = Counter()  # what inline code holds, whole
        self._heads: dict[str, set[str]] = {}  # a capitalised word -> the capitalised words written after it

    def add(self, lines: Iterable[tuple[str, str]]) -> None:
        """Count ``(role, text)`` lines more (role ``user`` for a user line)."""
        said: list[str] = []
        written: list[str] = []
        for role, text in lines:
            self._code.update(m.group(1).strip().removesuffix("()") for m in _INLINE_CODE.finditer(
                _FENCED.sub(" ", text or "")))
            (said if role == "user" else written).append(_NOT_PROSE.sub(" ", text or ""))
        if not said and not written:
            return
        user, assistant = "\n".join(said), "\n".join(written)
        self._lower.update(_LOWER.findall(f"{user}\n{assistant}"))
        self._capital.update(w.casefold() for w in _MID_CAPITAL.findall(f"{user}\n{assistant}"))
        for head, second in _HEAD_PAIR.findall(f"{user}\n{assistant}"):
            self._heads.setdefault(head.casefold(), set()).add(second)
        if user:
            self._said.append(user)
        self._prose.append(f"{user}\n{assistant}")
        self._text, self._phrases, self._counts = None, {}, {}

    def _ready(self) -> None:
        """Read what is to be read before a question is answered (nothing here: fed by :meth:`add`)."""

    def _joined(self) -> tuple[str, str]:
        self._ready()
        if self._text is None:
            self._text = "\n".join(self._said), "\n".join(self._prose)
        return self._text

    def _phrase(self, name: str) -> tuple[int, int, int]:
        """How often the user types the whole of ``name`` in lower case ("toy story"), how often
        anyone writes it so, and how often it stands capitalised mid-sentence ("we walked the High Line")."""
        said, prose = self._joined()  # first: lines read in now reset the cached answers
        known = self._phrases.get(name)
        if known is not None:
            return known
        tokens = _TOKEN.findall(name)
        lower = r"(?<![\w'’])" + r"[\s\-]+".join(re.escape(w.casefold()) for w in tokens) + r"(?![\w'’])"
        typed, written = len(re.findall(lower, said)), len(re.findall(lower, prose))
        capital = len(re.findall(r"(?<=[a-z,;] )" + r"[\s\-]+".join(re.escape(w) for w in tokens)
                                 + r"(?![\w'’])", prose)) if tokens else 0
        self._phrases[name] = known = (typed, written, capital)
        return known

    def _prose_count(self, question: str, name: str, pattern: str) -> int:
        """How often ``pattern`` (about ``name``) occurs in all the prose, counted once per name and
        question until more lines are added: a scope asks of the same names fact after fact."""
        prose = self._joined()[1]  # first: lines read in now reset the counts
        key = (question, name)
        known = self._counts.get(key)
        if known is None:
            known = self._counts[key] = len(re.findall(pattern, prose))
        return known

    def _determined(self, name: str) -> int:
        """How often anyone writes ``name`` after a determiner ("the Quantified Learning Dashboard",
        "your Glute Bridges"), as a common noun phrase is written and a business's name seldom is."""
        return self._prose_count("determined", name, r"\b(?i:the|a|an|my|your|our|this|that|these|those|his|her|"
                                 r"their|its)\s+" + re.escape(name) + r"(?![\w'’])")

    def mid_sentence(self, name: str) -> int:
        """How often the lines write the whole of ``name`` capitalised mid-sentence."""
        return self._phrase(name)[2]

    def lower(self, word: str) -> int:
        """How often the lines write ``word`` (or its singular or plural) in lower case."""
        self._ready()
        return max(self._lower[w] for w in _forms(word))

    def capital(self, word: str) -> int:
        """How often the lines write ``word`` (or its singular or plural) capitalised mid-sentence."""
        self._ready()
        return max(self._capital[w] for w in _forms(word))

    def written_as_code(self, name: str) -> bool:
        """Whether the lines set ``name`` alone as inline code ("`CalculationDelta`", "`FamilySize`")
        as often at least as they write it in prose: an identifier or a column of the work, not a
        name. A product the prose names ("we use Redis", and once "`Redis`") stays a name."""
        self._ready()
        code = self._code[name]
        return bool(code) and code >= self._prose_count("prose", name, r"(?<![\w'’])" + re.escape(name) + r"(?![\w'’])")

    def heads_names(self, word: str) -> bool:
        """Whether ``word`` is a common noun that leads names: written in lower case three times at
        least, as often as capitalised alone mid-sentence, and capitalised before three different
        words or more ("rifugio", and "Rifugio Fanes", "Rifugio Averau", "Rifugio Scoiattoli"), so
        alone it names none of them (not "Python" of "Python SDK", "Python Script", "Python Docs")."""
        lower = self.lower(word)
        return bool(_PLAIN.fullmatch(word)) and lower >= 3 and lower >= self.capital(word) \
            and max(len(self._heads.get(w, ())) for w in _forms(word)) >= 3

    def seldom_capitalised(self, word: str) -> bool:
        """Whether the lines write ``word`` in lower case twenty times at least and twenty times as
        often as capitalised mid-sentence: a common word taken for someone ("Work has been",
        "a software agency with Focus in Fintech"), not a name that is a word too ("Mark")."""
        lower = self.lower(word)
        return bool(_PLAIN.fullmatch(word)) and lower >= 20 and lower >= 20 * self.capital(word)

    def never_capitalised(self, word: str) -> bool:
        """Whether the lines write ``word`` in lower case three times at least and never
        capitalise it mid-sentence: a common word at the head of a sentence ("Time really got
        away from me"), not a name that is a word too ("I went with Grace")."""
        return bool(_PLAIN.fullmatch(word)) and self.lower(word) >= 3 and not self.capital(word)

    def common_phrase(self, name: str) -> bool:
        """Whether ``name`` is a common noun phrase the lines capitalise as a heading, not a name.

        Several words: every plain word (not an acronym, a CamelCase word or a number) is also
        written in lower case, as often as capitalised mid-sentence at least, small words aside
        ("Heavy Band Face Pulls", "Choosing the Right Builder"), and not only where the user types
        the whole name so ("harry potter"); the whole name stands capitalised mid-sentence less
        often than in lower case, or never ("we walked the High Line" twice, never "the high line",
        keeps a name of common words); one product's name may lead three or more such words
        ("WhatsApp Business Tool Setup"), never fewer ("Microsoft Teams"). One word: written in
        lower case three times at least and twice as often as capitalised mid-sentence ("Impact",
        "Delimiters"; not "Python", nor "Andes" a chat types in lower case now and then).
        """
        if _CJK.search(name) or not name[:1].isupper():
            return False
        words = [w for w in _TOKEN.findall(name.replace("’", "'")) if w.casefold() not in _SMALL]
        words = [w[:-2] if w.casefold().endswith("'s") else w for w in words]
        if not words:
            return False
        plain = [w for w in words if _PLAIN.fullmatch(w)]
        marked = len(words) - len(plain)
        if len(words) == 1:
            if marked:
                return False
            lower = self.lower(plain[0])
            return lower >= 3 and lower >= 2 * self.capital(plain[0])
        if not all(self.lower(w) and self.lower(w) >= self.capital(w) for w in plain):
            return False
        typed, written, capital = self._phrase(name)
        if typed and not all(self.lower(w) > typed for w in plain):
            return False  # the user types the name in lower case, and its words nowhere else
        if capital >= 2 and capital > written and not (all(self.lower(w) >= 2 * capital for w in plain)
                                                       and 2 * self._determined(name) >= capital):
            return False  # written as a name mid-sentence, more often than as words, unless every word is a
            # word twice as often and the phrase mostly follows "the", "my" … ("the Wall Angels"; "at Whole Foods")
        return marked == 0 or marked == 1 and len(plain) >= 3

    def concept_phrase(self, name: str) -> bool:
        """Whether ``name`` is a concept, a kind of document or payment, or an exercise, written in Title
        Case: a phrase of two words or more whose head is a concept noun
        (:data:`~riko.language.lexicon.CONCEPT_HEADS_EN`: "Construction Contracts", "Wire Transfers",
        "Payback Period", "Overhead Press", "End-of-Day Check-in") that the lines write as a word twice
        at least, before plain words none of which the lines capitalise mid-sentence more often than
        they write it in lower case; an acronym, a possessive or a name's word keeps a name ("HIA NSW
        Lump Sum Contract", "Moore's Law", "Apple Card" where the lines write "Apple" as a name)."""
        if _CJK.search(name):
            return False
        words = name.split()
        if len(words) < 2 or words[-1].casefold() not in CONCEPT_HEADS_EN \
                or self.lower(words[-1].split("-")[0]) < 2:
            return False
        for word in words[:-1]:
            if word.casefold() in _SMALL:
                continue
            for part in word.split("-"):
                if not _PLAIN.fullmatch(part) or self.capital(part) > self.lower(part):
                    return False
        for k in range(2, len(words)):  # "World Nomads" of "the World Nomads Standard Plan", a name alone too
            lead = " ".join(words[:k])
            pattern = r"(?<=[a-z,;] )" + r"\s+".join(re.escape(w) for w in words[:k]) + r"(?![\w'’\-])(?!\s+[A-Z])"
            if self._prose_count("leads", lead, pattern) >= 2:
                return False
        return True

    def common_compound(self, name: str) -> bool:
        """Whether ``name`` is one hyphenated word made of common words the lines also write in lower
        case, whole and apart ("Self-Critique", "Self-care": "self-critique", "self", "critique"), none
        of which they capitalise alone mid-sentence ("Coca-Cola", "Spider-Man" are no such words)."""
        parts = name.split("-")
        if len(parts) < 2 or " " in name or not all(_PLAIN.fullmatch(p) for p in parts):
            return False
        if any(self.lower(p) < 3 or self.capital(p) for p in parts):
            return False
        return self._phrase(name)[1] >= 1

    def work_artefact(self, name: str, after: str = "") -> bool:
        """Whether ``name`` is one of the user's own work artefacts, not a named thing: a phrase
        that ends in a work noun (:data:`~riko.language.lexicon.WORK_NOUNS_EN`: "List", "Protocol",
        "Basics", "Dashboard") whose other words are plain words the lines also write in lower case,
        as often at least as capitalised mid-sentence outside the phrase ("Apprentice Task List",
        "Stress-Response Protocol", "Pelvic Floor Basics"); not "Kyoto Protocol", "Schindler's List"
        or "Google Sheet", whose first word is a name's. ``after``, the word written after the name,
        may be the work noun ("the Practical Tasting session", "the Morning Study blocks")."""
        if _CJK.search(name) or not name[:1].isupper():
            return False
        words = [w for w in _TOKEN.findall(name.replace("’", "'")) if w.casefold() not in _SMALL]
        noun = after.casefold()
        if noun in ROUTINE_NOUNS_EN or noun.endswith("s") and noun[:-1] in ROUTINE_NOUNS_EN:
            rest = words
        elif len(words) >= 2 and words[-1].casefold() in WORK_NOUNS_EN:
            rest = words[:-1]
        else:
            return False
        if len(words) < 2:  # one word before a routine noun: a common word the lines write so ("the Deadlift session")
            return len(words) == 1 and rest == words and _PLAIN.fullmatch(words[0]) is not None \
                and self.lower(words[0]) >= 2 and self.lower(words[0]) >= self.capital(words[0])
        if not all(_PLAIN.fullmatch(w) for w in rest):
            return False  # a name's word: an acronym, a possessive, a CamelCase word, a number
        phrase = self._phrase(name)[2]
        return all(self.lower(w) and self.lower(w) >= self.capital(w) - phrase for w in rest)


class SessionWords(Vocabulary):
    """The lower-case words of one session's lines, user and assistant: ``lines`` is ``(role, text)``
    of each line."""

    def __init__(self, lines: Iterable[tuple[str, str]]) -> None:
        super().__init__()
        self.add(lines)


def _forms(word: str) -> tuple[str, ...]:
    """``word`` folded, with its singular or plural: "Bounces" meets "bounce" and "bounces"."""
    w = word.casefold()
    if w.endswith("ies") and len(w) > 4:
        return w, w[:-3] + "y"
    if w.endswith("es") and len(w) > 4:
        return (w, w[:-1], w[:-2]) if w[:-2].endswith(("s", "x", "z", "ch", "sh")) else (w, w[:-1])
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w, w[:-1]
    return w, w + "s", w + "es"
