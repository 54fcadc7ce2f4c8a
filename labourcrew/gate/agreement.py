r"""Inter-annotator agreement of two label passes: Cohen's κ and Gwet's AC1 with bootstrap CIs (issue 11).

For two annotators A and B over the ``n`` claim keys both labelled faithful/unfaithful, with
observed agreement ``p_o`` and per-category shares ``a_k``, ``b_k``::

    Cohen's κ  = (p_o - p_e) / (1 - p_e),   p_e = Σ_k a_k b_k
    Gwet's AC1 = (p_o - p_e) / (1 - p_e),   p_e = Σ_k π_k (1 - π_k) / (K - 1),  π_k = (a_k + b_k) / 2

κ is pulled down when one category dominates (the "κ paradox"); AC1 is not, so both are given.
Confidence intervals are percentile bootstrap intervals over claims (resampled with replacement,
``n_boot`` times, seeded: the same seed gives the same interval). Adjudicators
(:func:`~labourcrew.gate.labels.is_adjudicator`) saw both labels and are never a rater here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from labourcrew.errors import InputError
from labourcrew.gate.labels import Label, cohens_kappa, is_adjudicator

__all__ = ["BINARY", "gwet_ac1", "bootstrap_ci", "pair_labels", "agreement_report"]

BINARY: tuple[str, str] = ("faithful", "unfaithful")


def gwet_ac1(first: Sequence[str], second: Sequence[str], categories: Sequence[str] = BINARY) -> float:
    """Gwet's AC1 of two equally long label sequences over ``categories`` (K >= 2).

    Raises:
        InputError: empty or unequal sequences, fewer than two categories, or a label outside them.
    """
    if len(first) != len(second) or not first:
        raise InputError("gwet_ac1 needs two non-empty label lists of equal length")
    cats = list(categories)
    if len(cats) < 2 or not set(first) | set(second) <= set(cats):
        raise InputError(f"labels must lie in at least two categories {cats}")
    n = len(first)
    p_o = sum(x == y for x, y in zip(first, second, strict=True)) / n
    pi = [((list(first).count(c) + list(second).count(c)) / (2 * n)) for c in cats]
    p_e = sum(p * (1 - p) for p in pi) / (len(cats) - 1)
    return 1.0 if p_e >= 1.0 else (p_o - p_e) / (1.0 - p_e)


def bootstrap_ci(first: Sequence[str], second: Sequence[str], stat: Any, *, n_boot: int = 2000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat(first, second)`` over resampled items (seeded)."""
    rng = np.random.default_rng(seed)
    a, b = np.asarray(first), np.asarray(second)
    n = len(a)
    values = []
    for _ in range(n_boot):
        idx = rng.integers(0, n, n)
        values.append(stat(list(a[idx]), list(b[idx])))
    lo, hi = np.quantile(values, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def pair_labels(labels: Iterable[Label], first: str, second: str) -> list[tuple[str, str, str]]:
    """``(key, label of first, label of second)`` for keys both labelled faithful/unfaithful, sorted by key."""
    by: dict[str, dict[str, str]] = {first: {}, second: {}}
    for lab in labels:
        if lab.annotator in by and lab.label in BINARY and not is_adjudicator(lab.annotator):
            by[lab.annotator][lab.claim_id] = lab.label
    shared = sorted(by[first].keys() & by[second].keys())
    return [(k, by[first][k], by[second][k]) for k in shared]


def agreement_report(labels: Iterable[Label], first: str, second: str, *, n_boot: int = 2000,
                     seed: int = 0) -> dict[str, Any]:
    """κ, AC1, their 95 % bootstrap CIs, n, raw agreement and the 2x2 table for one annotator pair.

    Returns:
        A JSON-ready dict (NaN as None when the pair shares no claim).
    """
    pairs = pair_labels(labels, first, second)
    n = len(pairs)
    out: dict[str, Any] = {"first": first, "second": second, "n": n, "bootstrap": {"n_boot": n_boot, "seed": seed,
                                                                                  "level": 0.95}}
    if not n:
        out.update({"kappa": None, "ac1": None, "kappa_ci95": None, "ac1_ci95": None, "observed_agreement": None})
        return out
    a = [p[1] for p in pairs]
    b = [p[2] for p in pairs]
    table = {f"{x}/{y}": sum(1 for p in pairs if (p[1], p[2]) == (x, y)) for x in BINARY for y in BINARY}
    kappa = cohens_kappa(a, b)
    ac1 = gwet_ac1(a, b)
    out.update({
        "kappa": kappa, "ac1": ac1,
        "kappa_ci95": list(bootstrap_ci(a, b, cohens_kappa, n_boot=n_boot, seed=seed)),
        "ac1_ci95": list(bootstrap_ci(a, b, gwet_ac1, n_boot=n_boot, seed=seed)),
        "observed_agreement": sum(x == y for x, y in zip(a, b, strict=True)) / n,
        "table": table, "disagreements": [p[0] for p in pairs if p[1] != p[2]],
    })
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in out.items()}
