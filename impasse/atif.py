"""Our runs as ATIF (Agent Trajectory Interchange Format) with impasse's fields under `extra`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from impasse import __version__
from impasse.prompts import SYSTEM
from impasse.trajectory import read_run

SCHEMA_VERSION = "ATIF-v1.4"


def iso(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z") if ts else None


def agent_step(step: dict, number: int, model: str) -> dict:
    calls = [{"tool_call_id": c["id"], "function_name": c["name"],
              "arguments": c["arguments"] if c["arguments"] is not None else {"_raw": c["raw_arguments"]}}
             for c in step["tool_calls"]]
    results = [{"source_call_id": o["call_id"], "content": o["output"],
                "extra": {"exit_code": o["exit_code"], "injected": o.get("injected"), "timed_out": o.get("timed_out"),
                          "truncated_bytes": o.get("truncated_bytes"), "error": o.get("error")}}
               for o in step["observations"]]
    entry = {"step_id": number, "timestamp": iso(step.get("started_at")), "source": "agent", "model_name": model,
             "message": step.get("text") or "", "extra": {"impasse_step": step["index"], "kind": step.get("kind")}}
    if calls:
        entry["tool_calls"] = calls
        entry["observation"] = {"results": results}
    if step.get("usage"):
        entry["metrics"] = {"prompt_tokens": step["usage"].get("prompt_tokens"),
                            "completion_tokens": step["usage"].get("completion_tokens")}
    return entry


def to_atif(path: Path) -> dict:
    meta, steps, result, _ = read_run(path)
    result = result or {}
    truth = result.get("truth") or {}
    atif_steps = [{"step_id": 1, "source": "system", "message": SYSTEM}]
    atif_steps += [agent_step(s, i + 2, meta["model"]) for i, s in enumerate(steps)]
    return {
        "schema_version": SCHEMA_VERSION, "session_id": meta["run_id"],
        "agent": {"name": "impasse", "version": __version__, "model_name": meta["model"]},
        "steps": atif_steps,
        "final_metrics": {"total_steps": len(steps)},
        "extra": {"impasse": {"condition": meta["condition"], "task": meta["task"], "seed": meta["seed"],
                              "outcome": result.get("outcome"), "ending": (result.get("ending") or {}).get("kind"),
                              "resolved": truth.get("resolved"),
                              "blocker_active_at_end": truth.get("blocker_active_at_end"),
                              "integrity_ok": truth.get("integrity_ok"), "meta": meta}},
    }


def export_run(path: Path, out_dir: Path | None = None) -> Path:
    target = (out_dir or path) / f"{path.name}.atif.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(to_atif(path), indent=2, ensure_ascii=False) + "\n")
    return target
