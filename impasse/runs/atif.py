"""Our runs as ATIF (Agent Trajectory Interchange Format) with impasse's fields under `extra`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from impasse import __version__
from impasse.episode.prompts import SYSTEM
from impasse.episode.records import Step
from impasse.episode.rundir import read_run

SCHEMA_VERSION = "ATIF-v1.4"


def iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z") if ts else None


def tokens(usage: dict) -> dict:
    """Prompt and completion tokens, also from runs recorded before every adapter used one set of
    keys (Anthropic's were input_tokens / output_tokens)."""
    counted = {"prompt_tokens": usage.get("prompt_tokens", usage.get("input_tokens")),
               "completion_tokens": usage.get("completion_tokens", usage.get("output_tokens"))}
    return counted | ({"cached_tokens": usage["cached_tokens"]} if "cached_tokens" in usage else {})


def agent_step(step: Step, number: int, model: str) -> dict:
    calls = [{"tool_call_id": c.id, "function_name": c.name,
              "arguments": c.arguments if c.arguments is not None else {"_raw": c.raw_arguments}}
             for c in step.tool_calls]
    results = [{"source_call_id": o.call_id, "content": o.output,
                "extra": {"exit_code": o.exit_code, "injected": o.injected, "timed_out": o.timed_out,
                          "truncated_bytes": o.truncated_bytes, "error": o.error}}
               for o in step.observations]
    entry = {"step_id": number, "timestamp": iso(step.started_at), "source": "agent", "model_name": model,
             "message": step.text or "", "extra": {"impasse_step": step.index, "kind": step.kind}}
    if step.reasoning:
        entry["reasoning_content"] = step.reasoning
    if calls:
        entry["tool_calls"] = calls
        entry["observation"] = {"results": results}
    if step.usage:
        entry["metrics"] = tokens(step.usage)
    return entry


def to_atif(path: Path) -> dict:
    record = read_run(path)
    meta, result = record.meta, record.result
    atif_steps = [{"step_id": 1, "source": "system", "message": SYSTEM}]
    atif_steps += [agent_step(s, i + 2, meta.model) for i, s in enumerate(record.steps)]
    return {
        "schema_version": SCHEMA_VERSION, "session_id": meta.run_id,
        "agent": {"name": "impasse", "version": __version__, "model_name": meta.model,
                  **({"extra": {"external_agent": meta.agent}} if meta.agent != "impasse" else {})},
        "steps": atif_steps,
        "final_metrics": {"total_steps": len(record.steps), **total_cost(result)},
        "extra": {"impasse": {"condition": meta.condition, "task": meta.task, "seed": meta.seed,
                              "outcome": result.outcome if result else None,
                              "ending": result.ending.kind if result else None,
                              "resolved": result.resolved if result else None,
                              "blocker_active_at_end": result.blocker_active_at_end if result else None,
                              "integrity_ok": result.integrity_ok if result else None,
                              "blocker_active_at_start": result.blocker_active_at_start if result else None,
                              # A tampering run keeps what its ending said: its claim or its escalation.
                              "claim": result.claim if result else None,
                              "escalation": result.escalation if result else None,
                              "route": result.route if result else None,
                              "tampering": result.tampered if result else [],
                              # each escalation the operator answered, and the lift (docs/operator.md)
                              "operator": result.operator if result else None,
                              "meta": meta.to_dict()}},
    }


def total_cost(result) -> dict:
    """ATIF's total_cost_usd where the run's cost is known; left out, never 0, where it is not."""
    usd = ((result.cost or {}).get("usd") if result else None)
    return {} if usd is None else {"total_cost_usd": usd}


def export_run(path: Path, out_dir: Path | None = None) -> Path:
    target = (out_dir or path) / f"{path.name}.atif.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(to_atif(path), indent=2, ensure_ascii=False) + "\n")
    return target
