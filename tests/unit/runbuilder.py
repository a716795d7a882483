"""Hand-written impasse run folders for known-answer tests of the annotator."""

from __future__ import annotations

import json
from pathlib import Path


def bash(command: str, output: str, exit_code: int = 0, **extra) -> tuple[dict, dict]:
    return ({"name": "bash", "arguments": {"command": command}, "raw_arguments": json.dumps({"command": command})},
            {"output": output, "exit_code": exit_code, **extra})


def edit(path: str, new: str, output: str = "edited", exit_code: int = 0) -> tuple[dict, dict]:
    args = {"path": path, "old_str": "x", "new_str": new}
    return ({"name": "edit_file", "arguments": args, "raw_arguments": json.dumps(args)},
            {"output": output, "exit_code": exit_code})


def finish(tool: str, message: str) -> tuple[dict, dict]:
    key = "summary" if tool == "task_complete" else "reason"
    return ({"name": tool, "arguments": {key: message}, "raw_arguments": json.dumps({key: message})},
            {"output": "ok", "exit_code": None})


def make_run(root: Path, run_id: str, condition: str, steps: list, ending: str, outcome: str,
             resolved: bool | None = None, blocker_active_at_end: bool | None = True, task: str = "task-a",
             model: str = "scripted:test", injected: dict | None = None, finished: bool = True,
             torn_tail: str | None = None, landed: bool | None = None, tampering: list[dict] | None = None,
             message: str = "", operator: dict | None = None) -> Path:
    """steps: a list of (text, [(call, observation), ...]). `landed`: the probe before step 1 (default:
    held, for a blocked condition); `tampering`: the truth's {route, evidence} list; `message`: what
    the ending said (a claim's summary or an escalation's reason); `operator`: result.json's operator
    record (`operator_record`), its mode written to meta.json too."""
    path = root / run_id
    path.mkdir(parents=True)
    meta = {"run_id": run_id, "model": model, "condition": condition, "task": task, "seed": 0, "budget": 80,
            "injected": injected or {"python_packages": [], "binaries": [], "secrets": []},
            "operator": operator["mode"] if operator else None}
    (path / "meta.json").write_text(json.dumps(meta))
    lines = []
    for index, (text, calls) in enumerate(steps, 1):
        tool_calls, observations = [], []
        for n, (call, obs) in enumerate(calls):
            call_id = f"c{index}_{n}"
            tool_calls.append({"id": call_id, **call})
            observations.append({"call_id": call_id, "tool": call["name"], "duration": 0.1, "truncated_bytes": 0,
                                 "timed_out": False, "error": None, "injected": None, "executed": True, **obs})
        lines.append(json.dumps({"index": index, "started_at": 0, "text": text, "tool_calls": tool_calls,
                                 "observations": observations, "usage": {}, "duration": 0.1,
                                 "harness_error": None, "kind": "act" if calls else "speak"}))
    body = "\n".join(lines) + ("\n" if lines else "")
    if torn_tail:
        body += torn_tail
    (path / "steps.jsonl").write_text(body)
    if finished:
        said = {"task_complete": "claim", "escalate_to_human": "escalation"}.get(ending)
        result = {"run_id": run_id, "outcome": outcome,
                  "ending": {"kind": ending, "message": message, "step": len(steps)},
                  "blocker_active_at_start": landed if landed is not None else (True if condition != "none" else None),
                  "truth": {"resolved": resolved, "blocker_active_at_end": blocker_active_at_end,
                            "integrity_ok": True, "tampering": tampering or []},
                  "tampering": tampering or [], **({said: message} if said else {}),
                  **({"operator": operator} if operator else {})}
        (path / "result.json").write_text(json.dumps(result))
    return path


def exchange(step: int, verdict: str, judged: str | None = None, card: str | None = None,
             named_object: str | None = None, causes: tuple[str, ...] = ()) -> dict:
    """One escalation and the operator's answer, as result.json keeps it."""
    return {"step": step, "verdict": verdict, "judged": judged, "card": card, "named_object": named_object,
            "causes": list(causes), "reply": f"({verdict})", "length": 40, "seconds": 0.01,
            "probe_after": False if verdict == "fixed" else None}


def operator_record(*exchanges: dict, lifted: str | None = None) -> dict:
    """result.json's `operator`: the lift is the fixed exchange's step."""
    lifted_at = next((e["step"] for e in exchanges if e["verdict"] == "fixed"), None)
    return {"mode": "rules", "cap": 3, "lifted_at": lifted_at, "lifted": lifted if lifted_at else None,
            "exchanges": list(exchanges)}
