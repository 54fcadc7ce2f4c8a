"""Benchmark hook of the deliberation board ("Performance").

:func:`bench_board` runs a board over questions and reports wall-clock latency per question
(p50, p90, max) and, from the recorded :class:`~labourcrew.ledger.roles.CallUsage`, the model calls
per retrieval round: all of them, and the *sequential* ones on the critical path (the two counsels
and the per-claim audits run in parallel, so each of those stages counts its largest call once).
The goal for an LLM backend is at most 6 sequential calls per round.

For the offline backend the call counts are 0; :class:`~labourcrew.llm.fakes.OneCallPerRole`
makes every role call count as one chat call, which measures the board's call structure for an
LLM backend without a model. Nothing here asserts on time: callers print the report.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.board.build import Board
from labourcrew.board.run import ask

__all__ = ["QuestionTiming", "BoardBench", "bench_board"]


class QuestionTiming(BaseModel):
    """One benchmarked question."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The question.")
    latency_s: float = Field(ge=0.0, description="Wall-clock seconds of the run.")
    status: str = Field(description="Release status.")
    rounds: int = Field(ge=1, description="Retrieval rounds.")
    llm_calls: list[int] = Field(description="Model calls per retrieval round.")
    sequential_llm_calls: list[int] = Field(description="Sequential (critical-path) calls per round.")


class BoardBench(BaseModel):
    """Benchmark report."""

    model_config = ConfigDict(extra="forbid")

    backend: str = Field(description="Backend of the language roles.")
    n: int = Field(ge=0, description="Questions run.")
    p50_latency_s: float = Field(description="Median latency per question (s).")
    p90_latency_s: float = Field(description="90th percentile latency (s).")
    max_latency_s: float = Field(description="Slowest question (s).")
    statuses: dict[str, int] = Field(description="Release status counts.")
    max_llm_calls_per_round: int = Field(description="Most model calls in one retrieval round.")
    max_sequential_llm_calls_per_round: int = Field(description="Most sequential calls in one round.")
    mean_sequential_llm_calls_per_round: float = Field(description="Mean sequential calls per round.")
    questions: list[QuestionTiming] = Field(description="Per-question results.")


def _quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[idx]


def bench_board(board: Board, questions: Sequence[str], *, version: str | None = None) -> BoardBench:
    """Run ``board`` on each question (runs are not saved) and summarise (module docstring)."""
    timings: list[QuestionTiming] = []
    for q in questions:
        r = ask(q, version=version, board=board, save=False)
        timings.append(
            QuestionTiming(
                question=q,
                latency_s=r.latency_s,
                status=r.status.value,
                rounds=r.rounds,
                llm_calls=[u.llm_calls for u in r.usage],
                sequential_llm_calls=[u.sequential_llm_calls for u in r.usage],
            )
        )
    lat = [t.latency_s for t in timings]
    per_round_seq = [s for t in timings for s in t.sequential_llm_calls]
    return BoardBench(
        backend=board.deps.backend.name,
        n=len(timings),
        p50_latency_s=statistics.median(lat) if lat else float("nan"),
        p90_latency_s=_quantile(lat, 0.9),
        max_latency_s=max(lat) if lat else float("nan"),
        statuses=dict(Counter(t.status for t in timings)),
        max_llm_calls_per_round=max((c for t in timings for c in t.llm_calls), default=0),
        max_sequential_llm_calls_per_round=max(per_round_seq, default=0),
        mean_sequential_llm_calls_per_round=statistics.fmean(per_round_seq) if per_round_seq else 0.0,
        questions=timings,
    )
