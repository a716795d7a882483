"""Codex CLI session rollouts (`rollout-*.jsonl`), stepped as LABELING.md rule 6 says: only the
`response_item` lines (or, in older rollouts, the items themselves at top level); a step is a
maximal run of model-emitted items (reasoning, assistant messages, tool calls), its observation the
outputs that follow, up to the next model-emitted item, each unwrapped from Codex's
`{"output": …, "metadata": …}` JSON; user and developer messages end a run."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    edit_action,
    json_arguments,
    other_action,
    text_of,
    verdict_action,
    verdict_of,
)
from impasse.analysis.normal_form import COMMAND, OTHER, Action, NStep, NTrajectory, Obs
from impasse.dialects.codex import EXIT_LINE, POLICY_REJECTED
from impasse.vocabulary import Tool

ITEM_TYPES = ("message", "reasoning", "function_call", "function_call_output", "local_shell_call",
              "custom_tool_call", "custom_tool_call_output")
ROLLOUT_TYPES = ("session_meta", "response_item", "turn_context", "event_msg", "compacted")
CALLS = ("function_call", "local_shell_call", "custom_tool_call")
MODEL_ITEMS = (*CALLS, "reasoning", "web_search_call")  # and an assistant message
OUTPUTS = ("function_call_output", "custom_tool_call_output")
SHELLS = ("shell", "container.exec", "shell_command", "exec_command", "local_shell")
CODE_MODE = "exec"  # a script that calls the shell tools itself: a command
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
FAILED_HEADER = re.compile(r"^(?:Script failed$|execution error: )", re.M)
OUTPUT_HEADER = "Output:\n"  # ends a text output's header
HEADER_CHARS = 400  # a status is in the output's header (before `Output:`), never in what the command printed
TIMEOUT_LINE = "command timed out after "
REJECTED = ("exec command rejected by user", "patch rejected by user")  # a human's no: the call never ran


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


# A code-mode script's call of a shell tool: `const r = await tools.exec_command({"cmd": "rg -n …", …});`
SHELL_CALL = re.compile(r"\btools\.(?:exec_command|shell_command|shell)\((\{.*?\})\);", re.S)


def code_mode_command(script: str) -> str:
    """The command a code-mode script runs where it makes one shell call (what it searches, lists or runs
    is that command's, as if called directly); else the script itself."""
    calls = SHELL_CALL.findall(script)
    if len(calls) != 1:
        return script
    try:
        args = json.loads(calls[0])
    except json.JSONDecodeError:
        return script
    command = args.get("cmd", args.get("command")) if isinstance(args, dict) else None
    return command_text(command) if command else script


def codex_actions(item: dict) -> list[Action]:
    if item["type"] == "local_shell_call":
        return [Action(Tool.BASH, command=command_text((item.get("action") or {}).get("command")))]
    name = str(item.get("name", ""))
    if item["type"] == "custom_tool_call":
        if name == "apply_patch":
            return patch_actions(str(item.get("input", "")))
        if name == CODE_MODE:
            return [Action(Tool.BASH, command=code_mode_command(str(item.get("input", ""))))]
        return [other_action(name, item.get("input"))]
    args = json_arguments(item.get("arguments"))
    if verdict := verdict_action(name, args, str(item.get("namespace") or "")):
        return [verdict]
    if name == "apply_patch":
        return patch_actions(str(args.get("input", args.get("patch", ""))))
    if name in SHELLS:
        command = args.get("command", args.get("cmd"))
        if isinstance(command, list) and command[:1] == ["apply_patch"] and len(command) == 2:
            return patch_actions(str(command[1]))
        return [Action(Tool.BASH, command=command_text(command))]
    return [other_action(name, args)]


def unwrapped(output):
    """An output that is itself the JSON string `{"output": …, "metadata": …}` as that object."""
    if isinstance(output, str) and output.startswith("{"):
        try:
            return json.loads(output)
        except json.JSONDecodeError:
            return output
    return output


def observation_of(output, kind: str = COMMAND) -> Obs:
    """`{"output": …, "metadata": {"exit_code": N}}` (a JSON string or an object) gives the output and
    its status; a text output gives the status its header says: `Exit code: N` (shell_command),
    `Process exited with code N` (unified exec), `Script failed` (code mode) or Codex's own
    `execution error: …` (the sandbox could not start the process) being a failure with no status
    recorded (FAILED_STATUS_UNKNOWN); else none."""
    payload = unwrapped(output)
    if isinstance(payload, dict) and "output" in payload:
        code = (payload.get("metadata") or {}).get("exit_code")
        text = text_of(payload["output"])
        code = code if isinstance(code, int) else None
    else:
        text = text_of(payload.get("content") if isinstance(payload, dict) else payload)
        code = exit_status(text)
        code = FAILED_STATUS_UNKNOWN if code is None and POLICY_REJECTED.search(text) else code
    return Obs(text, code, kind=kind, timed_out=timed_out(text), executed=text.strip() not in REJECTED)


def timed_out(text: str) -> bool:
    """Codex killed the command for its own timeout: `command timed out after N milliseconds` begins
    the output (after the header, if there is one)."""
    header_end = text.find(OUTPUT_HEADER, 0, HEADER_CHARS)
    return text.startswith(TIMEOUT_LINE, header_end + len(OUTPUT_HEADER) if header_end >= 0 else 0)


def exit_status(text: str) -> int | None:
    head = text[:HEADER_CHARS + len("\nOutput:")].split("\nOutput:", 1)[0][:HEADER_CHARS]  # no copy of the output
    found = EXIT_LINE.search(head)
    if found:
        return int(found.group(1))
    return FAILED_STATUS_UNKNOWN if FAILED_HEADER.match(head) else None


def is_model_item(item: dict) -> bool:
    kind = item.get("type")
    return kind in MODEL_ITEMS or (kind == "message" and item.get("role") == "assistant")


def codex_steps(items: list[dict]) -> list[NStep]:
    """LABELING.md rule 6: a step is a maximal run of model-emitted items; the outputs that follow,
    up to the next model-emitted item, are its observation; a user or developer message ends the
    run and is no observation."""
    steps: list[NStep] = []
    kinds: dict[str, str] = {}  # call_id → the kind of the tool it called
    in_run = False
    for item in items:
        kind = item.get("type")
        if is_model_item(item):
            if not in_run:
                steps.append(NStep(len(steps) + 1, ""))
                in_run = True
            step = steps[-1]
            if kind == "message":
                text = text_of(item.get("content"))
                step.text = f"{step.text}\n{text}" if step.text else text
            elif kind in CALLS:
                actions = codex_actions(item)
                step.actions.extend(actions)
                kinds[str(item.get("call_id") or item.get("id"))] = actions[0].kind if actions else OTHER
        elif kind in OUTPUTS:
            in_run = False
            if steps:
                call_kind = kinds.get(str(item.get("call_id")), OTHER)
                steps[-1].observations.append(observation_of(item.get("output"), call_kind))
        elif kind == "message":  # a user's or developer's: it ends the run and is no observation
            in_run = False
        # any other item (a ghost snapshot, a compaction marker…) neither starts nor ends a run
    return steps


def from_codex(records: list[dict], path: Path) -> NTrajectory:
    items = items_of(records)
    if not items and not any(r.get("type") == "session_meta" for r in records):  # a session with no item: 0 steps
        raise ImportProblem(f"{path}: not a Codex rollout (no `response_item` line and no top-level item)")
    meta = next((r.get("payload") or {} for r in records if r.get("type") == "session_meta"), None) \
        or (records[0] if "instructions" in records[0] or "id" in records[0] else {})
    model = next((str(r["payload"]["model"]) for r in records if r.get("type") == "turn_context"
                  and isinstance(r.get("payload"), dict) and r["payload"].get("model")), "unknown")
    steps = codex_steps(items)
    return NTrajectory(run_id=str(meta.get("id") or path.stem), source="codex", path=str(path), model=model,
                       condition=None, task=path.stem, steps=steps, ending=verdict_of(steps))
