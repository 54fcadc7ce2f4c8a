"""Retrieval and deliberation rounds (paper B.6), read from the run.

* ``retrieval_rounds`` -- retrieval passes per question: 1 + the Supervisor's re-entries;
* ``deliberation_rounds`` -- counsel rounds in the last retrieval round (opening + rebuttal).

Per-question means; undefined for configurations without the stage (single-pass RAG has one
retrieval and no deliberation: its deliberation rounds are 0, not undefined).
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, PerRunMetric

__all__ = ["RetrievalRounds", "DeliberationRounds"]


class RetrievalRounds(PerRunMetric):
    """Mean retrieval rounds per question."""

    name = "retrieval_rounds"
    description = "retrieval rounds per question (1 + Supervisor re-entries)"

    def value(self, run: EvalRun) -> float | None:
        return None if run.retrieval_rounds is None else float(run.retrieval_rounds)


class DeliberationRounds(PerRunMetric):
    """Mean counsel rounds per question."""

    name = "deliberation_rounds"
    description = "counsel rounds in the last retrieval round"

    def value(self, run: EvalRun) -> float | None:
        return None if run.deliberation_rounds is None else float(run.deliberation_rounds)
