"""Other harnesses' trajectories in the normal form: read the file (JSON, JSON Lines or console
text), recognise its format, and hand it to that format's reader in `impasse.analysis.formats`.
How each format becomes steps is documented in docs/importers.md and follows the step-indexing
conventions of the real-trajectory labels: one step is one model turn and everything the
environment returned before the next one."""

from __future__ import annotations

import json
from pathlib import Path

from impasse.analysis.detection import detect, one_document, says_jsonl_format
from impasse.analysis.formats.antigravity import from_antigravity
from impasse.analysis.formats.atif import from_atif
from impasse.analysis.formats.cecli import from_cecli
from impasse.analysis.formats.chat_export import from_chat_export
from impasse.analysis.formats.claude_code import from_claude_code
from impasse.analysis.formats.cli_facts import CLI_LOGS, cli_log
from impasse.analysis.formats.codex import from_codex
from impasse.analysis.formats.codex_exec import from_codex_exec
from impasse.analysis.formats.common import ImportProblem, after_status_lines, one_object, read_jsonl, strip_console
from impasse.analysis.formats.console import FIRST_HEADER, from_console
from impasse.analysis.formats.continue_dev import from_continue
from impasse.analysis.formats.copilot_cli import from_copilot_cli
from impasse.analysis.formats.gemini_cli import from_gemini_cli
from impasse.analysis.formats.gemini_contents import from_gemini_contents
from impasse.analysis.formats.gemini_stream import from_gemini_stream
from impasse.analysis.formats.inspect_log import EVAL_SUFFIX, inspect_sessions, is_inspect_head
from impasse.analysis.formats.managed_agents import from_managed_agents
from impasse.analysis.formats.message_lines import from_message_lines
from impasse.analysis.formats.mini import from_mini
from impasse.analysis.formats.mixed_lines import passed_over
from impasse.analysis.formats.opencode import from_opencode_json, is_opencode_export
from impasse.analysis.formats.openhands import from_openhands
from impasse.analysis.formats.openhands_store import (
    eval_cost,
    eval_model,
    is_eval_record,
    looks_like_eval_output,
    read_event_folder,
    session_folder_name,
)
from impasse.analysis.formats.output_files import read_back_as_output
from impasse.analysis.formats.pi import from_pi
from impasse.analysis.formats.qwen_code import from_qwen_code
from impasse.analysis.formats.session_facts import session_log
from impasse.analysis.formats.swe_agent import from_swe_agent
from impasse.analysis.normal_form import NTrajectory
from impasse.analysis.session_log import SessionLog
from impasse.episode.rundir import read_utf8

__all__ = ["FORMATS", "FOREIGN_SUFFIXES", "ImportProblem", "detect", "is_foreign_file", "load_foreign",
           "load_sessions"]

READERS = {"mini-swe-agent": from_mini, "swe-agent": from_swe_agent, "atif": from_atif,
           "openhands": from_openhands, "claude-code": from_claude_code, "codex": from_codex,
           "codex-exec": from_codex_exec, "mini-swe-agent-console": from_console, "gemini-cli": from_gemini_cli,
           "gemini-contents": from_gemini_contents, "gemini-stream": from_gemini_stream, "pi": from_pi,
           "qwen-code": from_qwen_code, "opencode-json": from_opencode_json, "cecli": from_cecli,
           "chat-export": from_chat_export, "message-lines": from_message_lines, "copilot-cli": from_copilot_cli,
           "antigravity": from_antigravity, "managed-agents": from_managed_agents, "continue": from_continue}
INSPECT = "inspect"  # inspect-ai's logs: many sessions a file, read by inspect-ai's own reader
FORMATS = ("impasse", *READERS, INSPECT)
JSONL_FORMATS = ("claude-code", "codex", "codex-exec", "gemini-cli", "gemini-stream", "qwen-code", "opencode-json",
                 "pi", "message-lines", "copilot-cli", "antigravity", "managed-agents")
JSON_SUFFIXES = (".json", ".traj")
FOREIGN_SUFFIXES = (*JSON_SUFFIXES, ".jsonl", ".log", EVAL_SUFFIX)
SNIFF_BYTES = 1 << 20


def is_foreign_file(path: Path) -> bool:
    """Whether a file found in a folder is a trajectory to read: every .json/.traj file; a .jsonl or
    .log file only when its beginning is a session or event stream of a known format, or a console log (so
    that labels, provenance and other logs beside the trajectories are not errors)."""
    if not path.name.endswith(FOREIGN_SUFFIXES):
        return False
    if path.name.endswith(JSON_SUFFIXES):
        return True
    with path.open("rb") as handle:
        head = handle.read(SNIFF_BYTES).decode("utf-8", errors="replace")
    if path.suffix == ".log":
        return bool(FIRST_HEADER.search(strip_console(head)))
    if looks_like_eval_output(head) or one_document(head):  # OpenHands' evaluation output (one instance
        return True  # a line), or a whole session object on the one line
    for line in head.splitlines():  # the first line that says which (a resumed session can open with
        try:                         # hundreds of `summary` or snapshot lines)
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and says_jsonl_format(record):
            return True
    return False


def read_document(path: Path, fmt: str) -> tuple[str, object, list[str]]:
    """("json" | "jsonl" | "text", the parsed document, warnings). A file named .json/.traj, or read
    as a JSON format, must be one JSON document; .jsonl is JSON Lines; anything else is tried as
    JSON, then JSON Lines, then text (console text, stripped here once for detection and reader)."""
    text = read_utf8(path, ImportProblem)
    if fmt == "mini-swe-agent-console":
        return "text", strip_console(text), []
    if fmt in JSONL_FORMATS and path.suffix != ".jsonl" and (whole := one_object(text)) is not None:
        return "json", whole, []  # a session saved as one JSON object (Gemini CLI's chat .json)
    if fmt == "auto" and path.suffix == ".jsonl" and (whole := one_document(text)) is not None:
        return "json", whole, []  # a whole session saved as one object on one line (Hermes Agent's)
    if fmt in JSONL_FORMATS or path.suffix == ".jsonl":
        return ("jsonl", *read_jsonl(text, path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        if (after := after_status_lines(text)) is not None:
            return "json", after[0], [f"{path}: {after[1]} line(s) before the JSON document left out"]
        if path.suffix in JSON_SUFFIXES or fmt in READERS:
            raise ImportProblem(f"{path}:{err.lineno}: invalid JSON ({err.msg})") from None
        first = text.lstrip()[:1]
        if first == "{":
            return ("jsonl", *read_jsonl(text, path))
        return "text", strip_console(text), []
    if not data or not isinstance(data, list | dict):
        raise ImportProblem(f"{path}: not a trajectory (the document is {json.dumps(data)[:40]})")
    return "json", data, []


def load_sessions(path: Path, fmt: str = "auto") -> list[NTrajectory]:
    """Every trajectory a path holds: one per file, one per instance of an OpenHands evaluation's
    output.jsonl, one per OpenHands session folder (its `events` folder, one event per file)."""
    if fmt != "auto" and fmt not in (*READERS, INSPECT):
        raise ImportProblem(f"{path}: unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if fmt == INSPECT or (fmt == "auto" and path.is_file() and is_inspect_file(path)):
        return inspect_sessions(path)
    if path.is_dir() and fmt in ("auto", "openhands"):
        events, warnings = read_event_folder(path)
        trajectory = openhands_of(events, path, warnings)
        trajectory.run_id, trajectory.task, trajectory.path = (session_folder_name(path), session_folder_name(path),
                                                               str(path.parent))
        return [trajectory]
    kind, data, warnings = read_document(path, fmt)
    if kind == "jsonl" and fmt in ("auto", "openhands") and data and all(is_eval_record(r) for r in data):
        return [eval_instance(record, path, warnings) for record in data]
    return [trajectory_of(path, fmt, kind, data, warnings)]


def openhands_of(data, path: Path, warnings: list[str]) -> NTrajectory:
    try:
        trajectory = from_openhands(data, path)
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise ImportProblem(f"{path}: not a valid openhands trajectory ({type(err).__name__}: {err})") from None
    trajectory.problems.extend(warnings)
    trajectory.log = facts_of("openhands", data, trajectory, path)
    return trajectory


def eval_instance(record: dict, path: Path, warnings: list[str]) -> NTrajectory:
    """One instance of an evaluation's output: its events, its model and cost from the record."""
    trajectory = openhands_of(record, path, warnings)
    instance = str(record["instance_id"])
    trajectory.run_id, trajectory.task, trajectory.path = instance, instance, f"{path}#{instance}"
    if trajectory.model == "unknown":
        trajectory.model = eval_model(record) or "unknown"
    if trajectory.log is not None:
        trajectory.log.total_usd = eval_cost(record)
    return trajectory


def is_inspect_file(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return is_inspect_head(path.name, handle.read(64))
    except OSError:
        return False


def load_foreign(path: Path, fmt: str = "auto") -> NTrajectory:
    if fmt != "auto" and fmt not in READERS:
        raise ImportProblem(f"{path}: unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    kind, data, warnings = read_document(path, fmt)
    return trajectory_of(path, fmt, kind, data, warnings)


def trajectory_of(path: Path, fmt: str, kind: str, data, warnings: list[str]) -> NTrajectory:
    try:
        chosen = detect((kind, data)) if fmt == "auto" else fmt
    except ImportProblem as err:
        raise ImportProblem(f"{path}: {err}") from None
    if chosen in JSONL_FORMATS and isinstance(data, dict) and not is_export(data, fmt, chosen):
        data = [data]  # one object: its only line (Gemini CLI's chat .json: the header, messages and all)
    if kind == "jsonl" and (mixed := passed_over(data, chosen)):
        warnings = [*warnings, f"{path}: {mixed}"]
    try:
        trajectory = READERS[chosen](data, path)
    except ImportProblem:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as err:
        raise ImportProblem(f"{path}: not a valid {chosen} trajectory ({type(err).__name__}: {err})") from None
    trajectory.problems.extend(warnings)
    read_back_as_output(trajectory)
    trajectory.log = facts_of(chosen, data, trajectory, path) or trajectory.log  # else what its reader kept
    return trajectory


def is_export(data: dict, fmt: str, chosen: str) -> bool:
    """Whether a JSON object is an opencode export. Detection (detect_json) has asked already of every
    object, and names it opencode-json exactly when it is one; only a format given by hand asks here."""
    return chosen == "opencode-json" if fmt == "auto" else is_opencode_export(data)


def facts_of(fmt: str, data, trajectory: NTrajectory, path: Path) -> SessionLog | None:
    """Times, tokens and how the session stopped, where the log records them; a log whose extras
    cannot be read is still annotated, without them."""
    try:
        if fmt in CLI_LOGS:
            return cli_log(fmt, data, len(trajectory.steps))
        return session_log(fmt, data, len(trajectory.steps), path)
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
