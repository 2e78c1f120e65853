"""Retrieval on the four public conversation sets: riko beside stemmed bm25s, e5 and their RRF.

Run: ``python benchmarks/retrieval_real.py [--datasets realtalk,realmem,beam,memdaily]
[--no-dense] [--vector-cache DIR] [--max-conversations beam=3] [--every-conversations memdaily=10]
[--conversations realmem=Kenta_Tanaka] [--data DIR]``.

The archives ``../shared/datasets/*.tar.zst`` (beside the checkout) are extracted once into a
scratch folder (``--scratch``, reused when present) and never enter the repository. Every
dataset runs through :func:`riko.evaluation.datasets.run_dataset`, so all systems rank the same
questions in the same run, and one table prints every dataset x system with its differences
to bm25s and rrf. Embedding is the slow part (e5: ~30 short passages/s per core, far fewer
for BEAM's ~2,000-character turns), so passage vectors go through the disk cache
(``--vector-cache``), and BEAM is cut by default to its 3 smallest conversations
(``--max-conversations beam=N``; ``beam=0`` runs all 64, hours with e5). A fixed subset can
also be named (``--conversations realmem=A,B``) or taken as the first N in natural order
(``--first-conversations beam=3``), or every Nth in natural order (``--every-conversations
memdaily=10``: 300 of 3,000, every category); ``--data DIR`` reads already extracted folders
``DIR/<dataset>/`` instead of the archives. ``--systems riko,riko+fast,riko+e5`` adds riko with the
embedded ``local-fast`` model (USE) beside riko with e5 in the same run (never in the default set).
"""

from __future__ import annotations

import argparse
import json
import sys
import tarfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from riko.evaluation.datasets import SYSTEMS, run_dataset  # noqa: E402
from riko.evaluation.datasets_table import COLUMNS, render, summary_table  # noqa: E402

DATASETS = ("realtalk", "realmem", "beam", "memdaily")
#: Conversations kept per dataset by default (smallest first); None keeps all.
DEFAULT_CAPS: dict[str, int | None] = {"beam": 3}
_DONE = ".extracted"


def extract(archive: Path, scratch: Path) -> Path:
    """``<scratch>/<name>/`` from ``<name>.tar.zst``, extracted once (a marker records completion)."""
    import zstandard

    name = archive.name.removesuffix(".tar.zst")
    target = scratch / name
    if (target / _DONE).is_file():
        return target
    scratch.mkdir(parents=True, exist_ok=True)
    with archive.open("rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as stream, \
            tarfile.open(fileobj=stream, mode="r|") as tar:
        tar.extractall(scratch, filter="data")
    if not (target / "queries.jsonl").is_file():
        raise SystemExit(f"{archive} did not hold {name}/queries.jsonl")
    (target / _DONE).write_text(time.strftime("%Y-%m-%dT%H:%M:%S"), encoding="utf-8")
    return target


def smallest(folder: Path, count: int) -> list[str]:
    """The ``count`` conversations with the fewest bytes of turns (ties by name)."""
    sizes = {c.name: sum(f.stat().st_size for f in c.glob("*.jsonl")) for c in (folder / "sessions").iterdir()
             if c.is_dir()}
    return sorted(sizes, key=lambda name: (sizes[name], name))[:count]


def parse_caps(values: list[str]) -> dict[str, int | None]:
    caps = dict(DEFAULT_CAPS)
    for value in values:
        name, _, number = value.partition("=")
        if name not in DATASETS or not number.isdigit():
            raise SystemExit(f"--max-conversations takes DATASET=N with DATASET in {', '.join(DATASETS)}, got {value!r}")
        caps[name] = int(number) or None
    return caps


def parse_named(values: list[str], flag: str) -> dict[str, str]:
    """``DATASET=VALUE`` pairs of a repeatable flag."""
    out: dict[str, str] = {}
    for value in values:
        name, _, rest = value.partition("=")
        if name not in DATASETS or not rest.strip():
            raise SystemExit(f"{flag} takes DATASET=VALUE with DATASET in {', '.join(DATASETS)}, got {value!r}")
        out[name] = rest.strip()
    return out


def natural_names(folder: Path) -> list[str]:
    """The conversation folders in the loader's natural order."""
    from riko.evaluation.datasets import _natural_key

    return sorted((c.name for c in (folder / "sessions").iterdir() if c.is_dir() and not c.name.startswith(".")),
                  key=_natural_key)


def choose_conversations(name: str, folder: Path, caps: dict[str, int | None], named: dict[str, str],
                         first: dict[str, str], every: dict[str, str]) -> tuple[list[str] | None, str | None]:
    """The conversations of ``name`` this run keeps (None: all) and a note saying which."""
    total = len(natural_names(folder))
    if name in named:
        chosen = [c.strip() for c in named[name].split(",") if c.strip()]
        return chosen, f"{name}: the {len(chosen)} named of {total} conversations ({', '.join(chosen)})"
    if name in first:
        if not first[name].isdigit() or int(first[name]) < 1:
            raise SystemExit(f"--first-conversations {name}= takes a positive count, got {first[name]!r}")
        chosen = natural_names(folder)[:int(first[name])]
        return chosen, (f"{name}: the first {len(chosen)} of {total} conversations in natural order "
                        f"({chosen[0]} .. {chosen[-1]})")
    if name in every:
        if not every[name].isdigit() or int(every[name]) < 1:
            raise SystemExit(f"--every-conversations {name}= takes a positive step, got {every[name]!r}")
        chosen = natural_names(folder)[::int(every[name])]
        return chosen, (f"{name}: every {every[name]}th of {total} conversations in natural order, "
                        f"{len(chosen)} ({chosen[0]}, {chosen[1] if len(chosen) > 1 else ''}, ..)")
    if caps.get(name):
        chosen = smallest(folder, caps[name])  # type: ignore[arg-type]
        shown = ", ".join(chosen[:5]) + (", ..." if len(chosen) > 5 else "")
        return chosen, (f"{name}: the {len(chosen)} smallest of {total} conversations ({shown}); "
                        f"--max-conversations {name}=0 runs all")
    return None, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default all four)")
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "datasets"), help="folder of the archives")
    parser.add_argument("--scratch", default="/tmp/riko-datasets", help="extraction folder (reused)")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated systems")
    parser.add_argument("--no-dense", action="store_true", help="lexical systems only (no e5)")
    parser.add_argument("--vector-cache", default=None, help="passage-vector cache (default ~/.cache/riko/vectors)")
    parser.add_argument("--max-conversations", action="append", default=[], metavar="DATASET=N",
                        help="keep the N smallest conversations of DATASET (0: all); default beam=3")
    parser.add_argument("--first-conversations", action="append", default=[], metavar="DATASET=N",
                        help="keep the first N conversations of DATASET in natural order")
    parser.add_argument("--every-conversations", action="append", default=[], metavar="DATASET=N",
                        help="keep every Nth conversation of DATASET in natural order (the first, the N+1st, ..)")
    parser.add_argument("--conversations", action="append", default=[], metavar="DATASET=A,B",
                        help="keep the named conversations of DATASET")
    parser.add_argument("--data", default=None, metavar="DIR",
                        help="already extracted dataset folders DIR/<dataset>/ (instead of the archives)")
    parser.add_argument("--limit", type=int, default=None, help="first N ranked questions per dataset")
    parser.add_argument("--questions", action="append", default=[], metavar="DATASET=N",
                        help="first N ranked questions of DATASET (in file order; overrides --limit there)")
    parser.add_argument("--json", default=None, metavar="DIR", help="write <DIR>/<dataset>.json per-question records")
    args = parser.parse_args()

    caps = parse_caps(args.max_conversations)
    named = parse_named(args.conversations, "--conversations")
    first = parse_named(args.first_conversations, "--first-conversations")
    every = parse_named(args.every_conversations, "--every-conversations")
    questions = parse_named(args.questions, "--questions")
    if any(not v.isdigit() for v in questions.values()):
        raise SystemExit(f"--questions takes DATASET=N, got {args.questions}")
    chosen = [d.strip() for d in args.datasets.split(",") if d.strip()]
    shared = Path(args.shared)
    rows: list[list[str]] = []
    notes = []
    for name in chosen:
        if args.data:
            folder = Path(args.data) / name
            if not (folder / "queries.jsonl").is_file():
                raise SystemExit(f"no {folder}/queries.jsonl; --data takes the folder holding <dataset>/")
        else:
            archive = shared / f"{name}.tar.zst"
            if not archive.is_file():
                raise SystemExit(f"no archive {archive}; pass --shared DIR")
            folder = extract(archive, Path(args.scratch))
        conversations, note = choose_conversations(name, folder, caps, named, first, every)
        if note:
            notes.append(note)
        started = time.perf_counter()
        limit = int(questions[name]) if name in questions else args.limit
        if name in questions:
            notes.append(f"{name}: the first {limit} ranked questions in file order")
        report = run_dataset(folder, systems=args.systems.split(","), dense=not args.no_dense, limit=limit,
                             conversations=conversations, vector_cache=args.vector_cache)
        setup = report.setup
        print(f"{name}: {setup['ranked']} questions ({setup['abstentions']} abstentions not ranked), "
              f"{setup['conversations']} conversations, {setup['turns']} turns, {setup['embedded_passages']} "
              f"passages embedded, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        table = summary_table(report.summary(), prefix=[("dataset", name)])
        rows.extend(table[1:] if rows else table)
        if args.json:
            report.write_json(Path(args.json) / f"{name}.json")
    print(render(rows))
    for note in notes:
        print(note)
    print(f"metrics: {', '.join(COLUMNS)}; 'vs' rows are differences (latency: ratios) to that baseline in the "
          f"same run; systems: {args.systems}{' (dense skipped)' if args.no_dense else ''}")
    if args.json:
        print(f"per-question records: {json.dumps(str(Path(args.json)))}")


if __name__ == "__main__":
    main()
