"""FILE protocol parser benchmark: time grows linearly with blank runs in a model answer.

A broken or hostile answer may hold twelve blocks of up to 30,000 characters each, most of
them blanks. The parser's time on blank runs of growing size n is printed, and its growth
beside the growth of n: equal for a linear parser, the square of it for a quadratic one. A
plain-prose answer of the same size is the baseline measured in the same run.
Usage: ``python benchmarks/file_protocol.py [--sizes 3000,6000,12000,22000] [--runs 9]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from riko.dream.protocol import MAX_BLOCK_CHARS, parse_file_blocks

_PROSE = "the user said they like green tea in the morning and walk the dog at seven. "


def answer(n: int, *, blanks: bool, blocks: int = 12) -> str:
    """Twelve blocks whose body holds ``n`` characters of blanks (or of prose)."""
    filler = (" " * n + "y") if blanks else (_PROSE * (n // len(_PROSE) + 1))[:n]
    lines = [filler, "\t" * (n // 4) + "status: confirmed", "ok"]
    return "\n".join(
        f'<<<FILE path="wiki/concepts/a{i}.md">>>\n---\ntype: concept\ntitle: A{i}\ndescription: B{i}\n---\n'
        + "\n".join(lines) + "\n<<<END>>>" for i in range(blocks))


def seconds(text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        parse_file_blocks(text)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3000,6000,12000,22000")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if max(sizes) * 1.25 + 200 > MAX_BLOCK_CHARS:  # the blank line plus the tab line
        raise SystemExit(f"sizes must keep each block under {MAX_BLOCK_CHARS} characters")
    print("n | blanks ms | prose ms | blanks/prose | blanks(n)/blanks(previous n) | size ratio")
    previous = None
    for n in sizes:
        blank = seconds(answer(n, blanks=True), args.runs)
        prose = seconds(answer(n, blanks=False), args.runs)
        growth = f"{blank / previous[1]:.2f}" if previous else "-"
        ratio = f"{n / previous[0]:.2f}" if previous else "-"
        print(f"{n} | {blank * 1000:.1f} | {prose * 1000:.1f} | {blank / prose:.2f} | {growth} | {ratio}")
        previous = (n, blank)


if __name__ == "__main__":
    main()
