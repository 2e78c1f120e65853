"""The FILE protocol: how a Dream provider proposes Wiki pages, and its strict parser.

A provider answers with blocks of the form::

    <<<FILE path="wiki/concepts/likes-jazz.md">>>
    ---
    type: concept
    title: Likes jazz
    description: The user said they like jazz.
    tags: [music]
    ---
    Body text, may link [[Miles Davis]] or [[supports::Music]].
    <<<END>>>

The parser treats every answer as untrusted. A block is accepted whole or rejected whole
with a reason; authority the model writes for itself (status, consent, locks, versions, ids,
sources, session ids, "the user asked me to remember this") is discarded, and every accepted
page is a fresh candidate.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from collections.abc import Iterable, Mapping
from typing import Any

import yaml
from frontmatter.default_handlers import YAMLHandler

from ..errors import InvalidArgumentError, ProviderError
from ..language.statement import clip
from ..language.text import normalize_text
from ..language.derive import ENTITY_KINDS, Entity
from .sanitize import sanitize_error

__all__ = [
    "FOLDER_TYPES",
    "SENSITIVITY_LEVELS",
    "MAX_BLOCK_CHARS",
    "MAX_TITLE_CHARS",
    "MAX_DESCRIPTION_CHARS",
    "MAX_BODY_CHARS",
    "ProposedPage",
    "ParseResult",
    "ACTIONS",
    "MAX_TURNS",
    "parse_file_blocks",
    "Draft",
    "accept_drafts",
    "normalize_text",
    "extract_wikilinks",
]

FOLDER_TYPES: dict[str, str] = {
    "sources": "source",
    "entities": "entity",
    "concepts": "concept",
    "episodes": "episode",
    "emotions": "emotion",
    "relationships": "relationship",
    "synthesis": "synthesis",
}
SENSITIVITY_LEVELS = ("normal", "provisional_sensitive", "sensitive")

MAX_BLOCK_CHARS = 30_000
MAX_TITLE_CHARS = 120
MAX_DESCRIPTION_CHARS = 120
MAX_BODY_CHARS = 1_200
MAX_TAGS = 12
MAX_TAG_CHARS = 40
MAX_LABEL_CHARS = 40
MAX_NAME_CHARS = 80
MAX_TURNS = 20
#: What a model says a page does against the existing ones (mem0-style); a hint riko records,
#: never acts on: consolidation decides from riko's own slot and entity keys.
ACTIONS = ("add", "update", "noop")
_ACTION_ALIASES = {"none": "noop", "no-op": "noop", "no_op": "noop", "nothing": "noop", "skip": "noop",
                   "new": "add", "create": "add", "insert": "add", "change": "update", "modify": "update",
                   "replace": "update", "revise": "update"}

_MARKER = re.compile(r"<<<FILE\b([^\n]*?)>>>|<<<END>>>")
_HEADER = re.compile(r'^\s+path="([^"\n]*)"\s*$')
_WS = re.compile(r"\s+")
_WIKILINK = re.compile(r"\[\[([^\[\]\n]{1,200})\]\]")
_NAME_UNSAFE = re.compile(r"[^\w.\-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_YAML = YAMLHandler()

# Lines and sentences through which a model claims authority it does not have.
# Every run of blanks has one way to match (no \s* beside another \s*), so matching is linear
# in the line: an answer with long blank runs cannot stall a worker.
_AUTHORITY_LINE = re.compile(
    r"(?i)\s*(?:[-*]\s*)?(status|consent|locked|version|id|page_?id|source_?ids?|sources?|"
    r"session_?ids?|sessions?|confirmed|approved)\s*:"
)
_CONFIRMATION_CLAIM = re.compile(
    r"(?i)(\b(the\s+)?user\s+(has\s+)?(explicitly\s+)?(asked|told|wants|wanted|instructed|requested)\s+"
    r"(?:(me|us|you|the\s+assistant)\s+)?to\s+(remember|save|store|keep|confirm)"
    r"|\b(confirmed|approved|verified)\s+by\s+(the\s+)?user\b"
    r"|用户(明确)?(要求|让|希望|请求)(我|你|助手)?(记住|保存|记下)"
    r"|(已|已经)(被)?用户确认)"
)


def _compact(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` at a clause boundary, never dropping a negation (kept whole when
    no such cut exists: a longer title is better than one that says the opposite)."""
    return text if len(text) <= limit else clip(text, limit)


def extract_wikilinks(text: str) -> tuple[str, ...]:
    """Targets of ``[[Title]]``, ``[[relation::Title]]`` and ``[[Title|label]]`` links, in order."""
    seen: dict[str, None] = {}
    for match in _WIKILINK.finditer(text):
        inner = match.group(1)
        if "::" in inner:
            inner = inner.split("::", 1)[1]
        target = _compact(inner.split("|", 1)[0].split("#", 1)[0])
        if target:
            seen.setdefault(target, None)
    return tuple(seen)


@dataclass(frozen=True)
class ProposedPage:
    """One page a provider proposed, already bounded and stripped of model authority.

    The lifecycle fields are not stored: a proposal is always a ``candidate`` at version 1,
    without consent and unlocked, whatever the model wrote.
    """

    path: str
    folder: str
    type: str
    title: str
    description: str
    body: str
    tags: tuple[str, ...]
    confidence: float | None
    kind: str | None
    category: str | None
    sensitivity: str
    links: tuple[str, ...]
    #: ``subject/attribute`` (see :mod:`riko.language.derive`); a hint only: admission derives it again.
    slot: str | None = None
    #: The entities the page names, as the proposer stated them.
    entities: tuple[Entity, ...] = ()
    #: The speaker's own words that carry the fact (locates the evidence line; never authority).
    quote: str = ""
    #: The transcript turns (sequence numbers) the proposer says state the fact; riko keeps only
    #: the user turns among them that hold the fact's words.
    turns: tuple[int, ...] = ()
    #: ``add``, ``update`` or ``noop`` against an existing page (``updates``); a recorded hint.
    action: str = "add"
    updates: str | None = None
    #: Fields that were malformed and dropped, as ``(reason, detail)``; the page itself stands.
    field_errors: tuple[tuple[str, str], ...] = ()

    @property
    def status(self) -> str:
        return "candidate"

    @property
    def consent(self) -> bool:
        return False

    @property
    def locked(self) -> bool:
        return False

    @property
    def version(self) -> int:
        return 1

    @property
    def name(self) -> str:
        """The file stem of :attr:`path` (``wiki/<folder>/<name>.md``)."""
        return self.path.rsplit("/", 1)[1][: -len(".md")]

    def fingerprint(self) -> str:
        """Identity of a proposal for merging repeats: 24 hex chars of a SHA-256.

        Hashed: the page type and the normalized title (NFKC, casefold, whitespace collapsed),
        joined by a unit separator. Description, body, tags and path are left out so that the
        same fact proposed again in other words or under another file name merges with the
        earlier candidate instead of duplicating it.
        """
        material = f"{self.type}\x1f{normalize_text(self.title)}"
        return hashlib.sha256(material.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class ParseResult:
    """Accepted pages, and every rejected block as ``(reason, detail)``."""

    pages: tuple[ProposedPage, ...]
    rejected: tuple[tuple[str, str], ...]
    #: Malformed optional fields of accepted pages, as ``(reason, "<path>: <detail>")``.
    field_errors: tuple[tuple[str, str], ...] = ()


class _Rejected(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def _normalize_path(raw: str) -> tuple[str, str]:
    """Validate ``wiki/<folder>/<name>.md`` and return ``(normalized path, folder)``."""
    path = unicodedata.normalize("NFKC", raw).strip()
    if not path:
        raise _Rejected("invalid-path", "empty path")
    if "\\" in path or _CONTROL.search(path):
        raise _Rejected("invalid-path", "backslash or control character in path")
    if path.startswith(("/", "~")) or ":" in path:
        raise _Rejected("invalid-path", "absolute path or drive/scheme prefix")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise _Rejected("invalid-path", "empty, '.' or '..' path segment")
    if len(parts) != 3 or parts[0].casefold() != "wiki":
        raise _Rejected("invalid-path", "path must be wiki/<folder>/<name>.md")
    folder = parts[1].casefold()
    if folder not in FOLDER_TYPES:
        raise _Rejected("invalid-folder", f"folder {parts[1]!r} is not one of {sorted(FOLDER_TYPES)}")
    name = parts[2]
    if not name.casefold().endswith(".md"):
        raise _Rejected("invalid-path", "page file must end in .md")
    stem = _NAME_UNSAFE.sub("-", _compact(name[:-3]).casefold()).strip("-.")
    stem = _truncate(stem, MAX_NAME_CHARS).strip("-.")
    if not stem:
        raise _Rejected("invalid-path", "page name is empty after normalization")
    return f"wiki/{folder}/{stem}.md", folder


def _scalar_text(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float, _dt.date)):
        raise _Rejected(f"invalid-{field}", f"{field} must be text")
    return str(value)


def _parse_turns(value: Any, errors: list[tuple[str, str]]) -> tuple[int, ...]:
    """``turns: [3, 5]`` (or one number): the cited transcript turns; anything else is reported."""
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    turns: dict[int, None] = {}
    for item in items:
        if isinstance(item, str) and item.strip().lstrip("[").rstrip("]").strip().isdigit():
            item = int(item.strip().lstrip("[").rstrip("]"))
        if isinstance(item, bool) or not isinstance(item, int) or item < 0:
            errors.append(("invalid-turns", f"turns must be a list of the [numbers] of conversation lines, "
                                            f"got {_shown(value)}"))
            return ()
        turns.setdefault(item, None)
    if len(turns) > MAX_TURNS:
        errors.append(("invalid-turns", f"at most {MAX_TURNS} turns may be cited, got {len(turns)}"))
        return ()
    return tuple(turns)


def _parse_action(value: Any, updates: Any, errors: list[tuple[str, str]]) -> tuple[str, str | None]:
    """``action`` (add, update or noop) and the existing page title it names in ``updates``."""
    action = "add"
    if value is not None:
        word = normalize_text(value) if isinstance(value, str) else ""
        word = _ACTION_ALIASES.get(word, word)
        if word in ACTIONS:
            action = word
        else:
            errors.append(("invalid-action", f"action must be one of {', '.join(ACTIONS)}, got {_shown(value)}"))
    target: str | None = None
    if updates is not None:
        if isinstance(updates, str) and _compact(updates):
            target = _truncate(_compact(updates), MAX_TITLE_CHARS)
        else:
            errors.append(("invalid-updates", f"updates must be the title of an existing page, got {_shown(updates)}"))
    if action in ("update", "noop") and target is None:
        errors.append(("missing-updates", f"action {action} needs updates: <title of the existing page>"))
    return action, target


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[Any] = value.split(",")
    elif isinstance(value, list):
        items = value
    else:
        raise _Rejected("invalid-tags", "tags must be a list or a comma-separated string")
    tags: dict[str, str] = {}
    for item in items:
        text = _scalar_text(item, "tags")
        tag = _truncate(_compact(text or "").lstrip("#").strip(), MAX_TAG_CHARS)
        if tag:
            tags.setdefault(tag.casefold(), tag)
    return tuple(tags.values())[:MAX_TAGS]


def _parse_confidence(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None


def _parse_label(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    label = re.sub(r"[\s\-]+", "_", normalize_text(value))
    return _truncate(label, MAX_LABEL_CHARS) or None


def _parse_sensitivity(value: Any) -> str:
    if isinstance(value, str):
        level = normalize_text(value).replace("-", "_").replace(" ", "_")
        if level in SENSITIVITY_LEVELS:
            return level
    return "normal"


_SLOT = re.compile(r"^[^/\n]{1,80}/[^\n]{1,120}$")
MAX_ENTITIES = 12


def _parse_slot(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    slot = _compact(value)
    return slot if _SLOT.match(slot) else None


def _parse_entities(value: Any) -> tuple[Entity, ...]:
    """``[{name, kind, aliases}]`` (or plain names); anything malformed is skipped, not fatal."""
    if not isinstance(value, list):
        return ()
    found: dict[str, Entity] = {}
    for item in value[: MAX_ENTITIES * 2]:
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        name = _truncate(_compact(item["name"]), MAX_NAME_CHARS)
        if not name or name.casefold() in found:
            continue
        kind = item.get("kind")
        kind = kind if isinstance(kind, str) and kind in ENTITY_KINDS else "other"
        raw = item.get("aliases")
        aliases = tuple(dict.fromkeys(
            _truncate(_compact(a), MAX_NAME_CHARS) for a in (raw if isinstance(raw, list) else [])
            if isinstance(a, str) and _compact(a) and _compact(a) != name))[:MAX_TAGS]
        found[name.casefold()] = Entity(name, kind, aliases)
    return tuple(found.values())[:MAX_ENTITIES]


def _strip_authority(text: str) -> str:
    """Remove lines that carry model-written lifecycle fields or confirmation claims."""
    kept = [
        line
        for line in text.splitlines()
        if not _AUTHORITY_LINE.match(line) and not _CONFIRMATION_CLAIM.search(line)
    ]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


@lru_cache(maxsize=4096)
def _parse_block(raw_path: str, content: str) -> ProposedPage:
    """One FILE block as a page, or :class:`_Rejected` (raised, not kept). Kept per exact block:
    the page is immutable, and a provider proposes the same block again whenever a statement
    is repeated (the heuristic writes no session-specific field into it)."""
    return _parse_block_text(raw_path, content)


def _parse_block_text(raw_path: str, content: str) -> ProposedPage:
    path, folder = _normalize_path(raw_path)
    text = content.strip()
    if not text:
        raise _Rejected("empty-block", "block has no content")
    if not text.startswith("---"):
        raise _Rejected("missing-frontmatter", "block must start with a --- frontmatter section")
    try:
        fm, body = _YAML.split(text)
    except ValueError:
        raise _Rejected("invalid-frontmatter", "frontmatter is not closed by ---") from None
    try:
        meta = _YAML.load(fm)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 1}" if mark is not None else ""
        raise _Rejected("invalid-frontmatter", f"YAML does not parse{where}") from None
    if not isinstance(meta, dict):
        raise _Rejected("invalid-frontmatter", "frontmatter must be a mapping")
    return _bounded_page(path, folder, meta, body)


def _bounded_page(path: str, folder: str, meta: Mapping[str, object], body: str) -> ProposedPage:
    """The page ``meta`` and ``body`` describe, bounded and stripped of authority, or
    :class:`_Rejected`: the one place a proposal's fields are checked, for FILE text and for a
    provider that hands its fields over directly (:func:`accept_drafts`)."""
    page_type = _scalar_text(meta.get("type"), "type")
    if page_type is None:
        raise _Rejected("missing-type", "frontmatter has no type")
    expected = FOLDER_TYPES[folder]
    if normalize_text(page_type) != expected:
        raise _Rejected("type-mismatch", f"type {page_type!r} does not match folder {folder!r} ({expected})")

    title_raw = _scalar_text(meta.get("title"), "title") or ""
    title = _compact(title_raw)
    if title.startswith("[[") and title.endswith("]]"):
        title = _compact(title[2:-2])
    title = _truncate(title, MAX_TITLE_CHARS)
    if not title:
        raise _Rejected("missing-title", "frontmatter has no title")
    if _CONFIRMATION_CLAIM.search(title):
        raise _Rejected("authority-claim", "title claims a user confirmation")

    description = _compact(_scalar_text(meta.get("description"), "description") or "")
    if _CONFIRMATION_CLAIM.search(description):
        description = ""
    description = _truncate(description, MAX_DESCRIPTION_CHARS)
    body = _truncate(_strip_authority(body), MAX_BODY_CHARS)
    errors: list[tuple[str, str]] = []
    slot, entities = _parse_slot(meta.get("slot")), _parse_entities(meta.get("entities"))
    if meta.get("slot") is not None and slot is None:
        errors.append(("invalid-slot", f"slot must be subject/attribute text such as Lena/lives_in, "
                                       f"got {_shown(meta.get('slot'))}"))
    if meta.get("entities") not in (None, []) and not entities:
        errors.append(("invalid-entities", f"entities must be a list of names (or of {{name, kind, aliases}}), "
                                           f"got {_shown(meta.get('entities'))}"))
    turns = _parse_turns(meta.get("turns"), errors)
    action, updates = _parse_action(meta.get("action"), meta.get("updates"), errors)

    return ProposedPage(
        path=path,
        folder=folder,
        type=expected,
        title=title,
        description=description,
        body=body,
        tags=_parse_tags(meta.get("tags")),
        confidence=_parse_confidence(meta.get("confidence")),
        kind=_parse_label(meta.get("kind")),
        category=_parse_label(meta.get("category")),
        sensitivity=_parse_sensitivity(meta.get("sensitivity")),
        links=extract_wikilinks(body),
        slot=slot,
        entities=entities,
        quote=_truncate(_compact(quote), MAX_BODY_CHARS) if isinstance(quote := meta.get("quote"), str) else "",
        turns=turns,
        action=action,
        updates=updates,
        field_errors=tuple(errors),
    )


def _blocks(text: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Split ``text`` into ``(header, content)`` blocks plus structural rejections."""
    blocks: list[tuple[str, str]] = []
    rejected: list[tuple[str, str]] = []
    open_header: str | None = None
    open_end = 0
    for match in _MARKER.finditer(text):
        if match.group(0) == "<<<END>>>":
            if open_header is not None:
                blocks.append((open_header, text[open_end : match.start()]))
                open_header = None
            continue
        if open_header is not None:
            rejected.append(("unterminated-block", _detail(open_header, "a FILE block opened before <<<END>>>")))
        open_header, open_end = match.group(1), match.end()
    if open_header is not None:
        rejected.append(("unterminated-block", _detail(open_header, "no <<<END>>> before the end of the answer")))
    return blocks, rejected


def _detail(header_or_path: str, message: str) -> str:
    shown = _compact(header_or_path)[:200]
    return sanitize_error(f"{shown}: {message}" if shown else message)


@dataclass(frozen=True)
class Draft:
    """A page as a provider states it before riko bounds it: the FILE block's path, its
    frontmatter as a mapping (the values YAML would load) and its body."""

    path: str
    meta: Mapping[str, Any]
    body: str


def accept_drafts(drafts: Iterable[Draft], *, max_pages: int = 12, allow_empty: bool = False) -> ParseResult:
    """The :class:`ParseResult` of pages a provider hands over as fields instead of FILE text:
    every draft is checked exactly as a parsed block is (same bounds, same rejections), so
    ``accept_drafts(d)`` equals ``parse_file_blocks`` of the same pages rendered as text."""
    if max_pages < 1:
        raise InvalidArgumentError("max_pages must be at least 1")
    items: list[tuple[str, ProposedPage | _Rejected]] = []
    for draft in drafts:
        try:
            path, folder = _normalize_path(draft.path)
            items.append((draft.path, _bounded_page(path, folder, draft.meta, draft.body.strip())))
        except _Rejected as rej:
            items.append((draft.path, rej))
    if allow_empty and not items:
        return ParseResult(pages=(), rejected=())
    return _accepted(items, [], max_pages)


def _accepted(items: Iterable[tuple[str, ProposedPage | _Rejected]], rejected: list[tuple[str, str]], max_pages: int) -> ParseResult:
    """Accept ``(shown, page or _Rejected)`` in order: repeats of a path or fingerprint and pages
    past ``max_pages`` are rejected; raise when nothing is accepted."""
    pages: list[ProposedPage] = []
    paths: set[str] = set()
    prints: set[str] = set()
    for shown, page in items:
        try:
            if isinstance(page, _Rejected):
                raise page
            if page.path in paths:
                raise _Rejected("duplicate-path", "an earlier block used the same path")
            if page.fingerprint() in prints:
                raise _Rejected("duplicate-page", "an earlier block proposed the same type and title")
            if len(pages) >= max_pages:
                raise _Rejected("too-many-pages", f"only {max_pages} pages are accepted from one answer")
        except _Rejected as rej:
            rejected.append((rej.reason, _detail(shown, rej.detail)))
            continue
        pages.append(page)
        paths.add(page.path)
        prints.add(page.fingerprint())
    if not pages:
        reasons = sorted({reason for reason, _ in rejected})
        summary = f"{len(rejected)} block(s) rejected: {', '.join(reasons)}" if rejected else "no FILE block found"
        raise ProviderError("invalid-file-protocol", sanitize_error(f"no valid FILE block in the answer ({summary})"))
    field_errors = tuple((reason, _detail(page.path, detail)) for page in pages for reason, detail in page.field_errors)
    return ParseResult(pages=tuple(pages), rejected=tuple(rejected), field_errors=field_errors)


def parse_file_blocks(text: str, *, max_pages: int = 12, allow_empty: bool = False) -> ParseResult:
    """Parse a provider answer into bounded candidate pages.

    Each block is accepted whole or listed in ``rejected`` with a reason. At most
    ``max_pages`` pages are accepted; repeats of a path or fingerprint are rejected.
    Raises ``ProviderError("invalid-file-protocol")`` when no block is accepted, except that
    a blank answer is an empty result when ``allow_empty`` is set (the heuristic provider's
    way of saying "nothing recognised").

    >>> r = parse_file_blocks('<<<FILE path="wiki/concepts/tea.md">>>\\n---\\ntype: concept\\n'
    ...                       'title: Likes tea\\n---\\nSaid so.\\n<<<END>>>')
    >>> r.pages[0].title, r.pages[0].status
    ('Likes tea', 'candidate')
    """
    if max_pages < 1:
        raise InvalidArgumentError("max_pages must be at least 1")
    if allow_empty and not (text or "").strip():
        return ParseResult(pages=(), rejected=())
    blocks, rejected = _blocks(text or "")
    return _accepted((_block_page(header, content) for header, content in blocks), rejected, max_pages)


def _block_page(header: str, content: str) -> tuple[str, ProposedPage | _Rejected]:
    """``(shown, page or _Rejected)`` of one FILE block."""
    head = _HEADER.match(header)
    if head is None:
        return header, _Rejected("malformed-header", 'block header must be <<<FILE path="...">>>')
    if len(content) > MAX_BLOCK_CHARS:
        return head.group(1), _Rejected("oversized-block", f"block has {len(content)} characters (limit {MAX_BLOCK_CHARS})")
    try:
        return head.group(1), _parse_block(head.group(1), content)
    except _Rejected as rej:
        return head.group(1), rej
