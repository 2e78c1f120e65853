"""Damaged lock files heal: a ``writer.want`` or ``writer.lock`` record nobody can prove alive is stale.

Each damaged state is made beside a running capture loop (a real process that holds the scope
and never idles) and a real ``riko serve``; the CLI, the server and the loop must all go on at
once, long before ``lock_timeout_ms`` (set large here, so a wedge would show as a timeout), and
an error message names only a process that is provably alive.
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest

import riko
from riko.stores.locks import FileLock, Holder, process_start

API = "/memory/v1"
PROFILE = {"x-dsh-memory-profile": "companion"}
LOCK_TIMEOUT_MS = "300000"  # a wedged scope would keep every caller waiting this long
WAIT = 240  # < the lock timeout: a caller still waiting then was wedged


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    return {**env, "RIKO_LOCK_TIMEOUT_MS": LOCK_TIMEOUT_MS, **extra}


_LOOP = """
    import sys, threading, time, riko
    mem = riko.open({root!r}, preset="companion")
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    n = 0
    while not stop.is_set():
        mem.capture({{"session_id": "loop", "type": "user/message",
                     "data": {{"role": "user", "source": {{"kind": "user"}},
                              "content": [{{"type": "text", "text": f"loop {{n}}"}}]}}}})
        n += 1
        print(n, time.monotonic(), flush=True)  # CLOCK_MONOTONIC: comparable with the test's
        time.sleep(0.01)
    mem.close()
"""


class Loop:
    """A capture loop in its own process: it keeps the scope's file busy and reports each event."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_LOOP.format(root=str(root)))],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=_env())
        self.count = 0

    def advance(self, events: int, since: float | None = None) -> float:
        """Seconds from ``since`` (default: now) until the loop captured ``events`` more events after it."""
        assert self.proc.stdout is not None
        since = time.monotonic() if since is None else since
        seen, stamp = 0, since
        while seen < events:
            line = self.proc.stdout.readline()
            assert line, f"the capture loop died: {self.proc.stderr.read() if self.proc.stderr else ''}"
            count, at = line.split()
            self.count, stamp = int(count), float(at)
            seen += stamp >= since  # lines already waiting in the pipe were captured before ``since``
        return stamp - since

    def stop(self) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        _, err = self.proc.communicate(timeout=WAIT)
        return err


def _serve(root: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "riko.cli.serve", "--root", str(root), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    line = proc.stdout.readline() if proc.stdout else ""
    match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
    if not match:
        proc.kill()
        raise AssertionError(f"riko serve did not start: {line}{proc.stderr.read() if proc.stderr else ''}")
    return proc, match.group(1)


def _cli(root: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "riko", *args, "--root", str(root), "--preset", "companion"],
                          capture_output=True, text=True, timeout=WAIT, env=_env(**env))
    return done, time.monotonic() - started


@pytest.fixture
def root(tmp_path: Path) -> Path:
    with riko.open(tmp_path, preset="companion") as mem:
        mem.create_page("Mira", "Mira walks her dog Io.", type="entity")
    return tmp_path


@pytest.fixture
def stranger() -> Iterator[int]:
    """A live process that is not riko (what a reused pid looks like)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _warehouse(root: Path) -> Path:
    return root / "warehouse" / riko.MemoryScope("local", "companion").storage_key


WANT_DAMAGE = {
    "empty": lambda stranger: "",
    "unparsable": lambda stranger: "\x00\xff not a pid\n",
    "foreign-live-pid": lambda stranger: f"{stranger}\n",
    "foreign-live-pid-and-start": lambda stranger: f"{stranger}\t{process_start(stranger)}\n",  # proven, not riko
    "this-test-process": lambda stranger: f"{os.getpid()}\n",  # alive, imports riko, waits for nothing
    "dead-pid": lambda stranger: f"{_dead_pid()}\n",
}


def test_a_damaged_waiter_slot_blocks_no_one(root: Path, stranger: int) -> None:
    loop = Loop(root)
    server, base = _serve(root)
    want = _warehouse(root) / "writer.want"
    try:
        loop.advance(3)
        with httpx.Client(base_url=base, timeout=WAIT) as client:
            assert client.get(API + "/wiki", headers=PROFILE).status_code == 200
            for damage in sorted(WANT_DAMAGE):  # each damaged state in turn, beside the same loop and server
                record = WANT_DAMAGE[damage](stranger).encode("utf-8", "surrogateescape")
                want.write_bytes(record)
                damaged_at = time.monotonic()
                lock_s = _lock_wait(want.parent)
                loop_s = loop.advance(5, since=damaged_at)
                want.write_bytes(record)
                with riko.open(root, preset="companion", config={"lock_timeout_ms": int(LOCK_TIMEOUT_MS)}) as mem:
                    started = time.monotonic()
                    assert "Mira" in mem.pages()["title"].to_list(), damage  # this process takes its turn
                    turn_s = time.monotonic() - started
                want.write_bytes(record)
                done, cli_s = _cli(root, "pages", "--json")  # and so does a new one
                assert done.returncode == 0 and "Mira" in done.stdout, (damage, done.stderr)
                want.write_bytes(record)
                r = client.get(API + "/wiki", headers=PROFILE)
                assert r.status_code == 200, (damage, r.text)
                want.write_bytes(record)
                started = time.monotonic()
                r = client.post(API + "/wiki/pages", headers=PROFILE, json={"title": f"After {damage}", "body": "x."})
                assert r.status_code in (200, 201), (damage, r.text)
                server_s = time.monotonic() - started
                loop.advance(5)  # and the loop goes on
                print(f"writer.want {damage}: lock wait {lock_s:.3f} s, turn {turn_s:.3f} s, server write "
                      f"{server_s:.2f} s, cli {cli_s:.2f} s (with start-up), loop: 5 events {loop_s:.2f} s after the damage")
                # the damaged record is gone; at most a live waiter's own slot remains
                assert not want.exists() or want.read_bytes() != record, damage
    finally:
        err = loop.stop()
        server.terminate()
        _, server_err = server.communicate(timeout=WAIT)
    assert "Traceback" not in err + server_err, err + server_err


def _hold_flock(path: Path, record: str) -> subprocess.Popen[str]:
    """A process that holds ``writer.lock`` the way the OS sees it, after writing ``record`` into it."""
    code = textwrap.dedent(f"""
        import fcntl, os, sys
        fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, {record.encode()!r}.ljust(160), 0)
        print("held", flush=True)
        sys.stdin.readline()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.parametrize("record", ["empty", "unparsable", "foreign-live-pid", "dead-pid", "reused-pid"])
def test_a_lock_message_names_only_a_live_holder(root: Path, stranger: int, record: str) -> None:
    text = {"empty": "", "unparsable": "\x07garbage\tno\ttabs", "foreign-live-pid": f"{stranger}\tnightly\t2026",
            "dead-pid": f"{_dead_pid()}\tnightly-import\t2026-01-01T00:00:00+00:00\t123",
            "reused-pid": f"{stranger}\tnightly-import\t2026-01-01T00:00:00+00:00\t1"}[record]
    holder = _hold_flock(_warehouse(root) / "writer.lock", text)
    try:
        done, _ = _cli(root, "pages", RIKO_LOCK_TIMEOUT_MS="300")
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert "scope is busy: another process holds it" in done.stderr, done.stderr
        assert "nightly" not in done.stderr and str(stranger) not in done.stderr
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(timeout=WAIT)


LOCK_DAMAGE = {  # what a writer.lock record can hold once damaged; the flock, not the record, decides
    "zero-length": lambda stranger: None,
    "empty": lambda stranger: "",
    "unparsable": lambda stranger: "\x00\xff not\ta record",
    "foreign-dead-pid": lambda stranger: f"{_dead_pid()}\tnightly-import\t2026-01-01T00:00:00+00:00\t1",
    "live-non-riko-pid": lambda stranger: f"{stranger}\tnightly-import\t2026-01-01T00:00:00+00:00\t1",
}


def _damage_lock(path: Path, record: str | None) -> None:
    """Overwrite the holder record in place (as a torn write or a stray program would), no flock taken."""
    if record is None:
        os.truncate(path, 0)
        return
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, record.encode("utf-8", "surrogateescape").ljust(160, b"\0"), 0)
    finally:
        os.close(fd)


def _lock_wait(directory: Path) -> float:
    """Seconds this process waited for the writer lock (the capture loop lets go at its unit's end)."""
    lock = FileLock(directory)
    started = time.monotonic()
    lock.acquire("write", "lock-file test", WAIT)
    waited = time.monotonic() - started
    lock.release()
    return waited


@pytest.mark.parametrize("damage", sorted(WANT_DAMAGE))
def test_a_damaged_waiter_slot_costs_no_wait(root: Path, stranger: int, damage: str) -> None:
    directory = _warehouse(root)
    want = directory / "writer.want"
    want.write_bytes(WANT_DAMAGE[damage](stranger).encode("utf-8", "surrogateescape"))
    lock = FileLock(directory)
    lock.acquire("write", "first look", 0)  # a timeout of 0: the first try must succeed
    try:
        assert not want.exists() and not lock.wanted()
    finally:
        lock.release()


@pytest.mark.parametrize("damage", sorted(LOCK_DAMAGE))
def test_a_damaged_lock_record_costs_no_wait(root: Path, stranger: int, damage: str) -> None:
    directory = _warehouse(root)
    _damage_lock(directory / "writer.lock", LOCK_DAMAGE[damage](stranger))
    lock = FileLock(directory)
    lock.acquire("write", "first look", 0)
    try:
        assert lock.holder().pid == os.getpid()  # the new holder's record replaced the damaged one
    finally:
        lock.release()


def test_a_damaged_lock_record_blocks_no_one(root: Path, stranger: int) -> None:
    loop = Loop(root)
    server, base = _serve(root)
    directory = _warehouse(root)
    try:
        loop.advance(3)
        with httpx.Client(base_url=base, timeout=WAIT) as client:
            for damage in sorted(LOCK_DAMAGE):  # each damaged record in turn, beside the same loop and server
                record = LOCK_DAMAGE[damage](stranger)
                _damage_lock(directory / "writer.lock", record)
                damaged_at = time.monotonic()
                lock_s = _lock_wait(directory)  # this process gets the file
                loop_s = loop.advance(5, since=damaged_at)
                _damage_lock(directory / "writer.lock", record)
                with riko.open(root, preset="companion", config={"lock_timeout_ms": int(LOCK_TIMEOUT_MS)}) as mem:
                    assert "Mira" in mem.pages()["title"].to_list(), damage
                _damage_lock(directory / "writer.lock", record)
                done, cli_s = _cli(root, "pages", "--json")  # so does a new process
                assert done.returncode == 0 and "Mira" in done.stdout, (damage, done.stderr)
                _damage_lock(directory / "writer.lock", record)
                started = time.monotonic()
                r = client.post(API + "/wiki/pages", headers=PROFILE, json={"title": f"After {damage}", "body": "x."})
                assert r.status_code in (200, 201), (damage, r.text)  # so does the server
                server_s = time.monotonic() - started
                loop.advance(5)  # and the loop goes on
                print(f"writer.lock {damage}: lock wait {lock_s:.3f} s, server write {server_s:.2f} s, "
                      f"cli {cli_s:.2f} s (with start-up), loop: 5 events {loop_s:.2f} s after the damage")
    finally:
        err = loop.stop()
        server.terminate()
        _, server_err = server.communicate(timeout=WAIT)
    assert "Traceback" not in err + server_err, err + server_err


def test_a_live_holder_is_named_with_what_it_does(root: Path) -> None:
    lock = FileLock(_warehouse(root))
    lock.acquire("write", "nightly-import", 5)
    try:
        seen = lock.holder()
        assert seen.pid == os.getpid() and seen.activity == "nightly-import" and seen.alive()
        assert Holder(seen.pid, "x", None, "1").proven().pid is None  # same pid, another start time
        done, _ = _cli(root, "pages", RIKO_LOCK_TIMEOUT_MS="300")
        assert done.returncode == 2 and f"process {os.getpid()} (nightly-import" in done.stderr, done.stderr
    finally:
        lock.release()


def test_a_waiter_holds_its_slot_until_it_has_the_file(root: Path) -> None:
    directory = _warehouse(root)
    holder = FileLock(directory)
    holder.acquire("write", "holding", 5)
    waiter = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        from pathlib import Path
        from riko.stores.locks import FileLock
        lock = FileLock(Path({str(directory)!r}))
        lock.acquire("write", "waiting", 60)
        print("got", flush=True)
        lock.release()
    """)], stdout=subprocess.PIPE, text=True, env=_env())
    try:
        want = directory / "writer.want"
        while not want.exists():
            assert waiter.poll() is None
            time.sleep(0.01)
        assert holder.wanted()  # a live waiter: its slot is locked
        pid, start = want.read_text().split()
        assert int(pid) == waiter.pid and start == process_start(waiter.pid)
        fd = os.open(want, os.O_RDONLY)
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        os.close(fd)
    finally:
        holder.release()
    assert waiter.stdout is not None and waiter.stdout.readline().strip() == "got"
    waiter.wait(timeout=WAIT)
    assert not (directory / "writer.want").exists()
