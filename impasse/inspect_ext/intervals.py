"""The 95% bootstrap interval `impasse report` gives a share, as an Inspect metric: per eval (one
condition), the samples' scores resampled by task (a sample's epochs are one cluster), seeded, so the
same log gives the same interval."""

from __future__ import annotations

from inspect_ai.scorer import Metric, SampleScore, metric

from impasse.analysis.intervals import bootstrap


def share(scores: list[SampleScore]) -> float | None:
    return sum(s.score.as_float() for s in scores) / len(scores) if scores else None


@metric(name="ci95")
def bootstrap_ci() -> Metric:
    """`ci95_low` and `ci95_high` beside the mean: the interval over tasks, or the mean itself when
    every sample is one task (nothing to resample)."""

    def interval(scores: list[SampleScore]) -> dict[str, float]:
        bounds = bootstrap(scores, share, cluster=lambda s: str(s.sample_id))
        low, high = bounds if bounds else (float("nan"), float("nan"))
        return {"low": low, "high": high}

    return interval
