"""Contradiction residual (paper B.6): challenges left unresolved in the released answer.

A *challenge pair* is a claim with ``challenge_to`` naming another claim of the run (a rebuttal).
The pair is *residual* when both claims were released: the answer states both sides of a
disagreement without the gate having settled it. Score ``(#residual pairs, #pairs)``.

Unit: pair. Undefined for runs without challenges (e.g. single-pass RAG).
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, Metric, Ratio

__all__ = ["ContradictionResidual"]


class ContradictionResidual(Metric):
    """Share of challenge pairs whose both claims were released."""

    name = "contradiction_residual"
    description = "share of challenge pairs with both claims released"
    unit = "pair"

    def score(self, run: EvalRun) -> Ratio:
        ids = {c.claim_id for c in run.claims}
        released = {c.claim_id for c in run.released()}
        pairs = [(c.claim_id, c.challenge_to) for c in run.claims if c.challenge_to in ids]
        return Ratio(num=float(sum(a in released and b in released for a, b in pairs)), den=float(len(pairs)))
