"""Dream benchmark: batch Dream over many sessions with the heuristic and an HTTP provider.

Writes ``--sessions`` harness logs of varied English and Chinese conversations, ingests them,
then measures (1) the offline heuristic provider in sessions/s for each ``candidate_auto_confirm``
policy (off, the default user_grounded, all; target >= 80 per CPU-second with user_grounded) and (2) an
OpenAI-compatible provider against a loopback stub that answers after ``--latency`` seconds,
with ``workers=1`` and ``workers=N`` in the same run (target: N=8 at least 6x faster).

With ``--executor ray`` it adds rows for Ray: the same batch on one local worker and on a local
Ray cluster of two workers (``ray.init(num_cpus=2)``), heuristic and HTTP, with the cluster's
start-up cost apart; both runs must propose the same candidates.

Usage: ``python benchmarks/dream.py [--sessions 500] [--latency 0.2] [--workers 8] [--executor ray]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import riko
from riko.dream import HeuristicProvider, Transcript, TranscriptLine

PRESET = "bench"
KEY_VAR = "RIKO_BENCH_DREAM_KEY"

_EN = (
    "I prefer {drink} in the morning.", "My {relative} {name} lives in {city}.", "I work as a {job} in {city}.",
    "Please don't bring up {topic}.", "I'm planning a trip to {city} next {month}.", "I love {hobby} on weekends.",
    "I think I feel a bit {mood} today.", "Can you explain how {thing} works?", "What's the weather like in {city}?",
    "I usually go {hobby} with my {relative} {name}.",
)
_ZH = ("我喜欢喝{drink_zh}。", "我住在{city_zh}。", "我妹妹{name}住在{city_zh}。", "下个月我想去{city_zh}旅行。",
       "请不要提起{topic_zh}。", "今天有点累。")
_SLOTS = {
    "drink": ["green tea", "black coffee", "oat milk lattes", "jasmine tea", "sparkling water", "hot chocolate"],
    "relative": ["sister", "brother", "cousin", "friend", "aunt", "neighbour"],
    "name": ["Anna", "Lena", "Tomas", "Yuki", "Priya", "Mateo", "Ines", "Kofi", "Mira", "Jonas"],
    "city": ["Lisbon", "Berlin", "Kyoto", "Leeds", "Porto", "Osaka", "Quebec", "Tallinn", "Seville", "Bergen"],
    "job": ["nurse", "carpenter", "data analyst", "teacher", "translator", "baker"],
    "topic": ["my ex", "politics at dinner", "my old job", "the divorce", "my weight"],
    "month": ["spring", "summer", "month", "week", "year"],
    "hobby": ["hiking", "climbing", "sailing", "baking bread", "birdwatching", "running", "painting"],
    "mood": ["tired", "anxious", "excited", "restless", "calm"],
    "thing": ["a heat pump", "compound interest", "TCP", "sourdough starter"],
    "drink_zh": ["乌龙茶", "绿茶", "咖啡", "豆浆"],
    "city_zh": ["上海", "北京", "成都", "杭州", "广州", "京都"],
    "topic_zh": ["我的前任", "工作的事", "体重"],
}
_REPLIES = ("That sounds lovely.", "Noted!", "Tell me more.", "好的，我记住了。", "Interesting, why is that?")


def _sentence(rng: random.Random) -> str:
    template = rng.choice(_ZH if rng.random() < 0.25 else _EN)
    return re.sub(r"\{(\w+)\}", lambda m: rng.choice(_SLOTS[m.group(1)]), template)


def write_logs(directory: Path, sessions: int, seed: int = 7) -> None:
    """One plain-JSONL harness log per session: turns of user statements and assistant replies."""
    rng = random.Random(seed)
    start = 1_767_225_600_000
    for i in range(sessions):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        folder = directory / "--home-bench--" / sid
        folder.mkdir(parents=True)
        now = start + i * 3_600_000
        lines = [{"type": "session", "version": 4, "id": sid, "createdAt": now, "delegationDepth": 0,
                  "cwd": "/home/bench", "agentPreset": PRESET}]
        seq = 0

        def event(etype: str, data: dict[str, Any]) -> None:
            nonlocal seq, now
            now += rng.randint(200, 5_000)
            lines.append({"seq": seq, "time": now, "type": etype, "data": data})  # noqa: B023 (called in this loop)
            seq += 1

        for turn in range(1, rng.randint(3, 6) + 1):
            event("turn/start", {"turn": turn})
            text = " ".join(_sentence(rng) for _ in range(rng.randint(1, 2)))
            event("user/message", {"id": f"u{turn}", "role": "user", "source": {"kind": "user"},
                                   "content": [{"type": "text", "text": text}]})
            event("assistant/message", {"turn": turn, "step": 1, "message": {
                "role": "assistant", "content": [{"type": "text", "text": rng.choice(_REPLIES)}],
                "source": {"kind": "model", "provider": "bench", "model": "m"}}})
            event("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
        (folder / "session.jsonl").write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n")


_CONVERSATION = re.compile(r"<conversation>\n(.*)\n</conversation>", re.DOTALL)
_LINE = re.compile(r"^(?:\[(\d+)\] )?(user|assistant): (.*)$")  # model prompts number their lines


def serve(latency: float) -> None:
    """Run the loopback model stub in this process: it prints its port, then answers every request
    after ``latency`` seconds with FILE blocks quoting the user (found by the heuristic rules)."""
    heuristic = HeuristicProvider()
    fallback = ('<<<FILE path="wiki/sources/conversation.md">>>\n---\ntype: source\ntitle: Small talk\n'
                "description: A short conversation.\n---\nNothing lasting.\n<<<END>>>")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            match = _CONVERSATION.search(body["messages"][0]["content"])
            lines = [TranscriptLine(int(m.group(1)) if m.group(1) else i, m.group(2), m.group(3)) for i, raw in
                     enumerate((match.group(1) if match else "").splitlines()) if (m := _LINE.match(raw))]
            text = heuristic.extract(Transcript("bench", tuple(lines))) or fallback
            time.sleep(latency)
            data = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return None

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever(poll_interval=0.05)


class SlowModel:
    """The stub in a child process (a remote model does not share this process's interpreter)."""

    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", str(latency)], stdout=subprocess.PIPE,
                                     text=True)
        port = int(self.proc.stdout.readline())  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/v1"

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed_dream(root: Path, logs: Path, config: dict[str, Any], workers: int,
                executor: Any = None) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds of this process, report) of one Dream run over freshly ingested logs."""
    with riko.open(root, preset=PRESET, config=config) as mem:
        mem.ingest(logs, progress=False)
        cpu, t = _cpu(), time.perf_counter()
        report = mem.dream(workers=workers, progress=False, executor=executor)
        return time.perf_counter() - t, _cpu() - cpu, report


def ray_rows(work: Path, logs: Path, args: argparse.Namespace) -> None:
    """Local, one worker vs a local two-worker Ray cluster, for the heuristic and the HTTP stub."""
    import ray

    from riko.executor import RayExecutor

    # The credential is read where the call is made: the workers inherit it from this process.
    os.environ[KEY_VAR] = "bench-secret-value"
    started = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    executor = RayExecutor()
    print(f"ray: local cluster of {executor.workers} workers started in {time.perf_counter() - started:.1f}s")
    rows = [("heuristic", {"dream_provider": "heuristic", "candidate_auto_confirm": "off"})]
    model = None
    if not args.skip_http:
        model = SlowModel(args.latency)
        rows.append(("http", {"dream_provider": "openai-compatible", "dream_api_url": model.url, "dream_model": "bench",
                              "dream_credential_ref": KEY_VAR, "candidate_auto_confirm": "off"}))
    try:
        timed_dream(work / "ray-warm", logs, rows[0][1], 1, executor)  # workers import riko once
        for name, config in rows:
            local_s, _, local = timed_dream(work / f"{name}-local-1", logs, config, 1)
            ray_s, cpu, remote = timed_dream(work / f"{name}-ray", logs, config, 1, executor)
            assert local.failed == remote.failed == 0 and local.candidates == remote.candidates, (local, remote)
            print(f"{name:<9} local 1 worker: {local.succeeded / local_s:7.1f} sessions/s   "
                  f"ray {executor.workers} workers: {remote.succeeded / ray_s:7.1f} sessions/s   "
                  f"ratio {local_s / ray_s:.2f}x   writer CPU {cpu / remote.succeeded * 1000:.2f} ms/session")
    finally:
        if model is not None:
            model.close()
        executor.close()
        ray.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sessions", type=int, default=500)
    ap.add_argument("--latency", type=float, default=0.2, help="stub answer latency in seconds")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--skip-http", action="store_true", help="only measure the heuristic provider")
    ap.add_argument("--executor", choices=["local", "ray"], default="local",
                    help="ray: add the local-1-worker vs Ray-2-workers rows")
    ap.add_argument("--serve", type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return

    work = Path(tempfile.mkdtemp(prefix="riko-bench-dream-"))
    try:
        logs = work / "logs"
        write_logs(logs, args.sessions)
        for policy in ("off", "user_grounded", "all"):
            config = {"dream_provider": "heuristic", "candidate_auto_confirm": policy}
            seconds, cpu, report = timed_dream(work / f"heuristic-{policy}", logs, config, 1)
            assert report.failed == 0, report
            print(f"heuristic, auto-confirm {policy:<13} {report.succeeded} sessions in {seconds:6.2f}s = "
                  f"{report.succeeded / seconds:6,.0f} sessions/s wall, {report.succeeded / cpu:6,.0f} per CPU-second "
                  f"({report.candidates} candidates, {len(report.auto_confirmed)} confirmed; load "
                  f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)   target >= 80 per CPU-second with user_grounded")
        if args.executor == "ray":
            ray_rows(work, logs, args)
        if args.skip_http:
            return

        model = SlowModel(args.latency)
        os.environ[KEY_VAR] = "bench-secret-value"
        config = {"dream_provider": "openai-compatible", "dream_api_url": model.url, "dream_model": "bench",
                  "dream_credential_ref": KEY_VAR, "candidate_auto_confirm": "off"}
        try:
            serial_s, _, serial = timed_dream(work / "serial", logs, config, 1)
            parallel_s, _, parallel = timed_dream(work / "parallel", logs, config, args.workers)
        finally:
            model.close()
        assert serial.failed == parallel.failed == 0 and serial.candidates == parallel.candidates
        print(f"http workers=1:  {serial.succeeded} sessions in {serial_s:6.2f}s = {serial.succeeded / serial_s:6.1f} sessions/s "
              f"(latency {args.latency * 1000:.0f} ms, floor {args.sessions * args.latency:.0f}s)")
        print(f"http workers={args.workers}:  {parallel.succeeded} sessions in {parallel_s:6.2f}s = "
              f"{parallel.succeeded / parallel_s:6.1f} sessions/s")
        print(f"speed-up workers={args.workers} vs 1: {serial_s / parallel_s:.1f}x   target >= 6x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
