"""How pi (badlogic/pi-mono's coding agent, and harnesses built on it) reports a tool's result: a
failed call is a result with `isError`; its bash tool, whose status is otherwise never written, ends a
failed command's output with the status line, or says it timed out or was aborted instead."""

from __future__ import annotations

import re

from impasse.dialects.wall import Wall

STATUS_LINE = re.compile(r"(?:\A|\n\n)Command exited with code (-?\d+)\s*\Z")
TIMED_OUT = re.compile(r"(?:\A|\n\n)Command timed out after \S+ seconds\s*\Z")
ABORTED = re.compile(r"(?:\A|\n\n)Command aborted\s*\Z")


# What a harness built on pi (OpenClaw) records beside a result, in its `details`: the command's
# `status` (`completed`, `failed`, `error`, `running` for one sent to the background) and `exitCode`;
# for an error, its text under `error`, where the result's own content is that whole object as JSON.
FAILED_STATUSES = ("error", "failed")


def harness_details(message: dict) -> tuple[str, str | None, int | None]:
    """(status, the error's own text or None, the exit code or None) from a result's `details`."""
    details = message.get("details") if isinstance(message.get("details"), dict) else {}
    status = str(details.get("status") or "")
    error = details.get("error") if status in FAILED_STATUSES and isinstance(details.get("error"), str) else None
    code = details.get("exitCode")
    return status, error, code if isinstance(code, int) and not isinstance(code, bool) else None


def is_delivery_mirror(message: dict) -> bool:
    """An assistant message a harness on pi wrote itself, mirroring what it delivered to a chat (OpenClaw's
    `delivery-mirror`, its provider its own): the harness's copy, not a reply of the model's."""
    return message.get("model") == "delivery-mirror"


# A harness's delivery directives inside the model's text (OpenClaw's reply tags: `[[reply_to_current]]`,
# `[[reply_to:<id>]]`, `[[audio_as_voice]]`): where the chat shows the reply, not words of the reply.
DIRECTIVE = re.compile(r"\[\[\s*(?:reply_to_current|reply_to\s*:\s*[^\]\n]+|audio_as_voice)\s*\]\]\s*")


def model_words(text: str) -> str:
    return DIRECTIVE.sub("", text)

# Its own words for a wall: its file tools confined to the workspace (pi, OpenClaw), a path outside refused.
WALLS = (
    Wall("chown_root", r"\bPath escapes sandbox root \([^)\n]+\): \S",
         "the harness confines its file tools to the workspace and refused a path outside it (pi, OpenClaw)"),
)
