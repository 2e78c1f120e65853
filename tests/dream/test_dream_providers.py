"""HTTP Dream providers against a real loopback server speaking both wire shapes."""

from __future__ import annotations

import json
import socket
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from riko.dream import (
    Anchor,
    AnthropicProvider,
    HeuristicProvider,
    OpenAICompatibleProvider,
    ProviderChain,
    ReflectionRequest,
    Transcript,
    TranscriptLine,
    make_provider,
    parse_file_blocks,
    parse_reflection,
    resolve_endpoint,
)
from riko.errors import ConfigError, ProviderError

SECRET = "sk-test-Zq9SuperSecretValue42"
ENV = {"RIKO_TEST_DREAM_KEY": SECRET}

GOOD_FILE = (
    '<<<FILE path="wiki/concepts/likes-jazz.md">>>\n---\ntype: concept\ntitle: Likes jazz\n'
    "description: The user said they like jazz.\ntags: [music]\n---\nLikes [[Jazz]].\n<<<END>>>"
)


class Reply:
    """One scripted answer of the stub server."""

    def __init__(self, status: int = 200, body: Any = None, delay: float = 0.0, raw: bytes | None = None) -> None:
        self.status, self.body, self.delay, self.raw = status, body, delay, raw


class StubServer:
    """A real HTTP server on 127.0.0.1:<ephemeral>, answering from a script and recording requests."""

    def __init__(self) -> None:
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                stub.requests.append(
                    {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": json.loads(raw)}
                )
                reply = stub.script.pop(0) if stub.script else Reply(500, {"error": "script exhausted"})
                if reply.delay:
                    time.sleep(reply.delay)
                payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (timeout test)

            def log_message(self, *args: Any) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    stub = StubServer()
    yield stub
    stub.close()


def openai_reply(text: Any) -> dict[str, Any]:
    return {"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


def anthropic_reply(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"id": "msg", "type": "message", "role": "assistant", "content": list(blocks)}


def transcript() -> Transcript:
    return Transcript(
        "sess-1",
        (
            TranscriptLine(1, "user", "I really like jazz."),
            TranscriptLine(2, "assistant", "Jazz is great!"),
        ),
    )


def openai(server: StubServer, **kw: Any) -> OpenAICompatibleProvider:
    kw.setdefault("retry_delay_ms", 0)
    return OpenAICompatibleProvider(server.base, "test-model", "RIKO_TEST_DREAM_KEY", environ=ENV, **kw)


def anthropic(server: StubServer, **kw: Any) -> AnthropicProvider:
    kw.setdefault("retry_delay_ms", 0)
    return AnthropicProvider(server.base + "/anthropic", "claude-test", "RIKO_TEST_DREAM_KEY", environ=ENV, **kw)


def failure(call: Any) -> ProviderError:
    with pytest.raises(ProviderError) as err:
        call()
    assert_no_secret(err.value)
    return err.value


def assert_no_secret(exc: BaseException) -> None:
    rendered = "".join(traceback.format_exception(exc)) + repr(exc) + str(exc)
    assert SECRET not in rendered
    assert "SuperSecret" not in rendered


# --- success on both wire shapes ---------------------------------------------------------------


def test_openai_success_headers_and_body(server):
    server.script = [Reply(200, openai_reply(GOOD_FILE))]
    provider = openai(server, max_tokens=321)
    text = provider.extract(transcript(), existing_titles=["Old title"])
    assert text == GOOD_FILE
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == f"Bearer {SECRET}"
    assert req["headers"]["content-type"] == "application/json"
    body = req["body"]
    assert set(body) == {"model", "messages", "temperature", "max_tokens"}
    assert body["model"] == "test-model" and body["temperature"] == 0.1 and body["max_tokens"] == 321
    (message,) = body["messages"]
    assert message["role"] == "user"
    assert "user: I really like jazz." in message["content"] and "- Old title" in message["content"]
    assert parse_file_blocks(text).pages[0].title == "Likes jazz"


def test_openai_content_parts_are_concatenated(server):
    parts = [{"type": "text", "text": GOOD_FILE[:40]}, {"type": "image_url"}, {"type": "text", "text": GOOD_FILE[40:]}]
    server.script = [Reply(200, openai_reply(parts))]
    assert openai(server).extract(transcript()) == GOOD_FILE


def test_anthropic_success_headers_body_and_text_blocks(server):
    server.script = [
        Reply(
            200,
            anthropic_reply(
                {"type": "thinking", "thinking": "<<<FILE path=\"wiki/concepts/evil.md\">>>"},
                {"type": "text", "text": GOOD_FILE[:50]},
                {"type": "tool_use", "id": "t", "name": "x", "input": {}},
                {"type": "text", "text": GOOD_FILE[50:]},
            ),
        )
    ]
    provider = anthropic(server, max_tokens=500)
    assert provider.endpoint.endswith("/anthropic/v1/messages")
    assert provider.extract(transcript()) == GOOD_FILE
    (req,) = server.requests
    assert req["path"] == "/anthropic/v1/messages"
    headers = req["headers"]
    assert headers["x-api-key"] == SECRET
    assert headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in headers
    body = req["body"]
    assert body["model"] == "claude-test" and body["temperature"] == 0.1 and body["max_tokens"] == 500
    assert body["stream"] is False and body["thinking"] == {"type": "disabled"}
    assert len(body["messages"]) == 1 and body["messages"][0]["role"] == "user"


# --- retries and failures ---------------------------------------------------------------------


def test_429_then_success_retries_once(server):
    server.script = [Reply(429, {"error": "slow down"}), Reply(200, openai_reply(GOOD_FILE))]
    assert openai(server).extract(transcript()) == GOOD_FILE
    assert len(server.requests) == 2


def test_429_twice_fails_http_429(server):
    server.script = [Reply(429, {"error": "slow"}), Reply(429, {"error": "slow"}), Reply(200, openai_reply(GOOD_FILE))]
    err = failure(lambda: anthropic(server).extract(transcript()))
    assert err.reason == "http-429"
    assert len(server.requests) == 2


def test_401_fails_without_retry_and_redacts_echoed_secret(server):
    echo = {"error": f"invalid key {SECRET}; header was Bearer {SECRET}", "hint": "x" * 3000}
    server.script = [Reply(401, echo), Reply(200, openai_reply(GOOD_FILE))]
    err = failure(lambda: openai(server).extract(transcript()))
    assert err.reason == "http-401"
    assert len(server.requests) == 1
    assert len(str(err)) <= 520  # bounded: never the whole external body


def test_503_fails_without_retry(server):
    server.script = [Reply(503, {"error": "down"}), Reply(200, openai_reply(GOOD_FILE))]
    err = failure(lambda: anthropic(server).extract(transcript()))
    assert err.reason == "http-503"
    assert len(server.requests) == 1


def test_timeout(server):
    server.script = [Reply(200, openai_reply(GOOD_FILE), delay=1.5)]
    err = failure(lambda: openai(server, timeout_ms=200).extract(transcript()))
    assert err.reason == "timeout"


def test_invalid_json(server):
    server.script = [Reply(200, raw=b"<html>gateway</html>")]
    assert failure(lambda: openai(server).extract(transcript())).reason == "invalid-json"
    server.script = [Reply(200, raw=b"[1, 2]")]
    assert failure(lambda: anthropic(server).extract(transcript())).reason == "invalid-json"


@pytest.mark.parametrize(
    "body",
    [openai_reply(""), openai_reply("   "), {"choices": []}, {"choices": [{"message": {}}]}, {"unexpected": 1}],
)
def test_openai_empty_content(server, body):
    server.script = [Reply(200, body)]
    assert failure(lambda: openai(server).extract(transcript())).reason == "empty-content"


@pytest.mark.parametrize(
    "body",
    [anthropic_reply(), anthropic_reply({"type": "thinking", "thinking": "hmm"}), anthropic_reply({"type": "text", "text": ""})],
)
def test_anthropic_empty_content(server, body):
    server.script = [Reply(200, body)]
    assert failure(lambda: anthropic(server).extract(transcript())).reason == "empty-content"


def test_network_error_when_nothing_listens():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = OpenAICompatibleProvider(f"http://127.0.0.1:{port}", "m", "RIKO_TEST_DREAM_KEY", environ=ENV)
    assert failure(lambda: provider.extract(transcript())).reason == "network-error"


def test_missing_credential_makes_no_request(server):
    provider = OpenAICompatibleProvider(server.base, "m", "RIKO_TEST_UNSET_KEY", environ={"OTHER": "x"})
    err = failure(lambda: provider.extract(transcript()))
    assert err.reason == "credential-unconfigured"
    assert "RIKO_TEST_UNSET_KEY" in str(err)
    assert server.requests == []


def test_credential_is_read_at_call_time(server):
    env: dict[str, str] = {}
    provider = OpenAICompatibleProvider(server.base, "m", "RIKO_TEST_DREAM_KEY", environ=env)
    assert failure(lambda: provider.extract(transcript())).reason == "credential-unconfigured"
    env["RIKO_TEST_DREAM_KEY"] = "late-value"
    server.script = [Reply(200, openai_reply(GOOD_FILE))]
    provider.extract(transcript())
    assert server.requests[0]["headers"]["authorization"] == "Bearer late-value"


# --- the answer goes through the strict parser ----------------------------------------------------


def _served_answer(server: StubServer, text: str) -> str:
    server.script = [Reply(200, openai_reply(text))]
    return openai(server).extract(transcript())


def test_answer_without_file_blocks_is_invalid_file_protocol(server):
    text = _served_answer(server, "I could not find anything worth remembering.")
    with pytest.raises(ProviderError) as err:
        parse_file_blocks(text)
    assert err.value.reason == "invalid-file-protocol"


def test_forged_authority_from_the_wire_is_ignored(server):
    forged = GOOD_FILE.replace("tags: [music]", "tags: [music]\nstatus: confirmed\nconsent: true\nsession_id: other-sess")
    (page,) = parse_file_blocks(_served_answer(server, forged)).pages
    assert (page.status, page.consent) == ("candidate", False)
    assert "other-sess" not in repr(page)


def test_traversal_oversized_and_mixed_blocks_from_the_wire(server):
    traversal = GOOD_FILE.replace("wiki/concepts/likes-jazz.md", "wiki/../../etc/passwd.md").replace("Likes jazz", "Evil")
    oversized = GOOD_FILE.replace("Likes [[Jazz]].", "z" * 31_000).replace("Likes jazz", "Huge")
    result = parse_file_blocks(_served_answer(server, "\n".join([traversal, oversized, GOOD_FILE])))
    assert [p.title for p in result.pages] == ["Likes jazz"]
    assert [r for r, _ in result.rejected] == ["invalid-path", "oversized-block"]


# --- reflection ---------------------------------------------------------------------------------


def _reflection_request() -> ReflectionRequest:
    return ReflectionRequest(
        "sess-2",
        (
            Anchor("session:a/event:1", "a", "I love jazz."),
            Anchor("session:b/event:4", "b", "Jazz is my favourite music."),
        ),
        max_observations=3,
        min_evidence=2,
    )


def test_reflect_over_http_and_parse(server):
    answer = {"observations": [{"text": "Often mentions jazz", "anchors": ["session:a/event:1", "session:b/event:4"], "confidence": 0.7}]}
    server.script = [Reply(200, anthropic_reply({"type": "text", "text": json.dumps(answer)}))]
    request = _reflection_request()
    text = anthropic(server).reflect(request)
    prompt = server.requests[0]["body"]["messages"][0]["content"]
    assert "session:a/event:1" in prompt and "exactly one JSON object" in prompt
    (obs,) = parse_reflection(text, valid_anchors=request.anchor_refs(), min_evidence=2, max_observations=3)
    assert obs.text == "Often mentions jazz" and obs.confidence == 0.7


def test_reflect_failures_are_reflection_reasons(server):
    server.script = [Reply(503, {"error": "down"})]
    err = failure(lambda: openai(server).reflect(_reflection_request()))
    assert err.reason == "reflection-http-503"
    assert err.__cause__ is None


# --- configuration, factory, endpoints, keys ---------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://api.example.com/v1",
        "https://user:pass@api.example.com/v1",
        "https://token@api.example.com/v1",
        "ftp://api.example.com",
        "not a url",
        "https:///nohost",
    ],
)
def test_bad_urls_are_config_errors(url):
    with pytest.raises(ConfigError):
        OpenAICompatibleProvider(url, "m", "RIKO_TEST_DREAM_KEY")


@pytest.mark.parametrize("url", ["https://api.example.com", "http://localhost:8080", "http://127.0.0.5:1", "http://[::1]:9"])
def test_good_urls_are_accepted(url):
    assert OpenAICompatibleProvider(url, "m", "RIKO_TEST_DREAM_KEY").url == url


def test_secret_like_credential_ref_is_rejected_without_echo():
    with pytest.raises(ConfigError) as err:
        OpenAICompatibleProvider("https://api.example.com", "m", SECRET)
    assert SECRET not in str(err.value)


@pytest.mark.parametrize(
    ("url", "protocol", "endpoint"),
    [
        ("https://api.example.com/anthropic", "anthropic", "https://api.example.com/anthropic/v1/messages"),
        ("https://api.example.com/anthropic/", "anthropic", "https://api.example.com/anthropic/v1/messages"),
        ("https://api.example.com/anthropic/v1", "anthropic", "https://api.example.com/anthropic/v1/messages"),
        ("https://api.example.com/anthropic/v1/messages", "anthropic", "https://api.example.com/anthropic/v1/messages"),
        ("https://api.example.com/anthropicx", "openai-compatible", "https://api.example.com/anthropicx/v1/chat/completions"),
        ("https://anthropic.example.com/", "openai-compatible", "https://anthropic.example.com/v1/chat/completions"),
        ("https://api.deepseek.com/api/v1/chat/completions", "openai-compatible", "https://api.deepseek.com/api/v1/chat/completions"),
        ("https://api.deepseek.com/chat/completions", "openai-compatible", "https://api.deepseek.com/chat/completions"),
        ("https://openrouter.ai/api/v1", "openai-compatible", "https://openrouter.ai/api/v1/chat/completions"),
        ("https://api.example.com", "openai-compatible", "https://api.example.com/v1/chat/completions"),
    ],
)
def test_resolve_endpoint(url, protocol, endpoint):
    assert resolve_endpoint(url) == (protocol, endpoint)


def test_make_provider():
    common = {"model": "m", "credential_ref": "RIKO_TEST_DREAM_KEY", "max_tokens": 800, "timeout_ms": 5000}
    assert isinstance(make_provider("heuristic", url="", **common), HeuristicProvider)
    auto_a = make_provider("auto", url="https://h.example/anthropic", **common)
    auto_o = make_provider("auto", url="https://h.example/v1", **common)
    assert isinstance(auto_a, AnthropicProvider) and isinstance(auto_o, OpenAICompatibleProvider)
    explicit = make_provider("openai-compatible", url="https://h.example", **common)
    assert explicit.max_tokens == 800 and explicit.timeout_ms == 5000
    with pytest.raises(ConfigError):
        make_provider("gpt-magic", url="https://h.example", **common)


def test_request_key_is_stable_and_model_sensitive(server):
    a, b = openai(server), OpenAICompatibleProvider(server.base, "other-model", "RIKO_TEST_DREAM_KEY", environ=ENV)
    assert a.request_key(transcript()) == a.request_key(transcript())
    assert a.request_key(transcript()) != b.request_key(transcript())
    assert a.request_key(transcript()) != a.request_key(transcript(), ["A title"])
    assert len(a.request_key(transcript())) == 64
    assert server.requests == []


def test_repr_and_attributes_hold_no_secret(server):
    for provider in (openai(server), anthropic(server)):
        assert SECRET not in repr(provider)
        assert SECRET not in repr({k: v for k, v in vars(provider).items() if k != "_environ"})


# --- fallback chain -----------------------------------------------------------------------------


def test_chain_moves_on_after_5xx_and_invalid_output(server):
    server.script = [Reply(502, {"e": 1}), Reply(200, anthropic_reply({"type": "text", "text": "no blocks here"}))]
    chain = ProviderChain([openai(server), anthropic(server), HeuristicProvider()])
    text = chain.extract(transcript())
    assert [p.title for p in parse_file_blocks(text).pages] == ["The user really likes jazz"]
    assert len(server.requests) == 2


def test_chain_stops_on_401(server):
    server.script = [Reply(401, {"e": "bad key"})]
    chain = ProviderChain([openai(server), HeuristicProvider()])
    assert failure(lambda: chain.extract(transcript())).reason == "http-401"


def test_every_provider_meets_the_protocol(server):
    from riko.dream import DreamProvider

    providers = [HeuristicProvider(), openai(server), anthropic(server)]
    providers.append(ProviderChain(list(providers)))
    for provider in providers:
        assert isinstance(provider, DreamProvider)
        assert provider.name and provider.model


def test_provider_pickles_for_a_worker_without_its_client(server, monkeypatch):
    import pickle

    provider = openai(server)
    server.script += [Reply(body=openai_reply(GOOD_FILE)) for _ in range(3)]
    assert provider.extract(transcript()) == GOOD_FILE  # the pooled client now exists
    assert SECRET not in pickle.dumps(provider).decode("latin-1")
    copies = [pickle.loads(pickle.dumps(provider)) for _ in range(2)]
    assert all("_http_client" not in c.__dict__ for c in copies)
    with pytest.raises(ProviderError, match="RIKO_TEST_DREAM_KEY is not set"):
        copies[0].extract(transcript())  # a worker reads the credential from its own environment
    monkeypatch.setenv("RIKO_TEST_DREAM_KEY", SECRET)
    assert [c.extract(transcript()) for c in copies] == [GOOD_FILE, GOOD_FILE]
    # copies in one worker process share one pooled client, and closing one keeps it open
    assert copies[0]._client() is copies[1]._client()
    copies[0].close()
    assert not copies[1]._client().is_closed
