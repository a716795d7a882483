"""The fast way to read an Inspect `.eval` log: inspect-ai's own reader for the header and for each
sample but its messages, and the messages as plain JSON from the zip.

Why: inspect-ai's full reader validates every chat message as a pydantic model (each one several times,
once per member of the ChatMessage union, each time hashing its JSON for a cache), which is most of the
time `impasse annotate` spends on a log. The messages' few fields we read (role, text, tool calls, tool
error) are taken from the JSON as inspect-ai would validate them; a message in any other shape, or one
whose text or tool arguments reference an attachment (`attachment://`, `tc://`), sends its sample to
inspect-ai's reader (read_eval_log_sample, attachments resolved as the full path resolves them). Anything
else unexpected — a torn zip, a foreign one, a layout inspect-ai has moved on from — and read_fast gives
None: the caller reads the log with inspect-ai's full reader, which then reads it or says why not."""

from __future__ import annotations

import json
import typing
import zipfile
from pathlib import Path
from typing import Any

# Importing inspect-ai's log reader also teaches zipfile the zstd its logs are compressed with (on Python
# before 3.14); were it not to, reading a member raises and the full reader reads the log.
from inspect_ai.log import EvalSample, EvalSpec, read_eval_log, read_eval_log_sample
from inspect_ai.model import Content
from inspect_ai.tool import ToolCallError

from impasse.analysis.formats.common import text_of
from impasse.analysis.formats.inspect_messages import chat_dict, message_dict

try:  # the context inspect-ai validates a log's members under (stable ids, lenient configs)
    from inspect_ai._util.constants import get_deserializing_context
except ImportError:  # moved in a later inspect-ai: the full reader then reads every log
    get_deserializing_context = None

SAMPLES_DIR = "samples/"  # inspect-ai's layout: samples/<id>_epoch_<n>.json, beside header.json
REFERENCES = ("attachment://", "tc://")  # tc:// is the older spelling inspect-ai still resolves
ROLES = frozenset({"system", "user", "assistant", "tool"})
# The members of a sample not validated with the rest: the messages (read here), and what the sessions
# never read (events, the model's output, the input messages), the costly part of validation.
UNREAD = frozenset({"messages", "events", "events_data", "timelines", "error_retries", "output", "input"})
DEPRECATED = frozenset({"transcript"})  # inspect-ai reshapes it into events and attachments on reading
CALL_TYPES = frozenset({None, "function", "custom"})
PART_TYPES = frozenset(part.model_fields["type"].default for part in typing.get_args(Content))
ERROR_TYPES = frozenset(typing.get_args(typing.get_type_hints(ToolCallError)["type"]))

Samples = list[tuple[EvalSample, list[dict]]]


class Unrecognised(Exception):
    """The log holds what this reader does not know: inspect-ai's full reader is to read it."""


def read_fast(path: Path) -> tuple[EvalSpec, Samples] | None:
    """The eval's spec, and each sample (all but its messages) with its messages as chat-export dicts,
    in inspect-ai's order; None when the full reader is to read the log."""
    if get_deserializing_context is None:
        return None
    try:
        spec = read_eval_log(str(path), header_only=True).eval
        with zipfile.ZipFile(path) as archive:
            # A re-logged sample repeats its member's name; reading by name gives the last, as inspect-ai does.
            names = [name for name in dict.fromkeys(archive.namelist())
                     if name.startswith(SAMPLES_DIR) and name.endswith(".json")]
            samples = [read_sample(json.loads(archive.read(name)), path) for name in names]
    except Exception:  # noqa: BLE001 - torn, foreign or unknown to this reader: the full reader's to say
        return None
    samples.sort(key=lambda pair: sample_order(pair[0]))
    return spec, samples


def sample_order(sample: EvalSample) -> tuple[int, str]:
    """inspect-ai's order of samples (log/_log.py sort_samples): by epoch, then id (numbers as numbers)."""
    return sample.epoch, sample.id if isinstance(sample.id, str) else str(sample.id).zfill(20)


def read_sample(data: Any, path: Path) -> tuple[EvalSample, list[dict]]:
    if not isinstance(data, dict) or DEPRECATED & data.keys():
        raise Unrecognised
    rest = {key: value for key, value in data.items() if key not in UNREAD}
    sample = EvalSample.model_validate({**rest, "input": ""}, context=get_deserializing_context())
    messages = plain_messages(data.get("messages", []))
    if messages is None:
        whole = read_eval_log_sample(str(path), id=sample.id, epoch=sample.epoch, resolve_attachments="core")
        messages = [message_dict(message) for message in whole.messages]
    return sample, messages


def plain_messages(raw: Any) -> list[dict] | None:
    """The messages as chat-export dicts, or None if any is not in a shape read here."""
    if not isinstance(raw, list):
        return None
    messages = []
    for item in raw:
        message = plain_message(item)
        if message is None:
            return None
        messages.append(message)
    return messages


def plain_message(raw: Any) -> dict | None:
    # `tool_error` is a deprecated field inspect-ai turns into `error`: left to it.
    if not isinstance(raw, dict) or raw.get("role") not in ROLES or raw.get("tool_error"):
        return None
    role, text = raw["role"], plain_text(raw.get("content"))
    calls = plain_calls(raw.get("tool_calls")) if role == "assistant" else []
    if text is None or calls is None:
        return None
    if role != "tool":
        return chat_dict(role, text, calls, None, None)
    call_id, error = raw.get("tool_call_id"), raw.get("error")
    if not (call_id is None or isinstance(call_id, str)):
        return None
    if error is not None and not (isinstance(error, dict) and error.get("type") in ERROR_TYPES
                                  and isinstance(error.get("message"), str)):
        return None
    return chat_dict(role, text, [], call_id, None if error is None else (error["type"], error["message"]))


def plain_text(content: Any) -> str | None:
    """A message's words as message_text has them: the string, or its text parts joined."""
    if isinstance(content, str):
        return None if content.startswith(REFERENCES) else content
    if not isinstance(content, list):
        return None
    texts = []
    for part in content:
        if not isinstance(part, dict) or part.get("type") not in PART_TYPES:
            return None
        if part["type"] == "text":
            text = part.get("text")
            if not isinstance(text, str) or text.startswith(REFERENCES):
                return None
            texts.append(text)
    return text_of([{"type": "text", "text": text} for text in texts])


def plain_calls(raw: Any) -> list[tuple[str, str, Any]] | None:
    """An assistant's tool calls as (id, function, arguments), or None if one is in another shape."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        return None
    calls = []
    for call in raw:
        if not isinstance(call, dict):
            return None
        call_id, function, arguments = call.get("id"), call.get("function"), call.get("arguments")
        if not (isinstance(call_id, str) and isinstance(function, str) and isinstance(arguments, dict)
                and call.get("type") in CALL_TYPES and not references(arguments)):
            return None
        calls.append((call_id, function, arguments))
    return calls


def references(value: Any) -> bool:
    """Whether an attachment is referenced anywhere in a JSON value (inspect-ai resolves them in the
    arguments of a message whose content is a list of parts, and not of one whose content is a string:
    its reader is the one to decide)."""
    if isinstance(value, str):
        return value.startswith(REFERENCES)
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return False
    return any(references(item) for item in value)
