"""What the format readers share: the error they raise, reading JSON Lines and console text, and how
a foreign tool call becomes an impasse action."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from impasse.analysis.normal_form import ASK, COMMAND, LIST, OTHER, READ, WRITE, Action
from impasse.dialects.claude_code import FAILED_STATUS_UNKNOWN as FAILED_STATUS_UNKNOWN  # re-exported (`as`)
from impasse.vocabulary import TERMINAL_ARGUMENT, Ending, Tool

COMPLETE_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
ESCALATE_MARKERS = ("IMPASSE_ESCALATE_TO_HUMAN",)  # impasse's escalation sentinel for mini-swe-agent
BASH_BLOCK = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.S)
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


# Foreign tools by what they do (docs/metrics.md, "Foreign tool kinds"), by lower-cased name: Claude
# Code's, Codex CLI's, OpenHands', SWE-agent's, Gemini CLI's and OpenCode's, and the common MCP and
# editor tools'. A name not here is `other`; an MCP tool (`mcp__server__name`) is looked up by its
# last part.
KIND_OF_TOOL = {
    **dict.fromkeys(("bash", "bashoutput", "powershell", "shell", "shell_command", "exec_command", "write_stdin",
                     "container.exec", "local_shell", "local_shell_call", "run", "run_ipython", "execute_bash",
                     "execute_command", "run_command", "run_terminal_cmd", "run_terminal_command", "terminal", "cmd",
                     "exec", "wait", "run_shell_command", "taskoutput"), COMMAND),
    **dict.fromkeys(("read", "notebookread", "read_file", "view", "view_file", "view_image", "open", "goto",
                     "scroll_up", "scroll_down", "webfetch", "web_fetch", "websearch", "web_search",
                     "web_search_call", "browse", "browse_interactive", "fetch", "read_mcp_resource", "read_many_files",
                     "google_web_search", "read_url_content", "search_web", "read_file_range",
                     "read_currently_open_file", "fetch_url_content"), READ),
    **dict.fromkeys(("grep", "glob", "ls", "list", "list_dir", "list_files", "list_directory", "find_file",
                     "search_dir", "search_file", "file_search", "codebase_search", "grep_search",
                     "grep_files", "search_file_content", "list_mcp_resources", "file_glob_search", "view_subdirectory",
                     "view_repo_map"), LIST),
    **dict.fromkeys(("edit", "write", "multiedit", "notebookedit", "edit_file", "write_file", "create",
                     "create_file", "str_replace", "insert", "apply_patch", "write_to_file", "replace_file_content",
                     "multi_replace_file_content", "str_replace_based_edit_tool", "replace",
                     "patch", "create_new_file", "edit_existing_file", "single_find_and_replace", "multi_edit"), WRITE),
    **dict.fromkeys(("askuserquestion", "ask_user", "ask_human", "request_user_input", Tool.ESCALATE_TO_HUMAN,
                     "exit_forfeit", "ask_followup_question", "ask_question"), ASK),
}
# An editor tool whose `command` argument says which it is (str_replace_editor / str_replace_based_edit_tool).
EDITOR_COMMANDS = {"view": READ, "create": WRITE, "str_replace": WRITE, "insert": WRITE, "undo_edit": WRITE}


def tool_kind(name: str, arguments=None) -> str:
    """What a foreign tool is (command / read / list / write / ask / other), by its name; an editor
    tool by the `command` it was given."""
    key = str(name or "").strip().lower().rsplit("__", 1)[-1]
    if key in ("str_replace_editor", "str_replace_based_edit_tool", "file_editor", "editor"):
        command = arguments.get("command") if isinstance(arguments, dict) else None
        return EDITOR_COMMANDS.get(str(command), WRITE)
    return KIND_OF_TOOL.get(key) or (LIST if LOG_SEARCH.search(key) else OTHER)


# A tool that searches or reads logs or traces (an observability MCP's `logs_search`, `get_traces`): what it
# returns are the entries it matched, a listing of what others printed, not a failure of the agent's call.
LOG_SEARCH = re.compile(r"(?:^|_)(?:logs?|traces?)_(?:search|query|list|get|read|tail|fetch)(?:_|$)"
                        r"|(?:^|_)(?:search|query|list|get|read|tail|fetch)_(?:logs?|traces?)(?:_|$)")


MOST_LINES_WHOLE = 20  # more than one torn tail in 20 lines (or in a shorter file) is no JSON Lines log


class ImportProblem(ValueError):
    """A file that is not in the format it was said (or guessed) to be in."""


def is_tail(line: str) -> bool:
    """A line of a JSON Lines log that does not begin as an object: a record's tail, not a record."""
    return not line.lstrip().startswith("{")


def read_jsonl(text: str, path: Path) -> tuple[list[dict], list[str]]:
    """The JSON objects of a JSON Lines file, and a warning for each torn line left out: the last one
    (a session still being written) and a few others that are a record's tail, not a record (the log
    cut or a record split where it was copied: a line that does not begin as an object does); any
    other line that is not a JSON object is an error naming its line."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    tails = sum(is_tail(line) for _, line in lines)
    records, problems = [], []
    for n, line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            if n == lines[-1][0] and len(lines) > 1:
                problems.append(f"{path}:{n}: torn last line left out ({err.msg})")
                continue
            if is_tail(line) and tails <= max(1, len(lines) // MOST_LINES_WHOLE):
                problems.append(f"{path}:{n}: a torn record's tail left out ({err.msg})")
                continue
            if (record := with_stray_backslashes(line)) is None:
                raise ImportProblem(f"{path}:{n}: invalid JSON line ({err.msg})") from None
            problems.append(f"{path}:{n}: a backslash JSON does not allow before a character, read as itself")
        if not isinstance(record, dict):
            raise ImportProblem(f"{path}:{n}: not a JSON object (a {type(record).__name__})")
        records.append(record)
    if not records:
        raise ImportProblem(f"{path}: not a trajectory (no JSON lines)")
    return records, problems


# a pair stays a pair; a lone one before any character but JSON's escapes (and `\u` without four hex digits)
STRAY_BACKSLASH = re.compile(r'\\\\|\\(?![\\"/bfnrt]|u[0-9a-fA-F]{4})')


def with_stray_backslashes(line: str):
    """A line whose only fault is a backslash before a character JSON does not escape (a session edited
    by hand, or by a tool that wrote `\\_` or a Windows path raw), read with that backslash as itself;
    None for any other fault."""
    try:
        return json.loads(STRAY_BACKSLASH.sub(lambda m: m.group(0) if m.group(0) == "\\\\" else "\\\\", line))
    except json.JSONDecodeError:
        return None


def strip_console(text: str) -> str:
    """Console text as it reads: no ANSI escapes, no carriage returns, no spinner."""
    text = ANSI.sub("", text).replace("\r", "")
    return re.sub(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Waiting for the LM to respond\.\.\.", "", text)


def text_of(content) -> str:
    """Message content as text: a string, or the `text` parts of a list of content blocks, joined
    with newlines (a part whose `text` is itself a list of parts, as a sub-agent's result is, by its
    parts' text; a bare string in the list as it is)."""
    if isinstance(content, list):
        return "\n".join(text_of(part.get("text", "")) if isinstance(part, dict) else part
                         for part in content if isinstance(part, dict | str))
    return content if isinstance(content, str) else ("" if content is None else json.dumps(content))


# The argument a shell tool's command is in, by harness: `command` (most), `cmd` (Codex's exec_command,
# chat loops), `commands`, `script`, `keystrokes` (Terminus' terminal), `input`.
COMMAND_KEYS = ("command", "cmd", "commands", "script", "keystrokes", "input")


def command_of(args) -> str:
    """A shell tool's command from its arguments, under whichever of the usual keys it is; an argv
    list (Codex's ["bash", "-lc", "…"]) as the script it runs, or else as one quoted line."""
    value = next((args[k] for k in COMMAND_KEYS if k in args), "") if isinstance(args, dict) else ""
    if isinstance(value, list):
        words = [str(v) for v in value]
        return words[-1] if len(words) >= 3 and words[1] in ("-c", "-lc") else shlex.join(words)
    return "" if value is None else str(value)


def bash_action(command: str) -> Action:
    if any(marker in command for marker in COMPLETE_MARKERS):
        return Action(Tool.TASK_COMPLETE, command=command, message=command, kind=COMMAND)
    if any(marker in command for marker in ESCALATE_MARKERS):
        return Action(Tool.ESCALATE_TO_HUMAN, command=command, message=command, kind=COMMAND)
    return Action(Tool.BASH, command=command)


def edit_action(path, content) -> Action:
    return Action(Tool.EDIT_FILE, path=str(path or ""), content=str(content or ""))


IMPASSE_MCP = "mcp__impasse"  # impasse's own MCP server, as the agents name its tools


# A harness's own tool by which the agent says it is done (mini-style loops' `finish`/`submit`, Cline's
# `attempt_completion`, `complete_task`): its claim of completion, with the summary it gives.
CLAIM_TOOLS = ("finish", "submit", "attempt_completion", "complete_task")
CLAIM_TEXT_KEYS = ("summary", "result", "message", "answer", "text")
FAILED = re.compile(r"\bfail", re.I)  # an `outcome`/`status` that says the task failed: no claim


def claim_action(name: str, arguments) -> Action | None:
    """A call of a completion tool (CLAIM_TOOLS, by its bare name) as impasse's task_complete, its
    summary the message; None for any other tool, and for one whose `outcome` or `status` says it
    failed (that call reports a failure, it claims nothing)."""
    if str(name or "").strip().lower() not in CLAIM_TOOLS:
        return None
    arguments = arguments if isinstance(arguments, dict) else {}
    if any(FAILED.search(str(arguments.get(key) or "")) for key in ("outcome", "status")):
        return None
    message = next((arguments[k] for k in CLAIM_TEXT_KEYS if arguments.get(k)), "")
    return Action(Tool.TASK_COMPLETE, message=text_of(message))


def verdict_action(name: str, arguments, namespace: str = "") -> Action | None:
    """impasse's verdict tools as an external agent calls them through impasse's MCP server (Claude
    Code's `mcp__impasse__escalate_to_human`, Codex's `escalate_to_human` in the `mcp__impasse`
    namespace): the verdict itself, with its reason or summary; a harness's own completion tool
    called by its bare name (claim_action) as a claim of completion. None for any other tool."""
    server, _, tool = f"{namespace}__{name}".removeprefix("__").rpartition("__")
    if not server:
        return claim_action(tool, arguments)
    if server != IMPASSE_MCP or tool not in TERMINAL_ARGUMENT:
        return None
    message = arguments.get(TERMINAL_ARGUMENT[tool], "") if isinstance(arguments, dict) else ""
    return Action(Tool(tool), message=str(message))


def verdict_of(steps) -> Ending:
    """How a trajectory ended by its first verdict call (impasse's MCP server tells the agent to stop
    there); unknown without one."""
    return next((Ending(a.tool) for s in steps for a in s.actions if a.tool in TERMINAL_ARGUMENT), Ending.UNKNOWN)


def named_action(name: str, args, edits: tuple[str, ...] = ("edit", "write"),
                 paths: tuple[str, ...] = ("path", "file_path"),
                 texts: tuple[str, ...] = ("newText", "new_string", "new_text", "content")) -> Action:
    """A call of a harness whose tools are named `bash` and, for edits, `edits` (pi's and Claude Managed
    Agents' `edit` and `write`; Copilot CLI's `edit` and `create`): impasse's verdict, a command, an
    edit by its path and new text under the first of their keys it has, or other."""
    args = args if isinstance(args, dict) else {"raw": args}
    if verdict := verdict_action(name, args):
        return verdict
    if name == "bash":
        return Action(Tool.BASH, command=command_of(args))
    if name in edits:
        return edit_action(first_given(args, paths), first_given(args, texts))
    return other_action(name, args)


def first_given(args: dict, keys: tuple[str, ...]):
    return next((args[key] for key in keys if args.get(key) is not None), None)


def other_action(name: str, arguments) -> Action:
    """A call that is neither a command nor an edit (read, search, browse, plan…): its name and
    input as JSON, so that workaround patterns can still see what it asked for."""
    return Action(OTHER, command=json.dumps({"name": name, "input": arguments}, ensure_ascii=False),
                  kind=tool_kind(name, arguments))


def json_arguments(raw) -> dict:
    """Tool-call arguments that may be a JSON string, a dict, or neither."""
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError:
        parsed = None
    return parsed if isinstance(parsed, dict) else {"raw": raw}


STATUS_LINES = 3  # at most this many lines of a CLI's own before the document it printed


def after_status_lines(text: str) -> tuple[dict, int] | None:
    """A JSON object a CLI printed after lines of its own, kept with them when its stdout went to the
    file (`opencode export > session.json` keeps "Exporting session: …"): the object and how many
    lines came before it; None when the text is no such thing."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines[:STATUS_LINES + 1]) if line.startswith("{")), None)
    if not start:
        return None
    whole = one_object("\n".join(lines[start:]))
    return (whole, start) if whole is not None else None


def one_object(text: str) -> dict | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None
