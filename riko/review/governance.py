"""Card governance for a new memory: what it supersedes, when it expires, what it resembles.

A new memory may name the one it replaces (``supersedes``: an id, an id prefix or a
distinctive fragment of an existing page) and a date it stops being true (``expires``).
When it closely resembles an existing current page and names nothing, the writer is told of
the near-matches (``overlaps``) and offered the replacement; riko never supersedes by
itself, because two memories that merely resemble each other are not a correction and an
automatic supersede would retire a true memory.

Governed lines: a forget or a suppression also holds the L0 lines that stated or corrected
the memory, and a line that asked for a correction, a forget, a suppression or a restore is
held for good (a request to govern memory is never a memory itself). Held lines, and any
user line whose words repeat a held line or the claim of a forgotten or suppressed page, are
out of every Dream pass and every automatic admission (:func:`held_lines`); the raw lines
stay in L0. A restore lifts what its suppression held, never the request lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from functools import lru_cache
from typing import Any

from .authority import normalize_claim
from ..contracts import evidence_ref, parse_ref
from ..errors import InvalidArgumentError, NotFoundError, WikiFormatError
from ..language.text import tokenize
from ..wiki.page import parse_page

__all__ = ["OVERLAP_MIN", "MAX_OVERLAPS", "HOLDS", "HeldLines", "current_pages", "resolve_page", "parse_expires",
           "overlaps", "overlap_score", "held_lines", "govern_lines", "lineage_refs", "reapply_suppressed"]

#: Share of the smaller token set two texts must share to be reported as a near-match.
OVERLAP_MIN = 0.6
MAX_OVERLAPS = 3
_ID_RE = re.compile(r"^p-[0-9a-f]{1,16}$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# Tokens too common in memory text to make two claims alike.
_COMMON = frozenset("user users my i me the a an is are was to of and in on for with at it this that".split())


def current_pages(pages: Iterable[Any]) -> list[Any]:
    """Confirmed pages nothing superseded and no validity end closed (what a new memory may replace)."""
    return [p for p in pages if p.status == "confirmed" and not p.superseded_by and p.type != "source"]


def _text(page: Any) -> str:
    return "\n".join(filter(None, (page.title, page.description or "", page.body or "")))


def resolve_page(pages: Sequence[Any], ref: str) -> Any:
    """The one current page ``ref`` names: its id, a unique id prefix, or a fragment of its text
    that no other current page holds. Raises NotFoundError or InvalidArgumentError (ambiguous)."""
    wanted = ref.strip()
    if not wanted:
        raise InvalidArgumentError("supersedes must name a page: an id, an id prefix or a fragment of its text")
    live = current_pages(pages)
    exact = [p for p in live if p.id == wanted]
    if exact:
        return exact[0]
    if _ID_RE.match(wanted):
        matches = [p for p in live if p.id.startswith(wanted)]
    else:
        needle = normalize_claim(wanted)
        matches = [p for p in live if needle and needle in normalize_claim(_text(p))]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFoundError("current page", wanted, "name it by id, id prefix or a fragment of its text "
                                                   "(riko pages lists them)")
    listed = ", ".join(f"{p.id} ({p.title[:40]})" for p in matches[:5])
    raise InvalidArgumentError(f"supersedes {wanted!r} matches {len(matches)} current pages ({listed}); "
                               "give a longer fragment or the id")


def parse_expires(value: str | date | datetime, now: datetime) -> datetime:
    """The end of validity for ``expires``: a YYYY-MM-DD date stays true through that day (the
    interval ends at the next midnight UTC); an ISO date-time ends exactly there. It must lie
    after ``now``."""
    if isinstance(value, datetime):
        end = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    elif isinstance(value, date):
        end = datetime.combine(value + timedelta(days=1), time(), tzinfo=timezone.utc)
    else:
        text = str(value).strip()
        try:
            if _DATE_RE.match(text):
                end = datetime.combine(date.fromisoformat(text) + timedelta(days=1), time(), tzinfo=timezone.utc)
            else:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
                end = parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
        except ValueError:
            raise InvalidArgumentError(f"expires must be a date such as 2026-05-31, got {text!r}") from None
    if end <= now:
        raise InvalidArgumentError(f"expires {value!s} is not in the future (now {now.date().isoformat()}); "
                                   "a memory that is already over needs no expiry")
    return end.astimezone(timezone.utc)


def _tokens(text: str) -> set[str]:
    return {t for t in tokenize(text) if t not in _COMMON}


def overlap_score(a: str, b: str) -> float:
    """Share of the smaller content-token set the two texts share (0 when either has fewer than 2)."""
    ta, tb = _tokens(a), _tokens(b)
    if len(ta) < 2 or len(tb) < 2:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


def overlaps(pages: Iterable[Any], text: str, *, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Current pages that closely resemble ``text`` (best first, at most MAX_OVERLAPS): each with
    its id, title and score, for the writer to decide whether the new memory replaces one."""
    skip = set(exclude)
    found = []
    for page in current_pages(pages):
        if page.id in skip:
            continue
        score = max(overlap_score(text, page.description or page.title), overlap_score(text, _text(page)))
        if score >= OVERLAP_MIN:
            found.append({"id": page.id, "title": page.title, "score": round(score, 3)})
    found.sort(key=lambda o: (-o["score"], o["id"]))
    return found[:MAX_OVERLAPS]


def governed_fields(ctx: Any, fields: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Split ``supersedes`` / ``expires`` out of page ``fields``: the page they resolve to (or
    None) and the fields with ``supersedes`` as that id and ``expires`` as ``valid_to``."""
    out = dict(fields)
    old = None
    ref = out.pop("supersedes", None)
    if ref is not None:
        if not isinstance(ref, str):
            raise InvalidArgumentError(f"supersedes must be a string (an id, id prefix or fragment), got {ref!r}")
        old = resolve_page(ctx.canon.pages(), ref)
        out["supersedes"] = old.id
    expires = out.pop("expires", None)
    if expires is not None:
        if out.get("valid_to") is not None:
            raise InvalidArgumentError("give expires or valid_to, not both")
        out["valid_to"] = parse_expires(expires, ctx.clock.now())
    return out, old


def retire_superseded(ctx: Any, old: Any, new_id: str, *, authority: str) -> None:
    """Retire ``old`` in favour of the page ``new_id`` (audited as ``page-superseded``)."""
    if old is not None and old.id != new_id:
        ctx.review.supersede(old.id, by=new_id, authority=authority)


# -- governed lines ----------------------------------------------------------------------------
#: How a governed L0 line is held (``evidence.governed``), strongest first: a line that asked for
#: a correction, forget, suppression or restore (for good); a line behind a forgotten page (for
#: good); a line behind a suppressed page (until the page is restored).
HOLDS = ("request", "forgotten", "suppressed")


@dataclass(frozen=True)
class HeldLines:
    """The user lines no Dream pass reads and no admission stands on: governed lines by address,
    and the normalized words of governed lines and of forgotten or suppressed claims."""

    refs: frozenset[str] = frozenset()
    texts: frozenset[str] = frozenset()

    def holds_text(self, text: str | None) -> bool:
        """True when ``text`` repeats a held line or a held claim (normalized, as a whole)."""
        return bool(text) and normalize_claim(text or "") in self.texts

    def holds_candidate(self, refs: Iterable[str], *texts: str | None) -> bool:
        """True when a candidate cites a held line or states held words."""
        return any(ref in self.refs for ref in refs) or any(self.holds_text(t) for t in texts)


@lru_cache(maxsize=4096)
def _stored_page(text: str) -> tuple[str, tuple[str, ...]]:
    """(description, sources) of one stored page version; empty when it cannot be read."""
    try:
        page = parse_page(text)
    except WikiFormatError:
        return "", ()
    return page.description or "", tuple(page.sources)


def held_lines(stores: Any) -> HeldLines:
    """What the scope holds out of Dream and automatic admission now (see the module doc);
    ``stores`` is the scope's :class:`~riko.stores.bundle.Stores`."""
    refs: set[str] = set()
    texts: set[str] = set()
    for sid, seq, text, _ in stores.evidence.governed_lines():
        refs.add(evidence_ref(sid, int(seq)))
        texts.add(normalize_claim(text))
    store = stores.pages
    held = store.held_pages()
    texts.update(normalize_claim(description) for _, description in held if description)
    for _, text in store.version_texts([pid for pid, _ in held]):
        texts.add(normalize_claim(_stored_page(text)[0]))
    texts.discard("")
    return HeldLines(frozenset(refs), frozenset(texts))


def lineage_refs(page: Any, versions: Iterable[str]) -> list[str]:
    """The L0 lines that ever stated ``page``: its sources and those of every earlier version
    (``versions``: their stored texts), corrected-away ones included."""
    refs = dict.fromkeys(page.sources)
    for text in versions:
        refs.update(dict.fromkeys(_stored_page(text)[1]))
    return [ref for ref in refs if parse_ref(ref)]


def govern_lines(evidence: Any, refs: Iterable[str], hold: str) -> None:
    """Hold the lines ``refs`` as ``hold`` (one of :data:`HOLDS`), over no mark or a weaker one,
    in ``evidence`` (the scope's :class:`~riko.stores.evidence.EvidenceStore`)."""
    if hold not in HOLDS:
        raise InvalidArgumentError(f"hold must be one of {', '.join(HOLDS)}; got {hold!r}")
    parsed = [p for p in map(parse_ref, dict.fromkeys(refs)) if p]
    evidence.govern(parsed, hold, HOLDS[HOLDS.index(hold) + 1:])


def reapply_suppressed(evidence: Any, pages: Iterable[Any], versions: Callable[[str], list[str]]) -> None:
    """After a restore: the ``suppressed`` marks again exactly on the lines of the pages still
    suppressed, in ``evidence`` (the scope's evidence store; ``versions``: a page's stored earlier
    texts; a line two suppressed pages stand on stays held until both are restored)."""
    evidence.release_governed("suppressed")
    refs = [ref for p in pages if p.status == "confirmed" and p.usage_policy == "suppressed"
            for ref in lineage_refs(p, versions(p.id))]
    govern_lines(evidence, refs, "suppressed")
