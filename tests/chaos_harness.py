"""Kill -9 at random moments of ingest, Dream, confirm/create_page and purge; compare with a clean run.

Each phase starts from a prepared root, runs its operation in a child process that is killed
after a random delay (drawn from a seeded generator over the operation's measured length),
then reopens the root here, runs the operation again, and compares what the scope holds with a
run that was never interrupted. Used by ``tests/test_chaos.py`` and ``benchmarks/chaos.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import riko
from riko.canon import check_files

PHASES = ("ingest", "dream", "confirm", "purge")
JOURNAL_NAME = "canon-journal.json"
PRESET = "companion"
CONFIG = {"purge_enabled": True, "candidate_auto_confirm": "user_grounded"}
# One invocation's log entry, not a durable effect: a killed run may or may not have written it.
_RUN_LOG_KINDS = {"dream-run"}
_DRINKS = ("green tea", "oolong", "black coffee", "matcha", "hot chocolate", "rooibos", "chai", "espresso")
_TIMES = ("morning", "evening", "afternoon", "night")
_CITIES = ("Lisbon", "Osaka", "Tallinn", "Quito", "Hanoi", "Dakar", "Perth", "Bergen")
_PEOPLE = ("Anna", "Mika", "Jonas", "Leila", "Tomas", "Ines", "Kofi", "Yara")
PURGED = ("s-003", "s-011")
CREATED = ("Chaos garden", "Chaos recipe", "Chaos route")


def write_logs(directory: Path, sessions: int = 12) -> None:
    """riko L0 JSONL logs: each session has distinct user statements the heuristic provider proposes."""
    directory.mkdir(parents=True, exist_ok=True)
    for n in range(sessions):
        sid = f"s-{n:03d}"
        said = [
            f"I prefer {_DRINKS[n % 8]} in the {_TIMES[(n // 8) % 4]} number {n}.",
            f"My friend {_PEOPLE[n % 8]}{n} lives in {_CITIES[(n * 3) % 8]}.",
        ]
        lines, seq = [], 0
        for text in said:
            for role, body in (("user", text), ("assistant", "Noted.")):
                kind = "user" if role == "user" else "model"
                lines.append(json.dumps({
                    "schemaVersion": 1, "sessionId": sid, "seq": seq, "time": 1767000000000 + n * 60_000 + seq,
                    "type": f"{role}/message",
                    "data": {"message": {"role": role, "source": {"kind": kind},
                                         "content": [{"type": "text", "text": body}]}}},
                    separators=(",", ":")))
                seq += 1
        (directory / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _open(root: Path, **config: Any) -> riko.Memory:
    return riko.open(root, preset=PRESET, config={**CONFIG, **config})


def operation(phase: str, root: Path, logs: Path) -> None:
    """The phase's work; running it again after any interruption must reach the same state."""
    if phase == "ingest":
        with _open(root) as mem:
            mem.ingest(logs, preset=PRESET, progress=False, workers=1)
    elif phase == "dream":
        with _open(root) as mem:
            mem.dream(progress=False, workers=1)
    elif phase == "confirm":
        with _open(root, candidate_auto_confirm="off") as mem:
            for cid in sorted(mem.candidates()["id"]):
                mem.confirm(cid)
            titles = set(mem.pages()["title"])
            for title in CREATED:
                if title not in titles:
                    mem.create_page(title, f"{title} body, written by management.")
    elif phase == "purge":
        with _open(root) as mem:
            present = set(mem.sessions()["session_id"])
            for sid in PURGED:
                if sid in present:
                    plan = mem.purge(sid)
                    mem.purge(sid, dry_run=False, confirmation=plan["confirmation"])
    else:
        raise ValueError(f"unknown phase {phase!r}")


def prepare(work: Path) -> dict[str, Path]:
    """The logs and the starting root of every phase, built once under ``work``."""
    logs = work / "logs"
    write_logs(logs)
    bases = {"ingest": work / "base-ingest"}
    bases["ingest"].mkdir(parents=True)
    with _open(bases["ingest"]):
        pass
    bases["dream"] = work / "base-dream"
    shutil.copytree(bases["ingest"], bases["dream"])
    operation("ingest", bases["dream"], logs)
    bases["confirm"] = work / "base-confirm"
    shutil.copytree(bases["dream"], bases["confirm"])
    with _open(bases["confirm"], candidate_auto_confirm="off") as mem:
        mem.dream(progress=False, workers=1)
    bases["purge"] = work / "base-purge"
    shutil.copytree(bases["dream"], bases["purge"])
    operation("dream", bases["purge"], logs)
    return {"logs": logs, **bases}


def _child(phase: str, root: Path, logs: Path) -> subprocess.Popen[str]:
    here = str(Path(__file__).resolve().parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, *filter(None, [os.environ.get("PYTHONPATH")])])}
    code = ("import sys, chaos_harness as c; from pathlib import Path; print('ready', flush=True); "
            f"c.operation({phase!r}, Path({str(root)!r}), Path({str(logs)!r})); print('done', flush=True)")
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def run_child(phase: str, root: Path, logs: Path, kill_after: float | None) -> tuple[bool, float]:
    """Run the phase in a child; SIGKILL it ``kill_after`` seconds after it is ready.

    Returns (killed before it finished, seconds from ready to the end).
    """
    proc = _child(phase, root, logs)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        raise RuntimeError(f"chaos child did not start: {proc.communicate()[1]}")
    started = time.perf_counter()
    if kill_after is None:
        _, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"chaos reference run of {phase} failed: {err}")
        return False, time.perf_counter() - started
    try:
        proc.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    _out, err = proc.communicate(timeout=600)
    killed = proc.returncode == -signal.SIGKILL
    if not killed and proc.returncode != 0:
        raise RuntimeError(f"chaos child of {phase} failed on its own: {err}")
    return killed, time.perf_counter() - started


def leftover_files(*directories: Path) -> list[str]:
    """Hidden temporary files (``.<name>.<...>.tmp``) an interrupted write left behind."""
    return sorted(str(p) for d in directories if d.is_dir() for p in d.rglob(".*.tmp"))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(root: Path) -> dict[str, Any]:
    """What a scope holds, in comparable form (ids minted from the clock are left out)."""
    with _open(root) as mem:
        pages = mem._canon.pages(include_forgotten=True)
        rows = {r[0]: (r[1], r[2]) for r in mem._wh.fetchall(
            "SELECT id, path, file_hash FROM pages WHERE scope_key = ?", [mem.scope.key])}
        wiki = mem.wiki_dir
        files = {p.relative_to(wiki).as_posix(): _sha(p) for p in wiki.rglob("*.md")
                 if p.name != "RESIDENT.md" and not p.name.startswith(".")}
        tracked = {path: digest for path, digest in rows.values() if path}
        cands = mem.candidates(None)
        state = {
            "pages": Counter((p.type, p.title, p.description, p.body, p.status, p.sensitivity, tuple(p.sources),
                              p.version) for p in pages),
            "candidates": Counter(zip(cands["type"], cands["title"], cands["status"])),
            "audits": Counter(k for k in mem.audits()["kind"] if k not in _RUN_LOG_KINDS),
            "evidence": Counter(zip(*(mem.evidence()[c] for c in ("session_id", "seq", "content_hash")))),
            "sessions": sorted(mem.sessions()["session_id"]),
            "corrupt": sorted({*(k for k in files if tracked.get(k) != files[k]),
                               *(k for k in tracked if k not in files),
                               *(str(e) for e in check_files(wiki))}),
            "leftover": leftover_files(wiki, mem.warehouse_dir)
                        + ([JOURNAL_NAME] if (mem.warehouse_dir / JOURNAL_NAME).exists() else []),
        }
    return state


@dataclass
class Tally:
    """Trials of one phase and what went wrong in them (counts of records, not of trials)."""

    phase: str
    trials: int = 0
    killed: int = 0
    lost: int = 0
    duplicated: int = 0
    corrupt: int = 0
    leftover: int = 0
    audit_mismatch: int = 0
    in_flight: int = 0  # kills that left a page transition half done (a journal) for the reopen
    temp_left: int = 0  # temporary files the kills left for the reopen to remove
    failures: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.corrupt or self.leftover or self.audit_mismatch)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("phase", "trials", "killed", "in_flight", "temp_left", "lost",
                                               "duplicated", "corrupt", "leftover", "audit_mismatch")}


def compare(tally: Tally, trial: int, got: dict[str, Any], want: dict[str, Any]) -> None:
    problems = []
    for key in ("pages", "candidates", "evidence"):
        lost = sum((want[key] - got[key]).values())
        extra = sum((got[key] - want[key]).values())
        tally.lost += lost
        tally.duplicated += extra
        if lost or extra:
            problems.append(f"{key}: {lost} lost, {extra} extra")
    lost_sessions = set(want["sessions"]) ^ set(got["sessions"])
    if lost_sessions:
        tally.lost += len(lost_sessions)
        problems.append(f"sessions differ: {sorted(lost_sessions)}")
    if got["audits"] != want["audits"]:
        tally.audit_mismatch += 1
        diff = {k: (got["audits"].get(k, 0), want["audits"].get(k, 0)) for k in set(got["audits"]) | set(want["audits"])
                if got["audits"].get(k, 0) != want["audits"].get(k, 0)}
        problems.append(f"audits (got, want): {diff}")
    tally.corrupt += len(got["corrupt"])
    tally.leftover += len(got["leftover"])
    if got["corrupt"]:
        problems.append(f"corrupt: {got['corrupt'][:3]}")
    if got["leftover"]:
        problems.append(f"leftover: {got['leftover'][:3]}")
    if problems:
        tally.failures.append(f"{tally.phase} trial {trial}: " + "; ".join(problems))


def run_phase(phase: str, bases: dict[str, Path], work: Path, trials: int, seed: int) -> Tally:
    """``trials`` killed runs of ``phase`` (each then reopened and re-run) against one clean run."""
    rng = random.Random(f"{seed}:{phase}")
    logs = bases["logs"]
    reference = work / f"{phase}-reference"
    shutil.copytree(bases[phase], reference)
    _, length = run_child(phase, reference, logs, None)
    operation(phase, reference, logs)  # a trial re-runs once more; so does the reference
    want = snapshot(reference)
    shutil.rmtree(reference)
    tally = Tally(phase)
    for trial in range(trials):
        root = work / f"{phase}-{trial}"
        shutil.copytree(bases[phase], root)
        # the run's length varies with the machine's load: aim inside it, not at its very end
        killed, _ = run_child(phase, root, logs, rng.uniform(0.02, 0.9) * length)
        warehouse = root / "warehouse" / riko.MemoryScope("local", PRESET).storage_key
        tally.in_flight += (warehouse / JOURNAL_NAME).exists()
        tally.temp_left += len(leftover_files(root / "wiki", warehouse))
        operation(phase, root, logs)
        tally.trials += 1
        tally.killed += killed
        compare(tally, trial, snapshot(root), want)
        shutil.rmtree(root)
    return tally
