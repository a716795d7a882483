"""Inspect (inspect-ai) evaluation logs, `.eval` (a zip) and `.json`, read with inspect-ai as the
authority on the format: each sample of each epoch one session, named `<task>/<sample id>#<epoch>`.

A sample's messages are chat messages with tool calls and tool results (inspect_messages: in a session
export's shape), stepped as session exports are (chat_export.export_steps: a step is a run of assistant
messages, its observations the tool results up to the next). Its ending: impasse's verdict tools by
their own names, or Inspect's `submit` (the agent's final answer: a claim that the work is done); else
how the sample stopped — a limit it hit (messages, turns, tokens, cost, time: its budget; the context
window), an error that ended it — and else its last message. Its wall is `total_time`, its tokens and
cost `model_usage`.

An `.eval` is read the fast way where it can be (inspect_eval_zip: inspect-ai's reader for the header
and each sample but its messages, the messages as plain JSON); else, and a `.json` always, by
inspect-ai's full reader. Both resolve `attachment://` references in the messages as inspect-ai does."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from impasse.analysis.formats.chat_export import export_steps
from impasse.analysis.formats.common import ImportProblem, verdict_of
from impasse.analysis.formats.inspect_messages import message_dict
from impasse.analysis.formats.session_facts import failure_stop, stamp
from impasse.analysis.normal_form import NTrajectory
from impasse.analysis.session_log import CONTEXT, ERRORED, INTERRUPTED, MAX_TURNS, SessionLog, StepFacts

EVAL_SUFFIX = ".eval"
ZIP_MAGIC = b"PK\x03\x04"
# How inspect-ai's JSON log begins (EvalLog: `version`, then `status`): enough to tell it from other JSON.
JSON_HEAD = re.compile(rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
BUDGET_LIMITS = {"message", "turn", "token", "cost", "time", "working"}
SHORT = 200


def is_inspect_head(name: str, head: bytes) -> bool:
    """Whether a file's name and first bytes are an Inspect log's."""
    if name.endswith(EVAL_SUFFIX):
        return head.startswith(ZIP_MAGIC)
    return name.endswith(".json") and JSON_HEAD.match(head) is not None


def inspect_sessions(path: Path) -> list[NTrajectory]:
    spec, samples = read_samples(path)
    task = str(getattr(spec, "task", "") or path.stem)
    model = str(getattr(spec, "model", "") or "unknown")
    sessions = []
    for sample, messages in samples:
        session = sample_session(sample, messages, task, model, path)
        session.condition = impasse_card(sample.sandbox or spec.sandbox)
        sessions.append(session)
    return sessions


def read_samples(path: Path) -> tuple[Any, list[tuple[Any, list[dict]]]]:
    """The eval's spec, and each sample in inspect-ai's order with its messages as chat-export dicts."""
    if path.name.endswith(EVAL_SUFFIX):
        fast = read_eval_zip(path)
        if fast is not None:
            return fast
    log = read_log(path)
    return log.eval, [(sample, [message_dict(m) for m in sample.messages or []]) for sample in log.samples or []]


def read_eval_zip(path: Path) -> tuple[Any, list[tuple[Any, list[dict]]]] | None:
    try:
        from impasse.analysis.formats.inspect_eval_zip import read_fast
    except ImportError:  # no inspect-ai: read_log says so
        return None
    return read_fast(path)


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
        # A message's words may be an `attachment://` reference; "core" resolves every message (and
        # leaves the model calls' payloads, which no session reads, as they are stored).
        return read_eval_log(str(path), resolve_attachments="core")
    except Exception as err:  # noqa: BLE001 - a torn zip, a foreign file: inspect-ai's own words, one line
        said = next((line for line in str(err).splitlines() if line.strip()), type(err).__name__)
        raise ImportProblem(f"{path}: not a readable Inspect log ({type(err).__name__}: {said[:SHORT]})") from None


def sample_session(sample, messages: list[dict], task: str, model: str, path: Path) -> NTrajectory:
    name = f"{task}/{sample.id}#{sample.epoch}"
    steps = export_steps(messages)
    return NTrajectory(run_id=name, source="inspect", path=f"{path}#{sample.id}#{sample.epoch}", model=model,
                       condition=None, task=name, steps=steps, ending=verdict_of(steps),
                       log=sample_log(sample, len(steps)))


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
