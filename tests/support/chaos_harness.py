"""Kill -9 and injected I/O faults in ingest, Dream, confirm/create_page, purge and sync of hand edits.

Each phase starts from a prepared root and runs its operation in a child process, which is
either killed after a random delay (drawn from a seeded generator over the operation's measured
length) or given one injected fault (``riko.faults``: ENOSPC / EIO on a write, a failed fsync or
rename, a failed commit) at a chosen pass through one write point. Then the root is reopened
here, the operation run again, and what the scope holds compared with a run that was never
interrupted. Children are forked from one process that imported riko once (a "zygote"), so a
trial costs the operation, not an interpreter start. Used by ``tests/stores/test_chaos.py`` and
``benchmarks/chaos.py``.
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
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import riko
from riko.stores.locks import FileLock
from riko.wiki.canon import check_files

PHASES = ("ingest", "dream", "confirm", "purge", "sync")
# where a transition writes, and how each write can fail
FAULT_POINTS = tuple(f"{kind}.{step}" for kind in ("page", "journal", "resident") for step in ("write", "fsync", "rename")) + (
    "duckdb.commit",)
FAULT_ERRNOS = {"write": ("ENOSPC", "EIO"), "fsync": ("EIO",), "rename": ("EIO", "ENOSPC"), "commit": ("ENOSPC", "EIO")}
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
STORAGE_KEY = riko.MemoryScope("local", PRESET).storage_key


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
    elif phase == "sync":
        with _open(root) as mem:  # opening applies the hand edits; a second sync must find nothing
            mem.sync()
    elif phase == "purge":
        with _open(root) as mem:
            present = set(mem.sessions()["session_id"])
            for sid in PURGED:
                if sid in present:
                    plan = mem.purge(sid)
                    mem.purge(sid, dry_run=False, confirmation=plan["confirmation"])
    else:
        raise ValueError(f"unknown phase {phase!r}")


def prepare(work: Path, sessions: int = 12) -> dict[str, Path]:
    """The logs and the starting root of every phase, built once under ``work``."""
    logs = work / "logs"
    write_logs(logs, sessions)
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
    bases["sync"] = work / "base-sync"
    shutil.copytree(bases["purge"], bases["sync"])
    hand_edit(bases["sync"])
    return {"logs": logs, **bases}


def hand_edit(root: Path) -> None:
    """What a person does in an editor: change bodies, delete a file, add a page file."""
    wiki = root / "wiki" / "local" / PRESET
    files = sorted(p for p in wiki.rglob("*.md") if p.name != "RESIDENT.md")
    for n, path in enumerate(files[:6]):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.rstrip("\n") + f"\n\nEdited by hand, note {n}.\n", encoding="utf-8")
    files[min(6, len(files) - 1)].unlink()
    (wiki / "concepts").mkdir(parents=True, exist_ok=True)
    (wiki / "concepts" / "hand-written.md").write_text(
        "---\nid: p-handwritten01\ntype: concept\ntitle: Hand written\n---\n\nA page typed in an editor.\n",
        encoding="utf-8")


_ZYGOTE = """
import json, os, signal, sys, time
from pathlib import Path
import chaos_harness as c
import riko
from riko import faults
print("ready", flush=True)
for line in sys.stdin:
    job = json.loads(line)
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)  # the parent's stdout carries the protocol
        os.dup2(null, 1)
        code, outcome = 0, "done"
        try:
            faults.configure(job["faults"])
            c.operation(job["phase"], Path(job["root"]), Path(job["logs"]))
        except BaseException as exc:
            kind = "typed" if isinstance(exc, riko.RikoError) else "untyped"
            outcome, code = f"{kind} {type(exc).__name__}: {str(exc)[:300]}", 3
        faults.write_counts()
        # written whole or not at all: a kill between creating the file and filling it would
        # leave an empty report that reads as a failure of the operation itself
        partial = Path(job["result"] + ".partial")
        partial.write_text(json.dumps({"outcome": outcome, "fired": faults.FIRED}))
        os.replace(partial, job["result"])
        os._exit(code)
    deadline = None if job["kill_after"] is None else started + job["kill_after"]
    killed_at = None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG if deadline is not None else 0)
        if done:
            break
        if time.perf_counter() >= deadline:
            os.kill(pid, signal.SIGKILL)  # not yet reaped, so the pid is still this child's
            killed_at = time.monotonic()  # CLOCK_MONOTONIC: comparable across processes
            _, status = os.waitpid(pid, 0)
            break
        time.sleep(0.002)
    print(json.dumps({"status": status, "seconds": time.perf_counter() - started, "killed_at": killed_at}),
          flush=True)
"""


class Zygote:
    """One process that imported riko, forking a child per trial (and killing it when asked)."""

    def __init__(self) -> None:
        here = str(Path(__file__).resolve().parent)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([here, *filter(None, [os.environ.get("PYTHONPATH")])])}
        env.pop("RIKO_FAULTS", None)
        self.proc = subprocess.Popen([sys.executable, "-c", _ZYGOTE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
        assert self.proc.stdout is not None
        self.results = Path(tempfile.mkdtemp(prefix="riko-chaos-results-"))
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("chaos zygote did not start")

    def run(self, phase: str, root: Path, logs: Path, *, kill_after: float | None = None,
            faults: str | None = None) -> tuple[bool, float, dict[str, Any]]:
        """(killed, seconds, what the child reported: outcome and faults fired, {} when killed)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        result = self.results / f"{root.name}.result"  # not beside the root: its disk may be full
        result.unlink(missing_ok=True)
        self.proc.stdin.write(json.dumps({"phase": phase, "root": str(root), "logs": str(logs), "kill_after": kill_after,
                                          "faults": faults, "result": str(result)}) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = {}
        while "status" not in answer:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("chaos zygote exited")
            if line.startswith("{"):
                answer = json.loads(line)
        status = answer["status"]
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        report = json.loads(result.read_text()) if result.exists() else {"status": status}
        result.unlink(missing_ok=True)
        if killed:
            report["killed_at"] = answer["killed_at"]
        return killed, answer["seconds"], report

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)
        shutil.rmtree(self.results, ignore_errors=True)


_ZYGOTES: list[Zygote] = []


def zygote() -> Zygote:
    if not _ZYGOTES:
        _ZYGOTES.append(Zygote())
    return _ZYGOTES[0]


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
    """Trials of one phase with one kind of interruption, and what went wrong (counts of records, not trials).

    ``point`` is ``kill`` (SIGKILL), a write point of :data:`FAULT_POINTS` (one injected fault) or
    ``full-disk`` (a real full filesystem).
    """

    phase: str
    point: str = "kill"
    passes: int = 0  # passes through the write point in an uninterrupted run
    trials: int = 0
    killed: int = 0  # kill trials that were really killed before they finished
    in_flight: int = 0  # kills that left a page transition half done (a journal) for the reopen
    temp_left: int = 0  # temporary files the kills left for the reopen to remove
    fired: int = 0  # fault trials whose fault was raised (full disk: the run met it and failed)
    typed: int = 0  # ... and reached the caller as a RikoError
    untyped: int = 0  # ... as something else (kill trials: a run that failed on its own)
    absorbed: int = 0  # ... and the operation finished anyway (a best-effort write; room enough left)
    unreached: int = 0  # fault trials whose pass never came (the run passed the point fewer times)
    failure_audits: int = 0  # ``*-failed`` audits a faulted run wrote of its own failure (expected, not a mismatch)
    lost: int = 0
    duplicated: int = 0
    corrupt: int = 0
    leftover: int = 0
    audit_mismatch: int = 0
    lock_free_s: list[float] = field(default_factory=list)  # kill to the writer lock taken by another process
    seconds: float = 0.0  # spent in the trials
    failures: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not any(getattr(self, name) for name in BAD)

    def to_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {k: getattr(self, k) for k in (
            "phase", "point", "passes", "trials", "killed", "in_flight", "temp_left", "fired", "typed", "untyped",
            "absorbed", "unreached", "failure_audits", *BAD[2:])}
        waits = sorted(self.lock_free_s)
        row["lock_free_median_s"] = round(waits[len(waits) // 2], 3) if waits else None
        row["lock_free_max_s"] = round(waits[-1], 3) if waits else None
        row["seconds"] = round(self.seconds, 1)
        return row


#: the columns that must stay zero
BAD = ("untyped", "unreached", "lost", "duplicated", "corrupt", "leftover", "audit_mismatch")


def compare(tally: Tally, label: str, got: dict[str, Any], want: dict[str, Any]) -> None:
    problems = []
    if tally.point != "kill":  # a failed run may audit its own failure: that record is the fault's, not a mismatch
        failed = Counter({k: n for k, n in got["audits"].items() if k.endswith("-failed")}) - want["audits"]
        tally.failure_audits += sum(failed.values())
        got = {**got, "audits": got["audits"] - failed}
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
        tally.failures.append(f"{tally.phase} {label}: " + "; ".join(problems))


def reference(phase: str, bases: dict[str, Path], work: Path) -> tuple[dict[str, Any], float, dict[str, int]]:
    """What an uninterrupted run of ``phase`` leaves, how long it takes, and its passes per write point."""
    logs = bases["logs"]
    root = work / f"{phase}-reference"
    shutil.copytree(bases[phase], root)
    counts = work / f"{phase}-counts.json"
    killed, length, report = zygote().run(phase, root, logs, faults=f"count:{counts}")
    if killed or report.get("outcome") != "done":
        raise RuntimeError(f"chaos reference run of {phase} failed: {report}")
    hits = json.loads(counts.read_text())
    counts.unlink()
    operation(phase, root, logs)  # a trial re-runs once more; so does the reference
    want = snapshot(root)
    shutil.rmtree(root)
    return want, length, hits


Attempt = Callable[[int, Path], tuple[str, bool, dict[str, Any]]]


def _trials(tally: Tally, bases: dict[str, Path], where: Path, want: dict[str, Any], trials: int,
            attempt: Attempt) -> Tally:
    """The one trial loop: copy the phase's starting root under ``where``, interrupt a run of the
    operation there (``attempt(trial, root)`` → label, killed, the child's report), then reopen the
    scope, run the operation again and compare what it holds with ``want``."""
    for trial in range(trials):
        started = time.perf_counter()
        root = where / f"{tally.phase}-{tally.point}-{trial}"
        shutil.copytree(bases[tally.phase], root)
        label, killed, report = attempt(trial, root)
        warehouse = root / "warehouse" / STORAGE_KEY
        tally.trials += 1
        if killed:
            tally.killed += 1
            tally.in_flight += (warehouse / JOURNAL_NAME).exists()
            tally.temp_left += len(leftover_files(root / "wiki", warehouse))
            tally.lock_free_s.append(_lock_free_after(warehouse, report["killed_at"]))
        else:
            _classify(tally, label, report)
        operation(tally.phase, root, bases["logs"])
        compare(tally, label, snapshot(root), want)
        shutil.rmtree(root)
        tally.seconds += time.perf_counter() - started
    return tally


def _lock_free_after(warehouse: Path, killed_at: float) -> float:
    """Seconds from the kill until this process holds the scope's writer lock."""
    lock = FileLock(warehouse)
    lock.acquire("write", "chaos check", 120.0)
    free = time.monotonic() - killed_at
    lock.release()
    return free


def _classify(tally: Tally, label: str, report: dict[str, Any]) -> None:
    """Count how a run that was not killed ended (an empty report: the child died on its own)."""
    outcome = report.get("outcome", f"no report (the child died: {report.get('status')})")
    if tally.point == "kill":  # the kill came after the end: the run must simply have succeeded
        if outcome != "done":
            tally.untyped += 1
            tally.failures.append(f"{tally.phase} {label}: the run failed on its own: {outcome}")
        return
    if tally.point == "full-disk" and outcome == "done":
        tally.absorbed += 1  # it fitted in the space left
        return
    if tally.point != "full-disk" and not report.get("fired"):
        tally.unreached += 1
        tally.failures.append(f"{tally.phase} {label}: the fault's pass never came ({outcome})")
        return
    tally.fired += 1
    if outcome.startswith("typed "):
        tally.typed += 1
    elif outcome == "done":
        tally.absorbed += 1
    else:
        tally.untyped += 1
        tally.failures.append(f"{tally.phase} {label}: {outcome}")


def run_phase(phase: str, bases: dict[str, Path], work: Path, trials: int, seed: int) -> Tally:
    """``trials`` runs of ``phase`` killed after a seeded random share of an uninterrupted run's length."""
    rng = random.Random(f"{seed}:{phase}")
    want, length, _ = reference(phase, bases, work)

    def attempt(trial: int, root: Path) -> tuple[str, bool, dict[str, Any]]:
        # the run's length varies with the machine's load: aim inside it, not at its very end
        after = rng.uniform(0.02, 0.9) * length
        killed, _, report = zygote().run(phase, root, bases["logs"], kill_after=after)
        return f"trial {trial} (kill after {after:.2f} s)", killed, report

    return _trials(Tally(phase), bases, work, want, trials, attempt)


def fault_index(trial: int, trials: int, passes: int) -> int:
    """Which pass (1-based) trial ``trial`` of ``trials`` fails: spread evenly over all ``passes``,
    so every pass is hit once there are at least as many trials as passes."""
    return 1 + trial * passes // trials


def run_faults(phase: str, bases: dict[str, Path], work: Path, per_point: int,
               points: tuple[str, ...] = FAULT_POINTS, *, persistent: bool = False) -> list[Tally]:
    """``per_point`` injected faults at every write point ``phase`` passes through, at passes chosen by
    :func:`fault_index` (not at random, so the last pass is as sure to be hit as the first);
    ``persistent``: every later pass fails too, as on a disk that stays full."""
    want, _, hits = reference(phase, bases, work)
    tallies = []
    for point in points:
        tally = Tally(phase, point, passes=hits.get(point, 0))
        tallies.append(tally)
        if not tally.passes:
            continue
        errnos = FAULT_ERRNOS[point.split(".")[1]]

        def attempt(trial: int, root: Path, point: str = point, passes: int = tally.passes,
                    errnos: tuple[str, ...] = errnos) -> tuple[str, bool, dict[str, Any]]:
            spec = f"{point}:{errnos[trial % len(errnos)]}:{fault_index(trial, per_point, passes)}{'+' * persistent}"
            _, _, report = zygote().run(phase, root, bases["logs"], faults=spec)
            return spec, False, report

        _trials(tally, bases, work, want, per_point, attempt)
    return tallies


def fill(disk: Path, keep: int) -> Path:
    """Fill filesystem ``disk`` with a ballast file so that about ``keep`` bytes stay free."""
    ballast = disk / "ballast"
    stat = os.statvfs(disk)
    left = max(0, stat.f_bavail * stat.f_frsize - keep)
    chunk = b"\0" * (1 << 20)
    with ballast.open("wb") as fh:
        try:
            while left > 0:
                left -= fh.write(chunk[:min(left, len(chunk))])
            fh.flush()
        except OSError:
            pass  # full already
    return ballast


def run_full_disk(phase: str, bases: dict[str, Path], work: Path, disk: Path, trials: int, seed: int,
                  most_free: int = 256 << 10) -> Tally:
    """``trials`` runs of ``phase`` on a real full filesystem ``disk`` (a small tmpfs), each with
    0..``most_free`` bytes left; then the space comes back, the scope is reopened and re-run."""
    rng = random.Random(f"{seed}:{phase}:full-disk")
    want, _, _ = reference(phase, bases, work)

    def attempt(trial: int, root: Path) -> tuple[str, bool, dict[str, Any]]:
        keep = rng.randint(0, most_free)
        ballast = fill(disk, keep)
        try:
            _, _, report = zygote().run(phase, root, bases["logs"])
        finally:
            ballast.unlink()
        return f"trial {trial} (full disk, {keep} bytes free)", False, report

    return _trials(Tally(phase, "full-disk"), bases, disk, want, trials, attempt)
