"""Sharing a scope between processes: what taking the file per unit of work costs.

Prints the median ``capture()`` latency with the scope held by the caller (``mem.hold()``),
with the default idle lingering, and when every call must take and release the file
(``idle_release_ms=0``); then the median wall time of a CLI read (``riko pages --json``) with
no server, beside a running ``riko serve`` that has the scope open, and beside one kept busy
by a client. Ratios are against the baseline measured in the same run.

    python benchmarks/concurrency.py [--captures 300] [--reads 12] [--pages 2000]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

import riko

API = "/memory/v1"
PROFILE = {"x-dsh-memory-profile": "bench"}


def _event(i: int) -> dict:
    return {"session_id": "live", "type": "user/message",
            "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": f"note {i}"}]}}


def _capture_median(root: Path, n: int, *, hold: bool, idle_release_ms: int | None) -> float:
    config = {} if idle_release_ms is None else {"idle_release_ms": idle_release_ms}
    samples = []
    with riko.open(root, preset="bench", config=config) as mem:
        start = mem.evidence("live").height
        if hold:
            with mem.hold():
                for i in range(n):
                    t = time.perf_counter()
                    mem.capture(_event(start + i))
                    samples.append(time.perf_counter() - t)
        else:
            for i in range(n):
                t = time.perf_counter()
                mem.capture(_event(start + i))
                samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1000


def _cli_read_median(root: Path, n: int) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "riko", "pages", "--json", "--root", str(root), "--preset", "bench"],
                              capture_output=True, text=True, env=env)
        samples.append(time.perf_counter() - t)
        if done.returncode != 0:
            raise SystemExit(f"riko pages failed: {done.stderr}")
    return statistics.median(samples) * 1000


class _Server:
    def __init__(self, root: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
        self.proc = subprocess.Popen([sys.executable, "-m", "riko.cli.serve", "--root", str(root), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if not match:
            self.proc.kill()
            raise SystemExit(f"riko serve did not start: {line}")
        self.base = match.group(1)
        self.requests = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def touch(self) -> None:
        httpx.get(self.base + API + "/resident", headers=PROFILE, timeout=60).raise_for_status()

    def busy(self, per_second: float) -> None:
        """A client asking for the Resident ``per_second`` times a second until stopped."""
        def run() -> None:
            with httpx.Client(base_url=self.base, timeout=60) as client:
                while not self._stop.is_set():
                    client.get(API + "/resident", headers=PROFILE)
                    self.requests += 1
                    time.sleep(1 / per_second)

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=60)
        self.proc.terminate()
        self.proc.communicate(timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--captures", type=int, default=300)
    ap.add_argument("--reads", type=int, default=12)
    ap.add_argument("--pages", type=int, default=2000, help="pages in the scope (sets the database size)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with riko.open(root, preset="bench") as mem, mem.hold("setup"):
            for i in range(args.pages):
                mem.create_page(f"Page {i}", f"Page {i} says something about topic {i % 97}. " * 8)
        size = sum(p.stat().st_size for p in (root / "warehouse").rglob("*") if p.is_file()) / 1e6
        print(f"scope: {args.pages} pages, warehouse {size:.1f} MB; load average {os.getloadavg()[0]:.1f}")

        _capture_median(root, 20, hold=True, idle_release_ms=None)  # warm-up: imports, first open
        held = _capture_median(root, args.captures, hold=True, idle_release_ms=None)
        linger = _capture_median(root, args.captures, hold=False, idle_release_ms=None)
        taking = _capture_median(root, max(args.captures // 3, 20), hold=False, idle_release_ms=0)
        print(f"capture() median, scope held (mem.hold()):     {held:8.2f} ms   (target <= 5 ms)")
        print(f"capture() median, default idle lingering:      {linger:8.2f} ms   {linger / held:5.2f}x held")
        print(f"capture() median, taking the file every call:  {taking:8.2f} ms   {taking / held:5.2f}x held"
              "   (target <= 50 ms)")

        alone = _cli_read_median(root, args.reads)
        server = _Server(root)
        try:
            server.touch()
            idle = _cli_read_median(root, args.reads)
            server.busy(per_second=20)
            busy = _cli_read_median(root, args.reads)
        finally:
            server.stop()
        print(f"riko pages median, no server:                  {alone:8.1f} ms")
        print(f"riko pages median, server has the scope open:  {idle:8.1f} ms   {idle / alone:5.2f}x   (target <= 2x)")
        print(f"riko pages median, server busy (20 req/s):     {busy:8.1f} ms   {busy / alone:5.2f}x"
              f"   ({server.requests} server requests meanwhile)")


if __name__ == "__main__":
    main()
