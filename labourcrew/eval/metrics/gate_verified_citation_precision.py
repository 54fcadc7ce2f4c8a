"""Gate-Verified Citation Precision (paper B.6; target >= 0.995).

Of the citations of released claims, the share that an *independent* re-check verifies: the cited
node exists in the statute and the cited span occurs verbatim in its text after Bangla-safe
normalisation (the adapter re-checks against the StatuteGraph, not against the run's own pack, so
a gate that let a bad citation through is caught).

Unit: citation. Undefined when nothing was released.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, Metric, Ratio

__all__ = ["GateVerifiedCitationPrecision"]


class GateVerifiedCitationPrecision(Metric):
    """Share of released citations that re-verify verbatim against the statute."""

    name = "gate_verified_citation_precision"
    description = "share of released claims' citations that re-verify verbatim against the statute"
    unit = "citation"

    def score(self, run: EvalRun) -> Ratio:
        cits = [c for claim in run.released() for c in claim.citations]
        return Ratio(num=float(sum(c.statute_ok for c in cits)), den=float(len(cits)))
