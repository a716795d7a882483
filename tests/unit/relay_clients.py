"""Clients of the model relay over its real unix socket, shaped as Claude Code 2.1.332 and Codex
0.171.0 send their requests (headers, body keys, tool lists, history, tool-result formats, as
captured from the real binaries against a local endpoint). Each plays the agent's side: it parses
the SSE reply event by event, checks the documented order, carries out the calls for real in a
work folder (bash through bash, edits on the files), and answers with the agent's own result text."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
from pathlib import Path

CLAUDE_HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "sk-ant-dummy", "x-app": "cli",
                  "User-Agent": "claude-cli/2.1.332 (external, sdk-cli)", "Content-Type": "application/json",
                  "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,"
                                    "context-management-2025-06-27"}
CODEX_HEADERS = {"authorization": "Bearer dummy", "originator": "codex_exec", "accept": "text/event-stream",
                 "user-agent": "codex_exec/0.171.0 (Debian 12.0.0; x86_64) unknown (codex_exec; 0.171.0)",
                 "content-type": "application/json"}
REMINDER = "\n\n<system-reminder>\n<total_tokens>14999994 tokens left</total_tokens>\n</system-reminder>"


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=30)
        self.socket_path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def request(socket_path: str, method: str, path: str, body=None, headers=None) -> tuple[int, dict, bytes]:
    connection = UnixConnection(socket_path)
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    connection.request(method, path, body=data, headers=headers or {})
    response = connection.getresponse()
    answer = (response.status, dict(response.getheaders()), response.read())
    connection.close()
    return answer


def sse(data: bytes) -> list[tuple[str, dict]]:
    events = []
    for chunk in data.decode().split("\n\n"):
        if not chunk.strip():
            continue
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        payload = json.loads(lines["data"])
        assert payload["type"] == lines["event"]
        events.append((lines["event"], payload))
    return events


def schema(properties: dict, required: list[str]) -> dict:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": required,
            "properties": {k: {"type": v} for k, v in properties.items()}, "additionalProperties": False}


CLAUDE_TOOLS = [
    {"name": "Bash", "description": "Executes a given bash command", "input_schema": schema(
        {"command": "string", "timeout": "number", "description": "string", "run_in_background": "boolean"},
        ["command"])},
    {"name": "Edit", "description": "Performs exact string replacements in files.", "input_schema": schema(
        {"file_path": "string", "old_string": "string", "new_string": "string", "replace_all": "boolean"},
        ["file_path", "old_string", "new_string"])},
    {"name": "Read", "description": "Reads a file.", "input_schema": schema(
        {"file_path": "string", "offset": "number", "limit": "number"}, ["file_path"])},
    {"name": "Write", "description": "Writes a file.", "input_schema": schema(
        {"file_path": "string", "content": "string"}, ["file_path", "content"])},
    {"name": "WebSearch", "description": "Search the web", "input_schema": schema({"query": "string"}, ["query"])},
    {"name": "mcp__impasse__escalate_to_human", "description": "Hand the task to a human.",
     "input_schema": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}},
    {"name": "mcp__impasse__task_complete", "description": "The task is done.",
     "input_schema": {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}},
]
CLAUDE_ORDER = ("message_start", "content_block_start", "content_block_delta", "content_block_stop",
                "message_delta", "message_stop")


def claude_blocks(events: list[tuple[str, dict]]) -> tuple[list[dict], str, dict]:
    """The content blocks, stop reason and usage of an Anthropic SSE stream, its order checked."""
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    blocks, usage = [], dict(events[0][1]["message"]["usage"])
    for kind, data in events[1:-2]:
        assert kind in CLAUDE_ORDER[1:4]
        if kind == "content_block_start":
            assert data["index"] == len(blocks)
            blocks.append(dict(data["content_block"], _json=""))
        elif kind == "content_block_delta":
            block, delta = blocks[data["index"]], data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "input_json_delta":
                block["_json"] += delta["partial_json"]
            elif delta["type"] in ("thinking_delta", "signature_delta"):
                key = delta["type"].removesuffix("_delta")
                block[key] += delta[key]
        else:
            assert data["index"] == len(blocks) - 1
    for block in blocks:
        raw = block.pop("_json")
        if block["type"] == "tool_use":
            block["input"] = json.loads(raw)
    usage.update(events[-2][1]["usage"])
    return blocks, events[-2][1]["delta"]["stop_reason"], usage


class ClaudeCode:
    """Claude Code's side of the wire, over the relay's socket, in the folder `workspace`."""

    def __init__(self, socket_path: str, workspace: Path, prompt: str = "Fix the bug.") -> None:
        self.socket_path, self.workspace = socket_path, workspace
        self.read: set[str] = set()
        self.unreadable: set[str] = set()  # paths whose Read fails as it does on a file the agent may not open
        self.mcp_calls: list[tuple[str, dict]] = []
        self.replies: list[list[dict]] = []
        self.messages: list[dict] = [{"role": "user", "content": [
            {"type": "text", "text": f"<system-reminder>\n# Environment\n - Primary working directory: "
                                     f"{workspace}\n</system-reminder>"},
            {"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}]}]

    def body(self) -> dict:
        return {"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": True, "messages": self.messages,
                "system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.332"},
                           {"type": "text", "text": "You are a Claude agent.", "cache_control": {"type": "ephemeral"}}],
                "tools": CLAUDE_TOOLS, "metadata": {"user_id": json.dumps({"session_id": "s1"})},
                "thinking": {"type": "enabled", "budget_tokens": 31999},
                "context_management": {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}}

    def turn(self) -> str:
        status, headers, data = request(self.socket_path, "POST", "/v1/messages?beta=true", self.body(),
                                        CLAUDE_HEADERS)
        assert status == 200 and headers["content-type"] == "text/event-stream", data
        blocks, stop, _ = claude_blocks(sse(data))
        self.replies.append(blocks)
        self.messages.append({"role": "assistant", "content": blocks})
        if stop == "end_turn":
            return stop
        results = [self.carry_out(block) for block in blocks if block["type"] == "tool_use"]
        results[-1]["cache_control"] = {"type": "ephemeral"}
        self.messages.append({"role": "user", "content": results})
        if len(self.messages) == 4:  # Claude Code's own system entries inside messages
            self.messages.append({"role": "system", "content": "Deferred tools: none"})
        return stop

    def run(self, turns: int = 40) -> int:
        for count in range(1, turns + 1):
            if self.turn() == "end_turn":
                return count
        raise AssertionError("the agent never stopped")

    def carry_out(self, block: dict) -> dict:
        name, args = block["name"], block["input"]
        result = {"type": "tool_result", "tool_use_id": block["id"]}
        if name.startswith("mcp__impasse__"):
            self.mcp_calls.append((name.removeprefix("mcp__impasse__"), args))
            return result | {"content": [{"type": "text", "text": "Recorded. Stop working on the task now.\n"}]}
        if name == "Bash":
            done = subprocess.run(["bash", "-c", args["command"]], cwd=self.workspace, capture_output=True, text=True)
            output = done.stdout + done.stderr
            if done.returncode:
                return result | {"content": f"Exit code {done.returncode}\n{output}{REMINDER}", "is_error": True}
            return result | {"content": output + REMINDER, "is_error": False}
        path = Path(args["file_path"])
        assert path.is_absolute(), "Claude Code's file tools take absolute paths"
        if name == "Read":
            if str(path) in self.unreadable:
                denied = f"<tool_use_error>EACCES: permission denied, open '{path}'</tool_use_error>"
                return result | {"content": denied, "is_error": True}
            self.read.add(str(path))
            lines = path.read_text().splitlines()
            return result | {"content": "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, 1))}
        if name == "Write":
            path.write_text(args["content"])
            return result | {"content": f"File created successfully at: {path}{REMINDER}"}
        if str(path) not in self.read:
            return result | {"content": "<tool_use_error>File has not been read yet. Read it first before "
                                        "writing to it.</tool_use_error>", "is_error": True}
        text = path.read_text()
        if args["old_string"] not in text:
            return result | {"content": "<tool_use_error>String to replace not found in file.</tool_use_error>",
                             "is_error": True}
        path.write_text(text.replace(args["old_string"], args["new_string"], 1))
        return result | {"content": f"The file {path} has been updated successfully.{REMINDER}"}


CODEX_TOOLS = [
    {"type": "function", "name": "exec_command", "strict": False,
     "description": "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
     "parameters": schema({"cmd": "string", "workdir": "string", "yield_time_ms": "number",
                           "max_output_tokens": "number", "tty": "boolean"}, ["cmd"])},
    {"type": "function", "name": "write_stdin", "strict": False, "description": "Writes to an exec session.",
     "parameters": schema({"session_id": "number", "chars": "string", "yield_time_ms": "number"}, ["session_id"])},
    {"type": "custom", "name": "apply_patch", "description": "The `apply_patch` tool can be used to edit files. "
     "This is a FREEFORM tool, so do not wrap the patch in JSON.",
     "format": {"type": "grammar", "syntax": "lark", "definition": "start: begin_patch hunk+ end_patch"}},
    {"type": "function", "name": "view_image", "strict": False, "description": "View an image.",
     "parameters": schema({"path": "string"}, ["path"])},
    {"type": "tool_search", "execution": "client", "description": "Searches over deferred tool metadata.",
     "parameters": schema({"query": "string", "limit": "number"}, ["query"])},
]
IMPASSE_NAMESPACE = {"type": "namespace", "name": "mcp__impasse", "description": "Tools in the mcp__impasse namespace.",
                     "tools": [{"type": "function", "name": name, "description": f"impasse's {name}", "strict": False,
                                "defer_loading": True, "parameters": {
                                    "type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]}}
                               for name, arg in (("escalate_to_human", "reason"), ("task_complete", "summary"))]}
RESPONSES_ORDER = ("response.created", "response.in_progress", "response.output_item.added",
                   "response.content_part.added", "response.output_text.delta", "response.output_text.done",
                   "response.content_part.done", "response.function_call_arguments.delta",
                   "response.function_call_arguments.done", "response.custom_tool_call_input.delta",
                   "response.custom_tool_call_input.done", "response.output_item.done", "response.completed")


def responses_items(events: list[tuple[str, dict]]) -> tuple[list[dict], dict]:
    """The output items and usage of a Responses SSE stream, its order and numbering checked."""
    kinds = [kind for kind, _ in events]
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert [data["sequence_number"] for _, data in events] == list(range(len(events)))
    assert all(kind in RESPONSES_ORDER for kind in kinds)
    items, open_item = [], None
    for kind, data in events[2:-1]:
        if kind == "response.output_item.added":
            assert open_item is None and data["output_index"] == len(items)
            open_item = data["item"]
        elif kind == "response.output_item.done":
            assert open_item is not None and data["item"]["id"] == open_item["id"]
            items.append(data["item"])
            open_item = None
        else:
            assert open_item is not None and data["item_id"] == open_item["id"]
    assert open_item is None and events[-1][1]["response"]["output"] == items
    return items, events[-1][1]["response"]["usage"]


def apply_patch(workspace: Path, patch: str) -> str:
    """Codex's apply_patch on the patches a relay writes (one file, Add File or one @@ hunk)."""
    lines = patch.splitlines()
    assert lines[0] == "*** Begin Patch" and lines[-1] == "*** End Patch"
    kind, _, name = lines[1].removeprefix("*** ").partition(" File: ")
    path = workspace / name
    if kind == "Add":
        path.write_text("".join(line[1:] + "\n" for line in lines[2:-1]))
        return f"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA {name}\n"
    hunk = lines[3:-1]
    old = [line[1:] for line in hunk if line[:1] in " -"]
    new = [line[1:] for line in hunk if line[:1] in " +"]
    current = path.read_text().splitlines()
    at = next((i for i in range(len(current)) if current[i:i + len(old)] == old), None)
    if at is None:
        return f"apply_patch verification failed: Failed to find expected lines in {path}:\n" + "\n".join(old)
    path.write_text("\n".join(current[:at] + new + current[at + len(old):]) + "\n")
    return f"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM {name}\n"


class Codex:
    """Codex CLI's side of the wire: the full history in `input` every turn, store:false."""

    def __init__(self, socket_path: str, workspace: Path, prompt: str = "Fix the bug.", tools=None,
                 wait_scale: float = 1.0) -> None:
        """`wait_scale` shortens unified exec's waits (yield_time_ms) for a test: 0.001 makes 30 s 30 ms."""
        self.socket_path, self.workspace = socket_path, workspace
        self.tools = CODEX_TOOLS if tools is None else tools
        self.wait_scale = wait_scale
        self.sessions: dict[int, subprocess.Popen] = {}
        self.mcp_calls: list[tuple[str, dict]] = []
        self.replies: list[list[dict]] = []
        self.input: list[dict] = [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are Codex."}]},
            {"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": "<tools>\nDeferred tool namespaces:\n- mcp__impasse\n</tools>"}]},
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": f"<environment_context><cwd>{workspace}</cwd></environment_context>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}]

    def body(self) -> dict:
        return {"model": "gpt-5.5", "stream": True, "input": self.input, "tools": self.tools, "tool_choice": "auto",
                "parallel_tool_calls": True, "reasoning": {"effort": "medium"}, "store": False,
                "include": ["reasoning.encrypted_content"], "prompt_cache_key": "t1", "text": {"verbosity": "low"},
                "client_metadata": {"turn_id": "t1"}}

    def turn(self) -> bool:
        """One request; False when the reply called no tool (Codex's turn is over)."""
        status, headers, data = request(self.socket_path, "POST", "/v1/responses", self.body(), CODEX_HEADERS)
        assert status == 200 and headers["content-type"] == "text/event-stream", data
        items, _ = responses_items(sse(data))
        self.replies.append(items)
        calls = [item for item in items if item["type"] in ("function_call", "custom_tool_call", "tool_search_call")]
        for item in items:
            self.input.append({k: v for k, v in item.items() if k != "id"})
        for call in calls:
            if call["type"] == "tool_search_call":  # Codex loads its deferred MCP tools
                self.input.append({"type": "tool_search_output", "call_id": call["call_id"], "status": "completed",
                                   "execution": "client", "tools": [IMPASSE_NAMESPACE]})
                continue
            output = self.carry_out(call)
            kind = "custom_tool_call_output" if call["type"] == "custom_tool_call" else "function_call_output"
            self.input.append({"type": kind, "call_id": call["call_id"], "output": output})
        return bool(calls)

    def run(self, turns: int = 40) -> int:
        for count in range(1, turns + 1):
            if not self.turn():
                return count
        raise AssertionError("the agent never stopped")

    def carry_out(self, call: dict):
        if call["type"] == "custom_tool_call":
            assert call["name"] == "apply_patch"
            return apply_patch(self.workspace, call["input"])
        args = json.loads(call["arguments"])
        if call.get("namespace") == "mcp__impasse":
            self.mcp_calls.append((call["name"], args))
            return [{"type": "input_text", "text": "Wall time: 0.0027 seconds\nOutput:"},
                    {"type": "input_text", "text": "Recorded. Stop working on the task now."}]
        if call["name"] == "write_stdin":
            return self.wait(args["session_id"], args.get("yield_time_ms", 5000))
        if call["name"] != "exec_command":
            return f"unsupported call: {call['name']}"
        process = subprocess.Popen(["bash", "-c", args["cmd"]], cwd=self.workspace, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
        session = len(self.sessions) + 1
        self.sessions[session] = process
        return self.wait(session, args.get("yield_time_ms", 10000))

    def wait(self, session: int, yield_ms: float) -> str:
        """Unified exec's answer: the exit and the output, or the session still running."""
        process = self.sessions[session]
        try:
            output, _ = process.communicate(timeout=yield_ms * self.wait_scale / 1000)
        except subprocess.TimeoutExpired:
            return (f"Chunk ID: 9e1f02\nWall time: {yield_ms / 1000:.4f} seconds\nProcess running with session ID "
                    f"{session}\nOriginal token count: 0\nOutput:\n")
        return (f"Chunk ID: c7b0dd\nWall time: 0.0101 seconds\nProcess exited with code {process.returncode}\n"
                f"Original token count: {len(output) // 4}\nOutput:\n{output}")
