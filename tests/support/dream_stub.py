"""A small model stub on a real loopback HTTP server, speaking both Dream wire shapes.

``/v1/chat/completions`` answers in the OpenAI chat-completions shape and
``/anthropic/v1/messages`` in the Anthropic messages shape. Without a script it behaves like
a tiny model: it reads the ``<conversation>`` of an extraction prompt and answers with FILE
blocks quoting the user (or, for a reflection prompt, with an empty observation list).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from riko.dream import HeuristicProvider, Transcript, TranscriptLine

SECRET = "sk-test-Zq9SuperSecretValue42"
CREDENTIAL_REF = "RIKO_TEST_DREAM_KEY"

_CONVERSATION = re.compile(r"<conversation>\n(.*)\n</conversation>", re.DOTALL)
_LINE = re.compile(r"^(?:\[(\d+)\] )?(user|assistant): (.*)$")  # model prompts number their lines


@dataclass
class Reply:
    """One scripted answer: an HTTP status with either assistant text, a JSON body or raw bytes."""

    status: int = 200
    text: str | None = None
    body: Any = None
    raw: bytes | None = None
    delay: float = 0.0
    headers: dict[str, str] | None = None


def transcript_of(prompt: str) -> Transcript:
    """The transcript an extraction prompt quotes (empty when the prompt has none)."""
    match = _CONVERSATION.search(prompt)
    lines = []
    for i, raw in enumerate((match.group(1) if match else "").splitlines()):
        m = _LINE.match(raw)
        if m:
            lines.append(TranscriptLine(int(m.group(1)) if m.group(1) else i, m.group(2), m.group(3)))
    return Transcript("stub", tuple(lines))


def model_answer(prompt: str) -> str:
    """What the stub "model" says: heuristic FILE blocks, a source page, or no observations."""
    if "<anchors>" in prompt:
        return '{"observations": []}'
    answer = HeuristicProvider().extract(transcript_of(prompt))
    if answer.strip():
        return answer
    return ('<<<FILE path="wiki/sources/conversation.md">>>\n---\ntype: source\ntitle: Conversation summary\n'
            "description: A short conversation without lasting facts.\n---\nNothing to remember.\n<<<END>>>")


class StubServer:
    """``ThreadingHTTPServer`` on 127.0.0.1:<ephemeral>; scripted replies first, then ``responder``."""

    def __init__(self, *, latency: float = 0.0, responder: Callable[[str], Reply] | None = None) -> None:
        self.latency = latency
        self.responder = responder or (lambda prompt: Reply(text=model_answer(prompt)))
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body = json.loads(raw)
                prompt = body["messages"][0]["content"]
                with stub._lock:
                    stub.requests.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
                    scripted = stub.script.pop(0) if stub.script else None
                    stub.active += 1
                    stub.max_active = max(stub.max_active, stub.active)
                reply = scripted or stub.responder(prompt)
                if stub.latency or reply.delay:
                    time.sleep(stub.latency + reply.delay)
                with stub._lock:
                    stub.active -= 1
                payload = reply.raw if reply.raw is not None else json.dumps(
                    reply.body if reply.body is not None else stub.wire(self.path, reply.text or "")).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in (reply.headers or {}).items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (timeout)

            def log_message(self, *args: Any) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    @staticmethod
    def wire(path: str, text: str) -> dict[str, Any]:
        """``text`` in the answer shape of the endpoint at ``path``."""
        if "/anthropic" in path:
            return {"id": "msg", "type": "message", "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": text}]}
        return {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, shape: str) -> str:
        """Configured endpoint URL for ``openai`` or ``anthropic``."""
        return self.base + ("/anthropic" if shape == "anthropic" else "/v1")

    def extraction_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if "<conversation>" in r["body"]["messages"][0]["content"]]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def dream_config(stub: StubServer, shape: str = "openai", **extra: Any) -> dict[str, Any]:
    """Memory config pointing Dream at ``stub`` with the test credential reference."""
    return {
        "dream_provider": "anthropic" if shape == "anthropic" else "openai-compatible",
        "dream_api_url": stub.url(shape),
        "dream_model": "stub-model",
        "dream_credential_ref": CREDENTIAL_REF,
        "dream_timeout_ms": 5_000,
        **extra,
    }


def user_event(session_id: str, text: str, *, kind: str = "user") -> dict[str, Any]:
    return {"session_id": session_id, "type": "user/message",
            "data": {"id": f"m-{abs(hash(text)) % 10**8}", "role": "user", "source": {"kind": kind},
                     "content": [{"type": "text", "text": text}]}}


def assistant_event(session_id: str, text: str) -> dict[str, Any]:
    return {"session_id": session_id, "type": "assistant/message",
            "data": {"turn": 1, "step": 1, "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                                                        "source": {"kind": "model", "provider": "p", "model": "m"}}}}


def secret_hits(mem: Any, secret: str = SECRET) -> list[str]:
    """Every ``table.column`` of the warehouse whose text contains ``secret``, plus Wiki files that do."""
    hits = []
    columns = mem._wh.fetchall(
        "SELECT table_name, column_name FROM information_schema.columns WHERE data_type = 'VARCHAR' "
        "AND table_schema = 'main'")
    for table, column in columns:
        row = mem._wh.fetchone(f'SELECT count(*) FROM "{table}" WHERE strpos("{column}", ?) > 0', [secret])
        if row and row[0]:
            hits.append(f"{table}.{column}")
    if mem.wiki_dir.exists():
        hits += [str(p) for p in mem.wiki_dir.rglob("*") if p.is_file() and secret in p.read_text(errors="replace")]
    return hits
