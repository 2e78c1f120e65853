"""Rows for people and programs: JSON-encoded columns decoded, and short aligned text tables.

The warehouse keeps list fields (``tags``, ``evidence``, ``anchors`` …) as JSON text; every
surface that shows rows (``--json``, HTTP) decodes them here so clients get real arrays.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, Iterable, Mapping, Sequence

__all__ = ["JSON_COLUMNS", "decode_row", "decode_rows", "text_table", "display_width", "clip"]

#: Columns stored as JSON text (arrays or objects) in the warehouse.
JSON_COLUMNS = frozenset({
    "tags", "sources", "source_sessions", "evidence", "links", "source_candidates", "sensitivity_history",
    "anchors", "contradictions", "session_ids", "source_refs", "allowed_effects", "topic_tags", "detail",
    "impact", "result", "dream_settings", "resident_blocks", "source_page_ids", "omitted_page_ids",
    "diagnostics", "extra",
})


def decode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with each JSON-text column holding an array or object turned into that value."""
    out = dict(row)
    for key, value in row.items():
        if key in JSON_COLUMNS and isinstance(value, str) and value[:1] in ("[", "{"):
            try:
                decoded = json.loads(value)
            except ValueError:
                continue  # not JSON after all: keep the text as it is
            if isinstance(decoded, (list, dict)):
                out[key] = decoded
    return out


def decode_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [decode_row(row) for row in rows]


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes (wide CJK characters count two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal columns, ending in an ellipsis when cut."""
    if display_width(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    text = value.isoformat(sep=" ", timespec="seconds") if hasattr(value, "isoformat") and hasattr(value, "hour") \
        else str(value)
    return " ".join(text.split())


def text_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], *, width: int,
               whole: Sequence[str] = ()) -> str:
    """An aligned plain-text table of ``columns``; ``whole`` columns (ids) are never cut.

    The other columns share what is left of ``width``, the widest giving way first, so a line
    never wraps in a terminal of that width.
    """
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    natural = [max([display_width(c)] + [display_width(r[i]) for r in cells]) for i, c in enumerate(columns)]
    sizes = list(natural)
    budget = width - 2 * (len(columns) - 1)
    while sum(sizes) > budget:
        cuttable = [i for i, c in enumerate(columns) if c not in whole and sizes[i] > max(8, display_width(c))]
        if not cuttable:
            break
        widest = max(cuttable, key=lambda i: sizes[i])
        # cut the widest down to the next widest at most, so the cut columns share what is left
        # instead of the first one alone giving way to its floor
        others = [sizes[i] for i in cuttable if i != widest]
        step = min(sum(sizes) - budget, max(1, sizes[widest] - max(others, default=0)))
        sizes[widest] = max(max(8, display_width(columns[widest])), sizes[widest] - step)

    def line(values: Sequence[str]) -> str:
        parts = []
        for i, value in enumerate(values):
            shown = clip(value, sizes[i])
            parts.append(shown if i == len(values) - 1 else shown + " " * (sizes[i] - display_width(shown)))
        return "  ".join(parts).rstrip()

    out = [line(list(columns)), line(["-" * s for s in sizes])]
    out += [line(r) for r in cells]
    return "\n".join(out)
