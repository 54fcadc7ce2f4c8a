"""Routers of the deliberation board: pure functions of the ledger (paper §3.1).

* :func:`route_supervisor` -- the Supervisor's decision (``next_step``) to node names: both
  counsels (a rebuttal round), the Citation Checker, the Retrieval Planner (re-entry), the Trust
  Auditor (one :class:`~langgraph.types.Send` carrying every claim still lacking a finding) or the
  Trust Gate (composition).
* :func:`route_audits` -- that one Send (the auditor judges all the claims in one call); the
  Trust Gate when there is nothing to audit.

A counsel round is always Worker Counsel, Employer Counsel and the Legal Interpreter in parallel
(:data:`COUNSEL_ROUND`): the interpreter reads the pack and the claims of earlier rounds, not its
neighbours' claims of the same round.
"""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from labourcrew.board.roles import AuditTask, cited_texts
from labourcrew.board.state import CaseLedger, NextStep
from labourcrew.ledger.records import EvidencePack
from labourcrew.ledger.roles import Role

__all__ = ["SUPERVISOR_TARGETS", "COUNSEL_ROUND", "COUNSELS", "route_supervisor", "route_audits", "unaudited"]

COUNSELS = [Role.WORKER_COUNSEL.value, Role.EMPLOYER_COUNSEL.value]
"""The two sides: a rebuttal round runs only these."""

COUNSEL_ROUND = [*COUNSELS, Role.LEGAL_INTERPRETER.value]
"""One counsel round: both sides and the Legal Interpreter, in parallel (one sequential stage)."""

SUPERVISOR_TARGETS = [
    Role.WORKER_COUNSEL.value,
    Role.EMPLOYER_COUNSEL.value,
    Role.CITATION_CHECKER.value,
    Role.RETRIEVAL_PLANNER.value,
    Role.TRUST_AUDITOR.value,
    Role.TRUST_GATE.value,
]

SupervisorTarget = Literal["worker_counsel", "employer_counsel", "citation_checker", "retrieval_planner", "trust_gate"]


_ROUTES: dict[NextStep, list[str] | str] = {
    NextStep.REBUT: COUNSELS,
    NextStep.CHECK: Role.CITATION_CHECKER.value,
    NextStep.RETRIEVE: Role.RETRIEVAL_PLANNER.value,
    NextStep.COMPOSE: Role.TRUST_GATE.value,
}


def route_supervisor(state: CaseLedger) -> list[SupervisorTarget] | SupervisorTarget | list[Send]:
    """Node(s) to run after the Supervisor, from its ``next_step``.

    Raises:
        ValueError: ``next_step`` is missing or not a :class:`~labourcrew.board.state.NextStep`
            (a wiring bug: the Supervisor always writes one, and its failure handler routes to the
            Trust Gate directly). The board stops loudly instead of falling through to the gate.
    """
    step = state.get("next_step")
    try:
        decision = NextStep(step)
    except ValueError as exc:
        raise ValueError(f"the Supervisor's next_step {step!r} is not one of {[s.value for s in NextStep]}") from exc
    if decision == NextStep.AUDIT:
        return route_audits(state)
    return _ROUTES[decision]  # type: ignore[return-value]


def unaudited(state: CaseLedger) -> list:
    """The claims without a Trust Auditor finding, in ledger order."""
    findings = state.get("findings") or {}
    return [c for c in state.get("claims") or [] if c.claim_id not in findings]


def route_audits(state: CaseLedger) -> list[Send] | Literal["trust_gate"]:
    """One Trust Auditor task: the claims without a finding, in ledger order (the gate when none)."""
    todo = unaudited(state)
    if not todo:
        return Role.TRUST_GATE.value  # type: ignore[return-value]
    pack = state.get("pack") or EvidencePack()
    r = state.get("retrieval_round", 0)
    task = AuditTask(claims=todo, question=state["question"], cited_texts=cited_texts(todo, pack), retrieval_round=r)
    return [Send(Role.TRUST_AUDITOR.value, task)]
