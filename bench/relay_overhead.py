"""What the model relay adds to a step: the median round trip of a model request through the relay's
unix socket (read, translate, answer, close the previous step into steps.jsonl with its fsync,
stream the reply) beside the median direct `model.complete` call of the same model, same run.

The model is `scripted:persistent` (it never ends, and it speaks impasse's tools, so every request
takes the relay's translation path), told each time that its last call failed. The requests are
shaped and sized as Claude Code 2.1.332's and Codex 0.171.0's are (about 125 KB and 40 KB of
system prompt and tools before any history), and their history grows step by step to the budget.

The other wires' requests are the agents' own, captured against a fake model (agents probe,
2026-12-01) with their trimmed strings filled back to their length: opencode 1.18.33's and Qwen Code
0.24.4's streamed Chat Completions (about 32 KB and 77 KB), Gemini CLI 0.61.0's
`streamGenerateContent?alt=sse` (about 48 KB). Each relay is made for the agent whose spec declares
the wire (a relay serves only its agent's wire), the policy's calls reach the client in that agent's
names, and the client answers each with a failed result in that agent's own result format.

    python bench/relay_overhead.py --episodes 3 --budget 80
    python bench/relay_overhead.py --wires opencode,gemini-cli --episodes 1 --budget 20
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import socket
import statistics
import tempfile
import time
from pathlib import Path

from impasse.agents.relay import Relay
from impasse.agents.specs import load_specs
from impasse.episode.rundir import RunDir
from impasse.episode.tools import TOOLS
from impasse.models.scripted import Edit, Persistent, Playbook

GOAL_MS = 5.0
SPECS = load_specs()
# opencode's, Qwen Code's, Gemini CLI's and cecli's
CAPTURED = Path(__file__).resolve().parent / "data" / "agent-requests.json"
TRIMMED = re.compile("\u2026\\(\\+(\\d+)\\)")  # the probe's trim mark: …(+N), N characters left out
PLAYBOOK = Playbook((Edit("calc.py", "return a - b\n", "return a + b\n"),), "python3 -m pytest -q", False)
FILLER = "Follow the repository's conventions and keep changes small. " * 40  # ~2.4 KB of prose


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost", timeout=30)
        self.socket_path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.socket_path)


def tool_schema(index: int) -> dict:
    return {"type": "object", "properties": {f"field_{k}": {"type": "string", "description": FILLER[:300]}
                                             for k in range(4)}, "required": ["field_0"], "x": index}


def claude_body(history: list[dict]) -> dict:
    tools = [{"name": name, "description": FILLER * 2, "input_schema": tool_schema(i)}
             for i, name in enumerate(["Bash", "Edit", "Read", "Write", "Glob", "Grep", "Agent", "WebFetch",
                                       "TaskCreate", "TaskList", "TaskUpdate", "NotebookEdit", "Skill",
                                       "mcp__impasse__escalate_to_human", "mcp__impasse__task_complete"])]
    system = [{"type": "text", "text": FILLER * 10, "cache_control": {"type": "ephemeral"}}]
    prompt = {"role": "user", "content": [{"type": "text", "text": FILLER * 3}, {"type": "text", "text": "Fix it."}]}
    return {"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": True, "system": system, "tools": tools,
            "messages": [prompt, *history]}


def claude_next(reply: bytes, step: int) -> list[dict]:
    uses = [json.loads(line[6:])["content_block"] for line in reply.decode().splitlines()
            if line.startswith("data: ") and '"content_block_start"' in line]
    calls = [block | {"input": {}} for block in uses if block["type"] == "tool_use"]
    results = [{"type": "tool_result", "tool_use_id": block["id"], "is_error": True,
                "content": f"Exit code 1\nFAILED tests/test_calc.py::test_{step} - AssertionError\n" * 8}
               for block in calls]
    return [{"role": "assistant", "content": calls}, {"role": "user", "content": results}]


def codex_body(history: list[dict]) -> dict:
    tools = [{"type": "function", "name": name, "description": FILLER, "parameters": tool_schema(i)}
             for i, name in enumerate(["exec_command", "write_stdin", "view_image", "get_goal", "update_goal"])]
    tools.append({"type": "custom", "name": "apply_patch", "description": FILLER,
                  "format": {"type": "grammar", "syntax": "lark", "definition": FILLER}})
    developer = [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": FILLER * 8}]},
                 {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix it."}]}]
    return {"model": "gpt-5.5", "stream": True, "store": False, "tools": tools, "input": developer + history}


def codex_next(reply: bytes, step: int) -> list[dict]:
    done = [json.loads(line[6:])["item"] for line in reply.decode().splitlines()
            if line.startswith("data: ") and '"response.output_item.done"' in line]
    items = []
    for item in done:
        items.append(item)
        if item["type"] in ("function_call", "custom_tool_call"):
            kind = "function_call_output" if item["type"] == "function_call" else "custom_tool_call_output"
            items.append({"type": kind, "call_id": item["call_id"], "output":
                          "Chunk ID: ab12\nWall time: 0.2 seconds\nProcess exited with code 1\nOutput:\n"
                          + f"FAILED tests/test_calc.py::test_{step} - AssertionError\n" * 8})
    return items


def filled(value):
    """A captured body with each trimmed string filled back to its length (prose in place of the text)."""
    if isinstance(value, dict):
        return {key: filled(item) for key, item in value.items()}
    if isinstance(value, list):
        return [filled(item) for item in value]
    if isinstance(value, str):
        return TRIMMED.sub(lambda found: (FILLER * (int(found.group(1)) // len(FILLER) + 1))[:int(found.group(1))],
                           value)
    return value


def captured(agent: str) -> dict:
    """The agent's first captured request with tools, filled back to its size."""
    return filled(json.loads(CAPTURED.read_text())[agent]["body"])


def sse_data(reply: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in reply.decode().splitlines()
            if line.startswith("data: ") and line[6:].strip() != "[DONE]"]


def chat_calls(reply: bytes) -> list[dict]:
    """The streamed tool calls, whole (the relay sends each at its index in one chunk)."""
    calls: dict[int, dict] = {}
    for chunk in sse_data(reply):
        for choice in chunk.get("choices") or []:
            for call in (choice.get("delta") or {}).get("tool_calls") or []:
                calls[call["index"]] = {key: call[key] for key in ("id", "type", "function")}
    return [calls[index] for index in sorted(calls)]


def chat_body(base: dict, history: list[dict]) -> dict:
    return base | {"messages": base["messages"] + history}


def failed(step: int) -> str:
    return f"FAILED tests/test_calc.py::test_{step} - AssertionError\n" * 8


def opencode_next(reply: bytes, step: int) -> list[dict]:
    """opencode's bash result: the output, then the exit line impasse's command wrapping prints."""
    calls = chat_calls(reply)

    def output(call: dict) -> str:
        return failed(step) + "\n[impasse: exit 1]\n" if call["function"]["name"] == "bash" else \
            "Error: oldString not found in content"
    return [{"role": "assistant", "content": "", "tool_calls": calls},
            *({"role": "tool", "tool_call_id": call["id"], "content": output(call)} for call in calls)]


def qwen_next(reply: bytes, step: int) -> list[dict]:
    calls = chat_calls(reply)
    results = []
    for call in calls:
        command = json.loads(call["function"]["arguments"] or "{}").get("command")
        text = (f"Command: {command}\nDirectory: (root)\nOutput: {failed(step)}"
                "Error: (none)\nExit Code: 1\nSignal: (none)\nProcess Group PGID: (none)") if command else \
            "Failed to edit, 0 occurrences found for old_string in /workspace/calc.py."
        results.append({"role": "tool", "tool_call_id": call["id"], "content": [{"type": "text", "text": text}]})
    return [{"role": "assistant", "content": None, "tool_calls": calls}, *results]


def cecli_next(reply: bytes, step: int) -> list[dict]:
    """cecli's result object around its shell's status line and output."""
    calls = chat_calls(reply)

    def output(call: dict) -> str:
        text = f"Shell command completed within 120s timeout with exit code 1. Output:\n{failed(step)}"
        return json.dumps({"result": [{"content": text, "_": {}}], "errors": [], "details": []})
    return [{"role": "assistant", "content": None, "tool_calls": calls},
            *({"role": "tool", "tool_call_id": call["id"], "content": output(call)} for call in calls)]


def gemini_body(base: dict, history: list[dict]) -> dict:
    return base | {"contents": base["contents"] + history}


def gemini_next(reply: bytes, step: int) -> list[dict]:
    parts = [part for chunk in sse_data(reply) for candidate in chunk.get("candidates") or []
             for part in candidate["content"]["parts"]]
    calls = [part["functionCall"] for part in parts if "functionCall" in part]
    shell = f"<untrusted_context>\nOutput: {failed(step)}Exit Code: 1\nProcess Group PGID: 1\n</untrusted_context>"
    responses = [{"functionResponse": {"name": call["name"], "id": call["id"], "response": (
        {"output": shell} if call["name"] == "run_shell_command" else
        {"error": "Failed to edit, 0 occurrences found for old_string in /workspace/calc.py."})}} for call in calls]
    return [{"role": "model", "parts": [{"functionCall": call, "thoughtSignature": "skip_thought_signature_validator"}
                                        for call in calls] or parts},
            {"role": "user", "parts": responses}]


def lazy(load, body_of):
    """A body maker whose captured base is read once, when its wire is first run."""
    base: dict = {}

    def body(history: list[dict]) -> dict:
        if not base:
            base.update(load())
        return body_of(base, history)
    return body


def chat_base(agent: str):
    def load() -> dict:
        body = captured(agent)
        return body | {"messages": [m for m in body["messages"] if m["role"] in ("system", "user")]}
    return load


def gemini_base() -> dict:
    body = captured("gemini-cli")
    return body | {"contents": body["contents"][:1]}


# agent → (path, body of the history so far, history the reply adds); each agent's spec names its wire
WIRES = {"claude-code": ("/v1/messages?beta=true", claude_body, claude_next),
         "codex": ("/v1/responses", codex_body, codex_next),
         "opencode": ("/v1/chat/completions", lazy(chat_base("opencode"), chat_body), opencode_next),
         "qwen-code": ("/v1/chat/completions", lazy(chat_base("qwen-code"), chat_body), qwen_next),
         "cecli": ("/v1/chat/completions", lazy(chat_base("cecli"), chat_body), cecli_next),
         "gemini-cli": ("/v1beta/models/impasse:streamGenerateContent?alt=sse", lazy(gemini_base, gemini_body),
                        gemini_next)}


def episode(agent: str, budget: int, folder: Path) -> tuple[list[float], list[float], int]:
    """Round trips through the relay and direct calls of the same policy, in ms, and the request size."""
    path, body_of, next_of = WIRES[agent]
    run = RunDir(folder)
    run.path.mkdir(parents=True)
    run.steps.touch()
    relayed, direct, size = [], [], 0
    twin = Persistent("persistent", PLAYBOOK, seed=0)
    history: list[dict] = []
    with Relay(Persistent("persistent", PLAYBOOK, seed=0), run, agent=agent, budget=budget) as relay:
        for step in range(1, budget + 1):
            data = json.dumps(body_of(history)).encode()
            size = max(size, len(data))
            connection = UnixConnection(relay.socket_path)
            started = time.perf_counter()
            connection.request("POST", path, body=data, headers={"content-type": "application/json"})
            response = connection.getresponse()
            reply = response.read()
            if response.status != 200:
                raise SystemExit(f"{agent} step {step}: {response.status} {reply[:300]!r}")
            relayed.append((time.perf_counter() - started) * 1000)
            connection.close()
            history += next_of(reply, step)
            messages = [{"role": "user", "content": "Fix it."}, {"role": "tool", "tool_call_id": "c",
                                                                  "content": "exit code: 1\nFAILED"}]
            started = time.perf_counter()
            twin.complete(messages, TOOLS)
            direct.append((time.perf_counter() - started) * 1000)
    return relayed, direct, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--budget", type=int, default=80)
    parser.add_argument("--wires", default=",".join(WIRES),
                        help=f"agents whose wires to measure, comma-separated (default: all: {', '.join(WIRES)})")
    args = parser.parse_args()
    agents = [name.strip() for name in args.wires.split(",") if name.strip()]
    unknown = [name for name in agents if name not in WIRES]
    if unknown:
        parser.error(f"no such wire's agent: {', '.join(unknown)} (choose from {', '.join(WIRES)})")
    print(f"{'agent':12} {'wire':18} {'steps':>6} {'largest request':>16} {'direct median':>14} "
          f"{'relay median':>13} {'relay p90':>10} {'overhead':>9} {'relay/direct':>13}")
    with tempfile.TemporaryDirectory() as folder:
        for agent in agents:
            relayed, direct, size = [], [], 0
            for number in range(args.episodes):
                r, d, s = episode(agent, args.budget, Path(folder) / f"{agent}-{number}")
                relayed, direct, size = relayed + r, direct + d, max(size, s)
            overhead = statistics.median(relayed) - statistics.median(direct)
            p90 = statistics.quantiles(relayed, n=10)[-1]
            verdict = "ok" if overhead <= GOAL_MS else f"over the {GOAL_MS} ms goal"
            ratio = statistics.median(relayed) / statistics.median(direct)
            print(f"{agent:12} {SPECS[agent].wire:18} {len(relayed):6} {size / 1024:13.0f} KB "
                  f"{statistics.median(direct):11.3f} ms {statistics.median(relayed):10.3f} ms {p90:7.3f} ms "
                  f"{overhead:6.3f} ms {ratio:12.1f}x  {verdict}")


if __name__ == "__main__":
    main()
