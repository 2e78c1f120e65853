"""Chaos benchmark: kill -9 at random points of ingest, Dream (auto-confirm), confirm/create_page, purge.

For every phase, ``--trials`` runs (default 50) start from the same prepared scope, are killed
with SIGKILL after a delay drawn (seeded) from the length of an uninterrupted run, then the
scope is reopened and the operation run again. Each result is compared with an uninterrupted
reference run of the same phase. Printed per phase: trials, how many were really killed before
finishing, how many kills left a page transition in flight (a journal) and how many temporary
files they left (both for the reopen to settle), then the records lost, duplicated and corrupt
(page files that do not match their rows, or fail ``wiki check``), leftover temporary/journal
files after the reopen, and trials whose audit counts by kind differ. The target is zero in
the last five columns.
Usage: ``python benchmarks/chaos.py [--trials 50] [--seed 7] [--phases ingest,dream,confirm,purge] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import chaos_harness


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--phases", default=",".join(chaos_harness.PHASES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="riko-chaos-"))
    rows = []
    try:
        bases = chaos_harness.prepare(work)
        for phase in args.phases.split(","):
            started = time.perf_counter()
            tally = chaos_harness.run_phase(phase, bases, work, args.trials, args.seed)
            rows.append({**tally.to_dict(), "seconds": round(time.perf_counter() - started, 1)})
            for failure in tally.failures[:5]:
                print(failure, file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        cols = ("phase", "trials", "killed", "in_flight", "temp_left", "lost", "duplicated", "corrupt", "leftover",
                "audit_mismatch", "seconds")
        print(" | ".join(cols))
        for row in rows:
            print(" | ".join(str(row[c]) for c in cols))
    return 0 if all(r["lost"] == r["duplicated"] == r["corrupt"] == r["leftover"] == r["audit_mismatch"] == 0
                    for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
