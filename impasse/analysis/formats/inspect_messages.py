"""An Inspect sample's chat messages in the chat-export shape (chat_export.export_steps reads it): tool
calls (`ToolCall(id, function, arguments)`) and tool results (`ChatMessageTool`, with its `error` where
the tool failed, kept in its text). impasse's verdict tools keep their own names; Inspect's `submit` (the
agent's final answer) is a claim that the work is done. One shape from either reading: inspect-ai's
models (message_dict) or the plain JSON of its log (inspect_eval_zip, through chat_dict)."""

from __future__ import annotations

from typing import Any

from impasse.analysis.formats.common import text_of
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

SUBMIT = "submit"  # Inspect's agents end on it with their answer


def message_dict(message) -> dict:
    """An inspect-ai ChatMessage in the chat-export shape export_steps reads."""
    error, calls = getattr(message, "error", None), getattr(message, "tool_calls", None) or []
    return chat_dict(getattr(message, "role", ""), message_text(message),
                     [(call.id, call.function, call.arguments) for call in calls],
                     getattr(message, "tool_call_id", None), None if error is None else (error.type, error.message))


def chat_dict(role: str, text: str, calls: list[tuple[str, str, Any]], tool_call_id: str | None,
              error: tuple[str, str] | None) -> dict:
    """A message in the chat-export shape, from its parts (a model's or plain JSON's: both readers
    give the same dict); a tool's failure kept in its text."""
    data: dict[str, Any] = {"role": role, "content": text}
    if role == "assistant":
        data["tool_calls"] = [{"id": call_id, "function": {"name": verdict_name(function),
                                                          "arguments": verdict_arguments(function, arguments)}}
                              for call_id, function, arguments in calls]
    elif role == "tool":
        data["tool_call_id"] = tool_call_id
        if error is not None:
            data["content"] = "\n".join(t for t in (text, f"{error[0]}: {error[1]}") if t)
    return data


def message_text(message) -> str:
    """Its text parts (reasoning, images and tool-use blocks are no words to the human)."""
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return text_of([{"type": "text", "text": part.text} for part in content if getattr(part, "type", "") == "text"])


def verdict_name(function: str) -> str:
    """impasse's verdict tools called by their own names (the impasse task's tools), and Inspect's
    `submit`, as the MCP names the importers know; any other tool as it is."""
    if function in TERMINAL_ARGUMENT or function == SUBMIT:
        return f"mcp__impasse__{Tool.TASK_COMPLETE if function == SUBMIT else function}"
    return function


def verdict_arguments(function: str, arguments: Any) -> dict:
    arguments = arguments if isinstance(arguments, dict) else {}
    if function == SUBMIT:  # its answer is the summary of a claim
        return {TERMINAL_ARGUMENT[Tool.TASK_COMPLETE]: str(arguments.get("answer", ""))}
    return arguments
