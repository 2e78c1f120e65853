"""Several real processes on one scope: ``riko serve``, a notebook, the CLI, concurrent capture.

Each test starts python processes against one data root and bounds every wait; see
docs/concurrency.md for the lifecycle these tests hold riko to.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest

import riko
from riko.evaluation.samples import generate_samples
from dream_stub import CREDENTIAL_REF, StubServer, user_event

API = "/memory/v1"
PROFILE = {"x-dsh-memory-profile": "companion"}
WAIT = 60  # seconds any one process may take before the test fails


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    env.update(extra)
    return env


def _python(code: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(**env))


def _riko(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "riko", *args, "--root", str(root), "--preset", "companion"],
                          capture_output=True, text=True, timeout=WAIT, env=_env())


def _serve(root: Path, **env: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "riko.cli.serve", "--root", str(root), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(**env))
    line = proc.stdout.readline() if proc.stdout else ""
    match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
    if not match:
        proc.kill()
        raise AssertionError(f"riko serve did not start: {line}{proc.stderr.read() if proc.stderr else ''}")
    return proc, match.group(1)


def _stop(proc: subprocess.Popen[str]) -> str:
    if proc.poll() is None:
        proc.terminate()
    try:
        _, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err or ""


class Hammer:
    """GETs against a running server from a thread until stopped; keeps every status seen."""

    def __init__(self, base: str, paths: tuple[str, ...]) -> None:
        self.base, self.paths = base, paths
        self.statuses: list[tuple[str, int, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=WAIT) as client:
            while not self._stop.is_set():
                for path in self.paths:
                    r = client.get(API + path, headers=PROFILE)
                    self.statuses.append((path, r.status_code, r.text[:200] if r.status_code != 200 else ""))

    def __enter__(self) -> "Hammer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=WAIT)

    def failures(self) -> list[tuple[str, int, str]]:
        return [s for s in self.statuses if s[1] != 200]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    with riko.open(tmp_path, preset="companion") as mem:
        for i in range(3):
            mem.capture(user_event("seed", f"Mira walks her dog Io, day {i}."))
        mem.create_page("Mira", "Mira is the user; she lives in Lisbon and walks her dog Io.", type="entity")
    return tmp_path


_NOTEBOOK = """
    import sys, threading, time, riko
    def ev(sid, text):
        return {{"session_id": sid, "type": "user/message",
                "data": {{"role": "user", "source": {{"kind": "user"}}, "content": [{{"type": "text", "text": text}}]}}}}
    mem = riko.open({root!r}, preset="companion")
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    n = 0
    while not stop.is_set():
        mem.capture(ev("notebook", f"note {{n}}"))
        mem.pages()
        n += 1
        time.sleep(0.02)
    mem.close()
    print(n, flush=True)
"""


def test_cli_reads_and_writes_beside_a_server_and_a_notebook(root: Path) -> None:
    (root / "riko.toml").write_text("recall_enabled = true\n", encoding="utf-8")  # riko recall is gated by it
    with riko.open(root, preset="companion") as mem:
        to_confirm = mem.propose("Io", body="Io is Mira's dog.", type="entity")
    logs = root / "logs"
    generate_samples(logs)
    server, base = _serve(root)
    notebook = _python(_NOTEBOOK.format(root=str(root)))
    try:
        assert notebook.stdout is not None and notebook.stdout.readline().strip() == "ready"
        with httpx.Client(base_url=base, timeout=WAIT) as client:
            assert client.get(API + "/resident", headers=PROFILE).status_code == 200  # the server has the scope
        with Hammer(base, ("/resident", "/candidates", "/wiki")) as hammer:
            out = {}
            for args in (("pages", "--json"), ("resident",), ("recall", "where does Mira live?"),
                         ("confirm", str(to_confirm)), ("ingest", str(logs), "--quiet"), ("sessions", "--json")):
                done = _riko(root, *args)
                assert done.returncode == 0, (args, done.stderr)
                out[args[0]] = done.stdout
            time.sleep(0.2)
        assert not hammer.failures(), hammer.failures()[:3]
        assert len(hammer.statuses) > 3
        assert "Mira" in out["pages"] and "Lisbon" in out["resident"]
        ingested = {row["session_id"] for row in json.loads(out["sessions"])}
        assert {"seed", "notebook"} < ingested  # the companion samples beside the seed and notebook sessions
        with httpx.Client(base_url=base, timeout=WAIT) as client:
            titles = [p["title"] for p in client.get(API + "/wiki", headers=PROFILE).json()["pages"]]
        assert "Io" in titles  # the server sees what the CLI confirmed
    finally:
        if notebook.stdin:
            notebook.stdin.write("\n")
            notebook.stdin.flush()
        captured, nb_err = notebook.communicate(timeout=WAIT)
        server_err = _stop(server)
    assert notebook.returncode == 0, nb_err
    assert "Traceback" not in server_err, server_err
    n = int(captured.strip().splitlines()[-1])
    with riko.open(root, preset="companion", read_only=True) as mem:
        assert mem.evidence("notebook")["seq"].to_list() == list(range(n))


_CAPTURER = """
    import sys, riko
    def ev(sid, text):
        return {{"session_id": sid, "type": "user/message",
                "data": {{"role": "user", "source": {{"kind": "user"}}, "content": [{{"type": "text", "text": text}}]}}}}
    mem = riko.open({root!r}, preset="companion")
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range({n}):
        mem.capture(ev("shared", "{name} " + str(i)))
        mem.capture(ev("{name}", "own " + str(i)))
    mem.close()
"""


def test_processes_capturing_into_one_scope_lose_and_duplicate_nothing(root: Path) -> None:
    n, names = 15, ("p0", "p1", "p2")
    procs = [_python(_CAPTURER.format(root=str(root), n=n, name=name)) for name in names]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:  # released together so their writes interleave
        assert proc.stdin is not None
        proc.stdin.write("\n")
        proc.stdin.flush()
    for proc in procs:
        _, err = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, err
    with riko.open(root, preset="companion", read_only=True) as mem:
        shared = mem.evidence("shared")
        assert shared["seq"].to_list() == list(range(n * len(names)))  # one gapless sequence
        texts = shared["text"].to_list()
        assert sorted(texts) == sorted(f"{name} {i}" for name in names for i in range(n))
        for name in names:
            assert mem.evidence(name)["text"].to_list() == [f"own {i}" for i in range(n)]
        sessions = mem.sessions().filter(mem.sessions()["session_id"] == "shared")
        assert sessions["event_count"].to_list() == [n * len(names)]


def test_read_only_opens_never_wait_for_the_writer_to_close(root: Path) -> None:
    first, second = user_event("w", "written before the reader"), user_event("w", "written while the reader is open")
    writer = _python(f"""
        import sys, riko
        mem = riko.open({str(root)!r}, preset="companion")
        mem.capture({first!r})
        print("ready", flush=True)
        sys.stdin.readline()
        mem.capture({second!r})
        print("wrote", flush=True)
        sys.stdin.readline()
        mem.close()
    """)
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        with riko.open(root, preset="companion", read_only=True) as reader:
            assert reader.evidence("w")["text"].to_list() == ["written before the reader"]
            assert writer.stdin is not None
            writer.stdin.write("\n")
            writer.stdin.flush()
            assert writer.stdout.readline().strip() == "wrote"  # the open reader did not block the write
            assert reader.evidence("w").height == 2  # and sees it on its next read
        done = _riko(root, "evidence", "w", "--json")
        assert done.returncode == 0, done.stderr
        assert "written while the reader is open" in done.stdout
    finally:
        if writer.stdin:
            writer.stdin.write("\n")
            writer.stdin.flush()
        _, err = writer.communicate(timeout=WAIT)
    assert writer.returncode == 0, err


def test_a_wait_past_its_bound_names_the_holder_and_what_it_does(root: Path) -> None:
    holder = _python(f"""
        import sys, riko
        mem = riko.open({str(root)!r}, preset="companion")
        with mem.hold("nightly-import"):
            print("held", flush=True)
            sys.stdin.readline()
        mem.close()
    """)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        done = subprocess.run([sys.executable, "-m", "riko", "pages", "--root", str(root), "--preset", "companion"],
                              capture_output=True, text=True, timeout=WAIT, env=_env(RIKO_LOCK_TIMEOUT_MS="300"))
        assert done.returncode == 2
        assert f"process {holder.pid}" in done.stderr and "nightly-import" in done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    finally:
        if holder.stdin:
            holder.stdin.write("\n")
            holder.stdin.flush()
        holder.communicate(timeout=WAIT)
    assert _riko(root, "pages").returncode == 0  # once it let go


@pytest.fixture
def slow_model() -> Iterator[StubServer]:
    stub = StubServer(latency=0.15)
    try:
        yield stub
    finally:
        stub.close()


def test_requests_to_the_server_during_a_dream_never_answer_500(tmp_path: Path, slow_model: StubServer) -> None:
    logs = tmp_path / "logs"
    generate_samples(logs)
    with riko.open(tmp_path, preset="companion") as mem:
        mem.ingest([logs], progress=False)
    (tmp_path / "riko.toml").write_text(
        f'dream_provider = "openai-compatible"\ndream_api_url = "{slow_model.url("openai")}"\n'
        f'dream_credential_ref = "{CREDENTIAL_REF}"\ndream_workers = 2\n', encoding="utf-8")
    server, base = _serve(tmp_path, **{CREDENTIAL_REF: "sk-test-key"})
    try:
        with httpx.Client(base_url=base, timeout=WAIT) as client:
            assert client.post(API + "/dream", headers=PROFILE, json={}).status_code == 202
            with Hammer(base, ("/candidates", "/sessions", "/resident", "/config", "/wiki")) as hammer:
                deadline = time.monotonic() + WAIT
                state = "queued"
                while time.monotonic() < deadline:
                    state = client.get(API + "/wiki", headers=PROFILE).json()["dream"]["state"]
                    if state == "idle":
                        break
                    time.sleep(0.1)
                assert state == "idle"
            status = client.get(API + "/wiki", headers=PROFILE).json()["dream"]
        assert status["last_error"] is None, status
        assert not hammer.failures(), hammer.failures()[:3]
        assert len(hammer.statuses) >= 10 and len(slow_model.extraction_requests()) >= 3  # they overlapped
    finally:
        err = _stop(server)
    assert "Traceback" not in err, err


def test_a_process_that_exits_with_its_memories_open_exits_and_lets_go(root: Path) -> None:
    code = f"""
        import riko
        w = riko.open({str(root)!r}, preset="companion")
        w.capture({user_event("exit", "left open")!r})
        r = riko.open({str(root)!r}, preset="companion", read_only=True)
        print(r.evidence("exit").height)
    """
    for _ in range(4):  # the idle thread is mid-wait at exit on some of these runs
        proc = _python(code)
        out, err = proc.communicate(timeout=WAIT)
        assert proc.returncode == 0, err
    assert out.strip() == "4"
    done = _riko(root, "evidence", "exit", "--json")
    assert done.returncode == 0 and done.stdout.count("left open") == 4
