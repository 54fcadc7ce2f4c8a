"""Chat-model calls per question, from the board's own accounting (``AskResult.usage``).

* ``llm_calls`` -- all model calls of the run;
* ``sequential_llm_calls`` -- calls on the critical path (parallel calls -- the two counsels, the
  per-claim audits -- count once per stage), summed over retrieval rounds.

The offline backend makes no model calls (both 0); the benchmark measures the call structure with
a one-call-per-role stand-in (:mod:`labourcrew.eval.bench`).
"""

from __future__ import annotations

from labourcrew.eval.metrics.base import EvalRun, PerRunMetric

__all__ = ["LLMCalls", "SequentialLLMCalls"]


class LLMCalls(PerRunMetric):
    """Mean model calls per question."""

    name = "llm_calls"
    description = "chat-model calls per question"

    def value(self, run: EvalRun) -> float | None:
        return None if run.llm_calls is None else float(run.llm_calls)


class SequentialLLMCalls(PerRunMetric):
    """Mean critical-path model calls per question."""

    name = "sequential_llm_calls"
    description = "chat-model calls on the critical path per question"

    def value(self, run: EvalRun) -> float | None:
        return None if run.sequential_llm_calls is None else float(run.sequential_llm_calls)
