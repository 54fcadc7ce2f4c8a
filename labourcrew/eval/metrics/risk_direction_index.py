"""Risk Direction Index (paper §3.5, B.6) with a seeded bootstrap confidence interval.

When the Trust Auditor finds a claim not supported by its evidence it records the *direction* of
the departure: ``missing_condition`` (the claim drops a condition or proviso of the rule -- an
omission that overstates the rule) or ``extra_condition`` (the claim adds a condition the rule
does not have -- an invention that understates it). Over all audited claims with a direction::

    RDI = (#missing_condition - #extra_condition) / (#missing_condition + #extra_condition)

in [-1, 1]: +1 every directed error is an omission, -1 every one an invention, 0 balanced.
Undefined (NaN) when no claim has a direction. Unit: directed claim (the score of a run is
``(m - e, m + e)``, so categories add up like every other column).

:func:`bootstrap_ci` resamples *questions* (runs) with replacement -- claims of one question are
not independent -- with a seeded generator, and returns the percentile interval; it works for any
metric of this package.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from labourcrew.eval.metrics.base import EvalRun, Metric, Ratio

__all__ = ["RiskDirectionIndex", "bootstrap_ci", "DEFAULT_BOOTSTRAP", "DEFAULT_SEED"]

DEFAULT_BOOTSTRAP = 2000
DEFAULT_SEED = 0


class RiskDirectionIndex(Metric):
    """(omissions - inventions) / (omissions + inventions) over directed audited claims."""

    name = "risk_direction_index"
    description = "(missing_condition - extra_condition) / directed claims, in [-1, 1]"
    unit = "directed claim"

    def score(self, run: EvalRun) -> Ratio:
        m = sum(c.direction == "missing_condition" for c in run.claims)
        e = sum(c.direction == "extra_condition" for c in run.claims)
        return Ratio(num=float(m - e), den=float(m + e))


def bootstrap_ci(
    metric: Metric,
    runs: Sequence[EvalRun],
    *,
    n_boot: int = DEFAULT_BOOTSTRAP,
    level: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``metric`` over ``runs`` (questions resampled).

    Args:
        metric: any metric of this package.
        runs: the runs of one group.
        n_boot: bootstrap replicates.
        level: coverage of the interval, in (0, 1).
        seed: seed of ``numpy.random.default_rng``.

    Returns:
        ``(low, high)``; ``(nan, nan)`` when the metric is undefined on the whole group.
        Replicates in which the metric is undefined (all resampled runs have support 0) are
        dropped.
    """
    scores = [metric.score(r) for r in runs]
    num = np.array([s.num for s in scores], dtype=float)
    den = np.array([s.den for s in scores], dtype=float)
    if not len(scores) or den.sum() <= 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(scores), size=(n_boot, len(scores)))
    nums, dens = num[idx].sum(axis=1), den[idx].sum(axis=1)
    ok = dens > 0
    values = nums[ok] / dens[ok]
    if not values.size:
        return math.nan, math.nan
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.percentile(values, [tail, 100.0 - tail])
    return float(lo), float(hi)
