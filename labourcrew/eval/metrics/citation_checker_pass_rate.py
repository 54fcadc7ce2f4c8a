"""Citation-Checker pass rate (paper B.6): share of all citations (released or not) that pass the
Citation Checker -- cited node on the Evidence Pack and span verbatim in it after normalisation.

Unit: citation. Undefined for runs without citations or without a checker result.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, Metric, Ratio

__all__ = ["CitationCheckerPassRate"]


class CitationCheckerPassRate(Metric):
    """Passing citations over all checked citations."""

    name = "citation_checker_pass_rate"
    description = "share of all claims' citations that pass the Citation Checker"
    unit = "citation"

    def score(self, run: EvalRun) -> Ratio:
        checked = [c.checker_ok for claim in run.claims for c in claim.citations if c.checker_ok is not None]
        return Ratio(num=float(sum(checked)), den=float(len(checked)))
