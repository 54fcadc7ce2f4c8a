"""Gold-section hit of accepted claims: does the released answer cite a governing section?

Per question with gold citations: 1 when some released claim cites a unit lying in (or a chunk
covering) the section of one of the gold labels, else 0 -- a question answered with nothing
released, or only with other sections, misses.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, PerRunMetric
from labourcrew.eval.metrics.citation_based_precision import cites_gold_section

__all__ = ["GoldSectionHit", "hits_gold"]


def hits_gold(run: EvalRun) -> bool:
    """Whether a released claim of ``run`` cites a gold section."""
    return any(cites_gold_section(c, run.gold_sections) for claim in run.released() for c in claim.citations)


class GoldSectionHit(PerRunMetric):
    """Share of questions whose released claims cite a gold section."""

    name = "gold_section_hit"
    description = "share of items whose released claims cite a gold section (items with gold)"

    def value(self, run: EvalRun) -> float | None:
        if not run.gold_sections:
            return None
        return 1.0 if hits_gold(run) else 0.0
