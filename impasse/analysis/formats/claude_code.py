"""Claude Code session transcripts (`~/.claude/projects/…/<session>.jsonl`), stepped as LABELING.md
rule 5 says: only `assistant` and `user` entries count (bookkeeping lines and `isMeta` user entries
are skipped); a step is a maximal run of consecutive assistant entries (Claude Code writes each
block of one reply as its own entry); its observation is the text of the `tool_result` blocks in the
user entries that follow, up to the next assistant entry; a plain human prompt ends the run and is
no observation. Sidechain (sub-agent) entries are skipped in a main session; a file of nothing but
sidechain entries is a sub-agent's own transcript and is read as a trajectory of its own."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import (
    ImportProblem,
    bash_action,
    command_of,
    edit_action,
    other_action,
    text_of,
    tool_kind,
    verdict_action,
    verdict_of,
)
from impasse.analysis.normal_form import COMMAND, OTHER, Action, NStep, NTrajectory, Obs
from impasse.dialects.claude_code import INTERRUPTED, REJECTED, TIMEOUT_LINE, failed_status
from impasse.vocabulary import Tool

SYNTHETIC = "<synthetic>"  # the model name of messages Claude Code writes itself (API errors, interruptions)


def claude_action(name: str, arguments) -> Action:
    args = arguments if isinstance(arguments, dict) else {"raw": arguments}
    if verdict := verdict_action(name, args):
        return verdict
    if name in ("Bash", "PowerShell"):
        return Action(Tool.BASH, command=str(args.get("command", "")))
    if name in ("Edit", "Write"):
        return edit_action(args.get("file_path"), args.get("new_string", args.get("content")))
    if name == "MultiEdit":
        return edit_action(args.get("file_path"), "\n".join(str(e.get("new_string", ""))
                                                            for e in args.get("edits") or [] if isinstance(e, dict)))
    if name == "NotebookEdit":
        return edit_action(args.get("notebook_path"), args.get("new_source"))
    if tool_kind(name, args) == COMMAND and (command := command_of(args)):  # another harness's shell tool read
        return bash_action(command)                                         # as these entries (Cline's)
    return other_action(name, args)


def entries_of(records: list[dict]) -> list[dict]:
    """The entries that make steps: assistant and user entries with a message, not `isMeta`; the
    main session's alone, unless every one is a sidechain's."""
    entries = [r for r in records if r.get("type") in ("assistant", "user") and isinstance(r.get("message"), dict)
               and not r.get("isMeta")]
    if all(r.get("isSidechain") for r in entries):
        return entries
    return [r for r in entries if not r.get("isSidechain")]


def blocks_of(message: dict) -> list[dict]:
    content = message.get("content")
    if isinstance(content, list):
        if not all(isinstance(b, dict) for b in content):
            raise TypeError("a message's content holds something other than content blocks")
        return content
    return [{"type": "text", "text": content}] if content else []


def result_obs(block: dict, kind: str) -> Obs:
    """A tool_result: its text; `is_error` is a failure, its status the `Exit code N` a failed
    command's text begins with, else FAILED_STATUS_UNKNOWN; a result without it records no status.
    `Command timed out after …` is the Bash tool's own timeout (timed_out); a call the human
    rejected never ran (executed false); one the human stopped mid-run (`Exit code 137` then `[Request
    interrupted by user for tool use]`) ended on the stop's signal, so its status is none of the command's."""
    text = text_of(block.get("content"))
    rest, status = failed_status(text)
    stopped = rest != text and rest.lstrip().startswith(INTERRUPTED)  # an exit line, then the human's stop
    code = status if block.get("is_error") is True and not stopped else None
    return Obs(text, code, kind=kind, timed_out=text.startswith(TIMEOUT_LINE),
               executed=not text.startswith(REJECTED))


def claude_steps(entries: list[dict]) -> list[NStep]:
    steps: list[NStep] = []
    kinds: dict[str, str] = {}  # tool_use id → the kind of the tool it called
    in_reply = False  # the previous entry was an assistant entry of the current step
    for entry in entries:
        blocks = blocks_of(entry["message"])
        if entry["type"] == "assistant":
            if not in_reply:
                steps.append(NStep(len(steps) + 1, ""))
                in_reply = True
            step = steps[-1]
            for block in blocks:
                if block.get("type") == "text" and block.get("text"):
                    step.text = f"{step.text}\n{block['text']}" if step.text else str(block["text"])
                elif block.get("type") == "tool_use":
                    action = claude_action(str(block.get("name", "")), block.get("input"))
                    step.actions.append(action)
                    kinds[str(block.get("id"))] = action.kind
            continue
        in_reply = False
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if not results:  # a plain human prompt: it ends the run and is no observation
            continue
        for block in results:
            if steps:
                kind = kinds.get(str(block.get("tool_use_id")), OTHER)
                steps[-1].observations.append(result_obs(block, kind))
    return steps


def from_claude_code(records: list[dict], path: Path) -> NTrajectory:
    if not any(r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict) for r in records):
        raise ImportProblem(f"{path}: not a Claude Code session (no user or assistant line with a `message`)")
    entries = entries_of(records)
    model = next((str(r["message"]["model"]) for r in entries if r["type"] == "assistant"
                  and r["message"].get("model") not in (None, SYNTHETIC)), "unknown")
    # a sub-agent's transcript shares its session's id; its own is `agentId`
    session = next((r.get("agentId") if r.get("isSidechain") and r.get("agentId") else r.get("sessionId")
                    for r in entries if r.get("sessionId")), None)
    steps = claude_steps(entries)
    return NTrajectory(run_id=str(session or path.stem), source="claude-code", path=str(path), model=model,
                       condition=None, task=path.stem, steps=steps, ending=verdict_of(steps))
