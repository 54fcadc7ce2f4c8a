"""Unsupported-claim rate (paper B.3-B.4: the Evidence Exchange Protocol cuts it, 6.4% -> 1.2%).

Of the claims in the answer (released claims; for configurations without a gate, every claim they
state), the share with at least one citation that is either **off the ledger** (the cited node
was never put on the run's Evidence Pack, so no role could audit it) or **not verbatim** in the
statute (independent re-check). Judge-free: it measures unsupported *citations*, not meaning.

Unit: claim. Undefined when the answer has no claim.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalClaim, EvalRun, Metric, Ratio

__all__ = ["UnsupportedClaimRate", "is_unsupported"]


def is_unsupported(claim: EvalClaim) -> bool:
    """A claim with a citation off the pack or not verbatim in the statute."""
    return any(not c.on_pack or not c.statute_ok for c in claim.citations) or not claim.citations


class UnsupportedClaimRate(Metric):
    """Answer claims with an off-ledger or non-verbatim citation, over answer claims."""

    name = "unsupported_claim_rate"
    description = "share of answer claims citing off-ledger evidence or a non-verbatim span"
    unit = "claim"

    def score(self, run: EvalRun) -> Ratio:
        answer = run.released()
        return Ratio(num=float(sum(is_unsupported(c) for c in answer)), den=float(len(answer)))
