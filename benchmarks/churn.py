"""Churn benchmark: one current fact among N outdated versions of it, recalled first at every N?

A long-lived scope keeps every version of a fact it ever held. For each N (default 10, 100,
1,000) a fresh scope gets N outdated versions of one fact (a gym membership), spread evenly
over the five ways a version goes out of date: expired (its validity ended), superseded,
suppressed, forgotten and corrected (a chain of corrections of one page, each invalidating
the L0 line behind the previous claim). Every version also has the user line it came from,
so raw evidence competes too. Then the current fact (the last correction of the chained
page) is asked for with several phrasings, with evidence classification on.

Reported per N: the current fact's rank among the injected results (1 = first; "-" =
missing), how many outdated versions reached the context (must be 0), and recall p50/p95
in wall and in CPU time (activation recording off, warm cache, every N timed in turn). Target: the current fact first at every N, p95 at
N = 1,000 within 1.5x of N = 10.

Usage: ``python benchmarks/churn.py [--sizes 10,100,1000] [--runs 60]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from typing import Any

import riko
from riko.clock import FixedClock

QUERIES = [
    "What is my gym membership at Fitwell?",
    "Do you remember my Fitwell gym membership plan?",
    "which membership plan do I have at the Fitwell gym",
    "remind me what I said about my Fitwell membership",
]
CURRENT = "My Fitwell gym membership is now the Orchid plan with sauna access"
WAYS = ("expired", "superseded", "suppressed", "forgotten", "corrected")


def say(mem: Any, session: str, text: str, when: str) -> str:
    ref = mem.capture({"session_id": session, "type": "user/message", "time": when,
                       "data": {"message": {"role": "user", "content": text}}})
    return str(getattr(ref, "ref", ref))


def build(root: str, n: int) -> tuple[Any, str, list[str]]:
    """A scope with ``n`` outdated versions of the membership fact and the current one."""
    clock = FixedClock("2026-01-15T09:00:00Z")
    mem = riko.open(root, preset="companion", clock=clock, config={
        "recall_enabled": True, "embedding_provider": "off", "evidence_classification_enabled": True,
        "recall_graph_enabled": True, "recall_observation_enabled": True})
    outdated: list[str] = []
    chained = None
    # one change signal for the whole build: the Resident is compiled once at the end, not per page
    with mem.context.changed.batch():
        for i in range(n):
            way = WAYS[i % len(WAYS)]
            claim = f"My gym membership at Fitwell is the plan number {i} at {10 + i} euros a month"
            outdated.append(claim)
            ref = say(mem, f"s{i // 50}", claim, f"2025-{1 + i % 12:02d}-{1 + i % 27:02d}T08:00:00Z")
            if way == "corrected":
                if chained is None:
                    chained = mem.create_page("Fitwell membership", claim, description=claim, sources=[ref])
                else:
                    mem.context.review.correct(chained.id, claim, authority="management", evidence=ref)
                continue
            page = mem.create_page(f"Fitwell gym membership {i}", claim, description=claim, sources=[ref],
                                   **({"valid_to": "2025-12-01T00:00:00Z"} if way == "expired" else {}))
            if way == "superseded":
                mem.supersede(page.id)
            elif way == "suppressed":
                mem.suppress(page.id)
            elif way == "forgotten":
                mem.forget(page.id)
        ref = say(mem, "now", CURRENT, "2026-01-10T08:00:00Z")
        if chained is None:
            current = mem.create_page("Fitwell membership", CURRENT, description=CURRENT, sources=[ref])
        else:
            current = mem.context.review.correct(chained.id, CURRENT, authority="management", evidence=ref)
    return mem, current.id, outdated


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(sizes: list[int], runs: int) -> list[dict[str, Any]]:
    """Build every size's scope, then time their recalls interleaved (one query per scope in
    turn), so a load change on a shared machine weighs on every N alike. Wall time and the
    calling thread's CPU time are both taken."""
    rows, scopes = [], []
    try:
        for n in sizes:
            root = tempfile.mkdtemp(prefix=f"riko-churn-{n}-")
            started = time.perf_counter()
            mem, current, outdated = build(root, n)
            row = {"n": n, "ranks": [], "leaks": 0, "wall": [], "cpu": [], "build_s": time.perf_counter() - started}
            for query in QUERIES:  # warm: the first call builds the indexes
                result = mem.recall(query, record_activation=False)
                injected = [r["id"] for r in result.results.iter_rows(named=True) if r["injected"]]
                row["ranks"].append(injected.index(current) + 1 if current in injected else None)
                row["leaks"] += sum(1 for claim in outdated if claim in result.context)
            rows.append(row)
            scopes.append((root, mem))
        for r in range(runs):
            query = QUERIES[r % len(QUERIES)]
            for row, (_, mem) in zip(rows, scopes):
                c0, t0 = time.thread_time(), time.perf_counter()
                mem.recall(query, record_activation=False)
                row["wall"].append((time.perf_counter() - t0) * 1000.0)
                row["cpu"].append((time.thread_time() - c0) * 1000.0)
    finally:
        for root, mem in scopes:
            mem.close()
            shutil.rmtree(root, ignore_errors=True)
    for row in rows:
        row.update(p50=statistics.median(row["wall"]), p95=_pct(row["wall"], 0.95),
                   cpu50=statistics.median(row["cpu"]), cpu95=_pct(row["cpu"], 0.95))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000", help="comma-separated N (outdated versions)")
    parser.add_argument("--runs", type=int, default=60, help="timed recalls per N")
    args = parser.parse_args()
    rows = measure([int(n) for n in args.sizes.split(",")], args.runs)
    print(f"{'N':>6} {'current rank per query':>24} {'outdated in context':>20} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'CPU p50':>8} {'CPU p95':>8} {'build s':>8}")
    for row in rows:
        ranks = ",".join("-" if r is None else str(r) for r in row["ranks"])
        print(f"{row['n']:>6} {ranks:>24} {row['leaks']:>20} {row['p50']:>8.2f} {row['p95']:>8.2f} "
              f"{row['cpu50']:>8.2f} {row['cpu95']:>8.2f} {row['build_s']:>8.1f}")
    first, last = rows[0], rows[-1]
    ok_rank = all(all(r == 1 for r in row["ranks"]) for row in rows)
    ratio = last["p95"] / first["p95"] if first["p95"] else float("inf")
    cpu_ratio = last["cpu95"] / first["cpu95"] if first["cpu95"] else float("inf")
    print(f"current fact first at every N: {'yes' if ok_rank else 'NO'}; outdated text in any context: "
          f"{sum(r['leaks'] for r in rows)}; p95 N={last['n']} / N={first['n']}: {ratio:.2f}x wall, "
          f"{cpu_ratio:.2f}x CPU (target <= 1.5x)")


if __name__ == "__main__":
    main()
