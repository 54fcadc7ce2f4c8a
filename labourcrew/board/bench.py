"""Benchmark hook of the deliberation board ("Performance").

:func:`bench_board` runs a board over questions and reports, per question, wall-clock latency
(p50, p90, p95, max), the release status, the roles that failed, the tokens and, from the recorded
:class:`~labourcrew.ledger.roles.CallUsage`, the model calls: all of them, and the *sequential*
ones on the critical path (the two counsels and the Legal Interpreter run in parallel, so a stage
counts its largest call once), per question and per retrieval round. The goals for an LLM backend
(issue 13) are at most 6 calls and 4 sequential calls per question, on average. Calls of failed and retried attempts count (every chat request sent).

For the offline backend the call counts are 0; :class:`~labourcrew.llm.fakes.OneCallPerRole`
makes every role call count as one chat call, which measures the board's call structure for an
LLM backend without a model. It is the one summary both :mod:`labourcrew.eval.bench` parts use
(the call structure, and the endpoint against the offline default). Nothing here asserts on
time: callers print the report.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.board.build import Board
from labourcrew.board.run import ask

__all__ = ["QuestionTiming", "BoardBench", "bench_board", "quantile"]


class QuestionTiming(BaseModel):
    """One benchmarked question."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(description="The question.")
    version: str | None = Field(default=None, description="Statute version asked (None: the settings' default).")
    latency_s: float = Field(ge=0.0, description="Wall-clock seconds of the run.")
    status: str = Field(description="Release status.")
    rounds: int = Field(ge=1, description="Retrieval rounds.")
    llm_calls: list[int] = Field(description="Model calls per retrieval round.")
    sequential_llm_calls: list[int] = Field(description="Sequential (critical-path) calls per round.")
    tokens_in: int = Field(default=0, ge=0, description="Prompt tokens over the run (all roles, all attempts).")
    tokens_out: int = Field(default=0, ge=0, description="Completion tokens over the run.")
    failed_roles: list[str] = Field(default_factory=list, description="Roles recorded as failed in the run.")


class BoardBench(BaseModel):
    """Benchmark report. Means and percentiles are NaN when no question ran."""

    model_config = ConfigDict(extra="forbid")

    backend: str = Field(description="Backend of the language roles.")
    n: int = Field(ge=0, description="Questions run.")
    p50_latency_s: float = Field(description="Median latency per question (s).")
    p90_latency_s: float = Field(description="90th percentile latency (s, linear interpolation).")
    p95_latency_s: float = Field(description="95th percentile latency (s, linear interpolation).")
    max_latency_s: float = Field(description="Slowest question (s).")
    statuses: dict[str, int] = Field(description="Release status counts.")
    max_llm_calls_per_round: int = Field(description="Most model calls in one retrieval round.")
    max_sequential_llm_calls_per_round: int = Field(description="Most sequential calls in one round.")
    mean_sequential_llm_calls_per_round: float = Field(description="Mean sequential calls per round.")
    calls_per_question_mean: float = Field(description="Mean model calls per question.")
    calls_per_question_max: int = Field(description="Most model calls in one question.")
    critical_path_per_question_mean: float = Field(description="Mean sequential calls per question (all rounds).")
    critical_path_per_question_max: int = Field(description="Most sequential calls in one question.")
    tokens_in_per_question_mean: float = Field(description="Mean prompt tokens per question.")
    tokens_out_per_question_mean: float = Field(description="Mean completion tokens per question.")
    llm_calls_total: int = Field(ge=0, description="Model calls over all questions.")
    tokens_in_total: int = Field(ge=0, description="Prompt tokens over all questions.")
    tokens_out_total: int = Field(ge=0, description="Completion tokens over all questions.")
    retrieval_rounds_mean: float = Field(description="Mean retrieval rounds per question.")
    failed_roles: dict[str, int] = Field(description="Role -> questions in which it failed.")
    questions_with_failed_roles: int = Field(ge=0, description="Questions in which at least one role failed.")
    questions: list[QuestionTiming] = Field(description="Per-question results.")


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation between order statistics (numpy's
    default); NaN for no values.
    """
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else math.nan


def bench_board(
    board: Board, questions: Sequence[str | tuple[str, str | None]], *, version: str | None = None
) -> BoardBench:
    """Run ``board`` on each question (runs are not saved) and summarise (module docstring).

    Args:
        board: a built board (:func:`labourcrew.wiring.make_board`).
        questions: questions, each a string or a ``(question, statute version)`` pair.
        version: statute version of the questions given as plain strings (None: the default).

    Raises:
        InputError / IndexNotBuiltError: a question or version the board cannot take.
    """
    timings: list[QuestionTiming] = []
    for item in questions:
        q, v = (item, version) if isinstance(item, str) else item
        r = ask(q, version=v, board=board, save=False)
        statuses = r.role_status.values()
        timings.append(
            QuestionTiming(
                question=q,
                version=v,
                latency_s=r.latency_s,
                status=r.status.value,
                rounds=r.rounds,
                llm_calls=[u.llm_calls for u in r.usage],
                sequential_llm_calls=[u.sequential_llm_calls for u in r.usage],
                tokens_in=sum(s["tokens_in"] for s in statuses),
                tokens_out=sum(s["tokens_out"] for s in statuses),
                failed_roles=[role for role, s in r.role_status.items() if s["status"] == "failed"],
            )
        )
    lat = [t.latency_s for t in timings]
    per_round_seq = [s for t in timings for s in t.sequential_llm_calls]
    per_q = [sum(t.llm_calls) for t in timings]
    seq_q = [sum(t.sequential_llm_calls) for t in timings]
    return BoardBench(
        backend=board.deps.backend.name,
        n=len(timings),
        p50_latency_s=quantile(lat, 0.5),
        p90_latency_s=quantile(lat, 0.9),
        p95_latency_s=quantile(lat, 0.95),
        max_latency_s=max(lat) if lat else math.nan,
        statuses=dict(Counter(t.status for t in timings)),
        max_llm_calls_per_round=max((c for t in timings for c in t.llm_calls), default=0),
        max_sequential_llm_calls_per_round=max(per_round_seq, default=0),
        mean_sequential_llm_calls_per_round=statistics.fmean(per_round_seq) if per_round_seq else 0.0,
        calls_per_question_mean=_mean(per_q),
        calls_per_question_max=max(per_q, default=0),
        critical_path_per_question_mean=_mean(seq_q),
        critical_path_per_question_max=max(seq_q, default=0),
        tokens_in_per_question_mean=_mean([t.tokens_in for t in timings]),
        tokens_out_per_question_mean=_mean([t.tokens_out for t in timings]),
        llm_calls_total=sum(per_q),
        tokens_in_total=sum(t.tokens_in for t in timings),
        tokens_out_total=sum(t.tokens_out for t in timings),
        retrieval_rounds_mean=_mean([t.rounds for t in timings]),
        failed_roles=dict(Counter(role for t in timings for role in t.failed_roles)),
        questions_with_failed_roles=sum(1 for t in timings if t.failed_roles),
        questions=timings,
    )
