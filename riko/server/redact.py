"""The seed's redacted projection: what a protected record looks like to a non-reveal reader.

A page, candidate, observation or memory whose sensitivity is anything but ``normal``
(``provisional_sensitive``, ``sensitive``, missing or unknown) keeps only its identity and
shape: id, type, status, consent, timestamps, sensitivity, version, counts, ``redacted: true``.
Session evidence lines are shown only when classified ``normal``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Mapping

from ..errors import InvalidArgumentError
from ..rows import decode_row
from ..wiki import FIELD_ORDER, Page

__all__ = [
    "is_protected",
    "target_hash",
    "page_json",
    "page_view",
    "page_list_item",
    "page_row_item",
    "candidate_view",
    "observation_view",
    "session_detail",
    "audit_view",
]


def is_protected(sensitivity: object) -> bool:
    """Everything but an explicit ``normal`` is protected (fail closed)."""
    return sensitivity != "normal"


def target_hash(scope_key: str, kind: str, ident: str) -> str:
    """A stable, non-reversible audit target for a revealed record."""
    return hashlib.sha256(f"{scope_key}\0{kind}\0{ident}".encode("utf-8")).hexdigest()[:24]


def _shape(text: str) -> dict[str, int]:
    return {"body_line_count": len(text.splitlines()), "body_byte_count": len(text.encode("utf-8"))}


def page_json(page: Page) -> dict[str, Any]:
    """Every frontmatter field, the body, the extra keys and the parsed ``[[links]]``."""
    out: dict[str, Any] = {name: getattr(page, name) for name in FIELD_ORDER}
    out["body"] = page.body
    out["extra"] = dict(page.extra)
    out["links"] = [{"target": link.target, "rel": link.rel, "line": link.line, "alias": link.alias}
                    for link in page.links()]
    out["redacted"] = False
    return out


def _page_redacted(page: Page) -> dict[str, Any]:
    return {
        "id": page.id, "type": page.type, "status": page.status, "consent": page.consent,
        "observed_at": page.observed_at, "recorded_at": page.recorded_at,
        "valid_from": page.valid_from, "valid_to": page.valid_to,
        "sensitivity": page.sensitivity, "version": page.version,
        "source_count": len(page.sources), "tag_count": len(page.tags),
        **_shape(page.body), "redacted": True,
    }


def page_view(page: Page, reveal: bool = False) -> dict[str, Any]:
    """The full page, or its redacted projection when protected and not revealed."""
    if is_protected(page.sensitivity) and not reveal:
        return _page_redacted(page)
    return page_json(page)


def page_list_item(page: Page, contested: bool = False) -> dict[str, Any]:
    """A Wiki-tree entry: title and gist for readable pages, the projection for protected ones."""
    if is_protected(page.sensitivity):
        item = _page_redacted(page)
    else:
        item = {
            "id": page.id, "type": page.type, "title": page.title, "description": page.summary()[:240],
            "status": page.status, "consent": page.consent, "locked": page.locked,
            "sensitivity": page.sensitivity, "version": page.version, "usage_policy": page.usage_policy,
            "recorded_at": page.recorded_at, "valid_from": page.valid_from, "valid_to": page.valid_to,
            "superseded_by": page.superseded_by, "source_count": len(page.sources),
            "tag_count": len(page.tags), "tags": list(page.tags), "redacted": False,
        }
    item["contested"] = contested
    return item


def page_row_item(row: Mapping[str, Any], contested: bool = False) -> dict[str, Any]:
    """A Wiki-tree entry from a readable row of ``mem.pages()`` (use :func:`page_list_item`
    with the page itself for a protected one, so it gets the full projection)."""
    if is_protected(row.get("sensitivity")):
        raise InvalidArgumentError(f"page {row.get('id')} is protected: project it with page_list_item(mem.page(id))")
    keep = ("id", "type", "title", "status", "sensitivity", "version", "usage_policy", "valid_from", "valid_to",
            "supersedes", "superseded_by")
    item = {k: row.get(k) for k in keep}
    item["description"] = " ".join(str(row.get("description") or "").split())[:240]
    item.update(redacted=False, contested=contested)
    return item


def _json_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        try:
            parsed = json.loads(value or "[]")
        except ValueError:
            return [value]
        return parsed if isinstance(parsed, list) else [parsed]
    return list(value)


def candidate_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """A candidate row with its JSON lists decoded, or the projection when protected."""
    tags, evidence = _json_list(row.get("tags")), _json_list(row.get("evidence"))
    sessions = _json_list(row.get("source_sessions"))
    if is_protected(row.get("sensitivity")):
        text = "\n".join(t for t in (row.get("description"), row.get("body")) if t)
        return {
            "id": row["id"], "type": row.get("type"), "status": row.get("status"),
            "sensitivity": row.get("sensitivity"), "created_at": row.get("created_at"),
            "updated_at": row.get("updated_at"), "source_count": len(evidence) + len(sessions),
            "tag_count": len(tags), **_shape(text), "redacted": True,
        }
    return {**dict(row), "tags": tags, "evidence": evidence, "source_sessions": sessions, "redacted": False}


_OBSERVATION_TEXT = ("text", "anchors", "contradictions", "session_ids")


def observation_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """An observation row, or its projection (no text, no anchors) when protected."""
    if is_protected(row.get("sensitivity")):
        kept = {k: v for k, v in row.items() if k not in _OBSERVATION_TEXT}
        return {**kept, "anchor_count": len(_json_list(row.get("anchors"))),
                **_shape(str(row.get("text") or "")), "redacted": True}
    return {**decode_row(row), "redacted": False}


_AUDIT_TEXT = frozenset({"title", "description", "body", "text", "content", "claim", "reason", "query"})


def audit_view(row: Mapping[str, Any], detail: Any, protected_targets: set[str]) -> dict[str, Any]:
    """An audit row; about a protected record, its text-bearing detail keys are withheld."""
    if row.get("target") in protected_targets and isinstance(detail, dict):
        kept = {k: v for k, v in detail.items() if k not in _AUDIT_TEXT}
        if len(kept) != len(detail):
            detail = {**kept, "redacted": True}
    return {**dict(row), "detail": detail}


def session_detail(session: Mapping[str, Any], lines: Iterable[Mapping[str, Any]], *, reveal: bool,
                   offset: int = 0, limit: int = 500) -> dict[str, Any]:
    """L0 metadata (line count, SHA-256, bytes, classification counts) and a window of lines.

    A line's text is shown only when it is classified ``normal``, unless the caller revealed.
    """
    rows = list(lines)
    counts = {"normal": 0, "provisional_sensitive": 0, "sensitive": 0, "unclassified": 0}
    digest = hashlib.sha256()
    total_bytes = 0
    for row in rows:
        level = row.get("sensitivity") or "unclassified"
        counts[level if level in counts else "sensitive"] += 1
        digest.update(str(row.get("content_hash") or "").encode("ascii") + b"\n")
        total_bytes += len((row.get("text") or "").encode("utf-8"))
    window = []
    for row in rows[offset:offset + limit]:
        text = row.get("text") or ""
        level = row.get("sensitivity") or "unclassified"
        shown = reveal or level == "normal" or not text
        window.append({
            "seq": row.get("seq"), "time": row.get("time"), "type": row.get("type"), "role": row.get("role"),
            "is_user": row.get("is_user"), "sensitivity": level, "truncated": row.get("truncated"),
            "byte_count": len(text.encode("utf-8")), "text": text if shown else None, "hidden": not shown,
        })
    return {
        "session": dict(session), "line_count": len(rows), "sha256": digest.hexdigest(),
        "byte_count": total_bytes, "classification_counts": counts, "revealed": reveal,
        "offset": offset, "limit": limit, "lines": window,
    }
