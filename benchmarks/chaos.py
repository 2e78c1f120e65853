"""Chaos benchmark: kill -9 and injected I/O faults in ingest, Dream (auto-confirm), confirm/create_page, purge, sync.

Kill trials: for every phase, ``--trials`` runs start from the same prepared scope, are killed
with SIGKILL after a delay drawn (seeded) from the length of an uninterrupted run, then the
scope is reopened and the operation run again. Printed per phase: trials, how many were really
killed before finishing, how many kills left a page transition in flight (a journal) and how
many temporary files they left (both for the reopen to settle), then the records lost,
duplicated and corrupt (page files that do not match their rows, or fail ``wiki check``),
leftover temporary/journal files after the reopen, trials whose audit counts by kind differ,
and the median and longest time from a kill until another process held the writer lock.

Fault trials: for every phase and every write point it passes through (``riko.faults``: page,
journal and Resident files at write / fsync / rename, and the warehouse commit),
``--fault-trials`` runs each fail once at one pass through that point, the passes spread evenly
over all of them (so the last pass is as sure to be hit as the first), the errno alternating
(ENOSPC or EIO on a write, EIO on fsync, EIO or ENOSPC on rename, ENOSPC or EIO at commit).
Printed per phase and write point, then summed per write point: faults raised, how many reached
the caller as a typed RikoError, as something else, or were absorbed by a best-effort write,
trials whose pass never came (``unreached``), the ``*-failed`` audits a faulted run wrote of its
own failure (``failure_audits``: expected, so left out of the audit comparison), and the same
lost / duplicated / corrupt / leftover / audit counts after the re-run. The target is zero in
``untyped``, ``unreached`` and every one of those last columns.

Full-disk trials (``--full-disk-trials``, as root): the same operations on a real 96 MB tmpfs
filled to leave 0-256 KB free, so DuckDB and the page files meet a genuine ENOSPC wherever it
falls; then the space comes back and the scope is reopened and re-run.

Rows are appended to ``--out`` (JSON lines) as each finishes, so a long run can be read early.
Usage: ``python benchmarks/chaos.py [--trials 50] [--fault-trials 5] [--sessions 12] [--seed 7]
[--phases ingest,dream,confirm,purge,sync] [--fault-phases ...] [--work DIR] [--out rows.jsonl] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import chaos_harness

KILL_COLS = ("phase", "trials", "killed", "in_flight", "temp_left", "untyped", "lost", "duplicated", "corrupt",
             "leftover", "audit_mismatch", "lock_free_median_s", "lock_free_max_s", "seconds")
FAULT_COLS = ("phase", "point", "passes", "trials", "fired", "typed", "untyped", "absorbed", "unreached",
              "failure_audits", "lost", "duplicated", "corrupt", "leftover", "audit_mismatch", "seconds")
POINT_COLS = ("point", "phases", "trials", "fired", "typed", "untyped", "absorbed", "unreached", "failure_audits",
              "lost", "duplicated",
              "corrupt", "leftover", "audit_mismatch")


def by_point(faults: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fault rows summed per write point over the phases that pass through it."""
    rows: dict[str, dict[str, Any]] = {}
    for row in faults:
        total = rows.setdefault(row["point"], {"point": row["point"], "phases": 0,
                                               **{c: 0 for c in POINT_COLS[2:]}})
        total["phases"] += 1
        for col in POINT_COLS[2:]:
            total[col] += row[col]
    return list(rows.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50, help="kill trials per phase (0: none)")
    parser.add_argument("--fault-trials", type=int, default=5, help="injected faults per write point and phase")
    parser.add_argument("--sessions", type=int, default=12, help="sessions in the generated logs")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--phases", default=",".join(chaos_harness.PHASES))
    parser.add_argument("--fault-phases", default=None, help="phases for fault trials (default: --phases)")
    parser.add_argument("--full-disk-trials", type=int, default=0,
                        help="runs per phase on a real, nearly full tmpfs (needs root to mount it)")
    parser.add_argument("--work", type=Path, default=None,
                        help="directory for the trial roots (default: the system's temporary directory)")
    parser.add_argument("--out", type=Path, default=None, help="append each row to this JSON-lines file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    phases = args.phases.split(",")
    fault_phases = (args.fault_phases or args.phases).split(",")
    work = Path(tempfile.mkdtemp(prefix="riko-chaos-", dir=args.work))
    rows: dict[str, list[dict[str, Any]]] = {"kill": [], "fault": []}

    def record(kind: str, tally: chaos_harness.Tally) -> None:
        row = {"kind": kind, **tally.to_dict()}
        rows[kind].append(row)
        if args.out is not None:
            with args.out.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
        for failure in tally.failures[:5]:
            print(failure, file=sys.stderr)

    try:
        bases = chaos_harness.prepare(work, args.sessions)
        for phase in fault_phases if args.fault_trials else ():
            for tally in chaos_harness.run_faults(phase, bases, work, args.fault_trials):
                if tally.passes:
                    record("fault", tally)
        if args.full_disk_trials:
            disk = work / "full-disk"
            disk.mkdir()
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(disk)], check=True)
            try:
                for phase in fault_phases:
                    record("fault", chaos_harness.run_full_disk(phase, bases, work, disk, args.full_disk_trials,
                                                                args.seed))
            finally:
                subprocess.run(["umount", str(disk)], check=False)
        for phase in phases if args.trials else ():
            record("kill", chaos_harness.run_phase(phase, bases, work, args.trials, args.seed))
    finally:
        for zygote in chaos_harness._ZYGOTES:
            zygote.close()
        shutil.rmtree(work, ignore_errors=True)
    points = by_point([r for r in rows["fault"] if r["point"] in chaos_harness.FAULT_POINTS])
    if args.json:
        print(json.dumps({**rows, "points": points}, indent=1))
    else:
        for cols, table in ((KILL_COLS, rows["kill"]), (FAULT_COLS, rows["fault"]), (POINT_COLS, points)):
            if table:
                print(" | ".join(cols))
                for row in table:
                    print(" | ".join(str(row[c]) for c in cols))
    ok = all(r[c] == 0 for table in rows.values() for r in table for c in chaos_harness.BAD)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
