"""Claim acceptance rate (paper B.6): share of the ledger's claims the Trust Gate released.

Unit: claim. Defined for configurations with a gate on runs that made claims; a halted run's
claims count as not released.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, Metric, Ratio

__all__ = ["ClaimAcceptanceRate"]


class ClaimAcceptanceRate(Metric):
    """Released claims over all claims."""

    name = "claim_acceptance_rate"
    description = "share of claims on the ledger that the Trust Gate released"
    unit = "claim"

    def score(self, run: EvalRun) -> Ratio:
        if not run.has_gate:
            return Ratio()
        return Ratio(num=float(len(run.released())), den=float(len(run.claims)))
