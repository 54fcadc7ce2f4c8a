"""Routers of the deliberation board: pure functions of the ledger (paper §3.1).

* :func:`route_supervisor` -- the Supervisor's decision (``next_step``) to node names: both
  counsels (a rebuttal round; the last one with the Legal Interpreter beside it), the Legal
  Interpreter, the Retrieval Planner (re-entry) or the Trust Gate (composition).
* :func:`route_counsel` -- after a counsel round: the Supervisor, or the Citation Checker after the
  last rebuttal round.
* :func:`route_audits` -- one :class:`~langgraph.types.Send` per round carrying every claim still
  lacking a Trust Auditor finding (the auditor judges them in one call); straight to the
  Supervisor when there is nothing to audit.
"""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from labourcrew.board.roles import AuditTask, cited_texts
from labourcrew.board.state import CaseLedger, NextStep
from labourcrew.ledger.records import EvidencePack
from labourcrew.ledger.roles import Role

__all__ = ["SUPERVISOR_TARGETS", "COUNSEL_TARGETS", "route_supervisor", "route_counsel", "route_audits"]

SUPERVISOR_TARGETS = [
    Role.WORKER_COUNSEL.value,
    Role.EMPLOYER_COUNSEL.value,
    Role.LEGAL_INTERPRETER.value,
    Role.RETRIEVAL_PLANNER.value,
    Role.TRUST_GATE.value,
]

SupervisorTarget = Literal["worker_counsel", "employer_counsel", "legal_interpreter", "retrieval_planner", "trust_gate"]


_ROUTES: dict[NextStep, list[str] | str] = {
    NextStep.DELIBERATE: [Role.WORKER_COUNSEL.value, Role.EMPLOYER_COUNSEL.value],
    NextStep.REBUT: [Role.WORKER_COUNSEL.value, Role.EMPLOYER_COUNSEL.value, Role.LEGAL_INTERPRETER.value],
    NextStep.INTERPRET: Role.LEGAL_INTERPRETER.value,
    NextStep.RETRIEVE: Role.RETRIEVAL_PLANNER.value,
    NextStep.COMPOSE: Role.TRUST_GATE.value,
}


def route_supervisor(state: CaseLedger) -> list[SupervisorTarget] | SupervisorTarget:
    """Node(s) to run after the Supervisor, from its ``next_step``.

    Raises:
        ValueError: ``next_step`` is missing or not a :class:`~labourcrew.board.state.NextStep`
            (a wiring bug: the Supervisor always writes one, and its failure handler routes to the
            Trust Gate directly). The board stops loudly instead of falling through to the gate.
    """
    step = state.get("next_step")
    try:
        return _ROUTES[NextStep(step)]  # type: ignore[return-value]
    except (ValueError, KeyError) as exc:
        raise ValueError(f"the Supervisor's next_step {step!r} is not one of {[s.value for s in NextStep]}") from exc


COUNSEL_TARGETS = [Role.SUPERVISOR.value, Role.CITATION_CHECKER.value]


def route_counsel(state: CaseLedger) -> Literal["supervisor", "citation_checker"]:
    """After a counsel round: the Supervisor decides, unless it was the last rebuttal round (phase
    ``audit``), which ran beside the Legal Interpreter and goes straight to the Citation Checker.
    """
    return Role.CITATION_CHECKER.value if state.get("phase") == "audit" else Role.SUPERVISOR.value  # type: ignore[return-value]


def route_audits(state: CaseLedger) -> list[Send] | Literal["supervisor"]:
    """One Trust Auditor task for the round: the claims without a finding, in ledger order."""
    findings = state.get("findings") or {}
    pack = state.get("pack") or EvidencePack()
    todo = [c for c in state.get("claims") or [] if c.claim_id not in findings]
    if not todo:
        return "supervisor"
    r = state.get("retrieval_round", 0)
    task = AuditTask(claims=todo, question=state["question"], cited_texts=cited_texts(todo, pack), retrieval_round=r)
    return [Send(Role.TRUST_AUDITOR.value, task)]
