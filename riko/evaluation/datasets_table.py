"""Plain-text tables of dataset runs: each system's figures, then its differences to the baselines
(metrics as ``+/-`` points, latency as a ratio), so every figure reads beside bm25s and rrf."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .retrieval import NDCG_CUTOFF

__all__ = ["COLUMNS", "report_text", "summary_table"]

COLUMNS = ("hit@1", "hit@5", "hit@10", "frac@5", "frac@10", "frac@25", "frac@50", "mrr", f"ndcg@{NDCG_CUTOFF}",
           "latency_p50_ms", "latency_p95_ms")
_HEAD = {"latency_p50_ms": "p50 ms", "latency_p95_ms": "p95 ms", "mrr": "MRR"}
_BASELINES = ("bm25s", "rrf")


def _value(column: str, value: float) -> str:
    if column.startswith("latency"):
        return f"{value:.1f}" if value < 100 else f"{value:.0f}"
    return f"{value:.3f}"


def _delta(column: str, value: float, base: float) -> str:
    if column.startswith("latency"):
        if base <= 0:
            return "-"
        ratio = value / base
        return f"x{ratio:.2f}" if ratio >= 0.01 else f"x{ratio:.1e}"
    return f"{value - base:+.3f}"


def summary_table(summary: Mapping[str, Mapping[str, float]], *, label: str = "system",
                  prefix: Sequence[tuple[str, str]] = ()) -> list[list[str]]:
    """Rows (header first) of one summary: every system, and for each non-baseline system one
    row per baseline present with its differences (``vs bm25s``, ``vs rrf``)."""
    head = [name for name, _ in prefix] + [label, "n"] + [_HEAD.get(c, c) for c in COLUMNS]
    lead = [value for _, value in prefix]
    rows = [head]
    for system, figures in summary.items():
        if not figures:
            continue
        rows.append(lead + [system, str(int(figures["queries"]))] + [_value(c, figures[c]) for c in COLUMNS])
        for base in _BASELINES:
            if base == system or not summary.get(base):
                continue
            ref = summary[base]
            rows.append(lead + [f"  vs {base}", ""] + [_delta(c, figures[c], ref[c]) for c in COLUMNS])
    return rows


def render(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned first columns, right-aligned figures, two spaces between columns."""
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    figures = len(COLUMNS) + 1
    out = []
    for row in rows:
        cells = [cell.ljust(w) if i < len(row) - figures else cell.rjust(w)
                 for i, (cell, w) in enumerate(zip(row, widths))]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def report_text(report: Any, *, categories: bool = True) -> str:
    """The whole report: a heading line, the overall table, then one table per category."""
    setup = report.setup
    head = (f"{report.dataset}: {setup['ranked']} ranked questions ({setup['abstentions']} abstentions counted, "
            f"not ranked) over {setup['turns']} turns in {setup['conversations']} conversations; depth "
            f"{setup['depth']}, roles {setup.get('roles', 'all')}, unreachable evidence {setup['unreachable_evidence']}, "
            f"{setup['seconds']} s")
    lines = [head, render(summary_table(report.summary()))]
    for grouping, groups in report.by_role().items():
        for group, summary in groups.items():
            lines.append("")
            lines.append(f"{'evidence turns' if grouping == 'evidence' else 'gold memory'}: {group}")
            lines.append(render(summary_table(summary)))
    if categories:
        for category, summary in report.by_category().items():
            lines.append("")
            lines.append(f"category {category}")
            lines.append(render(summary_table(summary)))
    return "\n".join(lines)
