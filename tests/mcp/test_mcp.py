"""``riko mcp`` driven by the MCP SDK's own client: a real stdio subprocess and real streamable HTTP."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import anyio
import httpx
import pytest

import httpx2  # the SDK's HTTP client (extra riko[mcp], installed by scripts/test)
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import riko
from riko.mcp.server import RECALL_SCHEMA, RECALL_TOOL
from riko.tools import REMEMBER_REFUSAL, TOOL_NAMES, tool_schemas

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
TOKEN = "mcp-test-token-0123456789"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RIKO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _event(session: str, text: str) -> dict[str, Any]:
    return {"session_id": session, "type": "user/message",
            "data": {"role": "user", "source": {"kind": "user"}, "content": [{"type": "text", "text": text}]}}


def _capture(root: Path, session: str, text: str) -> None:
    subprocess.run([sys.executable, "-m", "riko", "capture", "--root", str(root), "--preset", "companion",
                    "--event", json.dumps(_event(session, text))], check=True, env=_env(), capture_output=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    with riko.open(tmp_path, preset="companion"):
        pass
    return tmp_path


def _stdio(root: Path, *extra: str) -> Client:
    return Client(StdioServerParameters(command=sys.executable, cwd=str(root), env=_env(),
                                        args=["-m", "riko", "mcp", "--root", str(root), "--preset", "companion",
                                              *extra]))


def test_stdio_lists_the_six_tools_with_the_toolbox_schemas_then_recall(root: Path) -> None:
    async def run() -> None:
        async with _stdio(root, "--session", "s1") as client:
            listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            assert list(listed) == [*TOOL_NAMES, RECALL_TOOL]
            assert listed == {**{s["name"]: s["input_schema"] for s in tool_schemas("anthropic")},
                              RECALL_TOOL: RECALL_SCHEMA["input_schema"]}
            for schema in listed.values():  # scope and session are never arguments
                assert not {"scope", "scopeKey", "session", "session_id", "profile"} & set(schema["properties"])
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            assert uris == ["riko://resident", "riko://index", "riko://session"]
            session = await client.read_resource("riko://session")
            assert session.contents[0].text == "s1"

    anyio.run(run)


def test_stdio_runs_every_tool_under_the_authority_rules(root: Path) -> None:
    _capture(root, "s1", "Please remember that I prefer green tea.")

    async def run() -> None:
        async with _stdio(root, "--session", "s1") as client:
            refused = await client.call_tool("memory_remember", {"content": "I prefer black coffee"})
            assert refused.is_error and refused.content[0].text == f"Not done: {REMEMBER_REFUSAL}"
            done = await client.call_tool("memory_remember", {"content": "I prefer green tea"})
            assert not done.is_error, done.content[0].text
            page_id = done.structured_content["id"]
            assert done.structured_content["sessionId"] == "s1" and done.structured_content["scopeKey"] == "local:companion"
            resident = await client.call_tool("memory_get_resident", {})
            assert "I prefer green tea" in resident.content[0].text
            block = await client.read_resource("riko://resident")
            assert "<persistent-memory>" in block.contents[0].text and "green tea" in block.contents[0].text
            index = (await client.read_resource("riko://index")).contents[0].text
            assert page_id[:8] in index or "green tea" in index.lower()
            with pytest.raises(MCPError, match="unknown resource"):
                await client.read_resource("riko://nothing")
            # the correction must be the user's latest words: refused until they say it
            no = await client.call_tool("memory_correct", {"id": page_id, "content": "I prefer jasmine tea"})
            assert no.is_error
            bad = await client.call_tool("memory_forget", {"id": page_id, "colour": "red"})
            assert bad.is_error and "does not accept argument(s) 'colour'" in bad.content[0].text
            with pytest.raises(MCPError, match="unknown tool 'memory_delete'"):
                await client.call_tool("memory_delete", {})
            return page_id

    page_id = anyio.run(run)
    for text, tool, args, check in [
        ("Actually I prefer jasmine tea.", "memory_correct", {"content": "I prefer jasmine tea"}, "jasmine"),
        ("Please stop mentioning my tea preference.", "memory_suppress", {"target": "tea"}, None),
        ("Okay, restore my tea preference.", "memory_restore", {"target": "tea"}, None),
        ("Please forget my tea preference.", "memory_forget", {"target": "tea"}, None),
    ]:
        _capture(root, "s1", text)

        async def step(tool: str = tool, args: dict[str, str] = args) -> Any:
            async with _stdio(root, "--session", "s1") as client:
                return await client.call_tool(tool, {"id": page_id, **args} if tool == "memory_correct" else args)

        result = anyio.run(step)
        assert not result.is_error, (tool, result.content[0].text)
        if check:
            with riko.open(root, preset="companion", read_only=True) as mem:
                assert check in mem.page(page_id).description
    with riko.open(root, preset="companion", read_only=True) as mem:
        kinds = mem.audits()["kind"].to_list()
    assert {"page-corrected", "page-suppressed", "page-restored", "page-forgotten"} <= set(kinds)


def test_stdio_withholds_protected_text(root: Path) -> None:
    secret = "My passport number is K8391274."
    _capture(root, "s1", f"Please remember this: {secret}")

    async def run() -> list[str]:
        async with _stdio(root, "--session", "s1") as client:
            out = [await client.call_tool("memory_remember", {"content": secret})]
            out.append(await client.call_tool("memory_get_resident", {}))
            texts = [r.content[0].text + json.dumps(r.structured_content) for r in out]
            texts.append((await client.read_resource("riko://resident")).contents[0].text)
            return texts

    for text in anyio.run(run):
        assert "K8391274" not in text


def _http_server(root: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    (root / "riko.toml").write_text(f'api_token = "{TOKEN}"\napi_token_profile = "companion"\n', encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "riko", "mcp", "--http", "--port", "0", "--root", str(root),
                             "--preset", "companion", *extra], env=_env(), stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            found = re.search(r"listening on (http://\S+)/mcp", line)
            if found:
                yield found[1], proc
                break
        else:
            pytest.fail(f"riko mcp --http did not start (exit {proc.wait(10)})")
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.fixture
def http(root: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    yield from _http_server(root)


def _client(base: str, token: str = TOKEN, session: str | None = None) -> Client:
    headers = {"authorization": f"Bearer {token}", "x-dsh-memory-profile": "companion"}
    if session:
        headers["x-riko-session"] = session
    return Client(streamable_http_client(f"{base}/mcp", http_client=httpx2.AsyncClient(headers=headers, timeout=60)))


def test_http_requires_the_token(http: tuple[str, Any]) -> None:
    base, _ = http
    assert httpx.post(f"{base}/mcp", json={}).status_code == 401
    wrong = httpx.post(f"{base}/mcp", json={}, headers={"authorization": "Bearer nope", "x-dsh-memory-profile": "companion"})
    assert wrong.status_code in (401, 403)
    assert httpx.post(f"{base}/capture", json=_event("x", "hi")).status_code == 401


def test_http_clients_are_bound_to_their_own_sessions(http: tuple[str, Any]) -> None:
    base, _ = http
    auth = {"authorization": f"Bearer {TOKEN}", "x-dsh-memory-profile": "companion"}

    async def run() -> tuple[Any, Any, str, str]:
        async with _client(base, session="host-a") as a, _client(base, session="host-b") as b, _client(base) as c:
            sa = (await a.read_resource("riko://session")).contents[0].text
            sb = (await b.read_resource("riko://session")).contents[0].text
            assert (sa, sb) == ("host-a", "host-b")
            default = (await c.read_resource("riko://session")).contents[0].text
            assert default.startswith("mcp-")  # no header: the server's own session
            async with httpx.AsyncClient(headers=auth) as host:
                made = await host.post(f"{base}/capture", json=_event(sa, "Remember that I live in Porto."))
                assert made.status_code == 201, made.text
                bad = await host.post(f"{base}/capture", content=b"{not json")
                assert bad.status_code == 400 and "not valid JSON" in bad.json()["message"]
            async with anyio.create_task_group() as tg:
                results: dict[str, Any] = {}

                async def call(name: str, client: Client) -> None:
                    results[name] = await client.call_tool("memory_remember", {"content": "I live in Porto"})

                tg.start_soon(call, "a", a)
                tg.start_soon(call, "b", b)
            return results["a"], results["b"], sa, sb

    ra, rb, sa, sb = anyio.run(run)
    assert not ra.is_error and ra.structured_content["sessionId"] == sa
    assert rb.is_error and REMEMBER_REFUSAL in rb.content[0].text  # b's session holds no such message
