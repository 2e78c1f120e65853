"""The exact arm: literal terms in a query (quotes, dates, identifiers, paths, emails).

Tokenised scoring blurs exactly the things a user types to pin a memory down: an order
code, a date, a file path. This arm pulls those out and matches them literally, as a
separate ranking for fusion.
"""

from __future__ import annotations


import re
import unicodedata
from functools import lru_cache
from typing import Iterable, Sequence

from ..language.text import normalize

__all__ = ["exact_terms", "exact_matches", "ExactMatcher", "quoted_phrases", "classify_term", "TERM_KINDS"]

TERM_KINDS = ("phrase", "email", "path", "date", "tag", "identifier")

_QUOTED_RE = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|「([^」\n]+)」|『([^』\n]+)』')
_EMAIL_RE = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_WIN_PATH_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]:\\[^\s\"'<>|,;]*")
# Absolute, home-relative or dot-relative paths: /etc/x.conf, ~/notes.md, ./run.sh.
_ROOTED_PATH_RE = re.compile(r"(?<![\w./~-])(?:~|\.{1,2})?/[\w.~-]+(?:/[\w.~-]+)*/?", re.ASCII)
# Relative paths with at least one separator and a file extension: src/app.py.
_REL_PATH_RE = re.compile(r"(?<![\w./~-])[\w.-]+(?:/[\w.-]+)+\.[A-Za-z0-9]{1,8}(?![\w/])(?!\.\w)", re.ASCII)
_FILE_EXTENSIONS = (
    "py|pyi|ipynb|js|mjs|cjs|ts|tsx|jsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|md|txt|csv|"
    "tsv|parquet|sql|sh|bash|zsh|ps1|bat|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|"
    "html|css|scss|xml|lock|log|env|pdf|docx|xlsx|pptx|png|jpg|jpeg|gif|svg|zip|gz|zst|db"
)
_FILENAME_RE = re.compile(
    rf"(?<![\w./~-])[\w-]+(?:\.[\w-]+)*\.(?:{_FILE_EXTENSIONS})(?!\w)(?!\.\w)", re.IGNORECASE | re.ASCII
)
_DATE_RE = re.compile(r"(?<![\d-])(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?![\d])")
_TAG_RE = re.compile(r"(?<![A-Za-z0-9_&#])#[A-Za-z0-9_-]*[A-Za-z0-9]")
_IDENT_RE = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*(?![A-Za-z0-9_-])")
# Ordinals, clock times and units look like codes but pin nothing down.
_NOT_IDENT_RE = re.compile(
    r"\d+(?:st|nd|rd|th|am|pm|[smhdkgx]|ms|km|kg|cm|mm|mb|gb|kb|tb|min|hrs?|yrs?|px|ml)",
    re.IGNORECASE,
)
_ALNUM = re.compile(r"[A-Za-z0-9]")


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def quoted_phrases(query: str) -> list[str]:
    """Phrases the user quoted with "…", “…”, 「…」 or 『…』, stripped, in order."""
    found = []
    for match in _QUOTED_RE.finditer(_nfkc(query)):
        phrase = next(g for g in match.groups() if g is not None).strip()
        if phrase:
            found.append(phrase)
    return found


def _valid_date(match: re.Match[str]) -> bool:
    month = int(match.group(2))
    day = match.group(3)
    return 1 <= month <= 12 and (day is None or 1 <= int(day) <= 31)


def _is_identifier(token: str) -> bool:
    has_letter = any(c.isalpha() for c in token)
    has_digit = any(c.isdigit() for c in token)
    return has_letter and has_digit and _NOT_IDENT_RE.fullmatch(token) is None


def _clean_path(path: str) -> str:
    return path.rstrip(".,;:!?)")


def exact_terms(query: str) -> list[str]:
    """Literal terms in ``query``, in order of appearance, without duplicates (computed once per
    query; each caller gets its own list).

    Kinds (see :func:`classify_term`): quoted phrases, emails, file paths (POSIX, relative
    with an extension, bare file names with a known extension, Windows), ISO dates and
    year-months, ``#tags`` and identifiers mixing letters and digits (``B-417``,
    ``ABC123``). Text already claimed by an earlier kind is not reused by a later one.

    >>> exact_terms('did "dark mode" ship in 2026-04 for B-417? see src/app.py')
    ['dark mode', '2026-04', 'B-417', 'src/app.py']
    """
    return list(_exact_terms(query))


@lru_cache(maxsize=256)
def _exact_terms(query: str) -> tuple[str, ...]:
    text = _nfkc(query)
    claimed = [False] * len(text)
    found: list[tuple[int, str]] = []

    def claim(start: int, end: int, term: str) -> None:
        if term and not any(claimed[start:end]):
            found.append((start, term))
            claimed[start:end] = [True] * (end - start)

    for match in _QUOTED_RE.finditer(text):
        phrase = next(g for g in match.groups() if g is not None).strip()
        claim(match.start(), match.end(), phrase)
    for match in _EMAIL_RE.finditer(text):
        claim(match.start(), match.end(), match.group())
    for regex in (_WIN_PATH_RE, _ROOTED_PATH_RE, _REL_PATH_RE, _FILENAME_RE):
        for match in regex.finditer(text):
            path = _clean_path(match.group())
            if regex is _ROOTED_PATH_RE and (
                not any(c.isalpha() for c in path) or ("/" not in path.strip("/") and "." not in path)
            ):
                continue  # "/" alone, "17/23" style ratios, or a bare "/word"
            claim(match.start(), match.start() + len(path), path)
    for match in _DATE_RE.finditer(text):
        if _valid_date(match):
            claim(match.start(), match.end(), match.group())
    for match in _TAG_RE.finditer(text):
        claim(match.start(), match.end(), match.group())
    for match in _IDENT_RE.finditer(text):
        if _is_identifier(match.group()):
            claim(match.start(), match.end(), match.group())
    found.sort()
    return tuple(dict.fromkeys(term for _, term in found))


def classify_term(term: str) -> str:
    """The kind of an exact term: one of :data:`TERM_KINDS`."""
    term = _nfkc(term)
    if _EMAIL_RE.fullmatch(term):
        return "email"
    if _WIN_PATH_RE.fullmatch(term) or _FILENAME_RE.fullmatch(term) or (
        ("/" in term) and not any(c.isspace() for c in term)
    ):
        return "path"
    date = _DATE_RE.fullmatch(term)
    if date and _valid_date(date):
        return "date"
    if _TAG_RE.fullmatch(term):
        return "tag"
    if _IDENT_RE.fullmatch(term) and _is_identifier(term):
        return "identifier"
    return "phrase"


def _bounded_in(needle: str, haystack: str) -> bool:
    """``needle`` occurs in ``haystack`` not glued to a further letter or digit."""
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before = haystack[start - 1] if start else ""
        after = haystack[end] if end < len(haystack) else ""
        if not _ALNUM.fullmatch(before or " ") and not _ALNUM.fullmatch(after or " "):
            return True
        start = haystack.find(needle, start + 1)
    return False


def _matcher(term: str):
    kind = classify_term(term)
    literal = _nfkc(term)
    if kind in ("identifier", "tag", "date"):
        return lambda raw, folded: _bounded_in(literal, raw)
    if kind == "path":
        return lambda raw, folded: literal in raw
    if kind == "email":
        lowered = literal.lower()
        return lambda raw, folded: lowered in raw.lower()
    phrase = normalize(term)
    return lambda raw, folded: bool(phrase) and phrase in folded


class ExactMatcher:
    """The literal matchers of a set of terms, built once and applied to many texts."""

    def __init__(self, terms: Iterable[str]) -> None:
        unique = [t for t in dict.fromkeys(terms) if t]
        self.matchers = [_matcher(t) for t in unique]
        # Only phrases compare normalised text; skip folding when none is asked for.
        self._folds = any(classify_term(t) == "phrase" for t in unique)

    def __bool__(self) -> bool:
        return bool(self.matchers)

    def count(self, text: str) -> int:
        """How many distinct terms ``text`` contains literally."""
        raw = _nfkc(text)
        folded = normalize(text) if self._folds else ""
        return sum(1 for match in self.matchers if match(raw, folded))


def exact_matches(terms: Iterable[str], docs: Sequence[tuple[str, str]]) -> list[tuple[str, int]]:
    """Documents containing exact terms: ``(doc_id, distinct terms matched)``, most first.

    Identifiers, tags and paths match case-sensitively (after NFKC); identifiers, tags and
    dates must not be glued to a further letter or digit (``B-417`` does not match
    ``B-4170``); phrases compare normalised text and emails compare case-insensitively.
    Ties are ordered by doc_id.
    """
    matcher = ExactMatcher(terms)
    if not matcher:
        return []
    hits: list[tuple[str, int]] = []
    for doc_id, text in docs:
        count = matcher.count(text)
        if count:
            hits.append((doc_id, count))
    hits.sort(key=lambda pair: (-pair[1], pair[0]))
    return hits
