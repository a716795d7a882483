"""Claude Code session transcripts (`~/.claude/projects/…/<session>.jsonl`): one step per assistant
turn (the lines of one API message, which Claude Code writes one content block per line, share a
`message.id`), its actions the turn's `tool_use` blocks, its observations the `tool_result` blocks
that answer them. Sidechain (sub-agent) lines, user prompts and the harness's own synthetic
messages are not steps."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import ImportProblem, edit_action, other_action, text_of
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.vocabulary import Ending, Tool

SYNTHETIC = "<synthetic>"  # the model name of messages Claude Code writes itself (API errors, interruptions)


def claude_action(name: str, arguments) -> Action:
    args = arguments if isinstance(arguments, dict) else {"raw": arguments}
    if name == "Bash":
        return Action(Tool.BASH, command=str(args.get("command", "")))
    if name in ("Edit", "Write"):
        return edit_action(args.get("file_path"), args.get("new_string", args.get("content")))
    if name == "MultiEdit":
        return edit_action(args.get("file_path"), "\n".join(str(e.get("new_string", ""))
                                                            for e in args.get("edits") or [] if isinstance(e, dict)))
    if name == "NotebookEdit":
        return edit_action(args.get("notebook_path"), args.get("new_source"))
    return other_action(name, args)


def is_turn(record: dict) -> bool:
    message = record.get("message")
    return (record.get("type") == "assistant" and isinstance(message, dict) and not record.get("isSidechain")
            and message.get("model") != SYNTHETIC)


def claude_steps(records: list[dict]) -> list[NStep]:
    steps: list[NStep] = []
    calls: dict[str, NStep] = {}
    turn_id = None
    for record in records:
        message = record.get("message")
        if is_turn(record):
            if steps and message.get("id") is not None and message.get("id") == turn_id:
                step = steps[-1]
            else:
                step = NStep(len(steps) + 1, "")
                steps.append(step)
            turn_id = message.get("id")
            content = message.get("content")
            for block in content if isinstance(content, list) else [{"type": "text", "text": content}]:
                if block.get("type") == "text" and block.get("text"):
                    step.text = f"{step.text}\n{block['text']}" if step.text else str(block["text"])
                elif block.get("type") == "tool_use":
                    step.actions.append(claude_action(str(block.get("name", "")), block.get("input")))
                    calls[str(block.get("id"))] = step
        elif record.get("type") == "user" and isinstance(message, dict) and not record.get("isSidechain"):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    step = calls.get(str(block.get("tool_use_id"))) or (steps[-1] if steps else None)
                    if step is not None:  # is_error: it failed, with no exit status recorded
                        step.observations.append(Obs(text_of(block.get("content")), None))
    return steps


def from_claude_code(records: list[dict], path: Path) -> NTrajectory:
    if not any(r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict) for r in records):
        raise ImportProblem(f"{path}: not a Claude Code session (no user or assistant line with a `message`)")
    steps = claude_steps(records)
    model = next((str(r["message"].get("model")) for r in records if is_turn(r) and r["message"].get("model")),
                 "unknown")
    session = next((r.get("sessionId") for r in records if r.get("sessionId")), None)
    return NTrajectory(run_id=str(session or path.stem), source="claude-code", path=str(path), model=model,
                       condition=None, task=path.stem, steps=steps, ending=Ending.UNKNOWN)
