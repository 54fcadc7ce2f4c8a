"""Evidence Coverage (paper B.6): how much of the question's primary issue the answer's evidence covers.

Per question: the Trust Gate's coverage share (:func:`labourcrew.gate.trust_gate.coverage`) of
the primary issue by the *released* claims -- the share of the sections the question names that
an accepted claim cites, else the share of the primary concept's Act wording found in the cited
sections (the adapter computes the same share for baselines, whose answer claims count as
released). A run that released nothing, or halted, covers nothing: 0.

Defined on answerable questions (every category but ``unanswerable``, which has no issue the Act
settles); undefined elsewhere.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, PerRunMetric

__all__ = ["EvidenceCoverage"]


class EvidenceCoverage(PerRunMetric):
    """Mean share of the primary issue covered by the released claims' evidence."""

    name = "evidence_coverage"
    description = "share of the primary issue covered by the released claims' evidence (answerable items)"

    def value(self, run: EvalRun) -> float | None:
        if not run.answerable:
            return None
        if run.halted or not run.released():
            return 0.0
        return run.coverage_share if run.coverage_share is not None else 0.0
