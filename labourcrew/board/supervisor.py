"""The Supervisor (paper §3.1, §3.5): deterministic control of the board.

Two jobs:

1. **Route** at the board's two decision points (:func:`supervise`, the ``supervisor`` node):

   * after a counsel round (phase ``deliberation``): run the rebuttal round (each counsel sees the
     other's claims and may challenge one) when fewer than ``settings.board.max_deliberation_rounds`` rounds
     ran, no counsel failed and both sides made claims -- the last rebuttal round runs with the Legal
     Interpreter beside it (it reads the opening claims) and goes on to the Citation Checker;
     otherwise go to the Legal Interpreter;
   * after the audits (phase ``audit``): record contradictions between claims
     (:func:`~labourcrew.audit.skeptic.claim_conflicts`); when the Trust Auditor asked for evidence that is not on
     the pack yet and fewer than ``settings.board.max_retrieval_rounds`` re-entries happened,
     merge the requests into one and **re-enter retrieval** (the planner turns it into a clamped
     plan; new units are merged into the pack; the counsels deliberate again); otherwise **force
     composition** (Trust Gate + Opinion Writer).

   The LangGraph recursion limit (``settings.board.recursion_limit``, 50) bounds the whole run.

2. **Isolate failures** (:func:`failure_recorder`): every role node is declared with a
   ``RetryPolicy`` (transient errors retried with back-off) and an error handler built here. The
   handler runs only after LangGraph has exhausted the retries (or at once for a non-transient
   error); it records a ``failed`` :class:`~labourcrew.ledger.records.RoleStatus` (attempts, error,
   latency, backend, and the chat calls and tokens of every failed attempt), applies the role's
   documented fallback and routes on, so a run degrades and never crashes:

   ======================  =========================================  =========================
   failed role             fallback                                    continues at
   ======================  =========================================  =========================
   issue_spotter           the rule-based Issue Spotter                retrieval_planner
   retrieval_planner       no new retrieval this round                 both counsels
   statute_retriever       no new units this round                     both counsels
   link_hopper             direct hits without hops                    both counsels
   worker/employer c.      none (the other side argues alone)          supervisor (citation_checker
                                                                       after the last rebuttal)
   legal_interpreter       none (no governing-rule claim)              citation_checker
   citation_checker        none (the gate re-checks anyway)            supervisor
   trust_auditor (round)   none (every claim of the round is NEI)      supervisor
   supervisor              none                                        trust_gate
   trust_gate              UNDECIDED, fixed notice                     end
   ======================  =========================================  =========================
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from langgraph.errors import NodeError
from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from labourcrew.audit.skeptic import claim_conflicts
from labourcrew.board.roles import (
    ATTEMPT_ATTR,
    DETERMINISTIC,
    AttemptInfo,
    BoardContext,
    _attempt,
    stage_of,
)
from labourcrew.board.state import CaseLedger, NextStep
from labourcrew.gate.opinion_writer import fallback_opinion
from labourcrew.gate.trust_gate import premise_errors, undecided_result
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import EvidencePack, RoleStatus, Side
from labourcrew.ledger.roles import LANGUAGE_ROLES, RetrievalRequest, Role
from labourcrew.ledger.run import RoleCall
from labourcrew.statute.model import EdgeType

__all__ = [

    "supervise",
    "supervisor",
    "actionable_requests",
    "merge_requests",
    "failure_recorder",
    "COUNSELS",
    "FALLBACKS",
]

logger = logging.getLogger(__name__)

"""Counsel rounds per retrieval round: the opening and one rebuttal (paper §3.4)."""

COUNSELS = [Role.WORKER_COUNSEL.value, Role.EMPLOYER_COUNSEL.value]



def actionable_requests(
    requests: Sequence[RetrievalRequest], pack: EvidencePack, graph: StatuteGraph
) -> list[RetrievalRequest]:
    """Requests that could add evidence: a seed with a neighbour (along the requested edges) not on
    the pack yet, or a text query. Seeds without such neighbours are dropped from the request.
    """
    on_pack = pack.node_ids()
    out: list[RetrievalRequest] = []
    for req in requests:
        edges = {EdgeType(e) for e in req.edge_types if e in EdgeType._value2member_map_}
        seeds = []
        for seed in req.seeds:
            if seed not in graph.units:
                continue
            if any(t not in on_pack for _, t in graph.neighbours(seed, edges or None)):
                seeds.append(seed)
        if seeds or req.queries:
            out.append(req.model_copy(update={"seeds": seeds}))
    return out


def merge_requests(requests: Sequence[RetrievalRequest]) -> RetrievalRequest:
    """One request covering several: seeds, edges and queries unioned (in order), the largest hop
    budget, reasons joined.
    """
    seeds = list(dict.fromkeys(s for r in requests for s in r.seeds))
    edges = list(dict.fromkeys(e for r in requests for e in r.edge_types))
    queries = list(dict.fromkeys(q for r in requests for q in r.queries))
    reasons = list(dict.fromkeys(r.reason for r in requests if r.reason))
    return RetrievalRequest(
        seeds=seeds,
        edge_types=edges or ["proviso", "cross_ref"],
        hops=max((r.hops for r in requests), default=1),
        queries=queries,
        reason="; ".join(reasons),
    )


def _counsel_failed(state: CaseLedger) -> bool:
    stage = stage_of(Role.WORKER_COUNSEL, state)
    return any(
        c.stage == stage and c.status.status == "failed" and c.status.role in COUNSELS
        for c in state.get("role_calls") or []
    )


def supervise(
    state: CaseLedger, *, graph: StatuteGraph, max_retrieval_rounds: int, max_deliberation_rounds: int = 2
) -> dict[str, Any]:
    """The Supervisor's routing decision as a ledger update (module docstring).

    Returns:
        An update with ``next_step`` and the counters it changes (``phase``,
        ``deliberation_round``, ``retrieval_round``, ``requests_consumed``, ``pending_request``);
        after the audits also ``conflicts``.
    """
    phase = state.get("phase", "deliberation")
    if phase == "deliberation":
        done = state.get("deliberation_round", 0) + 1
        sides = {c.side for c in state.get("claims") or []}
        both = Side.WORKER in sides and Side.EMPLOYER in sides
        if done < max_deliberation_rounds and both and not _counsel_failed(state):
            if done + 1 < max_deliberation_rounds:
                return {"next_step": NextStep.DELIBERATE, "deliberation_round": done}
            # The last rebuttal: the Legal Interpreter runs beside it (on the opening claims), then
            # the audits -- one sequential model call fewer.
            return {"next_step": NextStep.REBUT, "phase": "audit", "deliberation_round": done}
        return {"next_step": NextStep.INTERPRET, "phase": "audit", "deliberation_round": done}
    requests = list(state.get("retrieval_requests") or [])
    new = requests[state.get("requests_consumed", 0):]
    update: dict[str, Any] = {
        "requests_consumed": len(requests),
        "pending_request": None,
        "conflicts": claim_conflicts(list(state.get("claims") or [])),
    }
    rounds = state.get("retrieval_round", 0)
    useful = actionable_requests(new, state.get("pack") or EvidencePack(), graph)
    if useful and rounds < max_retrieval_rounds:
        update.update(
            next_step=NextStep.RETRIEVE,
            pending_request=merge_requests(useful),
            retrieval_round=rounds + 1,
            deliberation_round=0,
            phase="deliberation",
        )
        return update
    update["next_step"] = NextStep.COMPOSE
    return update


def supervisor(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Supervisor (paper §3.1): deterministic routing -- rebuttal round, interpretation,
    retrieval re-entry (at most ``max_retrieval_rounds``) or forced composition.

    Reads: ``phase``, ``claims``, ``role_calls``, ``retrieval_requests``, ``requests_consumed``,
    ``pack``, counters. Writes: ``next_step``, ``phase``, ``deliberation_round``,
    ``retrieval_round``, ``pending_request``, ``requests_consumed``, ``conflicts``, ``role_calls``.
    """
    ctx = runtime.context
    with _attempt(Role.SUPERVISOR, runtime) as att:
        update = supervise(
            state, graph=ctx.deps.graph, max_retrieval_rounds=ctx.settings.board.max_retrieval_rounds,
            max_deliberation_rounds=ctx.settings.board.max_deliberation_rounds,
        )
        logger.debug("supervisor: %s", update["next_step"])
        update["role_calls"] = [att.call(stage_of(Role.SUPERVISOR, state), state.get("retrieval_round", 0))]
        return update


# ---------------------------------------------------------------- failure recording

Fallback = Callable[[dict, BoardContext, BaseException], dict[str, Any]]
Goto = str | list[str] | Callable[[dict], str | list[str]]


def _spotter_fallback(state: dict, ctx: BoardContext, exc: BaseException) -> dict[str, Any]:
    from labourcrew.retrieval.exact import resolve_label

    spotting = ctx.deps.fallback_spotter(state["question"])  # type: ignore[misc]
    resolved = {lb: resolve_label(ctx.deps.graph, state["version"], lb) for lb in spotting.section_labels}
    return {
        "spotting": spotting,
        "section_ids": list(dict.fromkeys(v for v in resolved.values() if v)),
        "premise_errors": premise_errors(spotting.section_labels, resolved, state["version"]),
    }


def _hopper_fallback(state: dict, ctx: BoardContext, exc: BaseException) -> dict[str, Any]:
    direct = list((state.get("retrieved") or EvidencePack()).items)[: ctx.settings.retrieval.pack_cap]
    return {"pack": EvidencePack(items=direct)}


def _gate_fallback(state: dict, ctx: BoardContext, exc: BaseException) -> dict[str, Any]:
    reason = f"the Trust Gate failed: {type(exc).__name__}"
    return {
        "gate": undecided_result(reason, ctx.deps.calibration, ctx.settings.gate.mode),
        "opinion": fallback_opinion(reason),
    }


def _after_counsel(state: dict) -> str:
    from labourcrew.board.routing import route_counsel

    return route_counsel(state)  # type: ignore[arg-type]


FALLBACKS: dict[Role, tuple[Fallback | None, str | None, Goto]] = {
    Role.ISSUE_SPOTTER: (_spotter_fallback, "rule-based issue spotter", Role.RETRIEVAL_PLANNER.value),
    Role.RETRIEVAL_PLANNER: (None, "no new retrieval this round", COUNSELS),
    Role.STATUTE_RETRIEVER: (None, "no new units this round", COUNSELS),
    Role.LINK_HOPPER: (_hopper_fallback, "direct hits without hops", COUNSELS),
    Role.WORKER_COUNSEL: (None, None, _after_counsel),
    Role.EMPLOYER_COUNSEL: (None, None, _after_counsel),
    Role.LEGAL_INTERPRETER: (None, None, Role.CITATION_CHECKER.value),
    Role.CITATION_CHECKER: (None, "the gate re-checks citations", Role.SUPERVISOR.value),
    Role.TRUST_AUDITOR: (None, "claim counts as NEI", Role.SUPERVISOR.value),
    Role.SUPERVISOR: (None, "composition forced", Role.TRUST_GATE.value),
    Role.TRUST_GATE: (_gate_fallback, "UNDECIDED notice", END),
}


def _error_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 300 else text[:297] + "..."


def failure_recorder(role: Role) -> Callable[..., Command]:
    """The error handler of ``role``'s node: record the failure, apply the fallback, route on.

    LangGraph calls it only after the node's ``RetryPolicy`` is exhausted (see the module
    docstring for each role's fallback and next node).
    """
    fallback, label, goto = FALLBACKS[role]

    def record_failure(state: dict, error: NodeError, runtime: Runtime[BoardContext]) -> Command:
        ctx = runtime.context
        exc = error.error
        info = getattr(exc, ATTEMPT_ATTR, None)
        info = info if isinstance(info, AttemptInfo) else AttemptInfo()
        ctx.tally.pop(info.task)  # the task has ended; its usage is on the exception
        usage = info.usage
        now = ctx.deps.clock()
        backend = ctx.deps.backend.name if role in LANGUAGE_ROLES else DETERMINISTIC
        r = int(state.get("retrieval_round", 0) or 0)
        stage = f"audit@r{r}" if role == Role.TRUST_AUDITOR else stage_of(role, state)  # type: ignore[arg-type]
        status = RoleStatus(
            role=role.value,
            status="failed",
            attempts=int(info.attempt),
            error=_error_text(exc),
            latency_ms=round(max(0.0, (now - info.first) * 1000.0), 3) if info.first else 0.0,
            tokens_in=usage.tokens_in if usage else 0,
            tokens_out=usage.tokens_out if usage else 0,
            backend=usage.backend if usage else backend,
        )
        logger.warning("role %s failed after %d attempt(s): %s", role.value, info.attempt, status.error)
        # A failed audit task is recorded once per claim of the round (each counts as NEI); the
        # task's latency, calls and tokens are reported on the first record only.
        claim_ids: list[str | None] = [None]
        if role == Role.TRUST_AUDITOR:
            claim_ids = [c.claim_id for c in state.get("claims") or []] or [None]
        rest = status.model_copy(update={"latency_ms": 0.0, "tokens_in": 0, "tokens_out": 0})
        update: dict[str, Any] = {
            "role_calls": [
                RoleCall(
                    status=status if k == 0 else rest,
                    stage=stage,
                    retrieval_round=r,
                    llm_calls=usage.llm_calls if usage and k == 0 else 0,
                    cost_usd=usage.cost_usd if usage and k == 0 else 0.0,
                    claim_id=cid,
                    fallback=label,
                )
                for k, cid in enumerate(claim_ids)
            ]
        }
        if fallback is not None:
            update.update(fallback(state, ctx, exc))
        target = goto(state) if callable(goto) else goto
        return Command(update=update, goto=target)

    record_failure.__name__ = f"record_{role.value}_failure"
    record_failure.__qualname__ = record_failure.__name__
    return record_failure
