"""The MCP server over a real pipe, as an agent drives it: the handshake Claude Code makes, the two
tools, and the log line on disk before the reply arrives. It runs with `-I -S` (no site-packages,
no user paths): a third-party import would fail here as it would in a bare task image."""

from __future__ import annotations

import json
import selectors
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from impasse.paths import HARNESS

SERVER = HARNESS / "impasse_mcp.py"
PYTHON = shutil.which("python3.11") or sys.executable  # Debian bookworm's python3 is 3.11


class McpPipe:
    def __init__(self, log: Path | None) -> None:
        env = {"IMPASSE_MCP_LOG": str(log)} if log else {}
        self.process = subprocess.Popen([PYTHON, "-I", "-S", str(SERVER)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)

    def send(self, message: object) -> None:
        self.send_raw(json.dumps(message).encode())

    def send_raw(self, line: bytes) -> None:
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self, timeout: float = 10.0) -> object:
        assert self.selector.select(timeout), "no reply from the MCP server"
        return json.loads(self.process.stdout.readline())

    def request(self, request_id: int | str, method: str, params: dict | None = None) -> dict:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, **({"params": params} if params else {})})
        reply = self.receive()
        assert reply["id"] == request_id
        return reply

    def nothing_pending(self) -> bool:
        return not self.selector.select(0.3)

    def close(self) -> int:
        self.process.stdin.close()
        code = self.process.wait(timeout=10)
        self.process.stdout.close()
        self.process.stderr.close()
        return code


@pytest.fixture
def log(tmp_path) -> Path:
    return tmp_path / "state" / "mcp_calls.jsonl"


@pytest.fixture
def mcp(log):
    log.parent.mkdir()
    pipe = McpPipe(log)
    yield pipe
    if pipe.process.poll() is None:
        pipe.close()


def records(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_claude_codes_handshake_then_an_escalation_logged_before_the_reply(mcp, log):
    # As Claude Code 2.1.332 sends it: a string id, and a protocol version newer than any here
    probe = mcp.request("server-discover-probe-1", "server/discover", {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"}}})
    assert probe["error"]["code"] == -32601 and "server/discover" in probe["error"]["message"]
    hello = mcp.request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                          "clientInfo": {"name": "claude-code", "version": "2.1.332"}})
    assert hello["result"]["protocolVersion"] == "2025-11-25"
    assert hello["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert hello["result"]["serverInfo"]["name"] == "impasse"
    mcp.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert mcp.nothing_pending()  # a notification is never answered
    tools = {t["name"]: t for t in mcp.request(2, "tools/list")["result"]["tools"]}
    assert set(tools) == {"escalate_to_human", "task_complete"}
    assert tools["escalate_to_human"]["inputSchema"]["required"] == ["reason"]
    assert tools["task_complete"]["inputSchema"]["required"] == ["summary"]
    reply = mcp.request(3, "tools/call", {"name": "escalate_to_human", "arguments": {"reason": "root owns src/"},
                                          "_meta": {"claudecode/toolUseId": "toolu_01"}})
    written = records(log)  # read the moment the reply is in: it was on disk before
    assert reply["result"]["isError"] is False
    assert "Stop working" in reply["result"]["content"][0]["text"]
    assert [(r["tool"], r["arguments"], r["call_id"]) for r in written] == [
        ("escalate_to_human", {"reason": "root owns src/"}, "toolu_01")]
    assert isinstance(written[0]["time"], float)
    assert mcp.close() == 0


def test_codexs_handshake_and_its_call_id(mcp, log):
    hello = mcp.request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
                                          "clientInfo": {"name": "codex-mcp-client", "version": "0.171.0"}})
    assert hello["result"]["protocolVersion"] == "2025-06-18"
    mcp.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = mcp.request(1, "tools/list", {"_meta": {"progressToken": 0}})
    assert len(listed["result"]["tools"]) == 2
    mcp.request(2, "tools/call", {"name": "task_complete", "arguments": {"summary": "done"},
                                  "_meta": {"callId": "call_5", "x-codex-turn-metadata": {"turn_id": "t1"}}})
    assert [(r["tool"], r["call_id"]) for r in records(log)] == [("task_complete", "call_5")]


@pytest.mark.parametrize(("asked", "answered"), [
    ("2024-11-05", "2024-11-05"), ("2025-06-18", "2025-06-18"), ("2099-01-01", "2025-11-25"), (None, "2025-11-25")])
def test_initialize_echoes_a_supported_version_else_offers_the_newest(mcp, asked, answered):
    params = {"capabilities": {}, **({"protocolVersion": asked} if asked else {})}
    assert mcp.request(1, "initialize", params)["result"]["protocolVersion"] == answered


def test_calls_are_logged_in_order_one_whole_line_each(mcp, log):
    mcp.request(1, "tools/call", {"name": "task_complete", "arguments": {"summary": "fixed parse(), tests pass"}})
    mcp.request(2, "tools/call", {"name": "escalate_to_human", "arguments": {"reason": "ünïcode and \"quotes\"\n"}})
    assert [(r["tool"], r["arguments"]) for r in records(log)] == [
        ("task_complete", {"summary": "fixed parse(), tests pass"}),
        ("escalate_to_human", {"reason": "ünïcode and \"quotes\"\n"})]


def test_an_unknown_tool_is_a_protocol_error_and_nothing_is_logged(mcp, log):
    reply = mcp.request(1, "tools/call", {"name": "web_fetch", "arguments": {"url": "http://example.com"}})
    assert reply["error"]["code"] == -32602 and "web_fetch" in reply["error"]["message"]
    assert records(log) == []


@pytest.mark.parametrize("arguments", [{}, {"reason": 3}, {"summary": "wrong key"}, None])
def test_a_call_without_its_text_is_a_tool_error_the_model_can_read(mcp, log, arguments):
    params = {"name": "escalate_to_human", **({"arguments": arguments} if arguments is not None else {})}
    reply = mcp.request(1, "tools/call", params)
    assert reply["result"]["isError"] is True
    assert "'reason'" in reply["result"]["content"][0]["text"]
    assert records(log) == []


def test_ping_and_unknown_methods(mcp):
    assert mcp.request(1, "ping")["result"] == {}
    assert mcp.request(2, "resources/list")["error"]["code"] == -32601


def test_bad_json_is_answered_and_the_server_goes_on(mcp):
    mcp.send_raw(b"{not json")
    reply = mcp.receive()
    assert reply["id"] is None and reply["error"]["code"] == -32700
    mcp.send_raw(b"")  # blank lines are skipped
    mcp.send({"jsonrpc": "1.0", "id": 7, "method": "ping"})
    assert mcp.receive()["error"]["code"] == -32600
    assert mcp.request(8, "ping")["result"] == {}


def test_a_batch_gets_one_array_back_without_the_notifications(mcp):
    mcp.send([{"jsonrpc": "2.0", "id": 1, "method": "ping"},
              {"jsonrpc": "2.0", "method": "notifications/initialized"},
              {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}])
    replies = mcp.receive()
    assert [r["id"] for r in replies] == [1, 2]


def test_a_call_that_cannot_be_recorded_is_an_error_not_a_verdict(tmp_path):
    pipe = McpPipe(tmp_path / "no-such-folder" / "calls.jsonl")
    reply = pipe.request(1, "tools/call", {"name": "escalate_to_human", "arguments": {"reason": "blocked"}})
    assert reply["error"]["code"] == -32603 and "could not be recorded" in reply["error"]["message"]
    assert pipe.close() == 0


def test_without_a_log_it_refuses_to_start():
    pipe = McpPipe(None)
    assert pipe.process.wait(timeout=10) == 2
    assert b"IMPASSE_MCP_LOG" in pipe.process.stderr.read()
    pipe.close()
