"""A random sample of the facts the heuristic Dream proposes, to read by eye.

Run: ``python benchmarks/proposal_sample.py --scratch /tmp/ds [--seed 1] [--conversations 6]
[--per-set 15] [--datasets realmem,realtalk,memdaily,beam] [--json]``

The automatic label of ``dream_quality.py`` counts a fact as precise when it shares words with
the gold; it cannot tell a memory ("I'm a nurse in Houston") from a line about the work in hand
that names the same things ("I'm ready to dive into the sales data"). This script prints what a
reader judges instead: for each set, ``--conversations`` conversations picked at random with
``--seed``, every session read as Dream reads it (the provider's windows, then
:func:`riko.dream.heuristic.transcript_facts`, which scores the facts and keeps those
:func:`riko.dream.selection.choose` keeps), and ``--per-set`` of the chosen facts drawn by a hash of
the seed and the fact (so a change that only drops facts draws the same ones again, less those):
set, conversation, the fact, the statement its page shows (when it differs), and the line it
came from. The sets are read from the folders ``dream_quality.py`` extracts into ``--scratch``;
nothing is written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from dream_quality import DATASETS, Extraction  # noqa: E402

from riko.dream.heuristic import HeuristicProvider, transcript_facts  # noqa: E402


def sample(folder: Path, conversations: int, per_set: int, seed: int) -> list[dict[str, str]]:
    """``per_set`` facts Dream proposes over ``conversations`` random conversations of a set."""
    rng = random.Random(f"{seed}:{folder.name}")
    names = sorted(p.name for p in (folder / "sessions").iterdir() if p.is_dir() and not p.name.startswith("."))
    picked = sorted(rng.sample(names, min(conversations, len(names))))
    provider = HeuristicProvider()
    chosen = []
    for conv, transcript, _ in Extraction(folder, picked).sessions():
        for window in transcript.windows(provider.max_transcript_chars):
            lines = {line.seq: line.text for line in window.lines}
            chosen += [{"set": folder.name, "conversation": conv, "session": transcript.session_id,
                        "fact": fact.text, "statement": fact.statement or fact.text, "line": lines[seq]}
                       for seq, fact in transcript_facts(window)]
    # drawn by a hash of seed and fact, not by position: a change that only drops facts draws the
    # same facts again, less the dropped ones, so two trees compare fact for fact
    def draw(row: dict[str, str]) -> str:
        return hashlib.sha256(f"{seed}\0{row['conversation']}\0{row['fact']}".encode()).hexdigest()
    # a fact a conversation proposes in several sessions is drawn once, not once per session
    distinct = list({(row["conversation"], row["fact"]): row for row in chosen}.values())
    return sorted(distinct, key=draw)[:per_set]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch", default="/tmp/riko-datasets", help="folder of the extracted sets")
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default all four)")
    parser.add_argument("--conversations", type=int, default=6, help="random conversations per set")
    parser.add_argument("--per-set", type=int, default=15, help="random chosen facts printed per set")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object per fact")
    args = parser.parse_args()
    number = 0
    for name in (d.strip() for d in args.datasets.split(",") if d.strip()):
        for row in sample(Path(args.scratch) / name, args.conversations, args.per_set, args.seed):
            number += 1
            if args.json:
                print(json.dumps(row, ensure_ascii=False))
            else:
                line = " ".join(row["line"].split())
                stated = "" if row["statement"] == row["fact"] else f"\n      page: {row['statement']}"
                print(f"{number:3d} [{row['set']} {row['conversation']}] {row['fact']}{stated}\n"
                      f"      line: {line[:300]}{'…' if len(line) > 300 else ''}")


if __name__ == "__main__":
    main()
