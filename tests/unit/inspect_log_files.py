"""Inspect logs written by inspect-ai itself, for the tests that read them back: one spec, the samples
given, status success."""

from __future__ import annotations

from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log


def write_log(path, samples: list[EvalSample], task: str = "impasse_tasks", model: str = "openai/gpt-x"):
    spec = EvalSpec(created="2026-12-04T10:00:00+00:00", task=task, dataset=EvalDataset(), model=model,
                    config=EvalConfig())
    write_eval_log(EvalLog(eval=spec, samples=samples, status="success"), str(path))
    return path
