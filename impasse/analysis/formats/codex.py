"""Codex CLI session rollouts (`rollout-*.jsonl`): `response_item` lines (or, in older rollouts,
the items themselves at top level). A step is one model turn: the assistant messages and tool calls
the model emitted together, up to the first tool output or user message; the outputs are joined to
their calls by `call_id`."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from impasse.analysis.formats.common import ImportProblem, edit_action, json_arguments, other_action, text_of
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.vocabulary import Ending, Tool

ITEM_TYPES = ("message", "reasoning", "function_call", "function_call_output", "local_shell_call",
              "custom_tool_call", "custom_tool_call_output")
ROLLOUT_TYPES = ("session_meta", "response_item", "turn_context", "event_msg", "compacted")
CALLS = ("function_call", "local_shell_call", "custom_tool_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")
SHELLS = ("shell", "container.exec", "shell_command", "exec_command", "local_shell")
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
EXIT_LINE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)$", re.M)


def items_of(records: list[dict]) -> list[dict]:
    items = []
    for record in records:
        if record.get("type") == "response_item" and isinstance(record.get("payload"), dict):
            items.append(record["payload"])
        elif record.get("type") in ITEM_TYPES and "payload" not in record:
            items.append(record)
    return items


def command_text(command) -> str:
    """`["bash", "-lc", "script"]` is the script; any other argv is joined as a shell line."""
    if isinstance(command, list):
        argv = [str(a) for a in command]
        if len(argv) == 3 and argv[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh") and argv[1] in ("-lc", "-c"):
            return argv[2]
        return shlex.join(argv)
    return str(command or "")


def patch_actions(patch: str) -> list[Action]:
    """An apply_patch envelope: one edit per file, its content the lines the patch adds."""
    sections = PATCH_FILE.split(patch)
    return [edit_action(path.strip(), "\n".join(line[1:] for line in body.splitlines() if line.startswith("+")))
            for path, body in zip(sections[1::2], sections[2::2], strict=True)] or [edit_action("", patch)]


def codex_actions(item: dict) -> list[Action]:
    if item["type"] == "local_shell_call":
        return [Action(Tool.BASH, command=command_text((item.get("action") or {}).get("command")))]
    name = str(item.get("name", ""))
    if item["type"] == "custom_tool_call":
        if name == "apply_patch":
            return patch_actions(str(item.get("input", "")))
        return [other_action(name, item.get("input"))]
    args = json_arguments(item.get("arguments"))
    if name == "apply_patch":
        return patch_actions(str(args.get("input", args.get("patch", ""))))
    if name in SHELLS:
        command = args.get("command", args.get("cmd"))
        if isinstance(command, list) and command[:1] == ["apply_patch"] and len(command) == 2:
            return patch_actions(str(command[1]))
        return [Action(Tool.BASH, command=command_text(command))]
    return [other_action(name, args)]


def observation_of(output) -> Obs:
    """`{"output": …, "metadata": {"exit_code": N}}` as a JSON string (or object); newer rollouts
    write text with an `Exit code: N` / `Process exited with code N` line; else no exit status."""
    payload = output
    if isinstance(output, str) and output.startswith("{"):
        try:
            payload = json.loads(output)
        except json.JSONDecodeError:
            payload = output
    if isinstance(payload, dict) and "output" in payload:
        code = (payload.get("metadata") or {}).get("exit_code")
        return Obs(text_of(payload["output"]), code if isinstance(code, int) else None)
    text = text_of(payload.get("content") if isinstance(payload, dict) else payload)
    found = EXIT_LINE.search(text)
    return Obs(text, int(found.group(1)) if found else None)


def codex_steps(items: list[dict]) -> list[NStep]:
    steps: list[NStep] = []
    calls: dict[str, NStep] = {}
    open_turn = False
    for item in items:
        kind = item.get("type")
        is_model = kind in CALLS or kind == "reasoning" or (kind == "message" and item.get("role") == "assistant")
        if is_model and kind != "reasoning" and not open_turn:
            steps.append(NStep(len(steps) + 1, ""))
            open_turn = True
        if kind == "message" and item.get("role") == "assistant":
            text = text_of(item.get("content"))
            steps[-1].text = f"{steps[-1].text}\n{text}" if steps[-1].text else text
        elif kind in CALLS:
            steps[-1].actions.extend(codex_actions(item))
            calls[str(item.get("call_id") or item.get("id"))] = steps[-1]
        elif kind in OUTPUTS:
            step = calls.get(str(item.get("call_id"))) or (steps[-1] if steps else None)
            if step is not None:
                step.observations.append(observation_of(item.get("output")))
            open_turn = False
        elif kind == "message":  # a user or developer message ends the turn; it is not an observation
            open_turn = False
    return steps


def from_codex(records: list[dict], path: Path) -> NTrajectory:
    items = items_of(records)
    if not items:
        raise ImportProblem(f"{path}: not a Codex rollout (no `response_item` line and no top-level item)")
    meta = next((r.get("payload") or {} for r in records if r.get("type") == "session_meta"), None) \
        or (records[0] if "instructions" in records[0] or "id" in records[0] else {})
    model = next((str(r["payload"]["model"]) for r in records if r.get("type") == "turn_context"
                  and isinstance(r.get("payload"), dict) and r["payload"].get("model")), "unknown")
    return NTrajectory(run_id=str(meta.get("id") or path.stem), source="codex", path=str(path), model=model,
                       condition=None, task=path.stem, steps=codex_steps(items), ending=Ending.UNKNOWN)
