"""The index layer: a bounded one-line map of current canonical pages, rendered beside the Resident.

Recall reaches the model only when a turn is judged worth a search and something passes the
gates; the Resident holds a few pages. The index layer is the channel that depends on
neither: one line per current page (id prefix and the first line of its title), so the model
opens each turn knowing which memories exist and can ask for one. It is a map, not an
answer: it claims no relevance and carries no body.

    <memory-index>
    Memories that exist (a map, not answers; ask memory_recall for the text):
    - p-bb6b6959 Green tea is the user's favourite drink
    (1 shown; 1 total, the rest by asking.)
    </memory-index>

Rules: current pages only (the Resident's eligibility, protected pages included); a protected
page shows only a protected title (never its text) or is left out; ordered by last touched
(the later of written and last injected by recall); a page never injected and unwritten for
``index_layer_stale_days`` leaves the map but stays recallable (a visibility rule, audited
once per page state as ``index-layer-stale-hidden``); whole lines within
``index_layer_max_chars`` and ``index_layer_max_entries``; every ``<`` in stored text is
rendered as ``‹``, as in the Resident.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..clock import iso, utc
from .compile import live_pages
from ..stores.activation import last_injected
from ..stores.audits import audited_targets, last_audit_id
from ..stores.visibility import contested_page_ids, suppressed_ids
from ..stores.warehouse import dumps

if TYPE_CHECKING:  # pragma: no cover
    from ..context import ScopeContext

__all__ = ["INDEX_OPEN", "INDEX_CLOSE", "INDEX_NOTICE", "ID_PREFIX_CHARS", "STALE_AUDIT", "IndexEntry",
           "ResidentIndex", "compile_index", "current_index", "is_protected_title", "footer"]

INDEX_OPEN = "<memory-index>"
INDEX_CLOSE = "</memory-index>"
INDEX_NOTICE = "Memories that exist (a map, not answers; ask memory_recall for the text):"
#: Characters of a page id an entry shows (``p-`` and 8 hex digits): the tools accept it back.
ID_PREFIX_CHARS = 10
STALE_AUDIT = "index-layer-stale-hidden"
_PROTECTED = frozenset({"sensitive", "provisional_sensitive"})
# The title riko writes for a protected claim (riko.sensitivity.rules.protected_title): it restates nothing.
_PROTECTED_TITLE_RE = re.compile(r"^Protected [a-z_ -]+ memory \([^()\n]*\)$")
_TAG_OPEN = "\u2039"


def is_protected_title(title: str) -> bool:
    """Is ``title`` a protected title (cue category and source only, no text of the claim)?"""
    return bool(_PROTECTED_TITLE_RE.match(title.strip()))


def footer(shown: int, total: int) -> str:
    """The line that says the map may be incomplete: how many are shown of how many."""
    return f"({shown} shown; {total} total, the rest by asking.)"


@dataclass(frozen=True)
class IndexEntry:
    """One line of the map: the page, the rendered line and when the page was last touched."""

    page_id: str
    line: str
    touched_at: datetime | None


@dataclass(frozen=True)
class ResidentIndex:
    """The rendered index layer (``text`` is "" when it is off or no page is current)."""

    text: str
    entries: tuple[IndexEntry, ...]
    total: int
    stale_page_ids: tuple[str, ...]
    withheld_page_ids: tuple[str, ...]
    enabled: bool
    max_chars: int

    @property
    def shown(self) -> int:
        return len(self.entries)

    @property
    def page_ids(self) -> tuple[str, ...]:
        return tuple(entry.page_id for entry in self.entries)

    def __repr__(self) -> str:
        state = "" if self.enabled else ", off"
        return f"ResidentIndex(shown={self.shown}, total={self.total}, chars={len(self.text)}/{self.max_chars}{state})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (times as ISO-8601 UTC)."""
        return {
            "text": self.text, "enabled": self.enabled, "shown": self.shown, "total": self.total,
            "max_chars": self.max_chars,
            "entries": [{"page_id": e.page_id, "line": e.line,
                         "touched_at": iso(e.touched_at) if e.touched_at else None} for e in self.entries],
            "stale_page_ids": list(self.stale_page_ids), "withheld_page_ids": list(self.withheld_page_ids),
        }


def _first_line(text: str, limit: int) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    line = " ".join(line.split()).replace("<", _TAG_OPEN)
    return line if len(line) <= limit else line[: max(1, limit - 1)].rstrip() + "…"


def compile_index(
    pages: Iterable[Any],
    *,
    now: datetime,
    written: Mapping[str, datetime],
    injected: Mapping[str, datetime],
    suppressed: Iterable[str] = frozenset(),
    contested: Iterable[str] = frozenset(),
    enabled: bool = True,
    max_chars: int = 1600,
    max_entries: int = 40,
    line_chars: int = 72,
    stale_days: int = 90,
    temporal_enabled: bool = True,
) -> ResidentIndex:
    """The index layer of ``pages`` at ``now`` (a pure function of its arguments).

    ``written`` / ``injected`` give each page's last write and last recall injection; the
    later of the two orders the map (newest first, ties by id).
    """
    if not enabled:
        return ResidentIndex("", (), 0, (), (), False, max_chars)
    current = live_pages(pages, now, suppressed=suppressed, contested=contested, temporal_enabled=temporal_enabled,
                         sensitive_resident_enabled=True)
    moment = utc(now)
    cutoff = moment - timedelta(days=stale_days) if stale_days > 0 else None
    floor = datetime.min.replace(tzinfo=moment.tzinfo)
    candidates: list[tuple[datetime, str, Any]] = []
    stale: list[str] = []
    withheld: list[str] = []
    for page in current:
        wrote, read = written.get(page.id), injected.get(page.id)
        touched = max((t for t in (wrote, read) if t is not None), default=None)
        if cutoff is not None and read is None and (wrote is None or wrote < cutoff):
            stale.append(page.id)
            continue
        if page.sensitivity in _PROTECTED and not is_protected_title(page.title):
            withheld.append(page.id)  # its title may restate the claim: not shown at all
            continue
        candidates.append((touched or floor, page.id, page))
    candidates.sort(key=lambda item: (-(item[0] - floor).total_seconds(), item[1]))
    total = len(current)
    entries: list[IndexEntry] = []
    size = len(INDEX_OPEN) + 1 + len(INDEX_NOTICE) + 1 + len(INDEX_CLOSE)  # frame, newline-joined
    for touched, page_id, page in candidates[:max_entries]:
        line = f"- {page_id[:ID_PREFIX_CHARS]} {_first_line(page.title, line_chars)}"
        if size + len(line) + 1 + len(footer(len(entries) + 1, total)) + 1 > max_chars:
            break  # whole lines only: a cut line would read as a truncated fact
        size += len(line) + 1
        entries.append(IndexEntry(page_id, line, None if touched is floor else touched))
    if not total:
        return ResidentIndex("", (), 0, tuple(stale), tuple(withheld), True, max_chars)
    lines = [INDEX_OPEN, INDEX_NOTICE, *(e.line for e in entries), footer(len(entries), total), INDEX_CLOSE]
    return ResidentIndex("\n".join(lines), tuple(entries), total, tuple(stale), tuple(withheld), True, max_chars)


# Per Resident store: the audit revision the pages were read at, the pages, their write times,
# and the stale page states already audited.
_MEMO: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()


def current_index(ctx: "ScopeContext") -> ResidentIndex:
    """The index layer of the scope now; audits each newly stale page once (a writable memory)."""

    cfg = ctx.config
    if not cfg.index_layer_enabled:
        return ResidentIndex("", (), 0, (), (), False, cfg.index_layer_max_chars)
    memo = _MEMO.setdefault(ctx.resident, {})
    revision = last_audit_id(ctx.wh)
    if memo.get("revision") != revision:
        frame = ctx.canon.frame()
        written = {pid: utc(t) for pid, t in zip(frame["id"].to_list(), frame["updated_at"].to_list()) if t is not None}
        memo.update(revision=revision, pages=ctx.canon.pages(), written=written, suppressed=suppressed_ids(ctx.wh),
                    contested=contested_page_ids(ctx.wh))
    index = compile_index(
        memo["pages"], now=ctx.clock.now(), written=memo["written"], injected=last_injected(ctx.wh),
        suppressed=memo["suppressed"], contested=memo["contested"], max_chars=cfg.index_layer_max_chars,
        max_entries=cfg.index_layer_max_entries, line_chars=cfg.index_layer_line_chars,
        stale_days=cfg.index_layer_stale_days, temporal_enabled=cfg.temporal_enabled,
    )
    if index.stale_page_ids and not ctx.read_only:
        _audit_stale(ctx, index.stale_page_ids, memo)
    return index


def _audit_stale(ctx: "ScopeContext", page_ids: tuple[str, ...], memo: dict[str, Any]) -> None:
    """One ``index-layer-stale-hidden`` audit per page and write time (a rule, not an event)."""

    written = memo["written"]
    states = {pid: dumps({"written": iso(written[pid]) if pid in written else None,
                          "stale_days": ctx.config.index_layer_stale_days}) for pid in page_ids}
    seen = memo.get("audited")
    if seen is None:
        seen = memo["audited"] = audited_targets(ctx.wh, STALE_AUDIT)
    fresh = [(pid, state) for pid, state in states.items() if (pid, state) not in seen]
    if not fresh:
        return
    try:
        with ctx.wh.transaction():
            for pid, _ in fresh:
                ctx.wh.audit(STALE_AUDIT, "deterministic_rule", pid,
                             {"written": iso(written[pid]) if pid in written else None,
                              "stale_days": ctx.config.index_layer_stale_days})
    except Exception:
        return  # the map is still right; the audit is retried on the next render
    seen.update(fresh)
