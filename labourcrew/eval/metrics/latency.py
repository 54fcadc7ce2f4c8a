"""Latency (paper B.6): wall-clock seconds per question, as the run recorded it.

Column ``latency_s``: mean seconds per question (per-question metric, weight 1); undefined for a run
without a timing. The median and 95th percentile (:func:`latency_percentiles`) are reported next to
the table, not as columns: percentiles do not add up over categories.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from labourcrew.eval.metrics.base import EvalRun, PerRunMetric

__all__ = ["LatencyS", "latency_percentiles"]


class LatencyS(PerRunMetric):
    """Mean wall-clock seconds per question."""

    name = "latency_s"
    description = "mean wall-clock seconds per question"

    def value(self, run: EvalRun) -> float | None:
        return run.latency_s


def latency_percentiles(runs: Iterable[EvalRun]) -> dict[str, float]:
    """``{"p50_s", "p95_s"}`` over the runs with a timing (NaN when none)."""
    lat = [r.latency_s for r in runs if r.latency_s is not None]
    if not lat:
        return {"p50_s": math.nan, "p95_s": math.nan}
    arr = np.asarray(lat, dtype=float)
    return {"p50_s": float(np.percentile(arr, 50)), "p95_s": float(np.percentile(arr, 95))}
