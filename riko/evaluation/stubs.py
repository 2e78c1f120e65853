"""A loopback HTTP server standing in for the Dream, embedding and rerank endpoints.

The corpus drives riko's real HTTP providers against it, so a provider failure is a real
failed request on a real socket, not a replaced function. Each route has a mode that a
scenario can switch between steps; every request is counted per route.

    >>> with LoopbackStub({"rerank": "fail"}) as stub:        # doctest: +SKIP
    ...     stub.url("rerank")                                  # http://127.0.0.1:<port>/v1/rerank
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Mapping
from ..errors import InvalidArgumentError
from ..dense.providers import DeterministicProvider

__all__ = ["LoopbackStub", "ROUTES", "MODES"]

#: Route name → request path.
ROUTES: dict[str, str] = {
    "dream": "/v1/chat/completions",
    "embeddings": "/v1/embeddings",
    "rerank": "/v1/rerank",
}
#: The modes each route understands.
MODES: dict[str, tuple[str, ...]] = {
    "dream": ("malformed", "fail"),
    "embeddings": ("vectors", "fail"),
    "rerank": ("identity", "fail"),
}


class LoopbackStub:
    """``ThreadingHTTPServer`` on 127.0.0.1 with one mode per route (see :data:`MODES`).

    ``malformed`` answers a Dream request with HTTP 200 and ``replies["dream"]`` as the
    assistant text; ``vectors`` answers embeddings with riko's deterministic hash vectors of
    the requested dimension; ``identity`` ranks rerank documents in input order; ``fail``
    answers HTTP 500.
    """

    def __init__(self, modes: Mapping[str, str], replies: Mapping[str, str] | None = None,
                 *, dimension: int = 64) -> None:
        for route, mode in modes.items():
            self._check(route, mode)
        self.modes = dict(modes)
        self.replies = dict(replies or {})
        self.dimension = dimension
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="riko-eval-stub", daemon=True)
        self._thread.start()

    @staticmethod
    def _check(route: str, mode: str) -> None:
        if route not in ROUTES:
            raise InvalidArgumentError(f"unknown stub route {route!r}; expected one of {', '.join(ROUTES)}")
        if mode not in MODES[route]:
            raise InvalidArgumentError(f"stub route {route!r} has no mode {mode!r}; expected one of {', '.join(MODES[route])}")

    @property
    def host(self) -> str:
        """``127.0.0.1:<port>``."""
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)  # an IPv4 TCP server
        return f"{host}:{port}"

    def url(self, route: str) -> str:
        return f"http://{self.host}{ROUTES[route]}"

    def set_mode(self, route: str, mode: str) -> None:
        self._check(route, mode)
        with self._lock:
            self.modes[route] = mode

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "LoopbackStub":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- answering ----------------------------------------------------------------------------
    def answer(self, path: str, payload: Any) -> tuple[int, Any]:
        """``(status, JSON body)`` for one request."""
        route = next((name for name, p in ROUTES.items() if p == path), None)
        if route is None:
            return 404, {"error": "no such route"}
        with self._lock:
            self.calls[route] += 1
            mode = self.modes.get(route, "fail")
        if mode == "fail":
            return 500, {"error": {"message": "stub failure", "type": "server_error"}}
        if route == "dream":
            text = self.replies.get("dream", "")
            return 200, {"id": "stub", "object": "chat.completion", "model": "eval-stub",
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": text}}]}
        if route == "embeddings":

            texts = payload.get("input") if isinstance(payload, dict) else None
            if isinstance(texts, str):
                texts = [texts]
            if not isinstance(texts, list):
                return 400, {"error": "input must be a string or a list"}
            vectors = DeterministicProvider(self.dimension).embed_passages([str(t) for t in texts])
            return 200, {"object": "list", "model": "eval-embed",
                         "data": [{"object": "embedding", "index": i, "embedding": [float(x) for x in row]}
                                  for i, row in enumerate(vectors)]}
        documents = payload.get("documents") if isinstance(payload, dict) else None
        count = len(documents) if isinstance(documents, list) else 0
        return 200, {"results": [{"index": i, "relevance_score": 1.0 / (i + 1)} for i in range(count)]}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
                try:
                    payload = json.loads(raw or b"null")
                except ValueError:
                    payload = None
                status, body = stub.answer(self.path.split("?", 1)[0], payload)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler
