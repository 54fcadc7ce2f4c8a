"""Gold-section recall of the Evidence Pack: did retrieval put the governing units on the ledger?

Per question with gold citations: the share of its gold labels found on the Evidence Pack, with
the retrieval benchmark's rule (:func:`~labourcrew.eval.metrics.base.gold_matches`: a gold section
by any of its units, a gold sub-unit by itself, a descendant, its section header, or a chunk
covering its section). A run without a pack recalls nothing (0).
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, PerRunMetric, gold_matches

__all__ = ["GoldSectionRecall"]


class GoldSectionRecall(PerRunMetric):
    """Mean share of gold labels found on the Evidence Pack."""

    name = "gold_section_recall"
    description = "share of gold labels found on the Evidence Pack (items with gold)"

    def value(self, run: EvalRun) -> float | None:
        gold = list(dict.fromkeys(run.gold_sections))
        if not gold:
            return None
        found = sum(any(gold_matches(g, p.label, p.sections, p.container) for p in run.pack) for g in gold)
        return found / len(gold)
