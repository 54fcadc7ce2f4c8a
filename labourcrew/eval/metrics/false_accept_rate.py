"""False-accept rate (paper B.5): share of released claims a person labelled unfaithful.

Needs labels from the annotation store (:class:`~labourcrew.gate.labels.LabelStore`), attached to
claims by the adapter; claims without a faithful/unfaithful label are not counted ("unsure" is
not a label here). Unit: labelled released claim. Undefined without labels -- the normal case on
the reporting split, whose claims are not labelled.
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, Metric, Ratio

__all__ = ["FalseAcceptRate"]


class FalseAcceptRate(Metric):
    """Unfaithful over labelled released claims."""

    name = "false_accept_rate"
    description = "share of labelled released claims labelled unfaithful"
    unit = "claim"

    def score(self, run: EvalRun) -> Ratio:
        labelled = [c.human_label for c in run.released() if c.human_label in ("faithful", "unfaithful")]
        return Ratio(num=float(sum(lb == "unfaithful" for lb in labelled)), den=float(len(labelled)))
