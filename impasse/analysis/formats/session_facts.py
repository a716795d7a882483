"""A foreign log's SessionLog (analysis/session_log.py): when each step began, what its model
requests used and cost, where a human spoke, and how the log itself says the session stopped.
Each reader walks the records its format's reader stepped, by the same step rule, so its facts line
up one for one with the steps; when the count differs, the per-step facts are dropped rather than
misplaced. Nothing here ever makes a file unreadable: a log that records none of this has none."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from impasse.analysis.formats.chat_export import AUTOMATIC, export_messages, step_facts
from impasse.analysis.formats.claude_code import SYNTHETIC, entries_of
from impasse.analysis.formats.codex import ITEM_TYPES, OUTPUTS, is_model_item
from impasse.analysis.formats.common import text_of
from impasse.analysis.formats.continue_dev import chat_messages
from impasse.analysis.formats.gemini_contents import contents_facts
from impasse.analysis.formats.message_lines import claude_entries
from impasse.analysis.session_log import (
    API_ERROR,
    CONTEXT,
    HALTED,
    INTERRUPTED,
    MAX_TURNS,
    USAGE_LIMIT,
    SessionLog,
    StepFacts,
)
from impasse.dialects.claude_code import INTERRUPTED as INTERRUPT  # its words (INTERRUPTED is the stop's kind)
from impasse.dialects.failures import Failure, failure_of
from impasse.dialects.own_stop import OwnStop, stop_of

SHORT = 200


def stamp(value) -> float | None:
    """An ISO 8601 timestamp (`2025-12-06T15:01:45.217Z`) or epoch seconds, as epoch seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) / (1000 if value > 1e11 else 1)
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


FAILURE_STOPS = {Failure.CONTEXT: CONTEXT, Failure.LIMIT: USAGE_LIMIT, Failure.ENDPOINT: API_ERROR}


def failure_stop(text: str, otherwise: str = API_ERROR) -> str:
    """What an error the log recorded at its end means (dialects/failures.py): a full context, a spent
    limit, a failed call to the model; `otherwise` where the words say none of these."""
    return FAILURE_STOPS.get(failure_of(text), otherwise)


def own_stop_kind(stop: OwnStop) -> str:
    """An error the agent itself recorded as its end: of its model's endpoint, a full context, a spent
    limit, or else the agent halting itself (a loop detector, a failure of its own)."""
    return API_ERROR if stop.connection else failure_stop(stop.words, HALTED)


def first_line(text: str) -> str:
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "")[:SHORT]


# Claude Code ---------------------------------------------------------------------------------------

def claude_usage(usage: dict) -> dict:
    """Anthropic's usage (input uncached, cache writes and reads apart) in impasse's keys (prompt = all three)."""
    uncached, written = usage.get("input_tokens") or 0, usage.get("cache_creation_input_tokens") or 0
    read = usage.get("cache_read_input_tokens") or 0
    return {"prompt_tokens": uncached + written + read, "completion_tokens": usage.get("output_tokens") or 0,
            "cached_tokens": read, "cache_write_tokens": written}


def summed(usages: list[dict]) -> dict | None:
    if not usages:
        return None
    total: dict = {}
    for usage in usages:
        for key, value in usage.items():
            total[key] = total.get(key, 0) + value
    return total


def is_human_prompt(entry: dict) -> bool:
    content = entry["message"].get("content")
    blocks = content if isinstance(content, list) else []
    return not entry.get("isCompactSummary") and not any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)


def claude_log(records: list[dict]) -> SessionLog:
    """Claude Code's steps as claude_code.claude_steps makes them: a step opens at an assistant entry
    after anything else. One request's usage is written on each of its blocks' entries, growing:
    the last entry of each message id holds its final count."""
    log, per_step = SessionLog(), []
    for entry in entries_of(records):
        message = entry["message"]
        if entry["type"] == "assistant":
            if not per_step or per_step[-1] is None:
                log.steps.append(StepFacts(at=stamp(entry.get("timestamp")), synthetic=True))
                per_step.append({})
            if message.get("model") != SYNTHETIC:
                log.steps[-1].synthetic = False
            if isinstance(message.get("usage"), dict) and message.get("model") != SYNTHETIC:
                per_step[-1][message.get("id") or len(per_step[-1])] = claude_usage(message["usage"])
            continue
        if per_step and per_step[-1] is not None:
            log.steps[-1].usage = summed(list(per_step[-1].values()))
            per_step.append(None)  # the reply is over: the next assistant entry opens a step
        if log.steps and is_human_prompt(entry):
            log.steps[-1].human_after = True
    if per_step and per_step[-1] is not None:
        log.steps[-1].usage = summed(list(per_step[-1].values()))
    log.ended_at = next((stamp(r.get("timestamp")) for r in reversed(records) if r.get("timestamp")), None)
    claude_stop(records, log)
    return log


def claude_stop(records: list[dict], log: SessionLog) -> None:
    """How the session stopped, read from what follows its last real reply: an API error Claude Code
    wrote in the model's place (`Limit reached · resets 2pm`, `Prompt is too long`, `API Error: …`),
    the human's interrupt, or the stream-json `result` line (`error_max_turns`, its cost)."""
    for record in reversed(records):
        kind = record.get("type")
        if kind == "result":
            log.total_usd = record.get("total_cost_usd") if isinstance(record.get("total_cost_usd"), int | float) \
                else log.total_usd
            if record.get("subtype") == "error_max_turns" and not log.stop:
                log.stop, log.stop_line = MAX_TURNS, f"result: error_max_turns after {record.get('num_turns')} turns"
            elif (halt := stop_of(record)) is not None and not log.stop:  # Qwen Code's loop detector, its errors
                log.stop, log.stop_line = own_stop_kind(halt), first_line(halt.words)
            continue
        message = record.get("message") if isinstance(record.get("message"), dict) else None
        if kind == "assistant" and message:
            if message.get("model") != SYNTHETIC:
                return
            text = text_of(message.get("content"))
            if (record.get("isApiErrorMessage") or text.startswith("API Error")) and not log.stop:
                log.stop, log.stop_line = failure_stop(text), first_line(text)
        elif kind == "user" and message and INTERRUPT in text_of(message.get("content"))[:200] and not log.stop:
            log.stop, log.stop_line = INTERRUPTED, first_line(text_of(message.get("content")))
        elif kind == "user" and message and log.stop == INTERRUPTED and is_human_prompt(record) \
                and not AUTOMATIC.match(text_of(message.get("content"))):
            # the interrupt came in a turn the human opened and the model never answered: it cut no
            # work short, and the session ended on the reply before that prompt (as Codex's `turn_aborted`)
            log.stop, log.stop_line = "", ""


# Codex ---------------------------------------------------------------------------------------------

def codex_usage(usage: dict) -> dict:
    return {"prompt_tokens": usage.get("input_tokens") or 0, "completion_tokens": usage.get("output_tokens") or 0,
            "cached_tokens": usage.get("cached_input_tokens") or 0,
            "reasoning_tokens": usage.get("reasoning_output_tokens") or 0}


def codex_item(record: dict) -> dict | None:
    if record.get("type") == "response_item":
        return record["payload"] if isinstance(record.get("payload"), dict) else None
    return record if record.get("type") in ITEM_TYPES and "payload" not in record else None


def codex_log(records: list[dict]) -> SessionLog:
    """Codex's steps as codex.codex_steps makes them (a step is a run of model-emitted items); each
    `token_count` event's `last_token_usage` is the request just answered, so the open step's."""
    log, in_run, unanswered = SessionLog(), False, False
    for record in records:
        if (item := codex_item(record)) is not None:
            if is_model_item(item):
                if not in_run:
                    log.steps.append(StepFacts(at=stamp(record.get("timestamp"))))
                    log.stop, log.stop_line, in_run, unanswered = "", "", True, False
            elif item.get("type") in OUTPUTS or item.get("type") == "message":
                in_run = False
                if item.get("type") == "message" and item.get("role") == "user" and log.steps:
                    log.steps[-1].human_after = True
                    unanswered = unanswered or not AUTOMATIC.match(text_of(item.get("content")))
        # A turn the human opened and interrupted before the model answered ("exit" after its last
        # reply) cut no work short: the session ended on that reply.
        elif record.get("type") == "event_msg" and isinstance(record.get("payload"), dict) \
                and not (unanswered and record["payload"].get("type") == "turn_aborted"):
            codex_event(record["payload"], log)
    log.ended_at = next((stamp(r.get("timestamp")) for r in reversed(records) if r.get("timestamp")), None)
    return log


def codex_event(event: dict, log: SessionLog) -> None:
    kind = event.get("type")
    if kind == "token_count" and log.steps:
        last = (event.get("info") or {}).get("last_token_usage")
        if isinstance(last, dict):
            log.steps[-1].usage = summed([u for u in (log.steps[-1].usage, codex_usage(last)) if u])
    elif kind == "turn_aborted":
        log.stop, log.stop_line = INTERRUPTED, f"turn_aborted ({event.get('reason') or 'no reason given'})"
    elif kind in ("error", "stream_error") and event.get("message"):
        log.stop, log.stop_line = failure_stop(str(event["message"])), first_line(event["message"])


# Harnesses that record totals ----------------------------------------------------------------------

def stats_log(data: dict) -> SessionLog:
    """mini-swe-agent's and SWE-agent's `info.model_stats`: the run's cost and tokens, as totals only."""
    stats = (data.get("info") or {}).get("model_stats") or {}
    cost = stats.get("instance_cost")
    sent, received = stats.get("tokens_sent"), stats.get("tokens_received")
    tokens = sent + received if isinstance(sent, int) and isinstance(received, int) else None
    status = str((data.get("info") or {}).get("exit_status") or "")
    log = SessionLog(total_usd=cost if isinstance(cost, int | float) and cost > 0 else None, total_tokens=tokens)
    if "context" in status.lower():
        log.stop, log.stop_line = CONTEXT, f"exit_status: {status}"
    return log


def atif_log(data: dict) -> SessionLog:
    """ATIF's agent steps, each with its `timestamp` and `metrics` (tokens, `cost_usd`)."""
    log = SessionLog()
    for entry in data.get("steps") or []:
        if isinstance(entry, dict) and entry.get("source") == "agent":
            metrics = entry.get("metrics") if isinstance(entry.get("metrics"), dict) else {}
            usage = {k: metrics[k] for k in ("prompt_tokens", "completion_tokens", "cached_tokens")
                     if isinstance(metrics.get(k), int)} or None
            cost = metrics.get("cost_usd")
            log.steps.append(StepFacts(at=stamp(entry.get("timestamp")), usage=usage,
                                       usd=cost if isinstance(cost, int | float) else None))
    log.ended_at = next((s.at for s in reversed(log.steps) if s.at is not None), None)
    return log


def openhands_log(events: list) -> SessionLog:
    """OpenHands' agent actions (its step rule: every agent action but `system` and `recall`) and their timestamps."""
    log = SessionLog()
    for event in events:
        if isinstance(event, dict) and event.get("source") == "agent" and "action" in event \
                and event.get("action") not in ("system", "recall"):
            log.steps.append(StepFacts(at=stamp(event.get("timestamp"))))
        elif isinstance(event, dict) and event.get("source") == "user" and "action" in event and log.steps:
            log.steps[-1].human_after = True
    log.ended_at = next((stamp(e.get("timestamp")) for e in reversed(events) if isinstance(e, dict)
                         and e.get("timestamp")), None)
    return log


def session_log(fmt: str, data, steps: int, path: Path) -> SessionLog | None:
    """The log's facts, or None when the format records none; per-step facts only when they line up."""
    if fmt == "claude-code":
        log = claude_log(data)
    elif fmt == "codex":
        log = codex_log(data)
    elif fmt in ("mini-swe-agent", "swe-agent") and isinstance(data, dict):
        log = stats_log(data)
    elif fmt == "atif":
        log = atif_log(data)
    elif fmt == "openhands":
        log = openhands_log(data if isinstance(data, list) else data.get("history") or [])
    elif fmt == "gemini-contents":
        log = SessionLog(steps=contents_facts(data))
    elif fmt == "message-lines":
        log = claude_log(claude_entries(data))
    elif fmt == "chat-export":
        log = SessionLog(steps=step_facts(export_messages(data)))
    elif fmt == "continue":
        log = SessionLog(steps=step_facts(chat_messages(data)))
    else:
        return None
    if log.steps and len(log.steps) != steps:
        log.steps = []
    return log
