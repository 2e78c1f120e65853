"""Derive once: the offline Dream's proposals handed over as fields equal its FILE text parsed back.

Every session of the shared conversation sets goes through the heuristic provider both ways:
``propose`` (riko's Dream path: facts derived once, bounded by the protocol's own checks) and
``parse_file_blocks(extract(...))`` (the text a model would answer, parsed back). Each pair of
proposals must be equal field by field (the dataclasses compare every field); the script prints
the sessions and pages compared, every mismatch, and the time of both paths with their ratio.

Run: ``PYTHONPATH=. nice python benchmarks/derive_once.py --scratch /tmp/ds
[--datasets realtalk,realmem,memdaily,beam] [--every-conversations memdaily=10]``; exit 1 on any
mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from dream_quality import transcript_of  # noqa: E402
from retrieval_real import extract  # noqa: E402

from riko.dream import protocol  # noqa: E402
from riko.dream.heuristic import HeuristicProvider  # noqa: E402
from riko.errors import ProviderError  # noqa: E402
from riko.evaluation.datasets import load_dataset  # noqa: E402
from riko.evaluation.dream_quality import _multi_party  # noqa: E402

DATASETS = ("realtalk", "realmem", "memdaily", "beam")


def _text_path(provider: HeuristicProvider, transcript) -> object:  # type: ignore[no-untyped-def]
    try:
        return protocol.parse_file_blocks(provider.extract(transcript), max_pages=provider.page_limit(transcript),
                                          allow_empty=True)
    except ProviderError as exc:
        return ("error", exc.reason, str(exc))


def _field_path(provider: HeuristicProvider, transcript) -> object:  # type: ignore[no-untyped-def]
    try:
        return provider.propose(transcript)
    except ProviderError as exc:
        return ("error", exc.reason, str(exc))


def compare(name: str, folder: Path, every: int) -> tuple[int, int, list[str], float, float]:
    """Sessions and pages compared, the mismatches, and the seconds of the text and field paths."""
    data = load_dataset(folder)
    provider = HeuristicProvider()
    sessions = pages = 0
    mismatches: list[str] = []
    text_s = field_s = 0.0
    for number, conv in enumerate(data.conversations.values()):
        if every > 1 and number % every:
            continue
        multi = _multi_party(conv)
        for session in conv.sessions:
            transcript, _ = transcript_of(session, multi)
            protocol._parse_block.cache_clear()  # each session parses its own blocks, as one Dream call does
            started = time.process_time()
            parsed = _text_path(provider, transcript)
            text_s += time.process_time() - started
            started = time.process_time()
            direct = _field_path(provider, transcript)
            field_s += time.process_time() - started
            sessions += 1
            pages += len(getattr(direct, "pages", ()))
            if parsed != direct:
                mismatches.append(f"{name} {conv.name} {session.name}")
    return sessions, pages, mismatches, text_s, field_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/riko-datasets"))
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--every-conversations", default="", help="e.g. memdaily=10: every 10th conversation")
    args = parser.parse_args()
    every = {k: int(v) for k, v in (p.split("=") for p in args.every_conversations.split(",") if p)}
    print("| set | sessions | pages | mismatches | text path CPU s | field path CPU s | text / field |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    failed = []
    for name in [d for d in args.datasets.split(",") if d]:
        folder = extract(args.shared / f"{name}.tar.zst", args.scratch)
        sessions, pages, mismatches, text_s, field_s = compare(name, folder, every.get(name, 1))
        failed += mismatches
        print(f"| {name} | {sessions:,} | {pages:,} | {len(mismatches)} | {text_s:.1f} | {field_s:.1f} | "
              f"{text_s / max(field_s, 1e-9):.2f} |", flush=True)
    for line in failed[:20]:
        print("mismatch:", line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
