"""Dream on long lines of odd shape: CPU seconds of the heuristic's extraction on one user line
of each shape, beside a line of ordinary prose of the same length in the same run.

Run: ``python benchmarks/long_lines.py [--chars 20000]``

A pasted log, a block of blank lines or a quoted mail can put a run of thousands of spaces, tabs,
line breaks or quote marks in one message. A pattern tried from every position of such a run
costs the square of its length; the target is that no shape costs more than ten times the prose
line of its length.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import riko.language  # noqa: E402
from riko.dream.heuristic import HeuristicProvider  # noqa: E402
from riko.dream.transcript import Transcript, TranscriptLine  # noqa: E402

PROSE = "I moved to Lisbon last spring and my sister Lena visits every month. "


def shapes(chars: int) -> dict[str, tuple[str, str]]:
    """``{name: (role, text)}``: one line of each shape, about ``chars`` long."""
    return {
        "prose": ("user", (PROSE * (chars // len(PROSE) + 1))[:chars]),
        "a run of spaces": ("user", "I love tea" + " " * chars + "and coffee."),
        "blank lines": ("user", "I love tea\n" + "\t \n" * (chars // 3) + "I live in Lisbon."),
        "line breaks": ("user", "I love tea" + "\n" * chars + "I live in Lisbon."),
        "quote marks": ("user", "> " * (chars // 2) + "I live in Lisbon."),
        "words, no full stop": ("user", "word " * (chars // 5)),
        "a reply that asks nothing": ("assistant", "word " * (chars // 5)),
    }


#: What the language modules cache, forgotten before each line so every line is read from scratch.
CACHES = [value for info in pkgutil.iter_modules(riko.language.__path__, "riko.language.")
          for value in vars(importlib.import_module(info.name)).values() if callable(getattr(value, "cache_clear", None))]


def _cold() -> None:
    for cached in CACHES:
        cached.cache_clear()


def cpu(role: str, text: str, provider: HeuristicProvider) -> float:
    _cold()
    lines = (TranscriptLine(1, role, text),) if role == "user" else (
        TranscriptLine(1, role, text), TranscriptLine(2, "user", "Angels Landing!"))
    started = time.process_time()
    provider.extract(Transcript("bench", lines))
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=20_000, help="length of each line (default 20,000)")
    args = parser.parse_args()
    if args.chars < 100:
        parser.error(f"--chars must be at least 100 (got {args.chars}): shorter lines have no run worth timing")
    provider = HeuristicProvider()
    lines = shapes(args.chars)
    base = max(cpu(*lines["prose"], provider), 1e-4)
    print(f"{'shape':28s} {'CPU s':>8s} {'/ prose':>8s}")
    worst = 0.0
    for name, (role, text) in lines.items():
        seconds = cpu(role, text, provider)
        worst = max(worst, seconds / base)
        print(f"{name:28s} {seconds:8.3f} {seconds / base:8.1f}")
    print(f"worst ratio {worst:.1f}   target <= 10")


if __name__ == "__main__":
    main()
