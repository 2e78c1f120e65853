"""Entity pages to read by eye: a seeded sample of the entities Dream would propose on a shared set.

For each set, ``--conversations`` conversations are drawn with the seed; every session goes through
the heuristic provider as Dream runs it (``propose``, then ``ground`` as ``mem.dream`` locates and
checks each page), and every grounded fact's words give the entities Dream proposes for it
(``riko.review.entities.named_entities`` with the scope's words, what
``riko.dream.proposals.with_entities`` files as entity candidates; the user's own page left out, a
multi-party speaker's page kept). The pool is
the distinct ``(conversation, entity)`` pairs, each with the first fact that names it; ``--n`` of
them are drawn with the seed and printed as ``set | conversation | title | kind | aliases | line``.
No warehouse, admission or consolidation: a pair is an entity candidate, whether or not a fact
naming it is admitted.

Run: ``PYTHONPATH=. nice python benchmarks/entity_sample.py --scratch /tmp/ds --datasets realmem,beam
--seed 7 [--conversations 10] [--n 50] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from dream_quality import transcript_of  # noqa: E402

from riko.dream.grounding import ground  # noqa: E402
from riko.dream.heuristic import HeuristicProvider  # noqa: E402
from riko.evaluation.datasets import load_dataset  # noqa: E402
from riko.evaluation.dream_quality import _multi_party  # noqa: E402
from riko.language.atoms import multi_party  # noqa: E402
from riko.language.vocabulary import Vocabulary  # noqa: E402
from riko.review.consolidate import normalize_claim  # noqa: E402
from riko.review.entities import SELF_KIND, named_entities  # noqa: E402

DATASETS = ("realtalk", "realmem", "memdaily", "beam")


def pool(folder: Path, conversations: list[str]) -> list[dict[str, str]]:
    """The distinct ``(conversation, entity)`` pairs Dream proposes over ``conversations``."""
    provider = HeuristicProvider()
    data = load_dataset(folder, conversations=conversations)
    out: list[dict[str, str]] = []
    for name, conv in data.conversations.items():
        multi = _multi_party(conv)
        seen: set[str] = set()
        transcripts = [transcript_of(session, multi)[0] for session in conv.sessions]
        # one conversation is one memory scope, ingested whole before Dream runs: the scope's words
        # are every session's user and assistant lines, as Review.scope_words reads them
        words = Vocabulary()
        for transcript in transcripts:
            words.add((line.role, line.text) for line in transcript.lines)
        for transcript in transcripts:
            multi_session = multi_party(line.text for line in transcript.lines if line.role == "user")
            for page in provider.propose(transcript).pages:
                if page.type == "entity" or not page.title.strip():
                    continue
                if not ground(page.title, page.description, page.body, page.turns, transcript.lines,
                              quote=page.quote).supported:
                    continue
                said = page.description or page.title
                for e in named_entities(said, multi_party=multi_session, session=words):
                    key = normalize_claim(e.name)
                    if e.kind == SELF_KIND or not key or key in seen:
                        continue
                    seen.add(key)
                    out.append({"conversation": name, "title": e.name, "kind": e.kind,
                                "aliases": ", ".join(e.aliases), "line": said})
    return out


def conversations_of(folder: Path, count: int, seed: int) -> list[str]:
    names = sorted(p.name for p in (folder / "sessions").iterdir() if p.is_dir())
    return names if count <= 0 or count >= len(names) else sorted(random.Random(seed).sample(names, count))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scratch", default="/tmp/ds", help="folder of the extracted sets")
    parser.add_argument("--datasets", default="realmem,beam", help="comma-separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--conversations", type=int, default=10, help="conversations a set (0: all)")
    parser.add_argument("--n", type=int, default=50, help="pairs to draw a set")
    parser.add_argument("--json", default=None, help="write the pools and samples here")
    args = parser.parse_args()
    dump = {}
    for name in (d.strip() for d in args.datasets.split(",") if d.strip()):
        if name not in DATASETS:
            raise SystemExit(f"unknown dataset {name!r}; expected {', '.join(DATASETS)}")
        folder = Path(args.scratch) / name
        convs = conversations_of(folder, args.conversations, args.seed)
        pairs = pool(folder, convs)
        sample = random.Random(args.seed).sample(pairs, min(args.n, len(pairs)))
        print(f"## {name}: {len(convs)} conversations, pool {len(pairs)}, sample {len(sample)} (seed {args.seed})")
        for i, p in enumerate(sample, 1):
            line = " ".join(p["line"].split())
            print(f"{i:2d} | {p['conversation']} | {p['title']} | {p['kind']} | {p['aliases']} | {line[:160]}")
        print(flush=True)
        dump[name] = {"conversations": convs, "pool": pairs, "sample": sample}
    if args.json:
        Path(args.json).write_text(json.dumps(dump, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
