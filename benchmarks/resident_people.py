"""Resident compile of a two-speaker scope: this tree against another (same output, CPU time).

The two-speaker scope is ``benchmarks/resident.py``'s ``make_pages(n)`` with every page said by
one of two speakers (``Kevin: …`` / ``Elise: …`` alternating), a slot attribute on each (identity,
plans, likes, events), "today" on one in six and no ``observed_at`` on one in ten; the one-user
scope is ``make_pages(n)`` as it is; the small cases are the English and Chinese pairs of
``tests/resident/test_resident_profile.py`` (every cap and Dream-run seed the tests compile).

Each tree runs in a worker process of its own (``PYTHONPATH`` = the tree; the generators are read
from this checkout). The driver first checks that both trees compile byte-identical text and the
same version for every case, then times one compile at a time, alternating the trees, and prints
the median CPU time (``time.process_time``) of ``--runs`` compiles per tree and scope.

Usage: ``python benchmarks/resident_people.py --old DIR [--new DIR] [--pages 10000] [--runs 15]``
(``DIR``: a checkout, e.g. ``git archive c1f1513 | tar -x -C /tmp/old``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_ATTRIBUTES = ("from", "lives_in", "works_at", "name", "plan", "likes:x", "did:x", "states:x", "sister")


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def two_speakers(pages: list[Any]) -> list[Any]:
    """``pages`` (from ``make_pages``) as said by two speakers, alternating."""
    out = []
    for i, page in enumerate(pages):
        who = ("Kevin", "Elise")[i % 2]
        said = (page.description or page.title) + (" I did it today." if i % 6 == 0 else "")
        out.append(page.replace(description=f"{who}: {said}", extra={"slot": f"{who}/{_ATTRIBUTES[i % 9]}"},
                                observed_at=None if i % 10 == 3 else page.observed_at))
    return out


def _cases(pages: int) -> dict[str, tuple[list[Any], dict]]:
    bench = _load("bench_resident", HERE / "resident.py")
    profile = _load("test_resident_profile", HERE.parent / "tests" / "resident" / "test_resident_profile.py")
    one = bench.make_pages(pages)
    two = two_speakers(one)
    rng = random.Random(7)
    activation = {page.id: rng.random() for page in two[::3]}
    cases = {
        "two-speaker": (two, {"now": bench.NOW}),
        "two-speaker+activation": (two, {"now": bench.NOW, "activation": activation}),
        "one-user": (one, {"now": bench.NOW}),
    }
    for pair in ("en", "zh"):
        for cap in (12000, 256, 300, 350, 400, 450, 500, 600, 700, 800, 1000, 1400):
            cases[f"{pair}-cap{cap}"] = (profile._pages(pair), {"now": profile.NOW, "max_chars": cap})
        for seed in range(1, 8):
            shuffled = profile._pages(pair, dreamt_at=profile.DREAMT_AT + timedelta(days=seed), seed=seed)
            random.Random(seed).shuffle(shuffled)
            cases[f"{pair}-seed{seed}"] = (shuffled, {"now": profile.NOW + timedelta(minutes=seed)})
    return cases


def worker(pages: int) -> None:
    from riko.resident.compile import compile_resident

    cases = _cases(pages)
    for line in sys.stdin:
        command, _, case = line.strip().partition(" ")
        if command == "check":
            out = {}
            for name, (scope, kwargs) in cases.items():
                snap = compile_resident(scope, **kwargs)
                out[name] = [hashlib.sha256(snap.text.encode()).hexdigest(), snap.version, len(snap.text)]
            print(json.dumps({"riko": compile_resident.__module__ and sys.modules["riko"].__file__, "cases": out}))
        elif command == "time":
            scope, kwargs = cases[case]
            start = time.process_time()
            compile_resident(scope, **kwargs)
            print((time.process_time() - start) * 1000)
        sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", default=str(HERE.parent))
    ap.add_argument("--pages", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.pages)
        return
    trees = {"old": args.old, "new": args.new}
    procs = {label: subprocess.Popen(
        [sys.executable, __file__, "--worker", "--old", "-", "--pages", str(args.pages)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(tree).resolve())}) for label, tree in trees.items()}

    def ask(label: str, command: str) -> str:
        proc = procs[label]
        assert proc.stdin and proc.stdout
        proc.stdin.write(command + "\n")
        proc.stdin.flush()
        return proc.stdout.readline()

    checks = {label: json.loads(ask(label, "check")) for label in trees}
    for label in trees:
        print(f"{label}: riko from {checks[label]['riko']}")
    old, new = checks["old"]["cases"], checks["new"]["cases"]
    for name in old:
        print(f"  {name:24} {'same' if old[name] == new[name] else 'DIFFERENT'}  version {old[name][1]}  "
              f"{old[name][2]} chars  sha256 {old[name][0][:16]}")
    assert old == new, "the trees compile different Residents"
    for case in ("two-speaker", "two-speaker+activation", "one-user"):
        times: dict[str, list[float]] = {"old": [], "new": []}
        for label in trees:  # one warm-up compile each
            ask(label, f"time {case}")
        for run in range(args.runs):
            for label in (("old", "new") if run % 2 == 0 else ("new", "old")):
                times[label].append(float(ask(label, f"time {case}")))
        print(f"{case:24} CPU ms per compile, median of {args.runs} (min–max): " + "; ".join(
            f"{label} {statistics.median(ts):.1f} ({min(ts):.1f}–{max(ts):.1f})" for label, ts in times.items()))
    for proc in procs.values():
        assert proc.stdin
        proc.stdin.close()
        proc.wait()


if __name__ == "__main__":
    main()
