"""Citation-Based Precision (paper B.6; multi-hop target >= 0.55, the paper reports 0.412).

Of the citations of released claims, the share that point into a gold section: the cited unit
lies in (or, for a chunk, covers) the section of one of the item's gold labels. Section-level
precision: citing ``27(1)`` for gold ``27(3A)`` counts, citing ``26`` does not.

Unit: citation. Defined on items with gold citations; undefined when nothing was released.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import (
    EvalCitation,
    EvalRun,
    Metric,
    Ratio,
)
from labourcrew.statute.ids import section_of_label

__all__ = ["CitationBasedPrecision", "cites_gold_section"]


def cites_gold_section(cit: EvalCitation, gold: list[str]) -> bool:
    """Whether a citation lies in (or covers) a gold label's section."""
    secs = {section_of_label(g) for g in gold}
    return any(s in secs for s in cit.sections)


class CitationBasedPrecision(Metric):
    """Share of released citations that lie in a gold section."""

    name = "citation_based_precision"
    description = "share of released claims' citations that lie in a gold section"
    unit = "citation"

    def score(self, run: EvalRun) -> Ratio:
        if not run.gold_sections:
            return Ratio()
        cits = [c for claim in run.released() for c in claim.citations]
        return Ratio(num=float(sum(cites_gold_section(c, run.gold_sections) for c in cits)), den=float(len(cits)))
