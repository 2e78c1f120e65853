"""CLI start-up benchmark: whole-process wall time of fast ``riko`` commands beside ``python -c pass``.

Each command is run as a fresh process (``python -m riko …``) ``--runs`` times, alternating with
the baseline so both see the same machine load; the figure is the median wall time from
``fork`` to exit, with the best run and the median minus the baseline's (riko's own cost).
Commands: ``--help``, ``--version``, ``init --help``, ``wiki check`` (validates page files
without opening the warehouse), ``samples DIR`` (writes the sample logs), and ``sessions``
on an initialised root (opens the warehouse: duckdb and polars are needed there, so it is shown
for scale, not held to the target). Target: ``--help`` and the commands that need no heavy
import at most 0.3 s, judged on the best run (the least disturbed by other processes on a
shared machine; the median is shown beside it). Usage: ``python benchmarks/cli.py [--runs 15]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 0.3


def _wall(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    opts = parser.parse_args()
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    env.pop("RIKO_PRESET", None)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run([sys.executable, "-m", "riko", "init", "--root", str(root), "--preset", "bench"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        riko = [sys.executable, "-m", "riko"]
        cases: dict[str, tuple[list[str], bool]] = {
            "riko --help": ([*riko, "--help"], True),
            "riko --version": ([*riko, "--version"], True),
            "riko init --help": ([*riko, "init", "--help"], True),
            "riko wiki check": ([*riko, "wiki", "check", "--root", str(root)], True),
            "riko samples DIR": ([*riko, "samples", str(root / "logs")], True),
            "riko sessions": ([*riko, "sessions", "--root", str(root)], False),
        }
        baseline_argv = [sys.executable, "-c", "pass"]
        times: dict[str, list[float]] = {name: [] for name in cases}
        base: list[float] = []
        for _ in range(opts.runs):
            for name, (argv, _) in cases.items():
                base.append(_wall(baseline_argv, env, root))
                times[name].append(_wall(argv, env, root))
    b = statistics.median(base)
    print(f"machine load {os.getloadavg()[0]:.1f}; {opts.runs} runs each; baseline `python -c pass` "
          f"median {b * 1000:.0f} ms (best {min(base) * 1000:.0f} ms)")
    print(f"{'command':<20} {'median':>8} {'best':>8} {'- baseline':>11} {'ratio':>6}  target (best run)")
    for name, (_argv, targeted) in cases.items():
        m = statistics.median(times[name])
        verdict = ("met" if min(times[name]) <= TARGET_S else "MISSED") if targeted else "(opens the warehouse)"
        print(f"{name:<20} {m * 1000:>6.0f}ms {min(times[name]) * 1000:>6.0f}ms {(m - b) * 1000:>9.0f}ms "
              f"{m / b:>5.1f}x  <= {TARGET_S * 1000:.0f} ms {verdict}")


if __name__ == "__main__":
    main()
