"""The SessionLog (analysis/session_log.py) of a Gemini CLI session or its stream-json output, a Qwen
Code session, a pi session and `opencode run --format json` output: when each step began, its tokens
in impasse's keys, where a human spoke next, the log's last timestamp and the error it ended on. Each
walks the records by its reader's own step rule (gemini_cli.py, gemini_stream.py, qwen_code.py, pi.py,
opencode.py), so the facts line up with the steps; when the count differs, session_facts drops the
per-step facts rather than misplace them."""

from __future__ import annotations

import re

from impasse.analysis.formats.common import text_of
from impasse.analysis.formats.gemini_cli import replay
from impasse.analysis.formats.gemini_stream import is_model_event
from impasse.analysis.formats.opencode import opencode_records, stepped_events
from impasse.analysis.formats.qwen_code import is_qwen_record
from impasse.analysis.formats.session_facts import failure_stop, first_line, stamp, summed
from impasse.analysis.session_log import INTERRUPTED, MAX_TOKENS, SessionLog, StepFacts
from impasse.dialects.failures import Failure, failure_of
from impasse.dialects.gemini_cli import REQUEST_CANCELLED
from impasse.dialects.pi import is_delivery_mirror


def count(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def gemini_usage(tokens) -> dict | None:
    """Gemini CLI's `tokens` (the Gemini API's counts: `input` holds the cached part, `output` leaves
    the thoughts out)."""
    if not isinstance(tokens, dict):
        return None
    return {"prompt_tokens": count(tokens.get("input")),
            "completion_tokens": count(tokens.get("output")) + count(tokens.get("thoughts")),
            "cached_tokens": count(tokens.get("cached")), "reasoning_tokens": count(tokens.get("thoughts"))}


def is_prompt(message: dict) -> bool:
    """A user message the human wrote (not the function responses Gemini sends back)."""
    content = message.get("content")
    parts = content if isinstance(content, list) else [{"text": content}]
    return not any(isinstance(p, dict) and "functionResponse" in p for p in parts)


# Gemini CLI's `error` records are its own messages: a failed request to the model ends the session
# there, while one about a command the human typed ("Please provide a file path to export the session
# to", "Failed to export session: ENOENT …") says nothing of how the agent's work ended.
MODEL_REQUEST = re.compile(r"\bAPI\b|\bGemini\b|\bmodel\b|\brequest\b|\bstream(?:ing)?\b|\bresponse\b|\bquota\b", re.I)


def about_the_model(text: str) -> bool:
    return failure_of(text) != Failure.OTHER or bool(MODEL_REQUEST.search(text))


def gemini_log(records: list[dict]) -> SessionLog:
    meta, messages = replay(records)
    log = SessionLog()
    for message in messages:
        kind = message.get("type")
        if kind == "gemini":
            log.steps.append(StepFacts(at=stamp(message.get("timestamp")), usage=gemini_usage(message.get("tokens"))))
            log.stop, log.stop_line = "", ""
        elif kind == "user" and log.steps and is_prompt(message):
            log.steps[-1].human_after = True
        elif kind == "error" and log.steps and about_the_model(text := text_of(message.get("content"))):
            log.stop, log.stop_line = failure_stop(text), first_line(text)
        elif kind == "info" and log.steps and text_of(message.get("content")).strip() == REQUEST_CANCELLED:
            log.stop, log.stop_line = INTERRUPTED, REQUEST_CANCELLED  # the human stopped the reply to come
    stamps = [stamp(m.get("timestamp")) for m in messages] + [stamp(meta.get("lastUpdated"))]
    log.ended_at = max((s for s in stamps if s is not None), default=None)
    return log


def qwen_usage(usage) -> dict | None:
    """Qwen Code's `usageMetadata` (from the OpenAI wire: `candidatesTokenCount` is the completion
    tokens with the reasoning in them, `promptTokenCount` the prompt with its cached part)."""
    if not isinstance(usage, dict):
        return None
    return {"prompt_tokens": count(usage.get("promptTokenCount")),
            "completion_tokens": count(usage.get("candidatesTokenCount")),
            "cached_tokens": count(usage.get("cachedContentTokenCount")),
            "reasoning_tokens": count(usage.get("thoughtsTokenCount"))}


def qwen_log(records: list[dict]) -> SessionLog:
    log, usages, in_reply = SessionLog(), [], False
    for record in records:
        if not is_qwen_record(record) or record["type"] == "system":
            continue
        if record["type"] == "assistant":
            if not in_reply:
                log.steps.append(StepFacts(at=stamp(record.get("timestamp"))))
                usages, in_reply = [], True
            if (usage := qwen_usage(record.get("usageMetadata"))) is not None:
                usages.append(usage)
                log.steps[-1].usage = summed(usages)
            continue
        in_reply = False
        if record["type"] == "user" and log.steps:
            log.steps[-1].human_after = True
    log.ended_at = next((stamp(r["timestamp"]) for r in reversed(records) if stamp(r.get("timestamp"))), None)
    return log


def opencode_usage(part: dict) -> dict | None:
    """A `step_finish` part's `tokens` (opencode takes the cache reads and writes out of `input` and
    the reasoning out of `output`)."""
    tokens = part.get("tokens")
    if not isinstance(tokens, dict):
        return None
    cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
    read, written, reasoning = count(cache.get("read")), count(cache.get("write")), count(tokens.get("reasoning"))
    return {"prompt_tokens": count(tokens.get("input")) + read + written,
            "completion_tokens": count(tokens.get("output")) + reasoning, "cached_tokens": read,
            "cache_write_tokens": written, "reasoning_tokens": reasoning}


def opencode_log(data) -> SessionLog:
    """opencode's steps as opencode.opencode_steps opens them (an export's, from the events it holds);
    a step's tokens and cost from its `step_finish`; an `error` event (the session's own failure) as
    how it stopped."""
    records = opencode_records(data)
    log = SessionLog()
    for opens, record in stepped_events(records):
        if opens:
            log.steps.append(StepFacts(at=stamp(record.get("timestamp"))))
        if record["type"] == "step_finish":
            log.steps[-1].usage = opencode_usage(record["part"])
            cost = record["part"].get("cost")  # 0 for a model opencode has no price for: not recorded
            log.steps[-1].usd = float(cost) if count(cost) or isinstance(cost, float) and cost > 0 else None
    for record in records:  # an error the agent worked on after (a command the human aborted) ended nothing
        if record.get("type") == "error" and isinstance(record.get("error"), dict):
            error = record["error"]
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            text = str(data.get("message") or error.get("name") or "error")
            log.stop, log.stop_line = failure_stop(text), first_line(text)
        elif record.get("type") == "step_start":
            log.stop, log.stop_line = "", ""
    log.ended_at = next((stamp(r["timestamp"]) for r in reversed(records) if stamp(r.get("timestamp"))), None)
    return log


def stream_log(records: list[dict]) -> SessionLog:
    """Gemini CLI's stream-json: a step at the model's first event after anything else; the human's
    prompt after it; the whole run's tokens from `result`, and the error it ended on (`result` with
    `status: error`, or an `error` event after the model's last word)."""
    log, in_reply = SessionLog(), False
    for record in records:
        kind = record.get("type")
        if is_model_event(record):
            if not in_reply:
                log.steps.append(StepFacts(at=stamp(record.get("timestamp"))))
                log.stop, log.stop_line, in_reply = "", "", True
            continue
        in_reply = in_reply and kind not in ("tool_result", "message")
        if kind == "message" and record.get("role") == "user" and log.steps:
            log.steps[-1].human_after = True
        elif kind in ("result", "error") and (error := stream_error(record)):
            log.stop, log.stop_line = failure_stop(error), first_line(error)
        if kind == "result" and isinstance(record.get("stats"), dict):
            log.total_tokens = count(record["stats"].get("total_tokens")) or None
    log.ended_at = next((stamp(r["timestamp"]) for r in reversed(records) if stamp(r.get("timestamp"))), None)
    return log


def stream_error(record: dict) -> str:
    if record.get("type") == "error":
        return str(record.get("message") or "") if record.get("severity") == "error" else ""
    error = record.get("error") if isinstance(record.get("error"), dict) else {}
    return str(error.get("message") or "error") if record.get("status") == "error" else ""


def pi_usage(usage) -> dict | None:
    """pi's `usage` (its own keys over every provider: `input` without the cache reads and writes)."""
    if not isinstance(usage, dict):
        return None
    read, written = count(usage.get("cacheRead")), count(usage.get("cacheWrite"))
    return {"prompt_tokens": count(usage.get("input")) + read + written,
            "completion_tokens": count(usage.get("output")), "cached_tokens": read, "cache_write_tokens": written}


def pi_log(records: list[dict]) -> SessionLog:
    """pi's steps as pi.pi_steps opens them; each step's tokens and cost summed over its replies; the
    human's prompt after it; a last reply that stopped on an error or was aborted, as how it stopped."""
    log, usages, in_reply = SessionLog(), [], False
    for record in records:
        message = record.get("message") if record.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant" and is_delivery_mirror(message):
            continue  # the harness's copy of what it sent: no reply, no step, no stop of its own
        if message.get("role") == "assistant":
            if not in_reply:
                log.steps.append(StepFacts(at=stamp(message.get("timestamp") or record.get("timestamp"))))
                usages, in_reply = [], True
            if (usage := pi_usage(message.get("usage"))) is not None:
                usages.append(usage)
                log.steps[-1].usage = summed(usages)
                cost = (message["usage"].get("cost") or {}) if isinstance(message["usage"].get("cost"), dict) else {}
                spent = cost.get("total")
                if isinstance(spent, int | float) and spent > 0:
                    log.steps[-1].usd = (log.steps[-1].usd or 0.0) + float(spent)
            reason, error = message.get("stopReason"), str(message.get("errorMessage") or "")
            log.stop, log.stop_line = ((failure_stop(error), first_line(error)) if reason == "error"
                                       else (INTERRUPTED, "stopReason: aborted") if reason == "aborted"
                                       else (MAX_TOKENS, "stopReason: length") if reason == "length" else ("", ""))
            continue
        in_reply = False
        if message.get("role") == "user" and log.steps:
            log.steps[-1].human_after = True
    log.ended_at = next((stamp(r["timestamp"]) for r in reversed(records) if stamp(r.get("timestamp"))), None)
    return log


CLI_LOGS = {"gemini-cli": gemini_log, "qwen-code": qwen_log, "opencode-json": opencode_log, "gemini-stream": stream_log,
            "pi": pi_log}


def cli_log(fmt: str, records: list[dict], steps: int) -> SessionLog:
    log = CLI_LOGS[fmt](records)
    if log.steps and len(log.steps) != steps:
        log.steps = []
    return log
