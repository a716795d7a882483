"""Which format a parsed document is in: a JSON document, the records of a JSON Lines file, or console
text, each told by what only its format's records carry (docs/importers.md, "Reading and recognising")."""

from __future__ import annotations

from impasse.analysis.formats.antigravity import PLANNER, is_antigravity_record
from impasse.analysis.formats.cecli import is_cecli_session
from impasse.analysis.formats.chat_export import is_chat_export
from impasse.analysis.formats.codex import ITEM_TYPES, ROLLOUT_TYPES
from impasse.analysis.formats.codex_exec import EVENTS as CODEX_EXEC_EVENTS
from impasse.analysis.formats.common import ImportProblem, one_object
from impasse.analysis.formats.console import FIRST_HEADER
from impasse.analysis.formats.continue_dev import is_continue_session
from impasse.analysis.formats.copilot_cli import EVENTS as COPILOT_EVENTS
from impasse.analysis.formats.copilot_cli import is_copilot_event
from impasse.analysis.formats.gemini_cli import is_gemini_record, is_gemini_session
from impasse.analysis.formats.gemini_contents import is_gemini_contents
from impasse.analysis.formats.gemini_stream import is_stream_event
from impasse.analysis.formats.managed_agents import is_agent_event
from impasse.analysis.formats.message_lines import is_anthropic_export, says_message_lines
from impasse.analysis.formats.opencode import is_opencode_event, is_opencode_export
from impasse.analysis.formats.pi import is_pi_entry
from impasse.analysis.formats.qwen_code import is_qwen_record

CODEX_TYPES = (*ROLLOUT_TYPES, *ITEM_TYPES)


def is_event(item) -> bool:
    return isinstance(item, dict) and "source" in item and ("action" in item or "observation" in item)


def detect_json(data) -> str:
    if isinstance(data, list):
        if any(is_event(e) for e in data[:50]):
            return "openhands"
        if is_gemini_contents(data):  # the Gemini API's history: `/chat share`, `/chat save` checkpoints
            return "gemini-contents"
        if is_chat_export(data):
            return "chat-export"
        return "message-lines" if is_anthropic_export(data) else "mini-swe-agent"  # Cline's task history
    if is_opencode_export(data):  # `messages` too, each of `info` and `parts`: read as the events it holds
        return "opencode-json"
    if is_gemini_session(data):  # a whole Gemini CLI chat, its `messages` of `user`/`gemini` type
        return "gemini-cli"
    if is_continue_session(data):  # a `history` of chat messages, each beside its calls' states
        return "continue"
    if is_cecli_session(data):  # before mini-swe-agent's: its messages are chat messages too
        return "cecli"
    if is_chat_export(data):  # before mini-swe-agent's too: chat messages with tool calls, no exit status
        return "chat-export"
    if is_anthropic_export(data):  # the same in Anthropic's form (Amp's threads): read as those messages
        return "message-lines"
    if "messages" in data:
        return "mini-swe-agent"
    if "trajectory" in data and "info" in data:
        return "swe-agent"
    if str(data.get("schema_version", "")).startswith("ATIF") or "steps" in data:
        return "atif"
    if isinstance(data.get("history"), list) and any(is_event(e) for e in data["history"][:50]):
        return "openhands"
    raise ImportProblem("unknown trajectory format (not mini-swe-agent, SWE-agent, ATIF, OpenHands, a cecli session, "
                        "a Continue session, a chat export, an opencode export or a Gemini CLI chat)")


def detect_jsonl(records: list[dict]) -> str:
    # the Gemini CLI, Qwen Code and opencode lines first: a Qwen Code record is a `user`/`assistant`
    # line with a `message` too (of Gemini-style `parts`), and opencode prints `reasoning` events
    if any(is_gemini_record(r) for r in records):
        return "gemini-cli"
    if any(is_qwen_record(r) for r in records):
        return "qwen-code"
    if any(is_opencode_event(r) for r in records):
        return "opencode-json"
    # before Claude Code's and Codex's: pi wraps the API's messages as `message` entries, and Gemini's
    # stream names its text events `message` as Codex names its items. Each looked for only where a
    # record of its types is there at all: most files are neither, and are long.
    types = {r.get("type") for r in records}
    if PLANNER in types and any(is_antigravity_record(r) for r in records):
        return "antigravity"
    if types & {"session", "message"} and any(is_pi_entry(r) for r in records):
        return "pi"
    if (None in types or any(str(t).startswith("agent.") for t in types)) and any(is_agent_event(r) for r in records):
        return "managed-agents"
    if (None in types or types & set(COPILOT_EVENTS)) and any(is_copilot_event(r) for r in records):
        return "copilot-cli"
    if types & {"init", "tool_use", "tool_result"} and any(is_stream_event(r) for r in records):
        return "gemini-stream"
    if any(r.get("type") in ("user", "assistant") and isinstance(r.get("message"), dict) for r in records):
        return "claude-code"
    if any(r.get("type") in CODEX_TYPES for r in records):
        return "codex"
    if any(r.get("type") in CODEX_EXEC_EVENTS and r.get("type") != "error" for r in records):
        return "codex-exec"
    if None in types and any(says_message_lines(r) for r in records):  # no `type`: a chat's messages, one a line
        return "message-lines"
    raise ImportProblem("unknown JSON Lines format (not a Claude Code, Gemini CLI, Qwen Code or pi session, a Codex "
                        "rollout, codex exec --json, Gemini CLI's stream-json, opencode run --format json, Copilot "
                        "CLI's events, an Antigravity trajectory, Managed Agents events or chat messages one a line)")


def detect(data) -> str:
    """The format of a parsed document: a JSON value, a list of JSON Lines records (`jsonl`), or
    console text (`text`, already stripped as `read_document` returns it)."""
    kind, value = data if isinstance(data, tuple) else ("json", data)
    if kind == "jsonl":
        return detect_jsonl(value)
    if kind == "text":
        if FIRST_HEADER.search(value):
            return "mini-swe-agent-console"
        raise ImportProblem("unknown trajectory format (not JSON, JSON Lines, or a mini-swe-agent console log)")
    return detect_json(value)


def says_jsonl_format(record: dict) -> bool:
    try:
        return bool(detect_jsonl([record]))
    except ImportProblem:
        return False


def one_document(text: str) -> dict | None:
    """A file of one line whose object is a whole session in a format of its own (a `messages` list, a
    trajectory), not one record of a log; None for anything else."""
    if text.strip().count("\n") or (whole := one_object(text)) is None:
        return None
    try:
        detect_json(whole)
    except ImportProblem:
        return None
    return whole
