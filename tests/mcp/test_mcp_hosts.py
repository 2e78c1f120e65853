"""What an MCP host meets at the edges of ``riko mcp``: recall, the quick start as written, refused
requests over HTTP, bad capture bodies and malformed JSON-RPC lines on stdio — each over a real
``riko mcp`` subprocess, driven by the MCP SDK's own client or by raw lines."""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx
import pytest

import httpx2  # the SDK's HTTP client (extra riko[mcp])
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import riko
from riko.resident.index import INDEX_NOTICE
from riko.tools import TOOL_NAMES

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "mcp.md"
TOKEN = "mcp-hosts-token-0123456789"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return {**env, **extra}


def _event(session: str, text: str) -> dict[str, Any]:
    return {"session_id": session, "type": "user/message",
            "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    with riko.open(tmp_path, preset="companion") as mem:
        mem.create_page("Tea", "The user drinks oolong tea every morning.")
    return tmp_path


def _stdio(root: Path, **env: str) -> Client:
    return Client(StdioServerParameters(command=sys.executable, cwd=str(root), env=_env(**env),
                                        args=["-m", "riko", "mcp", "--root", str(root), "--preset", "companion",
                                              "--session", "s1", "--no-watch"]))


# -- recall ---------------------------------------------------------------------------------------

def test_the_index_sends_the_model_to_a_tool_the_server_lists(root: Path) -> None:
    named = re.findall(r"ask (memory_\w+)", INDEX_NOTICE)
    assert named == ["memory_recall"]

    async def run() -> tuple[list[str], str]:
        async with _stdio(root) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            index = (await client.read_resource("riko://index")).contents[0].text
            return tools, index

    tools, index = anyio.run(run)
    assert tools == [*TOOL_NAMES, "memory_recall"]
    assert INDEX_NOTICE in index and "Tea" in index
    assert set(named) <= set(tools)


def test_memory_recall_is_refused_naming_the_setting_while_recall_is_off(root: Path) -> None:
    async def run() -> Any:
        async with _stdio(root) as client:
            return await client.call_tool("memory_recall", {"query": "what tea do I drink in the morning?"})

    off = anyio.run(run)
    assert off.is_error
    text = off.content[0].text
    assert text.startswith("Not done: memory_recall is off (recall_enabled = false)")
    assert "recall_enabled = true" in text and "oolong" not in text
    assert off.structured_content == {"ok": False, "error": text.removeprefix("Not done: ")}


def test_memory_recall_answers_from_memory_when_recall_is_on(root: Path) -> None:
    async def run() -> list[Any]:
        async with _stdio(root, RIKO_RECALL_ENABLED="1") as client:
            return [await client.call_tool("memory_recall", {"query": "what tea do I drink in the morning?"}),
                    await client.call_tool("memory_recall", {"query": "tea", "colour": "red"}),
                    await client.call_tool("memory_recall", {"query": "  "})]

    found, unknown, blank = anyio.run(run)
    assert not found.is_error, found.content[0].text
    assert "<MEMORY_DATA>" in found.content[0].text and "oolong tea every morning" in found.content[0].text
    data = found.structured_content
    assert data["ok"] and data["tool"] == "memory_recall" and data["scopeKey"] == "local:companion"
    assert data["sessionId"] == "s1" and data["context"] == found.content[0].text
    assert any("oolong" in (m["text"] or "") for m in data["memories"])
    assert unknown.is_error and "does not accept argument(s) 'colour'" in unknown.content[0].text
    assert blank.is_error and "needs 'query'" in blank.content[0].text
    with riko.open(root, preset="companion", read_only=True) as mem:  # recall writes no canon
        assert mem.pages().height == 1


# -- the quick start, run as written ---------------------------------------------------------------

def _doc_blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def _shell_env(tmp_path: Path) -> dict[str, str]:
    """A home of its own and ``riko`` on PATH (the installed console script's stand-in, this tree)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "riko"
    script.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -m riko \"$@\"\n", encoding="utf-8")
    script.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    return _env(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


async def _lists_the_tools(client: Client) -> list[str]:
    async with client:
        return [t.name for t in (await client.list_tools()).tools]


def test_the_quick_start_runs_as_written(tmp_path: Path) -> None:
    commands = [line.split("#")[0].strip() for line in _doc_blocks("bash")[0].splitlines()]
    commands = [c for c in commands if c]
    install, init, stdio, http = commands
    assert install == "python -m pip install 'riko[mcp]'"  # not run: riko is installed with the extra
    env = _shell_env(tmp_path)
    home = env["HOME"]  # the working directory too: a command that forgets --root writes nothing elsewhere
    done = subprocess.run(["bash", "-c", init], env=env, cwd=home, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    tools = anyio.run(_lists_the_tools, Client(StdioServerParameters(command="bash", args=["-c", stdio], env=env,
                                                                     cwd=home)))
    assert tools == [*TOOL_NAMES, "memory_recall"]

    # the one change: another program may hold the port the page names
    assert "--port 8766" in http
    proc = subprocess.Popen(["bash", "-c", f"exec {http.replace('--port 8766', '--port 0')}"], env=env, cwd=home,
                            stderr=subprocess.PIPE, text=True)
    try:
        base = _listening(proc)
        client = Client(streamable_http_client(f"{base}/mcp", http_client=httpx2.AsyncClient(
            headers={"x-dsh-memory-profile": "companion"}, timeout=60)))
        assert anyio.run(_lists_the_tools, client) == [*TOOL_NAMES, "memory_recall"]
    finally:
        proc.terminate()
        proc.wait(20)


def test_the_host_configuration_snippets_start_the_server(tmp_path: Path) -> None:
    env = _shell_env(tmp_path)
    memory = tmp_path / "memory"
    with riko.open(memory, preset="companion"):
        pass
    snippets = [json.loads(block)["mcpServers"]["riko"] for block in _doc_blocks("json")
                if '"mcpServers"' in block]
    assert [s["command"] for s in snippets] == ["riko", "/home/me/.venv/bin/python"]
    for snippet in snippets:
        command = sys.executable if snippet["command"].endswith("/python") else snippet["command"]
        args = [str(memory) if a == "/home/me/memory" else a for a in snippet["args"]]
        tools = anyio.run(_lists_the_tools, Client(StdioServerParameters(command=command, args=args, env=env,
                                                                     cwd=str(tmp_path))))
        assert tools == [*TOOL_NAMES, "memory_recall"]


def test_the_hint_of_a_missing_memory_is_a_command_that_creates_it(tmp_path: Path) -> None:
    env = _shell_env(tmp_path)
    memory = tmp_path / "my memory"
    start = ["riko", "mcp", "--root", str(memory), "--preset", "companion"]
    failed = subprocess.run(start, env=env, cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert failed.returncode == 2
    hint = re.search(r"create it with `([^`]+)`", failed.stderr)
    assert hint, failed.stderr
    assert "--root" in hint[1]
    created = subprocess.run(["bash", "-c", hint[1]], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert created.returncode == 0, created.stderr
    tools = anyio.run(_lists_the_tools, Client(StdioServerParameters(command=start[0], args=start[1:], env=env,
                                                                     cwd=str(tmp_path))))
    assert tools == [*TOOL_NAMES, "memory_recall"]


# -- streamable HTTP: refusals and capture ---------------------------------------------------------

def _listening(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr is not None
    for line in proc.stderr:
        found = re.search(r"listening on (http://\S+)/mcp", line)
        if found:
            return found[1]
    pytest.fail(f"riko mcp --http did not start (exit {proc.wait(10)})")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One token-guarded ``riko mcp --http`` for the module (starting one takes seconds)."""
    root = tmp_path_factory.mktemp("http")
    with riko.open(root, preset="companion"):
        pass
    (root / "riko.toml").write_text(f'api_token = "{TOKEN}"\napi_token_profile = "companion"\n', encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "riko", "mcp", "--http", "--port", "0", "--root", str(root),
                             "--preset", "companion", "--no-watch"], env=_env(), stderr=subprocess.PIPE, text=True)
    try:
        yield _listening(proc), root
    finally:
        proc.terminate()
        proc.wait(20)


def _mcp_error(exc: BaseException) -> MCPError | None:
    """The MCPError a client raised, also from inside the task groups that wrap it."""
    if isinstance(exc, MCPError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = _mcp_error(inner)
        if found is not None:
            return found
    return None


async def _sdk_refusal(base: str, headers: dict[str, str]) -> MCPError:
    client = Client(streamable_http_client(f"{base}/mcp", http_client=httpx2.AsyncClient(headers=headers, timeout=60)))
    try:
        async with client:
            await client.list_tools()
    except BaseException as exc:  # noqa: BLE001 - the error the SDK hands its caller, however wrapped
        found = _mcp_error(exc)
        assert found is not None, repr(exc)
        return found
    pytest.fail("the client was not refused")


REFUSALS = [
    ({}, 401, "a bearer token is required"),
    ({"authorization": f"Bearer {TOKEN}"}, 400, "send the x-dsh-memory-profile header with the token"),
    ({"authorization": "Bearer nope", "x-dsh-memory-profile": "companion"}, 401, "the bearer token is not valid"),
]


def test_an_sdk_client_sees_why_it_was_refused(served: tuple[str, Path]) -> None:
    base, _ = served
    for headers, status, words in REFUSALS:
        error = anyio.run(_sdk_refusal, base, headers)
        assert words in error.error.message and str(status) in error.error.message, error.error
        assert error.error.code == -32600 and error.error.data["status"] == status
        # the HTTP status stays the refusal's; /capture keeps riko's own error body
        raw = httpx.post(f"{base}/mcp", json={}, headers=headers)
        assert raw.status_code == status and words in raw.json()["error"]["message"]
        capture = httpx.post(f"{base}/capture", json=_event("x", "hi"), headers=headers)
        assert capture.status_code == status and words in capture.json()["message"]


BAD_CAPTURES = [
    ({"type": "oops"}, "'type' must be one of user/message"),
    ({"session_id": "h1", "data": {"content": "hi"}}, "'type' must be one of user/message, assistant/message"),
    ({"session_id": "h1", "type": "user/message"}, "'data' must be a non-empty JSON object"),
    ({"session_id": "h1", "type": "user/message", "data": {"role": "user"}}, "needs 'content'"),
    ({"session_id": "h1", "type": "user/message", "data": "hi"}, "got a string"),
    ({"session_id": "h1", "typo": "user/message", "type": "user/message", "data": {"content": "hi"}},
     "unknown field(s) 'typo'"),
    ({"session_id": 7, "type": "user/message", "data": {"content": "hi"}}, "'session_id' must be a non-empty string"),
    ([_event("h1", "hi")], "must be one JSON object (a session event), got an array"),
]


def test_a_bad_capture_body_is_a_400_naming_the_field_and_stores_nothing(served: tuple[str, Path]) -> None:
    base, root = served
    auth = {"authorization": f"Bearer {TOKEN}", "x-dsh-memory-profile": "companion"}
    for body, words in BAD_CAPTURES:
        bad = httpx.post(f"{base}/capture", json=body, headers=auth)
        assert bad.status_code == 400, (body, bad.text)
        assert bad.json()["error"] == "InvalidArgumentError" and words in bad.json()["message"], bad.json()
    with riko.open(root, preset="companion", read_only=True) as mem:
        assert mem.evidence().height == 0
    good = httpx.post(f"{base}/capture", json=_event("h1", "Remember that I live in Porto."), headers=auth)
    assert good.status_code == 201 and good.json() == {"ok": True, "ref": "session:h1/event:0"}
    with riko.open(root, preset="companion", read_only=True) as mem:
        assert mem.evidence()["text"].to_list() == ["Remember that I live in Porto."]


# -- malformed JSON-RPC over stdio -----------------------------------------------------------------

class _Wire:
    """A ``riko mcp`` subprocess spoken to line by line, initialised like a host would."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "riko", "mcp", "--root", str(root), "--preset",
                                      "companion", "--no-watch"], env=_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "wire", "version": "1"}}}
        self.send(json.dumps(init).encode())
        assert self.reply(60)["result"]["serverInfo"]["name"] == "riko"
        self.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 10) -> Any:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return json.loads(self.proc.stdout.readline()) if ready else None

    def close(self) -> str:
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.wait(20) == 0
        return self.proc.stderr.read().decode()


@pytest.fixture
def wire(root: Path) -> Iterator[_Wire]:
    w = _Wire(root)
    try:
        yield w
    finally:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait(20)


MALFORMED = [
    (b'{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "\\ud800"}}', 2, -32602,
     "params.cursor holds a lone UTF-16 surrogate"),
    (b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_recall", '
     b'"arguments": {"query": "tea \\udc80"}}}', 3, -32602, "params.arguments.query holds a lone UTF-16 surrogate"),
    (b'{"jsonrpc": "2.0", "id": 4, "method": "tools/\\ud800list"}', 4, -32600, "$.method holds a lone UTF-16"),
    (b'{"jsonrpc": "1.0", "id": 5, "method": "tools/list"}', 5, -32600, "'jsonrpc' must be \"2.0\", got '1.0'"),
    (b'{"id": 6, "method": "tools/list"}', 6, -32600, "'jsonrpc' must be \"2.0\", got None"),
    (b'{"jsonrpc": "2.0", "id": 7}', 7, -32600, "'method' is missing"),
    (b'{"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": [1, 2]}', 8, -32602,
     "'params' must be an object, got an array"),
    (b'{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": ["memory_get_resident"]}', 9, -32602,
     "'params' must be an object"),
    (b'{"jsonrpc": "2.0", "id": 10, "method": 5}', 10, -32600, "'method' must be a non-empty string"),
    (b'{"jsonrpc": "2.0", "id": [1], "method": "tools/list"}', None, -32600, "'id' must be a string or an integer"),
    (b'{"jsonrpc": "2.0", "id": 11, "method": "tools/list"', None, -32700, "Parse error: not valid JSON"),
    (b'[{"jsonrpc": "2.0", "id": 12, "method": "tools/list"}]', None, -32600, "batches are not supported"),
    (b'"tools/list"', None, -32600, "must be one JSON object, got str"),
    (b'{"jsonrpc": "2.0", "id": 13, "method": "ping", "params": {"x": "\xff"}}', None, -32700, "not UTF-8 text"),
]


def test_every_malformed_line_gets_a_json_rpc_error_and_the_session_goes_on(wire: _Wire) -> None:
    for line, rid, code, words in MALFORMED:
        wire.send(line)
        reply = wire.reply()
        assert reply is not None, f"no answer to {line!r}"
        assert reply["jsonrpc"] == "2.0" and reply["id"] == rid, (line, reply)
        assert reply["error"]["code"] == code and words in reply["error"]["message"], (line, reply)
    # a malformed notification is not answered (JSON-RPC), and the connection still serves
    wire.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [1]}')
    wire.send(b'{"jsonrpc": "2.0", "id": 20, "method": "tools/list"}')
    listed = wire.reply()
    assert listed["id"] == 20 and [t["name"] for t in listed["result"]["tools"]] == [*TOOL_NAMES, "memory_recall"]
    wire.send(b'{"jsonrpc": "2.0", "id": 21, "method": "resources/read", "params": {"uri": "riko://session"}}')
    assert wire.reply()["result"]["contents"][0]["text"].startswith("mcp-")
    assert "Traceback" not in wire.close()
