"""Memory quality on the public sets: what Dream extracts, scored against the sets' gold memories.

Run: ``python benchmarks/dream_quality.py [--datasets realmem,realtalk,memdaily] [--provider heuristic]
[--check] [--e5] [--out DIR]``.

Every dataset runs through :func:`riko.evaluation.dream_quality.run_dream_quality`: one fresh
scope per conversation, the real Dream, every proposal mapped to the turns it cites and scored
with the fact-level rule beside the two trivial baselines (every first-person sentence; every
whole non-assistant turn) in the same run. RealMem reports its User and Assistant points apart;
REALTALK scores the authors' per-session events; MemDaily (3,000 short conversations) keeps a
fixed subset by default, the first 10 conversations of each of its 26 groups.

The archives ``../shared/datasets/*.tar.zst`` are extracted once into ``--scratch`` and never
enter the repository. ``--check`` writes the reference-scorer folder of each set and runs
``../shared/datasets/score_memories.py`` on every system's proposals, printing both figures
side by side (MemDaily's Chinese needs the CJK bigrams the reference does not have, so it is
not checked).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from riko.evaluation.dream_quality import run_dream_quality  # noqa: E402

DATASETS = ("realmem", "realtalk", "memdaily")
GOLD = {"realmem": "memories.jsonl", "realtalk": "session_events.jsonl", "memdaily": "queries.jsonl"}
MEMDAILY_PER_GROUP = 10
_DONE = ".extracted"
_REF = re.compile(r"fact_recall=([\d.]+) precision=([\d.]+) f1=([\d.]+) proposals_per_100_turns=([\d.]+)")


def extract(archive: Path, scratch: Path, gold: str) -> Path:
    """``<scratch>/<name>/`` from ``<name>.tar.zst``, extracted unless it already holds the gold file."""
    import zstandard

    name = archive.name.removesuffix(".tar.zst")
    target = scratch / name
    if (target / gold).is_file() and (target / "sessions").is_dir():
        return target  # extracted before (by this script or by hand)
    scratch.mkdir(parents=True, exist_ok=True)
    with archive.open("rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as stream, \
            tarfile.open(fileobj=stream, mode="r|") as tar:
        tar.extractall(scratch, filter="data")
    if not (target / gold).is_file():
        raise SystemExit(f"{archive} did not hold {name}/{gold}")
    (target / _DONE).write_text(time.strftime("%Y-%m-%dT%H:%M:%S"), encoding="utf-8")
    return target


def memdaily_subset(folder: Path, per_group: int) -> list[str]:
    """The first ``per_group`` conversations (by number) of every MemDaily group."""
    out = []
    for conv in sorted(p.name for p in (folder / "sessions").iterdir() if p.is_dir()):
        group, _, number = conv.rpartition("-")
        if number.isdigit() and int(number) < per_group:
            out.append(conv)
    return out


def check(report, folder: Path, scorer: Path) -> list[str]:  # type: ignore[no-untyped-def]
    """Run the reference scorer on every system's proposals; one line per system and group."""
    report.write_reference(folder)
    lines = []
    for group, systems in report.scores.items():
        role = group if report.kind == "memories" else "User"
        for system, sc in systems.items():
            out = subprocess.run([sys.executable, str(scorer), str(folder), str(folder / f"{system}.jsonl"),
                                  "--role", role], capture_output=True, text=True, check=True).stdout
            match = _REF.search(out)
            ref = tuple(float(x) for x in match.groups()) if match else None
            ours = (round(sc.recall, 3), round(sc.precision, 3), round(sc.f1, 3), round(sc.per_100_turns, 1))
            verdict = "agree" if ref == ours else "DIFFER"
            lines.append(f"  {report.dataset} {group} {system}: riko {ours} reference {ref} -> {verdict}")
    return lines


def markdown(reports: list) -> str:  # type: ignore[type-arg]
    rows = ["| set | gold | system | gold points | fact recall | precision | F1 | proposals / 100 turns | "
            "median words |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in reports:
        for group, systems in r.scores.items():
            for system, sc in systems.items():
                rows.append(f"| {r.dataset} | {group} | {system} | {sc.gold:,} | {sc.recall:.3f} | {sc.precision:.3f} | "
                            f"{sc.f1:.3f} | {sc.per_100_turns:.1f} | {sc.median_words:g} |")
    rows += ["", "| set | fact proposals | near-duplicates | with a link | linked to an entity page | entity pages | "
                 "isolated nodes | Resident fill | Dream s | sessions/s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in reports:
        st, s = r.structure, r.setup
        rows.append(f"| {r.dataset} | {st['fact_proposals']:,} | {st['near_duplicate_share']:.3f} | "
                    f"{st['linked_share']:.3f} | {st['entity_linked_share']:.3f} | {st['entity_pages']} | "
                    f"{st['isolated_share']:.3f} | {st['resident_fill_mean']:.3f} | {s['dream_seconds']:.1f} | "
                    f"{s['sessions_per_second']:.0f} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default all three)")
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "datasets"), help="folder of the archives")
    parser.add_argument("--scratch", default="/tmp/riko-datasets", help="extraction folder (reused)")
    parser.add_argument("--provider", default="heuristic", help="Dream provider (default heuristic)")
    parser.add_argument("--memdaily-per-group", type=int, default=MEMDAILY_PER_GROUP,
                        help=f"MemDaily conversations per group (default {MEMDAILY_PER_GROUP}; 0: all 3,000)")
    parser.add_argument("--max-conversations", type=int, default=None, help="cap every set (quick runs)")
    parser.add_argument("--e5", action="store_true", help="near-duplicates by e5 embeddings")
    parser.add_argument("--vector-cache", default=None, help="passage-vector cache for --e5")
    parser.add_argument("--check", action="store_true", help="compare every figure with the reference scorer")
    parser.add_argument("--out", default=None, metavar="DIR", help="write <set>.json per-proposal records here")
    args = parser.parse_args()
    shared, scratch = Path(args.shared), Path(args.scratch)
    chosen = [d.strip() for d in args.datasets.split(",") if d.strip()]
    reports, checks = [], []
    for name in chosen:
        if name not in DATASETS:
            raise SystemExit(f"unknown dataset {name!r}; expected {', '.join(DATASETS)}")
        folder = extract(shared / f"{name}.tar.zst", scratch, GOLD[name])
        conversations = None
        if name == "memdaily" and args.memdaily_per_group:
            conversations = memdaily_subset(folder, args.memdaily_per_group)
        report = run_dream_quality(folder, provider=args.provider, conversations=conversations,
                                   max_conversations=args.max_conversations, e5=args.e5,
                                   vector_cache=args.vector_cache)
        print(report.text(), flush=True)
        print(flush=True)
        reports.append(report)
        if args.out:
            report.write_json(Path(args.out) / f"{name}.json")
        if args.check and not report.setup["cjk_bigrams"]:
            target = Path(args.out or scratch / "reference") / f"{name}-reference"
            checks += check(report, target, shared / "score_memories.py")
    print(markdown(reports))
    if checks:
        print("\nreference scorer (fact recall, precision, F1, proposals / 100 turns):")
        print("\n".join(checks))
    if args.out:
        summary = {r.dataset: r.to_dict() for r in reports}
        (Path(args.out) / "summary.json").write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
