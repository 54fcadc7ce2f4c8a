"""Judge-free evaluation metrics read from the runs (paper B.6), one module per metric.

Every metric is a small class with a pure scoring core over one
:class:`~labourcrew.eval.metrics.base.EvalRun`, returning a :class:`~labourcrew.eval.metrics.base.Ratio`;
undefined values are NaN, never 0. :data:`METRICS` lists them in results-column order and
:func:`summarise` builds the per-category, per-tier and overall rows of a results file.

Columns (``name``: unit of support -- definition in the module):

=================================  ==========  =========================================
latency_s                          question    :mod:`.latency`
retrieval_rounds                   question    :mod:`.rounds`
deliberation_rounds                question    :mod:`.rounds`
llm_calls, sequential_llm_calls    question    :mod:`.llm_calls`
evidence_coverage                  question    :mod:`.evidence_coverage`
path_completeness                  link        :mod:`.path_completeness`
gate_verified_citation_precision   citation    :mod:`.gate_verified_citation_precision`
tglo_rate, degraded_rate,          question    :mod:`.tglo_rate`
undecided_rate, failed_run_rate,
role_failure_rate
citation_based_precision           citation    :mod:`.citation_based_precision`
claim_acceptance_rate              claim       :mod:`.claim_acceptance_rate`
citation_checker_pass_rate         citation    :mod:`.citation_checker_pass_rate`
contradiction_residual             pair        :mod:`.contradiction_residual`
gold_section_recall                question    :mod:`.gold_section_recall`
gold_section_hit                   question    :mod:`.gold_section_hit`
abstention_correct                 question    :mod:`.abstention_correctness`
unsupported_claim_rate             claim       :mod:`.unsupported_claim_rate`
risk_direction_index               claim       :mod:`.risk_direction_index` (+ bootstrap CI)
false_accept_rate                  claim       :mod:`.false_accept_rate` (needs labels)
=================================  ==========  =========================================
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from labourcrew.eval.datasets import CATEGORIES
from labourcrew.eval.metrics.abstention_correctness import AbstentionCorrectness
from labourcrew.eval.metrics.base import (
    EvalCitation,
    EvalClaim,
    EvalRun,
    Metric,
    PackEntry,
    PerRunMetric,
    Ratio,
    gold_matches,
)
from labourcrew.eval.metrics.citation_based_precision import CitationBasedPrecision
from labourcrew.eval.metrics.citation_checker_pass_rate import CitationCheckerPassRate
from labourcrew.eval.metrics.claim_acceptance_rate import ClaimAcceptanceRate
from labourcrew.eval.metrics.contradiction_residual import ContradictionResidual
from labourcrew.eval.metrics.evidence_coverage import EvidenceCoverage
from labourcrew.eval.metrics.false_accept_rate import FalseAcceptRate
from labourcrew.eval.metrics.gate_verified_citation_precision import (
    GateVerifiedCitationPrecision,
)
from labourcrew.eval.metrics.gold_section_hit import GoldSectionHit
from labourcrew.eval.metrics.gold_section_recall import GoldSectionRecall
from labourcrew.eval.metrics.latency import LatencyS, latency_percentiles
from labourcrew.eval.metrics.llm_calls import LLMCalls, SequentialLLMCalls
from labourcrew.eval.metrics.path_completeness import PathCompleteness
from labourcrew.eval.metrics.risk_direction_index import (
    RiskDirectionIndex,
    bootstrap_ci,
)
from labourcrew.eval.metrics.rounds import DeliberationRounds, RetrievalRounds
from labourcrew.eval.metrics.tglo_rate import (
    DegradedRate,
    FailedRunRate,
    RoleFailureRate,
    TGLORate,
    UndecidedRate,
)
from labourcrew.eval.metrics.unsupported_claim_rate import UnsupportedClaimRate

__all__ = [
    "METRICS",
    "METRIC_NAMES",
    "CATEGORY_ORDER",
    "OVERALL",
    "Metric",
    "PerRunMetric",
    "Ratio",
    "EvalRun",
    "EvalClaim",
    "EvalCitation",
    "PackEntry",
    "gold_matches",
    "bootstrap_ci",
    "latency_percentiles",
    "score_runs",
    "summarise",
    "weighted_average",
    "identity_errors",
]

OVERALL = "overall"

METRICS: tuple[Metric, ...] = (
    LatencyS(),
    RetrievalRounds(),
    DeliberationRounds(),
    LLMCalls(),
    SequentialLLMCalls(),
    EvidenceCoverage(),
    PathCompleteness(),
    GateVerifiedCitationPrecision(),
    TGLORate(),
    DegradedRate(),
    UndecidedRate(),
    FailedRunRate(),
    RoleFailureRate(),
    CitationBasedPrecision(),
    ClaimAcceptanceRate(),
    CitationCheckerPassRate(),
    ContradictionResidual(),
    GoldSectionRecall(),
    GoldSectionHit(),
    AbstentionCorrectness(),
    UnsupportedClaimRate(),
    RiskDirectionIndex(),
    FalseAcceptRate(),
)
METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in METRICS)

CATEGORY_ORDER: tuple[str, ...] = CATEGORIES  # one list, kept in eval/datasets.py


def score_runs(runs: Iterable[EvalRun], metrics: Sequence[Metric] = METRICS) -> dict[str, Ratio]:
    """Summed :class:`Ratio` of each metric over ``runs`` (name -> ratio)."""
    runs = list(runs)
    return {m.name: m.aggregate(runs) for m in metrics}


def _row(runs: Sequence[EvalRun], metrics: Sequence[Metric]) -> dict[str, Any]:
    ratios = score_runs(runs, metrics)
    row: dict[str, Any] = {"n": len(runs)}
    row.update({name: r.value for name, r in ratios.items()})
    row["support"] = {name: r.den for name, r in ratios.items()}
    return row


def summarise(
    runs: Sequence[EvalRun],
    metrics: Sequence[Metric] = METRICS,
    *,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Results block of one configuration.

    Args:
        runs: the configuration's runs (one per item).
        metrics: columns.
        n_boot: bootstrap replicates for the Risk Direction Index interval.
        seed: bootstrap seed.

    Returns:
        ``{"overall": row, "by_category": {category: row}, "by_tier": {"1"|"2"|"3": row}}``; a row
        is ``{"n": items, <metric>: value (NaN = undefined), ..., "support": {<metric>: units}}``.
        The overall row also carries ``latency_percentiles`` (``p50_s``, ``p95_s``) and
        ``intervals`` (``risk_direction_index``: ``[low, high]``, 95 % bootstrap over questions).
    """
    runs = list(runs)
    overall = _row(runs, metrics)
    overall["latency_percentiles"] = latency_percentiles(runs)
    rdi = next((m for m in metrics if m.name == RiskDirectionIndex.name), None)
    if rdi is not None:
        overall["intervals"] = {rdi.name: list(bootstrap_ci(rdi, runs, n_boot=n_boot, seed=seed))}
    cats = [c for c in CATEGORY_ORDER if any(r.category == c for r in runs)]
    cats += sorted({r.category for r in runs} - set(cats))
    by_cat = {c: _row([r for r in runs if r.category == c], metrics) for c in cats}
    tiers = sorted({r.tier for r in runs})
    by_tier = {str(t): _row([r for r in runs if r.tier == t], metrics) for t in tiers}
    return {"overall": overall, "by_category": by_cat, "by_tier": by_tier}


def weighted_average(rows: Mapping[str, Mapping[str, Any]], metric: str) -> float:
    """Support-weighted average of one column over group rows, NaN-aware.

    Groups whose value is NaN (support 0) drop out; NaN when every group does.
    """
    num = den = 0.0
    for row in rows.values():
        v = row.get(metric, math.nan)
        w = float(row.get("support", {}).get(metric, 0.0))
        if v is None or (isinstance(v, float) and math.isnan(v)) or w <= 0:
            continue
        num += float(v) * w
        den += w
    return num / den if den > 0 else math.nan


def identity_errors(
    block: Mapping[str, Any], by: str = "by_category", *, tol: float = 1e-9
) -> dict[str, tuple[float, float]]:
    """Columns whose weighted group average does not reproduce the overall row.

    Returns:
        ``{metric: (overall, recomputed)}`` for every mismatch (NaN equals NaN); empty when the
        identity holds.
    """
    out: dict[str, tuple[float, float]] = {}
    overall = block["overall"]
    for metric in overall.get("support", {}):
        want = overall.get(metric, math.nan)
        want = math.nan if want is None else float(want)
        got = weighted_average(block[by], metric)
        if math.isnan(want) and math.isnan(got):
            continue
        if math.isnan(want) or math.isnan(got) or abs(want - got) > tol * max(1.0, abs(want)):
            out[metric] = (want, got)
    return out
