"""The Supervisor (paper §3.1, §3.5): deterministic control of the board.

Two jobs:

1. **Route** at the board's three decision points (:func:`supervise`, the ``supervisor`` node).
   A counsel round is Worker Counsel, Employer Counsel and the Legal Interpreter in parallel.

   * after a counsel round (phase ``deliberation``): a **rebuttal round** (both counsels again,
     each seeing the other's claims) only when a Worker and an Employer claim contradict each other
     (:func:`sides_conflict`), no counsel failed and fewer than
     ``settings.board.max_deliberation_rounds`` rounds ran; otherwise the Citation Checker;
   * after the Citation Checker (phase ``check``): when a cited unit's provisos or
     cross-references are not on the pack (:func:`evidence_gap`) and fewer than
     ``settings.board.max_retrieval_rounds`` re-entries happened, **re-enter retrieval** before
     any audit (the planner turns the request into a clamped plan; new units are merged into the
     pack; a new counsel round argues them); otherwise the **Trust Auditor**, one call for every
     claim without a finding (composition when there is none);
   * after the audits (phase ``audit``): record contradictions between claims
     (:func:`~labourcrew.audit.skeptic.claim_conflicts`); when the Trust Auditor asked for
     evidence that is not on the pack yet and re-entries remain, merge its requests into one and
     re-enter retrieval; otherwise **force composition** (Trust Gate + Opinion Writer).

   Checking the gap before the audits means one audit call covers every round's claims; a rebuttal
   only where the sides disagree spares two calls per question. The LangGraph recursion limit
   (``settings.board.recursion_limit``, 50) bounds the whole run.

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
   retrieval_planner       no new retrieval this round                 the counsel round
   statute_retriever       no new units this round                     the counsel round
   link_hopper             direct hits without hops                    the counsel round
   worker/employer c.      none (the other side argues alone)          supervisor
   legal_interpreter       none (no governing-rule claim)              supervisor
   citation_checker        none (the gate re-checks anyway)            supervisor
   trust_auditor (round)   none (every claim of the round is NEI)      supervisor
   supervisor              none                                        trust_gate
   trust_gate              UNDECIDED, fixed notice                     end
   ======================  =========================================  =========================
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
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
from labourcrew.board.routing import COUNSEL_ROUND, COUNSELS, unaudited
from labourcrew.board.state import CaseLedger, NextStep
from labourcrew.gate.opinion_writer import fallback_opinion
from labourcrew.gate.trust_gate import premise_errors, undecided_result
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.audit import ClaimConflict
from labourcrew.ledger.records import Claim, EvidencePack, RoleStatus, Side
from labourcrew.ledger.roles import LANGUAGE_ROLES, RetrievalRequest, Role
from labourcrew.ledger.run import RoleCall
from labourcrew.retrieval.link_hopper import LINK_EDGES, link_on_pack, required_links
from labourcrew.statute.model import EdgeType

__all__ = [
    "supervise",
    "supervisor",
    "actionable_requests",
    "evidence_gap",
    "sides_conflict",
    "merge_requests",
    "failure_recorder",
    "FALLBACKS",
]

logger = logging.getLogger(__name__)

def _missing(graph: StatuteGraph, seed: str, edges: Iterable[EdgeType], on_pack: set[str]) -> list[str]:
    return [t for t in required_links(graph, seed, edges) if not link_on_pack(t, on_pack)]


def actionable_requests(
    requests: Sequence[RetrievalRequest], pack: EvidencePack, graph: StatuteGraph
) -> list[RetrievalRequest]:
    """Requests that could add evidence: a seed with a required link
    (:func:`~labourcrew.retrieval.link_hopper.required_links`, along the requested edges) not on
    the pack yet, or a text query. Seeds without such links are dropped from the request.
    """
    on_pack = pack.node_ids()
    out: list[RetrievalRequest] = []
    for req in requests:
        edges = {EdgeType(e) for e in req.edge_types if e in EdgeType._value2member_map_}
        seeds = [s for s in req.seeds if _missing(graph, s, edges or LINK_EDGES, on_pack)]
        if seeds or req.queries:
            out.append(req.model_copy(update={"seeds": seeds}))
    return out


def evidence_gap(
    claims: Sequence[Claim], pack: EvidencePack, graph: StatuteGraph, asked: Iterable[str] = ()
) -> RetrievalRequest | None:
    """The evidence a round's claims lack: the cited units with a required link
    (:func:`~labourcrew.retrieval.link_hopper.required_links`: a proviso or cross-reference) not
    on the pack (units already asked for excluded), as one request; None when
    nothing is missing. The Supervisor checks it after the Citation Checker and before the audits,
    so a re-entry round costs no audit call of its own (one audit covers every round).
    """
    on_pack = pack.node_ids()
    done = set(asked)
    seeds = [
        n for n in dict.fromkeys(n for c in claims for n in c.cited_node_ids())
        if n not in done and _missing(graph, n, LINK_EDGES, on_pack)
    ]
    if not seeds:
        return None
    return RetrievalRequest(
        seeds=seeds,
        edge_types=[e.value for e in LINK_EDGES],
        hops=1,
        reason="a cited unit's provisos or cross-references are not on the Evidence Pack",
    )


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


def sides_conflict(claims: Sequence[Claim]) -> list[ClaimConflict]:
    """Contradictions (:func:`~labourcrew.audit.skeptic.claim_conflicts`) between a Worker and an
    Employer Counsel claim: what a rebuttal round is for.
    """
    side = {c.claim_id: c.side for c in claims}
    counsel = (Side.WORKER, Side.EMPLOYER)
    return [
        x for x in claim_conflicts(list(claims))
        if side[x.a] in counsel and side[x.b] in counsel and side[x.a] != side[x.b]
    ]


def _reenter(state: CaseLedger, request: RetrievalRequest) -> dict[str, Any]:
    return {
        "next_step": NextStep.RETRIEVE,
        "pending_request": request,
        "retrieval_round": state.get("retrieval_round", 0) + 1,
        "deliberation_round": 0,
        "phase": "deliberation",
    }


def supervise(
    state: CaseLedger, *, graph: StatuteGraph, max_retrieval_rounds: int, max_deliberation_rounds: int = 2
) -> dict[str, Any]:
    """The Supervisor's routing decision as a ledger update (module docstring).

    Returns:
        An update with ``next_step`` and the counters it changes (``phase``,
        ``deliberation_round``, ``retrieval_round``, ``requests_consumed``, ``pending_request``,
        ``retrieval_requests`` for an evidence gap); at composition also ``conflicts``.
    """
    phase = state.get("phase", "deliberation")
    claims = list(state.get("claims") or [])
    pack = state.get("pack") or EvidencePack()
    rounds = state.get("retrieval_round", 0)
    if phase == "deliberation":
        done = state.get("deliberation_round", 0) + 1
        if done < max_deliberation_rounds and not _counsel_failed(state) and sides_conflict(claims):
            return {"next_step": NextStep.REBUT, "deliberation_round": done}
        return {"next_step": NextStep.CHECK, "phase": "check", "deliberation_round": done}
    requests = list(state.get("retrieval_requests") or [])
    if phase == "check":
        if rounds < max_retrieval_rounds:
            gap = evidence_gap(claims, pack, graph, asked=(s for r in requests for s in r.seeds))
            if gap is not None:
                return {**_reenter(state, gap), "retrieval_requests": [gap], "requests_consumed": len(requests) + 1}
        if unaudited(state):
            return {"next_step": NextStep.AUDIT, "phase": "audit", "requests_consumed": len(requests)}
        return {"next_step": NextStep.COMPOSE, "conflicts": claim_conflicts(claims)}
    new = requests[state.get("requests_consumed", 0):]
    update: dict[str, Any] = {
        "requests_consumed": len(requests),
        "pending_request": None,
        "conflicts": claim_conflicts(claims),
    }
    useful = actionable_requests(new, pack, graph)
    if useful and rounds < max_retrieval_rounds:
        update.update(_reenter(state, merge_requests(useful)))
        return update
    update["next_step"] = NextStep.COMPOSE
    return update


def supervisor(state: CaseLedger, runtime: Runtime[BoardContext]) -> dict[str, Any]:
    """Supervisor (paper §3.1): deterministic routing -- rebuttal round, Citation Checker,
    retrieval re-entry for an evidence gap or the auditor's request (at most
    ``max_retrieval_rounds``), the audits, or forced composition.

    Reads: ``phase``, ``claims``, ``findings``, ``role_calls``, ``retrieval_requests``,
    ``requests_consumed``, ``pack``, counters. Writes: ``next_step``, ``phase``,
    ``deliberation_round``, ``retrieval_round``, ``pending_request``, ``requests_consumed``,
    ``retrieval_requests``, ``conflicts``, ``role_calls``.
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
        "premise_errors": premise_errors(spotting.section_labels, resolved, state["version"], ctx.deps.graph),
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


FALLBACKS: dict[Role, tuple[Fallback | None, str | None, Goto]] = {
    Role.ISSUE_SPOTTER: (_spotter_fallback, "rule-based issue spotter", Role.RETRIEVAL_PLANNER.value),
    Role.RETRIEVAL_PLANNER: (None, "no new retrieval this round", COUNSEL_ROUND),
    Role.STATUTE_RETRIEVER: (None, "no new units this round", COUNSEL_ROUND),
    Role.LINK_HOPPER: (_hopper_fallback, "direct hits without hops", COUNSEL_ROUND),
    Role.WORKER_COUNSEL: (None, None, Role.SUPERVISOR.value),
    Role.EMPLOYER_COUNSEL: (None, None, Role.SUPERVISOR.value),
    Role.LEGAL_INTERPRETER: (None, None, Role.SUPERVISOR.value),
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
