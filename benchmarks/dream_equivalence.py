"""Dream equivalence dump: what Dream leaves, every row and file, for comparing two trees.

Runs Dream with a fixed clock and the heuristic provider on the sample logs
(``riko.evaluation.samples.generate_samples``), ``benchmarks/dream.py``'s generated sessions and
the first sessions of the public conversation sets found under ``--datasets`` (RealMem,
REALTALK, MemDaily in the shared layout), each under ``candidate_auto_confirm`` off,
user_grounded and all. Every table a Dream run writes (candidates, pages, page versions,
aliases, conflicts, audits, profiles, projections, jobs, …) is dumped row by row, sorted, with
run ids and temporary paths masked, beside the SHA-256 of every file under the scope's root.
Run it with each tree on ``PYTHONPATH`` and compare the two dumps byte for byte.

Usage: ``PYTHONPATH=. python benchmarks/dream_equivalence.py OUT [--datasets /tmp/ds] [--quick]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import duckdb

import riko
from riko.clock import FixedClock
from riko.evaluation.datasets import load_dataset
from riko.evaluation.dream_quality import _l0_lines, _multi_party
from riko.evaluation.samples import generate_samples

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dream as bench  # noqa: E402  (the benchmark's session generator)

_RUN = re.compile(r"\b\d+-[0-9a-f]{8}\b")
TABLES = ("candidates", "pages", "page_versions", "aliases", "conflicts", "audits", "profiles", "projections",
          "jobs", "settings", "observations", "suppressions")
POLICIES = ("off", "user_grounded", "all")


def dataset_logs(directory: Path, dest: Path, sessions: int) -> list[Path]:
    """The first ``sessions`` sessions of a dataset folder as L0 logs (as ``riko eval dream`` writes them)."""
    data = load_dataset(directory, max_conversations=3)
    paths: list[Path] = []
    for conv in data.conversations.values():
        multi = _multi_party(conv)
        for session in conv.sessions:
            if len(paths) >= sessions:
                return paths
            path = dest / f"{len(paths):04d}.jsonl"
            path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n"
                                    for line in _l0_lines(session.turns, multi)), encoding="utf-8")
            paths.append(path)
    return paths


def dump(root: Path, logs_dir: Path) -> list[str]:
    """Every row of every table (sorted) and every file's hash under ``root`` (``logs_dir`` masked)."""
    lines: list[str] = []
    for db in sorted(root.glob("warehouse/*/riko.duckdb")):
        con = duckdb.connect(str(db), read_only=True)
        try:
            have = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
            for table in TABLES:
                if table not in have:
                    continue
                rows = con.execute(f"SELECT * FROM {table}").fetchall()
                cols = [d[0] for d in con.description]
                encoded = sorted(_RUN.sub("RUN", json.dumps(dict(zip(cols, r)), default=str, ensure_ascii=False,
                                                            sort_keys=True)).replace(str(logs_dir), "LOGS")
                                 for r in rows)
                lines.append(f"## {db.parent.name} {table} {len(encoded)}")
                lines.extend(encoded)
        finally:
            con.close()
    for path in sorted(p for p in root.rglob("*") if p.is_file()
                       and p.relative_to(root).parts[0] not in ("warehouse", "logs")):
        lines.append(f"FILE {path.relative_to(root)} {hashlib.sha256(path.read_bytes()).hexdigest()}")
    return lines


def run(name: str, logs: Any, presets: list[str], policy: str, counts: dict[str, int], logs_dir: Path) -> list[str]:
    work = Path(tempfile.mkdtemp(prefix="riko-equiv-"))
    try:
        for preset in presets:
            config = {"dream_provider": "heuristic", "candidate_auto_confirm": policy, "embedding_provider": "off"}
            with riko.open(work, preset=preset, clock=FixedClock("2026-03-01T12:00:00Z"), config=config) as mem:
                mem.ingest(logs, preset=None if name == "samples" else preset, progress=False)
                mem.dream(progress=False, workers=1)
        lines = [f"# {name} {policy}", *dump(work, logs_dir)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for line in lines:
        if line.startswith("## "):
            _, _, table, n = line.split()
            counts[table] = counts.get(table, 0) + int(n)
    counts["files"] = counts.get("files", 0) + sum(line.startswith("FILE ") for line in lines)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--datasets", type=Path, default=Path("/tmp/ds"), help="extracted realmem/realtalk/memdaily")
    ap.add_argument("--quick", action="store_true", help="60 generated and 8 dataset sessions")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="equiv-logs-"))
    try:
        sets: list[tuple[str, Any, list[str]]] = []
        generate_samples(base / "samples")
        sets.append(("samples", base / "samples", ["companion", "work"]))
        bench.write_logs(base / "bench", 60 if args.quick else 200)
        sets.append(("bench", base / "bench", [bench.PRESET]))
        for name in ("realmem", "realtalk", "memdaily"):
            if (args.datasets / name).is_dir():
                (base / name).mkdir()
                sets.append((name, dataset_logs(args.datasets / name, base / name, 8 if args.quick else 30), ["dsx"]))
        lines: list[str] = []
        counts: dict[str, int] = {}
        for name, logs, presets in sets:
            for policy in POLICIES:
                lines += run(name, logs, presets, policy, counts, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    text = "\n".join(lines)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(json.dumps(counts), hashlib.sha256(text.encode()).hexdigest())


if __name__ == "__main__":
    main()
