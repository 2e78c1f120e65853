"""The index layer in the companion corpus: what it costs per prompt and what it buys.

Cost is the characters the block adds to every prompt. What it buys is the share of the
scenarios with a relevant target in which the model is told such a memory exists: by the
index layer (an entry names a page holding the target), by the injected Resident and recall
block, and by either. Scenarios whose target no current page holds (evidence-only or
refused writes) count in the denominator: there the map cannot help, and saying so is the
point of measuring it beside recall.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from .outcomes import ScenarioOutcome

__all__ = ["INDEX_ARTIFACT", "index_layer_summary"]

INDEX_ARTIFACT = "index_layer"


def index_layer_summary(outcomes: Iterable[ScenarioOutcome]) -> dict[str, Any]:
    """Characters per prompt (mean, median, max) and the told-it-exists shares over the
    scenarios that declare a target; scenarios that errored or ran no turn are left out."""
    rows = [o.artifacts[INDEX_ARTIFACT] for o in outcomes
            if o.status in ("passed", "failed") and isinstance(o.artifacts.get(INDEX_ARTIFACT), dict)]
    chars = [r["chars"] for r in rows]
    targeted = [r for r in rows if r.get("names_target") is not None]
    n = len(targeted)
    by_index = sum(bool(r["names_target"]) for r in targeted)
    by_injection = sum(bool(r["target_injected"]) for r in targeted)
    either = sum(bool(r["names_target"] or r["target_injected"]) for r in targeted)
    return {
        "scenarios": len(rows),
        "chars_mean": round(statistics.fmean(chars), 1) if chars else 0.0,
        "chars_median": statistics.median(chars) if chars else 0,
        "chars_max": max(chars, default=0),
        "entries_mean": round(statistics.fmean(r["shown"] for r in rows), 2) if rows else 0.0,
        "targeted": n,
        "told_by_index": by_index,
        "told_by_injection": by_injection,
        "told_by_either": either,
        "told_only_by_index": sum(bool(r["names_target"] and not r["target_injected"]) for r in targeted),
        "share_told_by_index": round(by_index / n, 3) if n else None,
        "share_told_by_injection": round(by_injection / n, 3) if n else None,
        "share_told_by_either": round(either / n, 3) if n else None,
    }
