"""Benchmark: `impasse annotate` over a folder of 1,000 sessions laid out as Claude Code and Codex
keep them (~/.claude/projects/<slug>/<session>.jsonl, ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl),
discovery, verdicts and the folder's summary included, with progress shown.

Usage: python bench/annotate_sessions.py [--sessions 1000] [--steps 40]"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from impasse.analysis.driver import annotate_paths
from impasse.analysis.incidents import folder_summary

OUTPUTS = ["ok", "bash: line 1: jq: command not found", "npm ERR! getaddrinfo ENOTFOUND registry.npmjs.org",
           "src/app.ts\nsrc/index.ts", "PASS  tests/app.test.ts (12 tests)"]
FINALS = ["Done: all tests pass.", "I can't install jq here. Could you install it and re-run?", "Here is what I found."]


def claude_session(rng: random.Random, steps: int) -> str:
    lines = [{"type": "user", "message": {"role": "user", "content": "fix the build"}}]
    for i in range(steps):
        use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "npm test"}}
        lines.append({"type": "assistant", "message": {"role": "assistant", "model": "claude-sonnet-4-5", "id": f"m{i}",
                                                        "content": [use], "usage": {"input_tokens": 900,
                                                                                    "output_tokens": 80}}})
        output = rng.choice(OUTPUTS)
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": output, "is_error": "ERR" in output}]}})
    lines.append({"type": "assistant", "message": {"role": "assistant", "model": "claude-sonnet-4-5", "id": "end",
                                                   "content": [{"type": "text", "text": rng.choice(FINALS)}]}})
    start = 1_760_000_000
    return "".join(json.dumps(r | {"timestamp": start + n * 7, "sessionId": "s"}) + "\n" for n, r in enumerate(lines))


def codex_session(rng: random.Random, steps: int) -> str:
    rows = [{"type": "session_meta", "payload": {"id": "r"}}, {"type": "turn_context", "payload": {"model": "gpt-5.4"}}]
    for i in range(steps):
        arguments = json.dumps({"command": ["bash", "-lc", "npm ci"]})
        rows.append({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": f"c{i}",
                                                          "arguments": arguments}})
        rows.append({"type": "event_msg", "payload": {"type": "token_count", "info": {"last_token_usage": {
            "input_tokens": 1200, "cached_input_tokens": 600, "output_tokens": 40}}}})
        output = rng.choice(OUTPUTS)
        rows.append({"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{i}",
                                                          "output": json.dumps({"output": output, "metadata": {
                                                              "exit_code": 1 if "ERR" in output else 0}})}})
    rows.append({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": rng.choice(FINALS)}]}})
    return "".join(json.dumps(r | {"timestamp": f"2026-05-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z"}) + "\n"
                   for n, r in enumerate(rows))


def write_stores(home: Path, sessions: int, steps: int) -> None:
    rng = random.Random(0)
    for n in range(sessions):
        if n % 2:
            path = home / ".claude" / "projects" / f"-Users-me-project{n % 17}" / f"{n:05d}.jsonl"
            text = claude_session(rng, steps)
        else:
            path = home / ".codex" / "sessions" / "2026" / "05" / f"{n % 28 + 1:02d}" / f"rollout-{n:05d}.jsonl"
            text = codex_session(rng, steps)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def show_progress(done: int, total: int) -> None:
    if done == total or done % 100 == 0:
        print(f"  annotated {done}/{total}", file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="impasse-sessions-"))
    try:
        write_stores(home, args.sessions, args.steps)
        started = time.perf_counter()
        batch = annotate_paths([home / ".claude", home / ".codex"], progress=show_progress)
        summary = folder_summary(batch.incidents)
        seconds = time.perf_counter() - started
        steps = sum(i.total.steps for i in batch.incidents)
        print(f"sessions: {len(batch.incidents)} of {args.sessions} ({steps} steps) in {seconds:.2f}s = "
              f"{len(batch.incidents) / seconds:,.0f} sessions/s, {steps / seconds:,.0f} steps/s; "
              f"with a wall {summary['with_wall']}, told {summary['told_share']}")
    finally:
        shutil.rmtree(home)


if __name__ == "__main__":
    main()
