"""Session exports that carry a `messages` list in OpenAI's chat form (`role: system|developer|user|
assistant|tool`, an assistant's `tool_calls`, a tool message's `tool_call_id`), often beside a `meta`
object: what tools that export Claude Code, Codex or opencode sessions write, on any platform.

A step is a maximal run of consecutive assistant messages (an export may write a reply's text and
each of its tool calls as messages of their own: still one model turn); its actions are every call's,
each read by what its tool does (impasse's verdict tools through its MCP server, a shell, an edit, an
ask, or any other tool by name); its observations the tool messages that follow, up to the next
assistant message. System and developer messages are skipped, and so are a sub-agent's (a role
other than these and `human`). A user message (or a transcript's `human` one) is the human: it ends
the run and is no observation. A tool
result's exit status is the one it prints in the forms the agents print it; none where it prints none."""

from __future__ import annotations

import re
from pathlib import Path

from impasse.analysis.formats.common import (
    ImportProblem,
    bash_action,
    command_of,
    edit_action,
    json_arguments,
    one_object,
    other_action,
    text_of,
    tool_kind,
    verdict_action,
    verdict_of,
)
from impasse.analysis.normal_form import COMMAND, OTHER, WRITE, Action, NStep, NTrajectory, Obs
from impasse.analysis.session_log import StepFacts

ROLES = ("system", "developer", "user", "assistant", "tool", "human")  # `human`: a transcript's user
# The exit status as the agents' shells print it: Claude Code's "Exit code 2", Codex's "Exit code: 2"
# and `"exit_code": 2`, opencode's and others' "exited with code 2" / "Process exited with code 2", a
# chat loop's "rc=2" opening the result.
EXIT = re.compile(r"(?:\A\s*rc=|\bexit(?:ed with)? code:?\s*|\"exit_code\"\s*:\s*|process exited with code\s*)"
                  r"(-?\d+)", re.I)
PATH_KEYS = ("file_path", "path", "filePath", "filepath", "filename", "file")
CONTENT_KEYS = ("content", "contents", "new_string", "newString", "new_str", "changes", "text", "patch", "input")


def export_messages(data):
    """The messages of an export: its `messages`, or `chatMessages` as GitHub Copilot CLI's older session
    files keep them (beside a `timeline` of the same turns for its own screen); a bare list is its own."""
    if not isinstance(data, dict):
        return data
    return data.get("messages") if "messages" in data else data.get("chatMessages")


def is_chat_export(data) -> bool:
    """A JSON object whose `messages` are chat messages with tool calls or tool results, and not a
    mini-swe-agent trajectory (whose `info` holds its exit status); or a bare list of such messages
    that mini-swe-agent did not write (no `exit` message, no `extra` it keeps its actions and return
    codes in, a tool other than its one `bash`). A transcript whose prompts are `human` messages and
    which has no `user` one (a terminal session converted to JSON) is one too, tool calls or not."""
    messages = export_messages(data)
    if not isinstance(messages, list):
        return False
    messages = [m for m in messages if isinstance(m, dict)]
    roles = {m.get("role") for m in messages}
    if isinstance(data, dict):
        info = data.get("info")
        if isinstance(info, dict) and "exit_status" in info:
            return False
    elif "exit" in roles or any(isinstance(m.get("extra"), dict) for m in messages) or \
            not any(name != "bash" for name in tool_names(messages)):
        return False
    if "human" in roles and "user" not in roles:
        return True
    return any(m.get("role") == "tool" or m.get("tool_calls") for m in messages)


def tool_names(messages: list[dict]) -> list[str]:
    return [str(call["function"].get("name", "")) for m in messages for call in m.get("tool_calls") or []
            if isinstance(call, dict) and isinstance(call.get("function"), dict)]


def call_action(name: str, args: dict) -> Action:
    if verdict := verdict_action(name, args):
        return verdict
    kind = tool_kind(name, args)
    if kind == COMMAND and (command := command_of(args)):
        return bash_action(command)
    path = next((args[k] for k in PATH_KEYS if k in args), None)
    if kind == WRITE and path is not None:
        return edit_action(path, next((args[k] for k in CONTENT_KEYS if k in args), ""))
    return other_action(name, args)


def tool_obs(message: dict, action: Action | None) -> Obs:
    """A tool message's text; a command's status where the export keeps it beside the text (`exit_code`),
    else where the text prints it."""
    text = text_of(message.get("content")).replace("\r\n", "\n")
    if action is None or action.kind != COMMAND:
        return Obs(text, None, kind=action.kind if action else OTHER)
    if isinstance(message.get("exit_code"), int):
        return Obs(text, message["exit_code"], kind=COMMAND)
    if wrapped := json_result(text):
        return wrapped
    found = EXIT.search(text)
    return Obs(text, int(found.group(1)) if found else None, kind=COMMAND)


def json_result(text: str) -> Obs | None:
    """A command's result its tool wrote as one JSON object (Hermes Agent's terminal tool: `{"output": …,
    "exit_code": 1, "error": …}`): the command's own text, read as printed (its lines, not one escaped
    string), its error after it, and its status."""
    if not text.lstrip().startswith("{") or '"output"' not in text:
        return None
    data = one_object(text)
    if data is None or not isinstance(data.get("output"), str):
        return None
    error = data.get("error")
    code = next((data[k] for k in ("exit_code", "returncode", "exitCode") if isinstance(data.get(k), int)), None)
    return Obs("\n".join([data["output"], *([str(error)] if error else [])]), code, kind=COMMAND)


# A user message the harness wrote, not a person: a background task's notice, a reminder, a
# continued session's summary, an aborted turn's marker, the environment's context.
AUTOMATIC = re.compile(r"\A\s*(?:<(?:task-notification|system-reminder|turn_aborted|environment_context"
                       r"|user_instructions|local-command-stdout)\b|This session is being continued"
                       r"|Caveat: The messages below)")


def roles_of(messages: list):
    """(role, message) for every message a step is made of: a sub-agent's and the harness's
    instructions skipped, a transcript's `human` read as `user`."""
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role in ROLES and role not in ("system", "developer"):
            yield ("user" if role == "human" else role), message


def export_walk(messages: list) -> tuple[list[NStep], list[StepFacts]]:
    """The steps, and for each its facts (whether a person spoke next; whether its words came after
    its calls): read in one walk, so a step and its facts cannot fall out of line."""
    steps: list[NStep] = []
    facts: list[StepFacts] = []
    calls: dict[str, Action] = {}  # tool call id → its action
    previous = None  # the role of the last message read
    for role, message in roles_of(messages):
        if role == "assistant":
            if previous != "assistant":
                steps.append(NStep(len(steps) + 1, ""))
                facts.append(StepFacts())
            said, called = add_reply(steps[-1], message, calls)
            # Words after the step's calls were written once their answers were in: a model writes
            # after a call only when it has the result (an export may file the result before the call).
            if called or said.strip():
                facts[-1].said_after_calls = not called and bool(steps[-1].actions)
        elif role == "tool" and steps and previous in ("assistant", "tool"):
            steps[-1].observations.append(tool_obs(message, calls.get(str(message.get("tool_call_id")))))
        elif role == "user" and steps and not AUTOMATIC.match(text_of(message.get("content"))):
            facts[-1].human_after = True
        previous = role
    return steps, facts


def add_reply(step: NStep, message: dict, calls: dict[str, Action]) -> tuple[str, bool]:
    """An assistant message's text and tool calls into its step; each call's action kept by id for
    the tool result that answers it. The message's text, and whether it called a tool."""
    text = text_of(message.get("content"))
    step.text = "\n".join(t for t in (step.text, text) if t)
    called = False
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            action = call_action(str(function.get("name", "")), json_arguments(function.get("arguments")))
            calls[str(call.get("id"))] = action
            step.actions.append(action)
            called = True
    return text, called


def export_steps(messages: list) -> list[NStep]:
    return export_walk(messages)[0]


def step_facts(messages: list) -> list[StepFacts]:
    """For each step, what the session log knows of it: whether a person spoke next, whether its words
    came after its calls."""
    return export_walk(messages)[1]


def from_chat_export(data, path: Path) -> NTrajectory:
    if not is_chat_export(data):
        raise ImportProblem(f"{path}: not a session export (no `messages` with tool calls or tool results)")
    steps = export_steps(export_messages(data))
    meta = data.get("meta") if isinstance(data, dict) and isinstance(data.get("meta"), dict) else {}
    model = meta.get("model") or (data.get("model") if isinstance(data, dict) else None)
    return NTrajectory(run_id=path.stem, source="chat-export", path=str(path), model=str(model or "unknown"),
                       condition=None, task=path.stem, steps=steps, ending=verdict_of(steps))
