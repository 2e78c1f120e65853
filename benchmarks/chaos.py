"""Chaos benchmark: kill -9 and injected I/O faults in ingest, Dream (auto-confirm), confirm/create_page, purge, sync.

Kill trials: for every phase, ``--trials`` runs start from the same prepared scope, are killed
with SIGKILL after a delay drawn (seeded) from the length of an uninterrupted run, then the
scope is reopened and the operation run again. Printed per phase: trials, how many were really
killed before finishing, how many kills left a page transition in flight (a journal) and how
many temporary files they left (both for the reopen to settle), then the records lost,
duplicated and corrupt (page files that do not match their rows, or fail ``wiki check``),
leftover temporary/journal files after the reopen, and trials whose audit counts by kind differ.

Fault trials: for every phase and every write point it passes through (``riko.faults``: page,
journal and Resident files at write / fsync / rename, and the warehouse commit),
``--fault-trials`` runs each fail once at a random pass through that point (ENOSPC or EIO on a
write, EIO on fsync, EIO or ENOSPC on rename, ENOSPC or EIO at commit). Printed per write point:
faults raised, how many reached the caller as a typed RikoError, as something else, or were
absorbed by a best-effort write, and the same lost / duplicated / corrupt / leftover / audit
counts after the re-run. The target is zero in every one of those columns and in ``untyped``.

Full-disk trials (``--full-disk-trials``, as root): the same operations on a real 96 MB tmpfs
filled to leave 0-256 KB free, so DuckDB and the page files meet a genuine ENOSPC wherever it
falls; then the space comes back and the scope is reopened and re-run.

Rows are appended to ``--out`` (JSON lines) as each finishes, so a long run can be read early.
Usage: ``python benchmarks/chaos.py [--trials 50] [--fault-trials 5] [--sessions 12] [--seed 7]
[--phases ingest,dream,confirm,purge,sync] [--fault-phases ...] [--out rows.jsonl] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import chaos_harness

KILL_COLS = ("phase", "trials", "killed", "in_flight", "temp_left", "lost", "duplicated", "corrupt", "leftover",
             "audit_mismatch", "seconds")
FAULT_COLS = ("phase", "point", "passes", "trials", "fired", "typed", "untyped", "absorbed", "lost", "duplicated",
              "corrupt", "leftover", "audit_mismatch", "seconds")
_BAD = ("lost", "duplicated", "corrupt", "leftover", "audit_mismatch")


def _emit(out: Path | None, row: dict[str, Any]) -> None:
    if out is not None:
        with out.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")


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
    parser.add_argument("--out", type=Path, default=None, help="append each row to this JSON-lines file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="riko-chaos-"))
    kills: list[dict[str, Any]] = []
    faults: list[dict[str, Any]] = []
    try:
        bases = chaos_harness.prepare(work, args.sessions)
        for phase in (args.fault_phases or args.phases).split(",") if args.fault_trials else ():
            started = time.perf_counter()
            for tally in chaos_harness.run_faults(phase, bases, work, args.fault_trials, args.seed):
                if not tally.passes:
                    continue
                row = {"kind": "fault", **tally.to_dict(), "seconds": round(time.perf_counter() - started, 1)}
                faults.append(row)
                _emit(args.out, row)
                for failure in tally.failures[:5]:
                    print(failure, file=sys.stderr)
                started = time.perf_counter()
        if args.full_disk_trials:
            disk = work / "full-disk"
            disk.mkdir()
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(disk)], check=True)
            try:
                for phase in (args.fault_phases or args.phases).split(","):
                    started = time.perf_counter()
                    tally = chaos_harness.run_full_disk(phase, bases, work, disk, args.full_disk_trials, args.seed)
                    row = {"kind": "fault", **tally.to_dict(), "seconds": round(time.perf_counter() - started, 1)}
                    faults.append(row)
                    _emit(args.out, row)
                    for failure in tally.failures[:5]:
                        print(failure, file=sys.stderr)
            finally:
                subprocess.run(["umount", str(disk)], check=False)
        for phase in args.phases.split(",") if args.trials else ():
            started = time.perf_counter()
            kill = chaos_harness.run_phase(phase, bases, work, args.trials, args.seed)
            row = {"kind": "kill", **kill.to_dict(), "seconds": round(time.perf_counter() - started, 1)}
            kills.append(row)
            _emit(args.out, row)
            for failure in kill.failures[:5]:
                print(failure, file=sys.stderr)
    finally:
        for zygote in chaos_harness._ZYGOTES:
            zygote.close()
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"kill": kills, "fault": faults}, indent=1))
    else:
        for cols, rows in ((KILL_COLS, kills), (FAULT_COLS, faults)):
            if rows:
                print(" | ".join(cols))
                for row in rows:
                    print(" | ".join(str(row[c]) for c in cols))
    ok = all(r[c] == 0 for r in kills for c in _BAD) and all(r[c] == 0 for r in faults for c in (*_BAD, "untyped"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
