"""What the model relay adds to a step: the median round trip of a model request through the relay's
unix socket (read, translate, answer, close the previous step into steps.jsonl with its fsync,
stream the reply) beside the median direct `model.complete` call of the same model, same run.

The model is `scripted:persistent` (it never ends, and it speaks impasse's tools, so every request
takes the relay's translation path), told each time that its last call failed. The requests are
shaped and sized as Claude Code 2.1.332's and Codex 0.171.0's are (about 125 KB and 40 KB of
system prompt and tools before any history), and their history grows step by step to the budget.

    python bench/relay_overhead.py --episodes 3 --budget 80
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import tempfile
import time
from pathlib import Path

from impasse.agents.relay import Relay
from impasse.episode.rundir import RunDir
from impasse.episode.tools import TOOLS
from impasse.models.scripted import Edit, Persistent, Playbook

GOAL_MS = 5.0
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


WIRES = {"claude-code": ("/v1/messages?beta=true", claude_body, claude_next),
         "codex": ("/v1/responses", codex_body, codex_next)}


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
            reply = connection.getresponse().read()
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
    args = parser.parse_args()
    print(f"{'agent':12} {'steps':>6} {'largest request':>16} {'direct median':>14} {'relay median':>13} "
          f"{'relay p90':>10} {'overhead':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for agent in WIRES:
            relayed, direct, size = [], [], 0
            for number in range(args.episodes):
                r, d, s = episode(agent, args.budget, Path(folder) / f"{agent}-{number}")
                relayed, direct, size = relayed + r, direct + d, max(size, s)
            overhead = statistics.median(relayed) - statistics.median(direct)
            p90 = statistics.quantiles(relayed, n=10)[-1]
            verdict = "ok" if overhead <= GOAL_MS else f"over the {GOAL_MS} ms goal"
            print(f"{agent:12} {len(relayed):6} {size / 1024:13.0f} KB {statistics.median(direct):11.3f} ms "
                  f"{statistics.median(relayed):10.3f} ms {p90:7.3f} ms {overhead:6.3f} ms  {verdict}")


if __name__ == "__main__":
    main()
