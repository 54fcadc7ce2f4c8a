"""Path Completeness (paper B.6): are the links a cited rule depends on on the Evidence Pack?

A statute unit is only complete with the units it points to: its provisos (which qualify it) and
the sections it cross-references (``ধারা ২৭ এর অধীন``). For each question, take the distinct units
cited by released claims; their *required links* are the union of those provisos and resolved
cross-reference targets (:func:`labourcrew.retrieval.link_hopper.required_links`, the rule the
Supervisor's evidence-gap check uses; a chapter target is only a title and is not counted;
precomputed by the adapter as :attr:`~labourcrew.eval.metrics.base.EvalCitation.linked`). The score is
``(#required links on the pack, #required links)`` (a link counts as on the pack when it or a unit
inside it is: :func:`~labourcrew.retrieval.link_hopper.link_on_pack`, the Supervisor's rule) -- the share of the reasoning path the
Link Hopper actually put on the ledger for the auditor and the gate to see.

Summed over questions (unit: link). Undefined when no released claim cites a unit with links.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, Metric, Ratio
from labourcrew.retrieval.link_hopper import link_on_pack

__all__ = ["PathCompleteness"]


class PathCompleteness(Metric):
    """Share of the cited units' required links (provisos, cross-references) on the pack."""

    name = "path_completeness"
    description = "share of the provisos/cross-references of cited units that are on the Evidence Pack"
    unit = "link"

    def score(self, run: EvalRun) -> Ratio:
        required: set[str] = set()
        seen: set[str] = set()
        for claim in run.released():
            for cit in claim.citations:
                if cit.node_id in seen:
                    continue
                seen.add(cit.node_id)
                required.update(cit.linked)
        if not required:
            return Ratio()
        on_pack = run.pack_ids()
        return Ratio(num=float(sum(1 for n in required if link_on_pack(n, on_pack))), den=float(len(required)))
