"""Control API benchmark: bounded loopback load from this process against a ``riko serve`` process.

Starts ``python -m riko.cli.serve --port 0`` on 127.0.0.1 over a sample scope (recall on, a
token map), then sends a fixed number of requests, alternating ``GET /resident`` and
``POST /recall``, from ``--concurrency`` workers. Prints requests/s and p50/p99 latency per
route and overall, and the error count. The load is bounded in count and in time.
Usage: ``python benchmarks/serve.py [--requests 2000] [--concurrency 32] [--pages 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

import riko
from riko.evaluation.samples import generate_samples

TOKEN = "bench-token-companion-0001"
API = "/memory/v1"
HEADERS = {"x-dsh-memory-profile": "companion", "authorization": f"Bearer {TOKEN}"}
QUERIES = ("What do I drink in the morning?", "Where did I travel last spring?", "What is Atlas?",
           "Do you remember my ticket number?", "what did we talk about last week")


def build_root(root: Path, pages: int) -> None:
    generate_samples(root / "logs")
    (root / "riko.toml").write_text(
        f'api_tokens = {{ companion = "{TOKEN}" }}\nrecall_enabled = true\nevidence_classification_enabled = true\n'
        'embedding_provider = "off"\n', encoding="utf-8")
    with riko.open(root, preset="companion") as mem:
        mem.ingest([root / "logs"], progress=False)
        for i in range(pages):
            mem.create_page(f"Fact {i}", f"Mira noted fact number {i} about tea, trains and [[Atlas]].",
                            type=("concept", "entity", "episode")[i % 3])


def start_server(root: Path) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    proc = subprocess.Popen([sys.executable, "-m", "riko.cli.serve", "--root", str(root), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline() if proc.stdout else ""
    match = re.search(r"(http://127\.0\.0\.1:\d+)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"riko serve did not start: {line}{proc.stderr.read() if proc.stderr else ''}")
    return proc, match.group(1)


async def load(base: str, total: int, concurrency: int, deadline_s: float) -> dict[str, list[float]]:
    """Send ``total`` requests from ``concurrency`` workers; latencies (s) per route, errors listed."""
    jobs: asyncio.Queue[int] = asyncio.Queue()
    for i in range(total):
        jobs.put_nowait(i)
    out: dict[str, list[float]] = {"GET /resident": [], "POST /recall": [], "errors": []}
    stop = time.monotonic() + deadline_s
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async with httpx.AsyncClient(base_url=base, headers=HEADERS, timeout=60, limits=limits) as client:
        async def worker() -> None:
            while time.monotonic() < stop:
                try:
                    i = jobs.get_nowait()
                except asyncio.QueueEmpty:
                    return
                t = time.perf_counter()
                try:
                    if i % 2:
                        r = await client.post(API + "/recall", json={"query": QUERIES[i % len(QUERIES)]})
                        name = "POST /recall"
                    else:
                        r = await client.get(API + "/resident")
                        name = "GET /resident"
                    elapsed = time.perf_counter() - t
                    if r.status_code != 200:
                        out["errors"].append(float(r.status_code))
                    else:
                        out[name].append(elapsed)
                except httpx.HTTPError:
                    out["errors"].append(-1.0)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--pages", type=int, default=200, help="canonical pages in the scope")
    ap.add_argument("--deadline", type=float, default=300.0, help="stop sending after this many seconds")
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="riko-bench-serve-"))
    proc = None
    try:
        build_root(work, args.pages)
        proc, base = start_server(work)
        asyncio.run(load(base, 20, 4, 60))  # warm up: first recall builds its index
        t = time.perf_counter()
        result = asyncio.run(load(base, args.requests, args.concurrency, args.deadline))
        wall = time.perf_counter() - t
        done = sum(len(result[k]) for k in ("GET /resident", "POST /recall"))
        errors = result["errors"]
        print(f"riko serve on {base}: {done} requests at concurrency {args.concurrency} in {wall:.2f}s, "
              f"{args.pages} pages, {len(errors)} errors")
        print(f"{'route':<14} {'n':>5} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}")
        everything = result["GET /resident"] + result["POST /recall"]
        for name, values in (("GET /resident", result["GET /resident"]), ("POST /recall", result["POST /recall"]),
                             ("all", everything)):
            mean = statistics.fmean(values) * 1000 if values else float("nan")
            print(f"{name:<14} {len(values):>5} {len(values) / wall:>8.1f} {pct(values, 0.5) * 1000:>8.1f} "
                  f"{pct(values, 0.99) * 1000:>8.1f} {mean:>8.1f}")
        if errors or done != args.requests:
            raise SystemExit(f"errors: {len(errors)} (statuses {sorted(set(errors))}), completed {done}/{args.requests}")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
