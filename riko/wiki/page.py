"""One canonical Wiki page: a Markdown file with YAML frontmatter, parsed and rendered losslessly.

YAML guesses types (``2026`` is an int, ``yes`` a bool, ``2026-01-15`` a date). Those guesses are
settled once, here, so a page that did not change renders to the same bytes it was read from.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable

import frontmatter
import yaml
from frontmatter.default_handlers import YAMLHandler

from ..clock import utc
from ..errors import InvalidArgumentError, InvalidDateError, WikiFormatError
from .links import WikiLink, parse_links

__all__ = [
    "PAGE_TYPES",
    "TYPE_FOLDERS",
    "STATUSES",
    "SENSITIVITIES",
    "USAGE_POLICIES",
    "FIELD_ORDER",
    "Page",
    "VerbatimTime",
    "extra_from_json",
    "extra_to_json",
    "make_page_id",
    "slugify",
    "parse_page",
    "render_page",
    "validate_page",
]

from ..vocabulary import PAGE_TYPES  # noqa: E402
TYPE_FOLDERS = {
    "source": "sources",
    "entity": "entities",
    "concept": "concepts",
    "episode": "episodes",
    "emotion": "emotions",
    "relationship": "relationships",
    "synthesis": "synthesis",
}
STATUSES = ("candidate", "confirmed", "superseded", "forgotten")
from ..vocabulary import SENSITIVITIES  # noqa: E402
USAGE_POLICIES = ("normal", "suppressed")

# The order keys are written in; extra (unknown) keys follow, sorted.
FIELD_ORDER = (
    "id", "type", "title", "description", "status", "consent", "locked", "sensitivity",
    "version", "tags", "sources", "confidence", "kind", "category", "observed_at",
    "recorded_at", "valid_from", "valid_to", "supersedes", "superseded_by", "usage_policy",
)  # fmt: skip
_DATETIME_FIELDS = ("observed_at", "recorded_at", "valid_from", "valid_to")
_TEXT_FIELDS = ("id", "type", "title", "description", "status", "sensitivity", "kind",
                "category", "supersedes", "superseded_by", "usage_policy")  # fmt: skip
_REQUIRED = ("id", "type", "title")

_ID_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_SOURCE_RES = (
    re.compile(r"session:[^/\s]+/event:\d+"),
    re.compile(r"manual:\S.*", re.DOTALL),
    re.compile(r"page:" + _ID_RE.pattern),
)


class VerbatimTime(str):
    """A YAML timestamp kept as the text it was written in (``2026-01-15``, ``0001-01-01T00:00:00+05:00``).

    Frontmatter keys riko does not know are data it keeps, not dates it computes with: their
    timestamps are never parsed, so no value there (an impossible or far-off date) can stop a
    page from being read or written back byte for byte. Known date fields parse the same text
    with :func:`riko.clock.utc`.
    """

    __slots__ = ()


def _verbatim(value: Any, name: str) -> Any:
    """Extra values as a page file holds them: a date or datetime given in Python becomes its text."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return VerbatimTime(value.isoformat(" "))
        try:
            return VerbatimTime(_iso(value))
        except InvalidDateError as exc:
            raise WikiFormatError(exc.reason, field=name) from None
    if isinstance(value, date):
        return VerbatimTime(value.isoformat())
    if isinstance(value, list):
        return [_verbatim(v, name) for v in value]
    if isinstance(value, dict):
        return {k: _verbatim(v, name) for k, v in value.items()}
    return value


_STORED_TIME = "$yaml-timestamp"  # how a VerbatimTime is kept in the warehouse's JSON column


def extra_to_json(value: Any) -> Any:
    """Extra values as JSON data that remembers which text was an unquoted YAML timestamp."""
    if isinstance(value, VerbatimTime):
        return {_STORED_TIME: str(value)}
    if isinstance(value, list):
        return [extra_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: extra_to_json(v) for k, v in value.items()}
    return value


def extra_from_json(value: Any) -> Any:
    """The inverse of :func:`extra_to_json`."""
    if isinstance(value, list):
        return [extra_from_json(v) for v in value]
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(_STORED_TIME), str):
            return VerbatimTime(value[_STORED_TIME])
        return {k: extra_from_json(v) for k, v in value.items()}
    return value


def _has_moment(value: Any, depth: int = 0) -> bool:
    if isinstance(value, date):
        return True
    if depth < _MAX_DEPTH and isinstance(value, list):
        return any(_has_moment(v, depth + 1) for v in value)
    if depth < _MAX_DEPTH and isinstance(value, dict):
        return any(_has_moment(v, depth + 1) for v in value.values())
    return False


@dataclass
class Page:
    """A Wiki page as riko holds it; :func:`render_page` and :func:`parse_page` convert it.

    Datetimes are normalised to aware UTC (a naive value is taken as UTC, an ISO string is
    parsed), ``tags``/``sources`` to lists and the body to its canonical form (``\\n`` line
    ends, no surrounding blank space), so that ``parse_page(render_page(p)) == p``.

    >>> p = Page(id=make_page_id("tea"), type="concept", title="Tea", body="Likes [[Sencha]].")
    >>> [link.target for link in p.links()]
    ['Sencha']
    """

    id: str
    type: str
    title: str
    description: str = ""
    body: str = ""
    status: str = "confirmed"
    consent: bool = True
    locked: bool = False
    sensitivity: str = "normal"
    version: int = 1
    tags: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    confidence: float | None = None
    kind: str | None = None
    category: str | None = None
    observed_at: datetime | None = None
    recorded_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    usage_policy: str = "normal"
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in _DATETIME_FIELDS:
            value = getattr(self, name)
            if value is None or (type(value) is datetime and value.tzinfo is timezone.utc):
                continue  # the common cases, already canonical: pages are built in bulk
            if type(value) is datetime and value.tzinfo is None:
                setattr(self, name, value.replace(tzinfo=timezone.utc))
            elif isinstance(value, (datetime, date, str)):
                try:
                    setattr(self, name, utc(value))
                except InvalidDateError as exc:
                    raise WikiFormatError(exc.reason, field=name) from None
        if self.extra and isinstance(self.extra, dict) and any(_has_moment(v) for v in self.extra.values()):
            self.extra = {k: _verbatim(v, str(k)) for k, v in self.extra.items()}
        if isinstance(self.tags, tuple):
            self.tags = list(self.tags)
        if isinstance(self.sources, tuple):
            self.sources = list(self.sources)
        if isinstance(self.body, str):
            self.body = self.body.replace("\r\n", "\n").replace("\r", "\n").strip()

    def links(self) -> list[WikiLink]:
        """The body's wikilinks; line numbers count from the first body line."""
        return parse_links(self.body)

    def summary(self) -> str:
        """A one-line gist: the description, else the first non-empty body line, else the title."""
        for text in (self.description, *self.body.splitlines(), self.title):
            collapsed = " ".join(text.split())
            if collapsed:
                return collapsed
        return ""

    def semantic_hash(self) -> str:
        """SHA-256 hex of the canonical rendering; equal hashes mean an unchanged page."""
        return hashlib.sha256(render_page(self).encode("utf-8")).hexdigest()

    def replace(self, **changes: Any) -> Page:
        """A copy with ``changes`` applied (the original is left as it is)."""
        return dataclasses.replace(self, **changes)


def make_page_id(seed: str) -> str:
    """A stable page id derived from ``seed``: ``"p-"`` and 16 hex digits of its SHA-256.

    >>> make_page_id("local:companion:concept:green tea")
    'p-bb6b6959c5411bea'
    """
    return "p-" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:16]


def slugify(title: str) -> str:
    """A readable file-name stem: lowercase letters and digits of any script joined by ``-``.

    >>> slugify("Tokyo Trip, 2026!"), slugify("東京 旅行"), slugify("?!")
    ('tokyo-trip-2026', '東京-旅行', 'untitled')
    """
    words: list[str] = []
    current: list[str] = []
    for char in unicodedata.normalize("NFKC", title).lower():
        # Marks are kept so scripts such as Devanagari or Thai stay readable.
        if unicodedata.category(char)[0] in "LNM":
            current.append(char)
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    slug = "-".join(words)[:80].strip("-")
    return slug or "untitled"


# ---------------------------------------------------------------- validation


def _hint(value: str, choices: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(value, choices, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _unsavable(value: Any, depth: int = 0) -> str | None:
    """The first lone surrogate (``"\\ud800"`` in YAML) in ``value``'s text, keys included, or None:
    such a code point is not a character and cannot be saved as UTF-8."""
    if isinstance(value, str):
        if value.isascii():
            return None
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return value[exc.start]
        return None
    if depth < _MAX_DEPTH and isinstance(value, (list, tuple)):
        return next((c for c in (_unsavable(v, depth + 1) for v in value) if c), None)
    if depth < _MAX_DEPTH and isinstance(value, dict):
        return next((c for c in (_unsavable(k, depth + 1) or _unsavable(v, depth + 1) for k, v in value.items()) if c),
                    None)
    return None


def _unsavable_problem(page: Page) -> tuple[str, str] | None:
    """A text of ``page`` that holds a lone surrogate, as ``(field, message)``: the one rule that
    decides, before any file is written, that a page file could not hold it."""
    fields: list[tuple[str, Any]] = [(name, getattr(page, name)) for name in (*_TEXT_FIELDS, "tags", "sources")]
    fields += [("body", page.body)]
    fields += [(str(key), {key: value}) for key, value in page.extra.items()] if isinstance(page.extra, dict) else []
    for name, value in fields:
        bad = _unsavable(value)
        if bad is not None:
            name = name.encode("utf-8", "backslashreplace").decode("utf-8")  # the report itself must print
            return name, (f"{name} holds U+{ord(bad):04X}, half of a surrogate pair and not a character, "
                          "which a UTF-8 file cannot store; write the character itself (or a \\U escape of it)")
    return None


def _problem(page: Page) -> tuple[str, str] | None:
    """The first rule ``page`` breaks, as ``(field, message)``, or None."""
    unsavable = _unsavable_problem(page)
    if unsavable is not None:
        return unsavable
    if not isinstance(page.id, str) or not page.id:
        return "id", "id is required (a stable, path-safe identifier such as 'p-1a2b3c4d5e6f7a8b')"
    if not _ID_RE.fullmatch(page.id):
        return "id", (
            f"id {page.id!r} is not path-safe: use letters, digits, '_', '.' and '-' "
            "(not starting with '.' or '-', at most 128 characters)"
        )
    if page.type not in PAGE_TYPES:
        return "type", (
            f"unknown page type {page.type!r}; expected one of {', '.join(PAGE_TYPES)}"
            + _hint(str(page.type), PAGE_TYPES)
        )
    if not isinstance(page.title, str) or not page.title.strip():
        return "title", "title must not be empty"
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in page.title):
        return "title", "title must be a single line without control characters"
    if not isinstance(page.description, str):
        return "description", "description must be text"
    if not isinstance(page.body, str):
        return "body", "body must be text"
    for name, allowed in (("status", STATUSES), ("sensitivity", SENSITIVITIES),
                          ("usage_policy", USAGE_POLICIES)):  # fmt: skip
        value = getattr(page, name)
        if value not in allowed:
            return name, (
                f"{name} {value!r} is not one of {', '.join(allowed)}" + _hint(str(value), allowed)
            )
    for name in ("consent", "locked"):
        if not isinstance(getattr(page, name), bool):
            return name, f"{name} must be true or false"
    if isinstance(page.version, bool) or not isinstance(page.version, int) or page.version < 1:
        return "version", f"version must be a whole number of at least 1, got {page.version!r}"
    for name in ("tags", "sources"):
        items = getattr(page, name)
        if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
            return name, f"{name} must be a list of non-empty text items"
    for tag in page.tags:
        if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in tag):
            return "tags", f"tag {tag!r} must be a single line without control characters"
    for ref in page.sources:
        if not any(pattern.fullmatch(ref) for pattern in _SOURCE_RES):
            return "sources", (
                f"source {ref!r} is not an evidence reference; use 'session:<id>/event:<seq>', "
                "'page:<id>' or 'manual:<note>'"
            )
    if page.confidence is not None:
        c = page.confidence
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0.0 <= c <= 1.0:
            return "confidence", f"confidence must be a number from 0 to 1, got {c!r}"
    for name in ("kind", "category"):
        value = getattr(page, name)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            return name, f"{name} must be non-empty text when present"
    for name in _DATETIME_FIELDS:
        value = getattr(page, name)
        if value is not None and not isinstance(value, datetime):
            return name, f"{name} must be a date-time such as 2026-01-15T09:00:00Z"
    if page.valid_from and page.valid_to and page.valid_from > page.valid_to:
        return "valid_to", (
            f"valid_to ({_iso(page.valid_to)}) is before valid_from ({_iso(page.valid_from)})"
        )
    for name in ("supersedes", "superseded_by"):
        value = getattr(page, name)
        if value is not None and (not isinstance(value, str) or not _ID_RE.fullmatch(value)):
            return name, f"{name} must be a page id, got {value!r}"
    if not isinstance(page.extra, dict):
        return "extra", "extra must be a mapping of field names to values"
    for key, value in page.extra.items():
        if not isinstance(key, str) or not key.strip():
            return "extra", f"frontmatter key {key!r} must be non-empty text"
        if key in FIELD_ORDER:
            return key, f"{key!r} is a page field and cannot also be an extra key"
        if not _plain_data(value):
            return key, (f"{key} holds a {type(value).__name__} a page file cannot store "
                         f"(an object, NaN, or nesting deeper than {_MAX_DEPTH} levels)")
    return None


_MAX_DEPTH = 32  # deeper extra values (or ones that contain themselves) are refused


def _plain_data(value: Any, depth: int = 0) -> bool:
    """True when ``value`` is YAML-safe data that reads back equal (no NaN, no objects, no cycles)."""
    if value is None or isinstance(value, (str, bool, int, date)):
        return True
    if isinstance(value, float):
        return value == value
    if depth >= _MAX_DEPTH:
        return False
    if isinstance(value, list):
        return all(_plain_data(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_data(v, depth + 1) for k, v in value.items())
    return False


def validate_page(page: Page, path: str | Path | None = None) -> None:
    """Raise :class:`WikiFormatError` (naming the field) when ``page`` breaks a format rule."""
    problem = _problem(page)
    if problem is not None:
        name, message = problem
        raise WikiFormatError(message, path, None, name)


# ---------------------------------------------------------------- rendering


def _iso(value: datetime) -> str:
    return utc(value).isoformat().replace("+00:00", "Z")


class _FlowList(list):  # type: ignore[type-arg]
    """A list written inline, ``[a, b]``: short tag lists read best on one line."""


class _Dumper(yaml.SafeDumper):
    pass


def _represent_datetime(dumper: yaml.SafeDumper, value: datetime) -> yaml.Node:
    # Aware values are written as UTC with a "Z"; naive ones (extra keys only) as YAML would.
    text = _iso(value) if value.tzinfo is not None else value.isoformat(" ")
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", text)


def _represent_verbatim(dumper: yaml.SafeDumper, value: VerbatimTime) -> yaml.Node:
    # written back as it was read: plain when YAML reads it as a timestamp, tagged otherwise
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", str(value))


def _represent_flow(dumper: yaml.SafeDumper, value: _FlowList) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)


_YAML_BREAKS = frozenset("\r\x85\u2028\u2029")


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    # PyYAML folds these line breaks inside single-quoted text and reads them back as
    # spaces; double quotes escape them, so the text survives.
    style = '"' if _YAML_BREAKS.intersection(value) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(datetime, _represent_datetime)
_Dumper.add_representer(VerbatimTime, _represent_verbatim)
_Dumper.add_representer(_FlowList, _represent_flow)

# libyaml's emitter writes what PyYAML's pure-Python one writes, several times faster, except that
# it escapes characters beyond the Basic Multilingual Plane (an emoji becomes "\U0001F600") even
# with allow_unicode, and quotes some mapping keys otherwise: it serves only what :func:`_libyaml_safe` passes.
_CDumper: Any = None
if getattr(yaml, "__with_libyaml__", False):
    _CDumper = type("_CDumper", (yaml.CSafeDumper,), {})
    for _type, _represent in _Dumper.yaml_representers.items():
        _CDumper.add_representer(_type, _represent)
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


_LIBYAML_MAX_TEXT = 8192
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}")


def _libyaml_safe(data: Any) -> bool:
    """Whether libyaml writes ``data`` as PyYAML does: every text free of astral characters, every
    mapping key a plain field name, and all the text together shorter than the line width (the two
    emitters also differ on keys they must quote and on how they fold a line past the width)."""
    left = _LIBYAML_MAX_TEXT
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            left -= len(value)
            if left <= 0 or not (value.isascii() or _ASTRAL.search(value) is None):
                return False
        elif isinstance(value, dict):
            for key, item in value.items():
                if type(key) is not str or _PLAIN_KEY.fullmatch(key) is None:
                    return False
                stack.append(item)
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return True


def _frontmatter_data(page: Page) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": page.id,
        "type": page.type,
        "title": page.title,
        "description": page.description or None,
        "status": page.status,
        "consent": page.consent,
        "locked": page.locked,
        "sensitivity": page.sensitivity,
        "version": page.version,
        "tags": _FlowList(page.tags) or None,
        "sources": list(page.sources) or None,
        "confidence": float(page.confidence) if page.confidence is not None else None,
        "kind": page.kind,
        "category": page.category,
        **{name: getattr(page, name) for name in _DATETIME_FIELDS},
        "supersedes": page.supersedes,
        "superseded_by": page.superseded_by,
        "usage_policy": None if page.usage_policy == "normal" else page.usage_policy,
    }
    data = {key: value for key, value in data.items() if value is not None}
    for key in sorted(page.extra):
        data[key] = page.extra[key]  # extra values are kept even when null
    return data


def _dump(data: dict[str, Any]) -> str:
    dumper = _CDumper if _CDumper is not None and _libyaml_safe(data) else _Dumper
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=10_000)


_PLAIN_TYPES = (str, bool, int, float, VerbatimTime)
_ENTRY_CACHE: dict[tuple[Any, ...], str] = {}
_ENTRY_CACHE_MAX = 1 << 16


def _entry_key(name: str, value: Any) -> tuple[Any, ...] | None:
    """A key that tells apart every ``name: value`` entry that renders differently (the type as
    well as the value: ``True``, ``1`` and ``1.0`` are equal in Python), or None when the value is
    not a plain scalar or a list of texts."""
    kind = type(value)
    if value is None or kind in _PLAIN_TYPES:
        return (name, kind, repr(value) if kind is float else value)
    if kind is datetime:
        return (name, kind, value.tzinfo is not None, value.isoformat())
    if (kind is list or kind is _FlowList) and all(type(v) is str for v in value):
        return (name, kind, *value)
    return None


def _frontmatter_text(data: dict[str, Any]) -> str:
    """The YAML of ``data`` as one ``yaml.dump`` of it writes it, one top-level entry at a time:
    each entry of a block mapping is written alone the same way, and the entries repeat (every
    page says ``status: confirmed``; a page saved again keeps most of its lines), so each is
    rendered once and kept. A value that is not a plain scalar or a list of texts, or a list
    given twice (YAML would write an anchor), takes the whole-mapping path."""
    keys = []
    lists: set[int] = set()
    for name, value in data.items():
        key = _entry_key(name, value)
        if key is None:
            return _dump(data)
        if isinstance(value, list):
            if id(value) in lists:
                return _dump(data)
            lists.add(id(value))
        keys.append(key)
    if not keys:
        return _dump(data)
    parts = []
    for key, (name, value) in zip(keys, data.items()):
        text = _ENTRY_CACHE.get(key)
        if text is None:
            if len(_ENTRY_CACHE) >= _ENTRY_CACHE_MAX:
                _ENTRY_CACHE.clear()
            text = _ENTRY_CACHE[key] = _dump({name: value})
        parts.append(text)
    return "".join(parts)


def render_page(page: Page) -> str:
    """The page file text: deterministic, stable key order, no noise fields, one final newline.

    >>> print(render_page(Page(id="p-1", type="concept", title="Green tea", body="Hot.")), end="")
    ---
    id: p-1
    type: concept
    title: Green tea
    status: confirmed
    consent: true
    locked: false
    sensitivity: normal
    version: 1
    ---
    <BLANKLINE>
    Hot.
    """
    validate_page(page)
    text = f"---\n{_frontmatter_text(_frontmatter_data(page))}---\n"
    return text + f"\n{page.body}\n" if page.body else text


# ---------------------------------------------------------------- parsing


class _Problem(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class _Constructor(yaml.constructor.SafeConstructor):
    """YAML's safe types, except that a timestamp stays the text it was written as."""

    def construct_verbatim_time(self, node: yaml.Node) -> VerbatimTime:
        assert isinstance(node, yaml.ScalarNode)
        return VerbatimTime(node.value)


_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_verbatim_time)


class _PageHandler(YAMLHandler):
    """Splits and loads one file's frontmatter, keeping YAML nodes for source text and lines."""

    def __init__(self) -> None:
        super().__init__()
        self.found = False
        self.unterminated = False
        self.line_offset = 0  # newlines before the YAML text in the stripped file text
        self.root: yaml.Node | None = None

    def split(self, text: str) -> tuple[str, str]:
        if not self.detect(text):
            raise InvalidArgumentError("no frontmatter")
        opening = self.FM_BOUNDARY.match(text)
        assert opening is not None
        self.line_offset = text.count("\n", 0, opening.end())
        parts = self.FM_BOUNDARY.split(text, 2)
        if len(parts) != 3:
            self.unterminated = True
            raise InvalidArgumentError("frontmatter is not closed")
        self.found = True
        return parts[1], parts[2]

    def load(self, fm: str, **kwargs: object) -> Any:
        loader = yaml.SafeLoader(fm)
        try:
            try:
                self.root = loader.get_single_node()
            except RecursionError:
                raise _Problem("", "frontmatter nests too deeply to read") from None
        finally:
            loader.dispose()
        if not isinstance(self.root, yaml.MappingNode):
            return _Constructor().construct_document(self.root) if self.root is not None else None
        # each value is built on its own, so a bad one is reported with its key and line
        data: dict[Any, Any] = {}
        for key_node, value_node in self.root.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            try:
                data[key] = _Constructor().construct_document(value_node)
            except (ValueError, OverflowError, RecursionError, TypeError, yaml.YAMLError) as exc:
                raise _BadValue(key_node, value_node, exc) from None
        return data


class _BadValue(Exception):
    """A frontmatter value YAML cannot build (an impossible date, a huge number, a bad tag)."""

    def __init__(self, key_node: yaml.Node, value_node: yaml.Node, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        self.node = value_node
        if isinstance(cause, RecursionError):
            self.reason = "nests too deeply or refers to itself"
        elif "integer string conversion" in str(cause):
            self.reason = "is a number with too many digits"
        else:
            self.reason = f"cannot be read ({cause})"


def _scalar_text(name: str, node: yaml.Node, value: Any) -> str | None:
    """Text as written: YAML's int/float/bool/date guesses fall back to their source text."""
    if value is None:
        return None
    if isinstance(value, str):
        return str(value)  # a VerbatimTime in a text field is plain text
    if isinstance(node, yaml.ScalarNode):
        return str(node.value)
    shape = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
    raise _Problem(name, f"{name} must be text, not a {shape}")


def _text_list(name: str, node: yaml.Node, value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(node, yaml.SequenceNode):
        raise _Problem(name, f"{name} must be a list, e.g. {name}: [a, b]")
    items = []
    for item_node, item in zip(node.value, value):
        text = _scalar_text(name, item_node, item)
        if text is None:
            raise _Problem(name, f"{name} must not contain empty items")
        items.append(text)
    return items


def _boolean(name: str, node: yaml.Node, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    shown = f"the text {value!r}" if isinstance(value, str) else repr(value)
    raise _Problem(name, f"{name} must be true or false (unquoted), got {shown}")


def _version(name: str, node: yaml.Node, value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _Problem(name, f"version must be a whole number of at least 1, got {value!r}")


def _confidence(name: str, node: yaml.Node, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise _Problem(name, f"confidence must be a number from 0 to 1, got {value!r}")


def _moment(name: str, node: yaml.Node, value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            return utc(value)
        except InvalidDateError as exc:
            raise _Problem(name, f"{name} {exc.reason}") from None
    raise _Problem(name, f"{name} must be a date-time such as 2026-01-15T09:00:00Z, got {value!r}")


_CONVERTERS: dict[str, Callable[[str, yaml.Node, Any], Any]] = {
    **{name: _scalar_text for name in _TEXT_FIELDS},
    "consent": _boolean,
    "locked": _boolean,
    "version": _version,
    "tags": _text_list,
    "sources": _text_list,
    "confidence": _confidence,
    **{name: _moment for name in _DATETIME_FIELDS},
}


#: YAML contexts that enclose the whole frontmatter (or a nested block): an error inside one is
#: reported where YAML found it, not where the block began.
_ENCLOSING_CONTEXT = re.compile(r"\bblock (mapping|collection|node|sequence)\b")


def _first_line_of_bad_utf8(text: str) -> int | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text.count("\n", 0, exc.start) + 1
    return None


def parse_page(text: str, path: str | Path | None = None) -> Page:
    """Read a page file's text; raise :class:`WikiFormatError` naming file, line and field.

    Only WikiFormatError leaves it, whatever the bytes: one broken page never stops a scan.

    >>> parse_page("---\\nid: p-1\\ntype: concept\\ntitle: 2026\\n---\\nBody").title
    '2026'
    """
    try:
        return _parse_page(text, path)
    except (ValueError, OverflowError, RecursionError, TypeError) as exc:
        if isinstance(exc, WikiFormatError):
            raise
        raise WikiFormatError(f"page cannot be read ({type(exc).__name__}: {exc})", path, 1) from None


def _parse_page(text: str, path: str | Path | None) -> Page:
    if text.startswith("\ufeff"):
        text = text[1:]
    bad_line = _first_line_of_bad_utf8(text)
    if bad_line is not None:
        raise WikiFormatError("file is not valid UTF-8; save it as UTF-8", path, bad_line)
    lead = text.count("\n", 0, len(text) - len(text.lstrip()))
    opening_line = lead + 1
    handler = _PageHandler()
    try:
        metadata, body = frontmatter.parse(text, handler=handler)
    except yaml.MarkedYAMLError as exc:
        def yaml_line(mark: yaml.Mark) -> int:
            return mark.line + handler.line_offset + lead + 1

        mark = exc.problem_mark or exc.context_mark
        line = yaml_line(mark) if mark else opening_line
        problem = exc.problem or exc.context or "unreadable YAML"
        if exc.problem and exc.context and exc.context_mark:
            started = yaml_line(exc.context_mark)
            if started < line and not _ENCLOSING_CONTEXT.search(exc.context):
                # a quote, bracket or key left open: the mistake is where it opened, not where
                # YAML gave up (usually the next line)
                problem += f" on line {line} ({exc.context} started here)"
                line = started
            else:
                problem += f" ({exc.context} started on line {started})"
        raise WikiFormatError(f"invalid YAML in frontmatter: {problem}", path, line) from exc
    except yaml.YAMLError as exc:
        raise WikiFormatError(f"invalid YAML in frontmatter: {exc}", path, opening_line) from exc
    except _Problem as problem:
        raise WikiFormatError(problem.message, path, opening_line) from None
    except _BadValue as bad:
        line = bad.node.start_mark.line + handler.line_offset + lead + 1
        raise WikiFormatError(f"{bad.key} {bad.reason}", path, line, bad.key) from None
    if handler.unterminated:
        raise WikiFormatError(
            "frontmatter opened with '---' is never closed; end it with a '---' line",
            path,
            opening_line,
        )
    if not handler.found:
        raise WikiFormatError(
            "missing frontmatter: a page starts with a '---' line, then 'id:', 'type:' and "
            "'title:' fields, then a closing '---' line",
            path,
            1,
        )
    root = handler.root
    if root is not None and not isinstance(root, yaml.MappingNode):
        raise WikiFormatError(
            "frontmatter must be a mapping of 'field: value' lines", path, opening_line
        )

    def file_line(node: yaml.Node) -> int:
        return node.start_mark.line + handler.line_offset + lead + 1

    key_lines: dict[str, int] = {}
    nodes: dict[str, yaml.Node] = {}
    for key_node, value_node in root.value if root is not None else []:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(key, str) or key_node.tag != "tag:yaml.org,2002:str":
            raise WikiFormatError("frontmatter keys must be plain names", path, file_line(key_node))
        if key in key_lines:
            raise WikiFormatError(
                f"{key!r} appears twice (first on line {key_lines[key]}); keep one",
                path,
                file_line(key_node),
                key,
            )
        key_lines[key] = file_line(key_node)
        nodes[key] = value_node

    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    try:
        for key, value in metadata.items():
            convert = _CONVERTERS.get(key)
            if convert is None:
                extra[key] = value
                continue
            converted = convert(key, nodes[key], value)
            if converted is not None:
                fields[key] = converted
        for name in _REQUIRED:
            if not fields.get(name):
                raise _Problem(name, f"{name} is required")
    except _Problem as problem:
        line = key_lines.get(problem.field, opening_line)
        raise WikiFormatError(problem.message, path, line, problem.field) from None

    page = Page(**fields, body=body, extra=extra)
    found = _problem(page)
    if found is not None:
        name, message = found
        # a key is named as it prints: a lone surrogate in it is written as its escape
        printed = {key.encode("utf-8", "backslashreplace").decode("utf-8"): line for key, line in key_lines.items()}
        raise WikiFormatError(message, path, key_lines.get(name, printed.get(name, opening_line)), name)
    return page
