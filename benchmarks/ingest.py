"""Ingest benchmark: bulk L0 ingest from multi-frame zstd vs per-event capture vs naive INSERTs.

Prints events/s for the bulk path, the median capture() latency, a naive row-by-row INSERT
baseline measured in the same run, their ratios, and the unchanged re-ingest as a share of the
first ingest. Usage: ``python benchmarks/ingest.py [--events 1000000] [--sessions 8]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

import riko
from riko.ingest.readers import LogReader
from riko.evaluation.samples import generate_synthetic_log


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--events", type=int, default=1_000_000, help="total log lines across sessions")
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--captures", type=int, default=500)
    ap.add_argument("--naive-rows", type=int, default=5_000)
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="riko-bench-ingest-"))
    try:
        logs = work / "logs"
        per = args.events // args.sessions
        t = time.perf_counter()
        for i in range(args.sessions):
            generate_synthetic_log(logs / f"--bench--/s{i}/session.jsonl.zstd", events=per, session_id=f"bench-{i}",
                                   preset="bench", seed=i)
        gen_s = time.perf_counter() - t
        size = sum(p.stat().st_size for p in logs.rglob("*.zstd"))
        lines = per * args.sessions
        print(f"generated {lines:,} lines in {args.sessions} multi-frame zstd logs ({size / 1e6:.1f} MB) in {gen_s:.1f}s")

        # read-only pass: the reader alone (the floor for ingest)
        t = time.perf_counter()
        kept = sum(1 for p in sorted(logs.rglob("*.zstd")) for _ in LogReader(p).events())
        read_s = time.perf_counter() - t

        root = work / "root"
        with riko.open(root, preset="bench") as mem:
            t = time.perf_counter()
            report = mem.ingest(logs, progress=False)
            first_s = time.perf_counter() - t
            t = time.perf_counter()
            again = mem.ingest(logs, progress=False)
            reingest_s = time.perf_counter() - t
            assert again.events == 0, again

            samples = []
            for i in range(args.captures):
                ev = {"session_id": "live", "type": "user/message",
                      "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": f"live message {i}"}]}}
                t = time.perf_counter()
                mem.capture(ev)
                samples.append(time.perf_counter() - t)
            capture_ms = statistics.median(samples) * 1000

        # naive baseline: one INSERT per row in autocommit mode
        con = duckdb.connect(str(work / "naive.duckdb"))
        con.execute("CREATE TABLE ev (session_id VARCHAR, seq BIGINT, type VARCHAR, text VARCHAR, data VARCHAR)")
        t = time.perf_counter()
        for i in range(args.naive_rows):
            con.execute("INSERT INTO ev VALUES (?, ?, ?, ?, ?)", ["s", i, "user/message", f"text {i}", "{}"])
        naive_rate = args.naive_rows / (time.perf_counter() - t)
        con.close()

        bulk_lines_rate = lines / first_s
        stored_rate = report.events / first_s
        print(f"reader alone:        {lines / read_s:>12,.0f} lines/s  ({kept:,} meaningful events kept, chunks skipped)")
        print(f"bulk ingest:         {bulk_lines_rate:>12,.0f} lines/s  = {stored_rate:,.0f} stored events/s  ({report.events:,} stored, {first_s:.2f}s)   target >= 200,000 lines/s")
        print(f"naive row INSERTs:   {naive_rate:>12,.0f} rows/s   -> bulk stores {stored_rate / naive_rate:,.0f}x faster per stored row")
        print(f"capture() median:    {capture_ms:>12.2f} ms     -> {1000 / capture_ms:,.0f} events/s; bulk is {stored_rate / (1000 / capture_ms):,.0f}x capture   target <= 5 ms")
        print(f"unchanged re-ingest: {reingest_s:>12.3f} s      = {100 * reingest_s / first_s:.2f}% of the first ingest   target <= 5%")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
