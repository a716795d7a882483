"""Inspect (inspect-ai) evaluation logs, `.eval` (a zip) and `.json`, read by inspect-ai's own log
reader: each sample of each epoch one session, named `<task>/<sample id>#<epoch>`.

A sample's messages are chat messages with tool calls (`ToolCall(id, function, arguments)`) and tool
results (`ChatMessageTool`, with its `error` where the tool failed), stepped as session exports are
(chat_export.export_steps: a step is a run of assistant messages, its observations the tool results
up to the next). Its ending: impasse's verdict tools by their own names, or Inspect's `submit` (the
agent's final answer: a claim that the work is done); else how the sample stopped — a limit it hit
(messages, turns, tokens, cost, time: its budget; the context window), an error that ended it — and
else its last message. Its wall is `total_time`, its tokens and cost `model_usage`."""

from __future__ import annotations

import re
from pathlib import Path

from impasse.analysis.formats.chat_export import export_steps
from impasse.analysis.formats.common import ImportProblem, text_of, verdict_of
from impasse.analysis.formats.session_facts import failure_stop, stamp
from impasse.analysis.normal_form import NTrajectory
from impasse.analysis.session_log import CONTEXT, ERRORED, INTERRUPTED, MAX_TURNS, SessionLog, StepFacts
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

EVAL_SUFFIX = ".eval"
ZIP_MAGIC = b"PK\x03\x04"
# How inspect-ai's JSON log begins (EvalLog: `version`, then `status`): enough to tell it from other JSON.
JSON_HEAD = re.compile(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
SUBMIT = "submit"  # Inspect's agents end on it with their answer
BUDGET_LIMITS = {"message", "turn", "token", "cost", "time", "working"}
SHORT = 200


def is_inspect_head(name: str, head: bytes) -> bool:
    """Whether a file's name and first bytes are an Inspect log's."""
    if name.endswith(EVAL_SUFFIX):
        return head.startswith(ZIP_MAGIC)
    return name.endswith(".json") and JSON_HEAD.match(head) is not None


def inspect_sessions(path: Path) -> list[NTrajectory]:
    log = read_log(path)
    task = str(getattr(log.eval, "task", "") or path.stem)
    model = str(getattr(log.eval, "model", "") or "unknown")
    sessions = []
    for sample in log.samples or []:
        session = sample_session(sample, task, model, path)
        session.condition = impasse_card(sample.sandbox or log.eval.sandbox)
        sessions.append(session)
    return sessions


def impasse_card(spec) -> str | None:
    """The card a sample ran under when its sandbox was impasse's (its config: the card, as a model,
    a dict, or the short form's path); None for any other sandbox: the annotator then tries every card."""
    if spec is None or getattr(spec, "type", None) != "impasse":
        return None
    config = spec.config
    card = config.get("card") if isinstance(config, dict) else getattr(config, "card", config)
    return Path(str(card)).name if card else None


def read_log(path: Path):
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ImportProblem(f"{path}: an Inspect log; reading it needs inspect-ai "
                            "(pip install 'impasse[inspect]')") from None
    try:
        return read_eval_log(str(path))
    except Exception as err:  # noqa: BLE001 - a torn zip, a foreign file: inspect-ai's own words, one line
        said = next((line for line in str(err).splitlines() if line.strip()), type(err).__name__)
        raise ImportProblem(f"{path}: not a readable Inspect log ({type(err).__name__}: {said[:SHORT]})") from None


def sample_session(sample, task: str, model: str, path: Path) -> NTrajectory:
    name = f"{task}/{sample.id}#{sample.epoch}"
    steps = export_steps([message_dict(m) for m in sample.messages or []])
    return NTrajectory(run_id=name, source="inspect", path=f"{path}#{sample.id}#{sample.epoch}", model=model,
                       condition=None, task=name, steps=steps, ending=verdict_of(steps),
                       log=sample_log(sample, len(steps)))


def message_dict(message) -> dict:
    """A message in the chat-export shape export_steps reads; a tool's failure kept in its text."""
    role = getattr(message, "role", "")
    data = {"role": role, "content": message_text(message)}
    if role == "assistant":
        data["tool_calls"] = [{"id": call.id, "function": {"name": verdict_name(call.function),
                                                          "arguments": verdict_arguments(call)}}
                              for call in (message.tool_calls or [])]
    elif role == "tool":
        data["tool_call_id"] = message.tool_call_id
        error = getattr(message, "error", None)
        if error is not None:
            data["content"] = "\n".join(t for t in (data["content"], f"{error.type}: {error.message}") if t)
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


def verdict_arguments(call) -> dict:
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    if call.function == SUBMIT:  # its answer is the summary of a claim
        return {TERMINAL_ARGUMENT[Tool.TASK_COMPLETE]: str(arguments.get("answer", ""))}
    return arguments


def sample_log(sample, steps: int) -> SessionLog:
    """Its tokens and cost (`model_usage`), its wall (started to completed, on its first step), and how
    it stopped: a limit it hit, or the error that ended it."""
    usage = list((sample.model_usage or {}).values())
    costs = [u.total_cost for u in usage if getattr(u, "total_cost", None) is not None]
    log = SessionLog(total_tokens=sum(u.total_tokens or 0 for u in usage) or None,
                     total_usd=sum(costs) if costs else None, ended_at=stamp(getattr(sample, "completed_at", None)))
    started = stamp(getattr(sample, "started_at", None))
    if steps and started is not None:
        log.steps = [StepFacts(at=started if i == 0 else None) for i in range(steps)]
    limit, error = getattr(sample, "limit", None), getattr(sample, "error", None)
    if limit is not None:
        kind = str(limit.type)
        log.stop = CONTEXT if kind == "context" else MAX_TURNS if kind in BUDGET_LIMITS else INTERRUPTED
        log.stop_line = f"{kind} limit ({limit.limit:g})" if limit.limit is not None else f"{kind} limit"
    elif error is not None:
        words = (str(error.message).splitlines() or [""])[0][:SHORT]
        # The model's provider failing is the API's; any other error (the sandbox's, the solver's) the harness's.
        log.stop, log.stop_line = failure_stop(words, ERRORED), words
    return log
