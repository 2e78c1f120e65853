"""Google's ``models/{model}:generateContent`` provider and provider chains from configuration,
against a real loopback stub server (the one of test_dream_providers)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_dream_providers import ENV, GOOD_FILE, SECRET, Reply, StubServer, failure, transcript

import riko
from riko.cli.main import main
from riko.config import ChainEntry, dream_chain, dream_wire_protocol, load_config
from riko.dream import GoogleProvider, ProviderChain, make_provider, parse_file_blocks, resolve_endpoint
from riko.dream.providers import provider_from_chain
from riko.errors import ConfigError


@pytest.fixture
def server():
    stub = StubServer()
    yield stub
    stub.close()


def google_reply(*parts: dict[str, Any], finish: str = "STOP") -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": finish}],
            "usageMetadata": {"totalTokenCount": 10}}


def google(server: StubServer, **kw: Any) -> GoogleProvider:
    kw.setdefault("retry_delay_ms", 0)
    return GoogleProvider(server.base + "/v1beta", "gem-test", "RIKO_TEST_DREAM_KEY", environ=ENV, **kw)


def test_google_request_shape_and_answer(server: StubServer) -> None:
    server.script.append(Reply(200, google_reply({"text": "private reasoning", "thought": True},
                                                 {"text": GOOD_FILE[:40]}, {"text": GOOD_FILE[40:]})))
    text = google(server).extract(transcript())
    assert text == GOOD_FILE and parse_file_blocks(text).pages[0].title == "Likes jazz"
    request = server.requests[0]
    assert request["path"] == "/v1beta/models/gem-test:generateContent"  # no key in the URL
    assert request["headers"]["x-goog-api-key"] == SECRET and "authorization" not in request["headers"]
    body = request["body"]
    assert body["contents"][0]["role"] == "user" and "I really like jazz." in body["contents"][0]["parts"][0]["text"]
    assert body["generationConfig"] == {"temperature": 0.1, "maxOutputTokens": 1200}


@pytest.mark.parametrize("body, reason", [
    ({"promptFeedback": {"blockReason": "SAFETY"}}, "safety-blocked"),
    (google_reply(finish="SAFETY"), "safety-blocked"),
    (google_reply(finish="RECITATION"), "safety-blocked"),
    ({"candidates": []}, "empty-content"),
    (google_reply({"text": "   "}), "empty-content"),
])
def test_google_blocks_and_empty_answers(server: StubServer, body: dict[str, Any], reason: str) -> None:
    server.script.append(Reply(200, body))
    assert failure(lambda: google(server).extract(transcript())).reason == reason


@pytest.mark.parametrize("status, reason", [(400, "http-400"), (401, "http-401"), (403, "http-403"), (503, "http-503")])
def test_google_http_errors(server: StubServer, status: int, reason: str) -> None:
    server.script.append(Reply(status, {"error": {"code": status, "message": f"key {SECRET} refused"}}))
    assert failure(lambda: google(server).extract(transcript())).reason == reason


@pytest.mark.parametrize("url, protocol, endpoint", [
    ("https://generativelanguage.googleapis.com/v1beta", "google",
     "https://generativelanguage.googleapis.com/v1beta/models/m1:generateContent"),
    ("https://llm.example.com/v1beta/models/m1:generateContent", "google",
     "https://llm.example.com/v1beta/models/m1:generateContent"),
    ("https://llm.example.com/v1/models/m1", "google", "https://llm.example.com/v1/models/m1:generateContent"),
    ("https://llm.example.com/anthropic", "anthropic", "https://llm.example.com/anthropic/v1/messages"),
    ("https://llm.example.com/v1", "openai-compatible", "https://llm.example.com/v1/chat/completions"),
])
def test_the_protocol_is_inferred_from_the_endpoint_shape(url: str, protocol: str, endpoint: str) -> None:
    assert resolve_endpoint(url)[0] == protocol
    provider = make_provider("auto", url=url, model="m1", credential_ref="KEY")
    assert provider.name == protocol and provider.endpoint == endpoint
    cfg = load_config(overrides={"dream_provider": "auto", "dream_api_url": url, "dream_model": "m1"}, environ={})
    expected = {"google": "google-generate-content", "anthropic": "anthropic-messages"}.get(
        protocol, "openai-chat-completions")
    assert dream_wire_protocol(cfg) == expected


def test_a_model_placeholder_in_the_url_is_filled_in() -> None:
    provider = GoogleProvider("https://llm.example.com/v1beta/models/{model}:generateContent", "g2", "KEY")
    assert provider.endpoint == "https://llm.example.com/v1beta/models/g2:generateContent"


def test_dream_chain_parses_names_lists_and_tables() -> None:
    assert dream_chain("heuristic") == (ChainEntry("heuristic"),)
    assert dream_chain("google, heuristic") == (ChainEntry("google"), ChainEntry("heuristic"))
    assert dream_chain([{"provider": "anthropic", "url": "https://a.example.com/anthropic", "model": "c",
                         "credentialRef": "A_KEY"}, "heuristic"]) == (
        ChainEntry("anthropic", "https://a.example.com/anthropic", "c", "A_KEY"), ChainEntry("heuristic"))


@pytest.mark.parametrize("value, field", [
    ("heuristic,gpt", "dream_provider[1]"),
    ([{"provider": "google", "modle": "x"}, "heuristic"], "dream_provider[0].modle"),
    ([{"provider": "google", "model": 3}], "dream_provider.model"),
    ([{"provider": "google", "url": "ftp://x"}, "heuristic"], "dream_provider[0].url"),
    ([{"provider": "google", "credential_ref": "sk-live-abcdefghijklmnopqrstuvwx"}, "heuristic"],
     "dream_provider[0].credential_ref"),
    (7, "dream_provider"),
])
def test_a_bad_chain_entry_names_its_place(value: Any, field: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(overrides={"dream_provider": value}, environ={})
    assert err.value.field == field
    assert "sk-live" not in str(err.value)


def test_chain_from_config_falls_back_and_records_it(server: StubServer, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIKO_TEST_DREAM_KEY", SECRET)
    server.script += [Reply(503, {"error": "overloaded"})] * 3
    config = {"dream_provider": [{"provider": "google", "url": server.base + "/v1beta", "model": "gem-test",
                                  "credential_ref": "RIKO_TEST_DREAM_KEY"}, "heuristic"]}
    with riko.open(tmp_path, preset="companion", config=config) as mem:
        mem.capture({"session_id": "s1", "type": "user/message",
                     "data": {"role": "user", "source": {"kind": "user"},
                              "content": [{"type": "text", "text": "I prefer green tea in the morning."}]}})
        report = mem.dream(progress=False)
        assert report.provider == "chain:google,heuristic"
        assert report.fallbacks == [{"session_id": "s1", "from": "google", "reason": "http-503", "to": "heuristic"}]
        assert report.succeeded == 1 and report.candidates >= 1
        jobs = mem.dream_jobs()
        result = jobs.filter(jobs["session_id"] == "s1")["result"][0]
        result = json.loads(result) if isinstance(result, str) else result
        assert result["fallbacks"] == [{"from": "google", "reason": "http-503", "to": "heuristic"}]
    assert server.requests[0]["path"] == "/v1beta/models/gem-test:generateContent"


def test_a_401_stops_the_chain(server: StubServer) -> None:
    server.script.append(Reply(401, {"error": "bad key"}))
    chain = provider_from_chain([{"provider": "google", "url": server.base + "/v1beta", "model": "gem-test"},
                                 "heuristic"], credential_ref="RIKO_TEST_DREAM_KEY", environ=ENV)
    assert isinstance(chain, ProviderChain)
    assert failure(lambda: chain.extract(transcript())).reason == "http-401"
    assert chain.take_fallbacks("sess-1") == []


def test_the_cli_takes_a_chain(server: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIKO_TEST_DREAM_KEY", SECRET)
    (tmp_path / "riko.toml").write_text(
        f'dream_api_url = "{server.base}/v1beta"\ndream_model = "gem-test"\n'
        'dream_credential_ref = "RIKO_TEST_DREAM_KEY"\n', encoding="utf-8")
    server.script.append(Reply(200, google_reply({"text": "no FILE blocks here"})))
    with riko.open(tmp_path, preset="companion") as mem:
        mem.capture({"session_id": "s1", "type": "user/message",
                     "data": {"role": "user", "source": {"kind": "user"},
                              "content": [{"type": "text", "text": "I prefer green tea in the morning."}]}})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["dream", "--root", str(tmp_path), "--preset", "companion", "--provider", "google,heuristic",
                     "--json"])
    assert code == 0
    report = json.loads(out.getvalue())
    assert report["fallbacks"] == [{"session_id": "s1", "from": "google", "reason": "invalid-file-protocol",
                                    "to": "heuristic"}]


def test_post_config_saves_a_chain(tmp_path: Path) -> None:
    from server_data import LiveServer

    from riko.server import create_app

    headers = {"x-dsh-memory-profile": "companion"}
    chain = [{"provider": "google", "url": "https://generativelanguage.googleapis.com/v1beta", "model": "g"},
             "heuristic"]
    with LiveServer(create_app(tmp_path)) as base, httpx.Client(base_url=base + "/memory/v1", headers=headers) as c:
        saved = c.post("/config", json={"dreamProvider": chain})
        assert saved.status_code == 200, saved.text
        assert c.get("/config").json()["dream_provider"] == chain
        bad = c.post("/config", json={"dreamProvider": ["google", "gpt"]})
        assert bad.status_code == 400 and "dream_provider[1]" in bad.text
