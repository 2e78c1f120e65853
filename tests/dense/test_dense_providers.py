"""Embedding providers: deterministic-local-v1 exactness, offline embedded models, HTTP provider."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from riko.dense import (
    DeterministicProvider,
    E5Provider,
    OpenAICompatibleProvider,
    USEProvider,
    make_embedding_provider,
)
from riko.errors import ConfigError, ProviderError

SECRET = "sk-test-7f3a9c-SECRET"


# -- deterministic-local-v1 ----------------------------------------------------------------


def test_normalisation_is_nfkc_lowercase_and_collapsed_whitespace() -> None:
    assert DeterministicProvider.normalize_text("  Ｈｅｌｌｏ\t\n  WORLD  ") == "hello world"
    assert DeterministicProvider.normalize_text("ﬁ  Ⅸ") == "fi ix"


def test_features_are_tokens_then_trigrams_with_their_weights() -> None:
    assert DeterministicProvider.features("Hello  World") == [
        ("hello", 1.0),
        ("world", 1.0),
        ("hel", 0.5),
        ("ell", 0.5),
        ("llo", 0.5),
        ("lo ", 0.5),
        ("o w", 0.5),
        (" wo", 0.5),
        ("wor", 0.5),
        ("orl", 0.5),
        ("rld", 0.5),
    ]
    assert DeterministicProvider.features("ab") == [("ab", 1.0)]
    assert DeterministicProvider.features(" \t ") == [("<empty>", 1.0)]


def test_slot_comes_from_the_first_four_sha256_bytes() -> None:
    p = DeterministicProvider(256)
    assert p.slot("hello") == (186, 1.0)  # 2cf24dba
    assert p.slot("world") == (98, 1.0)  # 486ea462
    assert p.slot("hel") == (34, -1.0)  # d6a81f22: top bit set
    assert p.slot("<empty>") == (252, -1.0)  # 80852ffc
    assert DeterministicProvider(1000).slot("hello") == (0x2CF24DBA % 1000, 1.0)


def test_golden_vector_for_hello_world() -> None:
    v = DeterministicProvider(256).embed_query("Hello world")
    assert v.dtype == np.float32 and v.shape == (256,)
    t, w = 1 / math.sqrt(17), 2 / math.sqrt(17)  # 9 trigrams of 0.5 and 2 tokens of 1 in 11 slots
    expected = {34: -t, 53: t, 80: -t, 88: -t, 98: w, 175: t, 186: w, 202: -t, 212: t, 223: t, 248: -t}
    assert sorted(np.flatnonzero(v).tolist()) == sorted(expected)
    for index, value in expected.items():
        assert v[index] == pytest.approx(value, abs=1e-6)


def test_empty_input_hashes_the_empty_feature() -> None:
    for text in ("", "   ", "\n\t"):
        v = DeterministicProvider(256).embed_query(text)
        assert np.flatnonzero(v).tolist() == [252]
        assert v[252] == -1.0


def test_cancelled_features_fall_back_to_a_single_set_bit() -> None:
    # At dimension 8, "a" and "go" collide with opposite signs and so do "a g" and " go".
    v = DeterministicProvider(8).embed_query("a go")
    assert v.tolist() == [1.0, 0, 0, 0, 0, 0, 0, 0]


def test_passages_and_query_agree_and_are_deterministic() -> None:
    p = DeterministicProvider(64)
    texts = ["Alice drinks oolong tea", "爱丽丝喝乌龙茶", ""]
    m = p.embed_passages(texts)
    assert m.shape == (3, 64) and m.dtype == np.float32
    for row, text in enumerate(texts):
        assert np.array_equal(m[row], p.embed_query(text))
    assert np.array_equal(m, DeterministicProvider(64).embed_passages(texts))
    assert p.embed_passages([]).shape == (0, 64)
    with pytest.raises(TypeError):
        p.embed_passages("one string")


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200), st.integers(min_value=8, max_value=4096))
def test_every_vector_has_unit_norm(text: str, dimension: int) -> None:
    v = DeterministicProvider(dimension).embed_query(text)
    assert v.shape == (dimension,)
    assert float(np.linalg.norm(v)) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("dimension", [0, 7, 4097, 256.0, True])
def test_dimension_bounds(dimension: Any) -> None:
    with pytest.raises(ConfigError):
        DeterministicProvider(dimension)


def test_dimension_limits_are_accepted() -> None:
    assert DeterministicProvider(8).dimension == 8
    assert DeterministicProvider(4096).embed_query("x").shape == (4096,)
    assert DeterministicProvider().dimension == 256


def test_similar_texts_score_higher_than_unrelated_ones() -> None:
    p = DeterministicProvider(256)
    q = p.embed_query("alice likes green tea")
    near, far = p.embed_passages(["Alice really likes green tea", "the train leaves at noon"])
    assert float(near @ q) > float(far @ q)


# -- factory -------------------------------------------------------------------------------


def test_factory_builds_each_provider() -> None:
    assert make_embedding_provider("off") is None
    det = make_embedding_provider("deterministic", dimension=32)
    assert isinstance(det, DeterministicProvider) and det.dimension == 32
    e5 = make_embedding_provider("local")
    assert isinstance(e5, E5Provider) and (e5.model, e5.dimension, e5.loaded) == ("multilingual-e5-small", 384, False)
    use = make_embedding_provider("local-fast")
    assert isinstance(use, USEProvider) and (use.model, use.dimension) == ("use-multilingual-v3", 512)
    http = make_embedding_provider(
        "openai-compatible", dimension=16, endpoint="http://127.0.0.1:9/v1/embeddings", model="m", credential_ref="K"
    )
    assert isinstance(http, OpenAICompatibleProvider) and http.dimension == 16
    with pytest.raises(ConfigError, match="unknown provider"):
        make_embedding_provider("bert")
    with pytest.raises(ProviderError) as err:
        make_embedding_provider("openai-compatible", endpoint="http://127.0.0.1:9/v1", model="", credential_ref="K")
    assert err.value.reason == "invalid-config"


# -- embedded models, offline -------------------------------------------------------------

_OFFLINE_SCRIPT = textwrap.dedent(
    """
    import json, os, socket, sys
    os.environ["HF_HUB_OFFLINE"] = "1"

    class _NoNetwork(socket.socket):
        def __init__(self, *args, **kwargs):
            raise OSError("networking is disabled in this test")

    def _no_connect(*args, **kwargs):
        raise OSError("networking is disabled in this test")

    socket.socket = _NoNetwork
    socket.create_connection = _no_connect
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sys.exit("socket block is not effective")
    except OSError:
        pass

    from riko.dense import make_embedding_provider
    p = make_embedding_provider(sys.argv[1])
    cases = {
        "en": ("How should I take care of my cat?",
               "Cats need fresh water, regular feeding and gentle brushing.",
               "The central bank raised interest rates again this quarter."),
        "zh": ("我的猫生病了怎么办？",
               "猫咪生病时应该尽快带它去看兽医。",
               "今天股市大幅下跌，投资者很紧张。"),
    }
    out = {"model": p.model, "dimension": p.dimension}
    for lang, (query, related, unrelated) in cases.items():
        q = p.embed_query(query)
        m = p.embed_passages([related, unrelated])
        out[lang] = {
            "related": float(m[0] @ q), "unrelated": float(m[1] @ q),
            "shape": list(m.shape), "qshape": list(q.shape),
            "norms": [float(x) for x in (m ** 2).sum(axis=1) ** 0.5],
            "dtype": str(m.dtype),
        }
    print(json.dumps(out))
    """
)


def _run_offline(name: str) -> dict[str, Any]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_SCRIPT, name], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("name", "model", "dimension"),
    [("local", "multilingual-e5-small", 384), ("local-fast", "use-multilingual-v3", 512)],
)
def test_embedded_model_loads_offline_and_ranks_related_text_first(name: str, model: str, dimension: int) -> None:
    out = _run_offline(name)
    assert (out["model"], out["dimension"]) == (model, dimension)
    for lang in ("en", "zh"):
        r = out[lang]
        assert r["shape"] == [2, dimension] and r["qshape"] == [dimension] and r["dtype"] == "float32"
        assert r["norms"] == pytest.approx([1.0, 1.0], abs=1e-4)
        assert r["related"] > r["unrelated"], (lang, r)


# -- openai-compatible against a loopback server ----------------------------------------


class StubEmbeddings:
    """A loopback /v1/embeddings server that plays a script of answers and records requests."""

    def __init__(self, dimension: int = 8) -> None:
        self.dimension = dimension
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body = json.loads(raw)
                stub.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                step = stub.script.pop(0) if stub.script else {}
                if step.get("delay"):
                    time.sleep(step["delay"])
                status = step.get("status", 200)
                if "raw" in step:
                    payload = step["raw"].encode()
                elif "data" in step:
                    payload = json.dumps({"data": step["data"]}).encode()
                elif status == 200:
                    payload = json.dumps({"data": stub.answer(body["input"])}).encode()
                else:
                    # Echo the credential back, as a careless server might.
                    payload = json.dumps({"error": f"bad key {self.headers.get('Authorization')}"}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/embeddings"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, texts: list[str]) -> list[dict[str, Any]]:
        rows = []
        for i, _ in enumerate(texts):
            vec = [0.0] * self.dimension
            vec[0], vec[1 + i % (self.dimension - 1)] = 3.0, 4.0
            rows.append({"object": "embedding", "index": i, "embedding": vec})
        return rows

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub() -> Iterator[StubEmbeddings]:
    server = StubEmbeddings()
    yield server
    server.close()


def _provider(stub: StubEmbeddings, **kw: Any) -> OpenAICompatibleProvider:
    args: dict[str, Any] = {"environ": {"EMB_KEY": SECRET}, "timeout_ms": 5000}
    args.update(kw)
    return OpenAICompatibleProvider(stub.url, "text-embed-test", "EMB_KEY", stub.dimension, **args)


def _reason(fn: Any) -> ProviderError:
    with pytest.raises(ProviderError) as err:
        fn()
    assert SECRET not in str(err.value) and SECRET not in repr(err.value)
    return err.value


def test_success_posts_model_and_input_with_bearer_credential(stub: StubEmbeddings) -> None:
    p = _provider(stub)
    m = p.embed_passages(["alpha", "beta"])
    assert m.shape == (2, 8) and m.dtype == np.float32
    assert m[0].tolist() == pytest.approx([0.6, 0.8, 0, 0, 0, 0, 0, 0])
    assert m[1].tolist() == pytest.approx([0.6, 0, 0.8, 0, 0, 0, 0, 0])
    (req,) = stub.requests
    assert req["path"] == "/v1/embeddings"
    assert req["body"] == {"model": "text-embed-test", "input": ["alpha", "beta"]}
    assert req["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert req["headers"]["Content-Type"] == "application/json"
    assert p.embed_query("gamma").shape == (8,)
    assert SECRET not in repr(p)


def test_rows_follow_the_index_field(stub: StubEmbeddings) -> None:
    stub.script = [{"data": list(reversed(stub.answer(["a", "b", "c"])))}]
    m = _provider(stub).embed_passages(["a", "b", "c"])
    assert [int(np.argmax(row[1:])) for row in m] == [0, 1, 2]


def test_credential_is_resolved_on_every_request(stub: StubEmbeddings) -> None:
    env = {"EMB_KEY": "first-key"}
    p = OpenAICompatibleProvider(stub.url, "m", "EMB_KEY", 8, environ=env)
    p.embed_query("a")
    env["EMB_KEY"] = "rotated-key"
    p.embed_query("b")
    assert [r["headers"]["Authorization"] for r in stub.requests] == ["Bearer first-key", "Bearer rotated-key"]
    del env["EMB_KEY"]
    assert _reason(lambda: p.embed_query("c")).reason == "credential-unavailable"
    assert len(stub.requests) == 2


@pytest.mark.parametrize("status", [429, 500, 503])
def test_retries_once_on_throttling_and_server_errors(stub: StubEmbeddings, status: int) -> None:
    stub.script = [{"status": status}]
    assert _provider(stub).embed_passages(["a"]).shape == (1, 8)
    assert len(stub.requests) == 2


def test_two_server_errors_fail_with_the_status(stub: StubEmbeddings) -> None:
    stub.script = [{"status": 500}, {"status": 500}]
    assert _reason(lambda: _provider(stub).embed_passages(["a"])).reason == "http-500"
    assert len(stub.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_are_not_retried(stub: StubEmbeddings, status: int) -> None:
    stub.script = [{"status": status}]
    assert _reason(lambda: _provider(stub).embed_passages(["a"])).reason == f"http-{status}"
    assert len(stub.requests) == 1


def test_timeout_is_not_retried(stub: StubEmbeddings) -> None:
    stub.script = [{"delay": 1.5}]
    assert _reason(lambda: _provider(stub, timeout_ms=200).embed_passages(["a"])).reason == "timeout"
    assert len(stub.requests) == 1


@pytest.mark.parametrize(
    "step",
    [
        {"raw": "<html>not json</html>"},
        {"raw": '{"object": "list"}'},
        {"raw": '{"data": [{"embedding": [NaN, 1, 0, 0, 0, 0, 0, 0]}]}'},
        {"raw": '{"data": [{"embedding": [Infinity, 1, 0, 0, 0, 0, 0, 0]}]}'},
        {"data": [{"embedding": ["1", 0, 0, 0, 0, 0, 0, 0]}]},
        {"data": [{"embedding": [True, 0, 0, 0, 0, 0, 0, 0]}]},
        {"data": [{"embedding": []}]},
        {"data": [{"embedding": [1, 0, 0, 0]}]},
        {"data": [{"embedding": [0, 0, 0, 0, 0, 0, 0, 0]}]},
        {"data": [{"vector": [1, 0, 0, 0, 0, 0, 0, 0]}]},
        {"data": []},
    ],
)
def test_malformed_answers_are_invalid_responses(stub: StubEmbeddings, step: dict[str, Any]) -> None:
    stub.script = [step]
    assert _reason(lambda: _provider(stub).embed_passages(["a"])).reason == "invalid-response"
    assert len(stub.requests) == 1


def test_inconsistent_dimensions_are_rejected(stub: StubEmbeddings) -> None:
    stub.script = [{"data": [{"embedding": [1.0] * 8}, {"embedding": [1.0] * 9}]}]
    assert _reason(lambda: _provider(stub).embed_passages(["a", "b"])).reason == "invalid-response"


def test_connection_refused_is_a_network_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = OpenAICompatibleProvider(f"http://127.0.0.1:{port}/v1", "m", "K", 8, environ={"K": SECRET})
    assert _reason(lambda: p.embed_query("a")).reason == "network-error"


def test_abort_refuses_further_requests(stub: StubEmbeddings) -> None:
    p = _provider(stub)
    p.abort()
    assert _reason(lambda: p.embed_query("a")).reason == "aborted"
    assert stub.requests == []


def test_empty_batch_makes_no_request(stub: StubEmbeddings) -> None:
    assert _provider(stub).embed_passages([]).shape == (0, 8)
    assert stub.requests == []


@pytest.mark.parametrize(
    "endpoint",
    [
        "",
        "/v1/embeddings",
        "api.example.com/v1",
        "ftp://api.example.com/v1",
        "http://api.example.com/v1/embeddings",
        "http://10.0.0.5/v1/embeddings",
        f"https://user:{SECRET}@api.example.com/v1",
        "https://token@api.example.com/v1",
        "https://api.example.com:notaport/v1",
    ],
)
def test_endpoint_validation(endpoint: str) -> None:
    err = _reason(lambda: OpenAICompatibleProvider(endpoint, "m", "K", 8))
    assert err.reason == "invalid-config"


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://api.example.com/v1/embeddings",
        "http://127.0.0.1:8080/v1/embeddings",
        "http://127.1.2.3/v1",
        "http://localhost:11434/v1/embeddings",
        "http://[::1]:8080/v1",
    ],
)
def test_accepted_endpoints(endpoint: str) -> None:
    assert OpenAICompatibleProvider(endpoint, "m", "K", 8).endpoint == endpoint


@pytest.mark.parametrize(
    ("model", "ref", "dimension", "timeout_ms"),
    [("", "K", 8, 1000), ("m", " ", 8, 1000), ("m", "K", 4, 1000), ("m", "K", 8, 0), ("m", "K", 8, -5)],
)
def test_bad_configuration_is_rejected(model: str, ref: str, dimension: int, timeout_ms: int) -> None:
    endpoint = "https://e.example/v1"
    err = _reason(lambda: OpenAICompatibleProvider(endpoint, model, ref, dimension, timeout_ms=timeout_ms))
    assert err.reason == "invalid-config"


def test_timeout_default_and_cap() -> None:
    assert OpenAICompatibleProvider("https://e.example/v1", "m", "K", 8).timeout_ms == 10_000
    assert OpenAICompatibleProvider("https://e.example/v1", "m", "K", 8, timeout_ms=999_999).timeout_ms == 120_000
