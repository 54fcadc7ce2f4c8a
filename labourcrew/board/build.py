"""The one wiring file of the deliberation board (paper §3.1, Fig. 1).

:func:`build_board` assembles the LangGraph ``StateGraph`` over the Formal Case Ledger and
compiles it; nothing is compiled at import time. Topology::

    START -> issue_spotter -> retrieval_planner -> statute_retriever -> link_hopper
    link_hopper -> worker_counsel || employer_counsel || legal_interpreter   (one parallel stage)
    worker_counsel, employer_counsel, legal_interpreter -> supervisor        (fan-in)
    supervisor -> worker_counsel + employer_counsel   (rebuttal: only when the sides contradict)
               |  citation_checker -> supervisor
               |  retrieval_planner                   (re-entry: an evidence gap before the audits,
                                                        or the auditor's request after them; at
                                                        most max_retrieval_rounds)
               |  trust_auditor (one Send: every claim without a finding, one call) -> supervisor
               |  trust_gate -> END                   (composition)

Every node carries a ``RetryPolicy`` (``max_attempts = settings.board.role_retries + 1``, retry on
:class:`~labourcrew.errors.TransientRoleError` only) and an error handler from
:func:`labourcrew.board.supervisor.failure_recorder`. The topology is snapshot-tested against
``tests/board/snapshots/board.mmd`` (:mod:`labourcrew.board.topology`).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from labourcrew.board.deps import BoardDeps
from labourcrew.board.roles import (
    AuditTask,
    BoardContext,
    citation_checker,
    employer_counsel,
    issue_spotter,
    legal_interpreter,
    link_hopper,
    retrieval_planner,
    statute_retriever,
    trust_auditor,
    trust_gate,
    worker_counsel,
)
from labourcrew.board.routing import (
    COUNSEL_ROUND,
    SUPERVISOR_TARGETS,
    route_supervisor,
)
from labourcrew.board.state import CaseLedger
from labourcrew.board.supervisor import failure_recorder, supervisor
from labourcrew.errors import LabourCrewError
from labourcrew.ledger.records import EvidencePack
from labourcrew.ledger.roles import Role
from labourcrew.ledger.run import RunMeta
from labourcrew.retrieval.thesaurus import load_thesaurus
from labourcrew.settings import Settings

__all__ = ["Board", "build_board", "retry_policy"]

logger = logging.getLogger(__name__)


def retry_policy(settings: Settings, deps: BoardDeps) -> RetryPolicy:
    """The declared retry policy of every role node."""
    return RetryPolicy(
        initial_interval=deps.retry_interval_s,
        backoff_factor=2.0,
        max_interval=max(deps.retry_interval_s * 8, 0.05),
        max_attempts=settings.board.role_retries + 1,
        jitter=deps.retry_jitter,
        retry_on=_retryable,
    )


def _retryable(exc: BaseException) -> bool:
    # The error tree says whether a retry may help (errors.LabourCrewError.retryable): a timeout or
    # a malformed reply is retried, a refusal or bad input is not.
    return isinstance(exc, LabourCrewError) and exc.retryable


class Board:
    """A compiled deliberation board with its settings and dependencies.

    Use :func:`build_board`. :meth:`invoke` runs one prepared ledger to its final state;
    :func:`labourcrew.board.run.ask` / :func:`~labourcrew.board.run.stream` validate the question,
    run the board, build the CLI/JSON result and save the run.
    """

    def __init__(self, compiled: Any, settings: Settings, deps: BoardDeps):
        self.compiled = compiled
        self.settings = settings
        self.deps = deps
        self.context = BoardContext(settings=settings, deps=deps)

    def get_graph(self) -> Any:
        """The LangGraph drawable graph (``.draw_mermaid()``)."""
        return self.compiled.get_graph()

    @property
    def config(self) -> dict[str, Any]:
        """Run config: the recursion limit of the settings (paper: 50)."""
        return {"recursion_limit": self.settings.board.recursion_limit}

    def initial_state(self, question: str, version: str, *, english: bool = False, run_id: str | None = None) -> CaseLedger:
        """The ledger a run starts from (inputs and counters)."""
        meta = RunMeta(
            run_id=run_id or self.deps.new_run_id(),
            created=self.deps.now_iso(),
            statute_version=version,
            settings_hash=self.settings.hash(),
            backend=self.deps.backend.name,
            prompt_hashes=dict(self.deps.prompt_hashes),
            gate_mode=self.settings.gate.mode,
        )
        return CaseLedger(
            meta=meta,
            question=question,
            version=version,
            want_english=english,
            pack=EvidencePack(),
            claims=[],
            rejected_by_eep=[],
            citation_checks={},
            findings={},
            retrieval_requests=[],
            role_calls=[],
            retrieval_round=0,
            deliberation_round=0,
            phase="deliberation",
            requests_consumed=0,
            pending_request=None,
            premise_errors=[],
            section_ids=[],
        )

    def invoke(self, state: CaseLedger) -> CaseLedger:
        """Run the board to the end from ``state``; returns the final ledger."""
        return self.compiled.invoke(state, config=self.config, context=self.context)


def build_board(settings: Settings, deps: BoardDeps) -> Board:
    """Wire and compile the deliberation board (module docstring).

    Args:
        settings: LabourCrew settings (board group: retries, rounds, recursion limit; gate group).
        deps: injected dependencies (built by :func:`labourcrew.wiring.make_deps`).

    Returns:
        A :class:`Board`.

    Raises:
        IndexNotBuiltError / ConfigError: only when ``deps`` is None and the defaults cannot be
            built.
        DataError: ``deps.thesaurus`` is None and the settings' thesaurus file is unreadable.
    """
    if deps.thesaurus is None:
        # A copy: the caller's deps may serve boards whose settings name another thesaurus.
        deps = dataclasses.replace(deps, thesaurus=load_thesaurus(settings.relevance.thesaurus_path))
    retry = retry_policy(settings, deps)
    g: StateGraph = StateGraph(CaseLedger, context_schema=BoardContext)

    def add(role: Role, fn: Any, **kw: Any) -> None:
        g.add_node(role.value, fn, retry_policy=retry, error_handler=failure_recorder(role), **kw)

    add(Role.ISSUE_SPOTTER, issue_spotter)
    add(Role.RETRIEVAL_PLANNER, retrieval_planner)
    add(Role.STATUTE_RETRIEVER, statute_retriever)
    add(Role.LINK_HOPPER, link_hopper)
    add(Role.WORKER_COUNSEL, worker_counsel)
    add(Role.EMPLOYER_COUNSEL, employer_counsel)
    add(Role.SUPERVISOR, supervisor)
    add(Role.LEGAL_INTERPRETER, legal_interpreter)
    add(Role.CITATION_CHECKER, citation_checker)
    add(Role.TRUST_AUDITOR, trust_auditor, input_schema=AuditTask)
    add(Role.TRUST_GATE, trust_gate)

    g.add_edge(START, Role.ISSUE_SPOTTER.value)
    g.add_edge(Role.ISSUE_SPOTTER.value, Role.RETRIEVAL_PLANNER.value)
    g.add_edge(Role.RETRIEVAL_PLANNER.value, Role.STATUTE_RETRIEVER.value)
    g.add_edge(Role.STATUTE_RETRIEVER.value, Role.LINK_HOPPER.value)
    for node in COUNSEL_ROUND:
        g.add_edge(Role.LINK_HOPPER.value, node)
        g.add_edge(node, Role.SUPERVISOR.value)
    g.add_conditional_edges(Role.SUPERVISOR.value, route_supervisor, SUPERVISOR_TARGETS)
    g.add_edge(Role.CITATION_CHECKER.value, Role.SUPERVISOR.value)
    g.add_edge(Role.TRUST_AUDITOR.value, Role.SUPERVISOR.value)
    g.add_edge(Role.TRUST_GATE.value, END)
    compiled = g.compile(name="labourcrew-board")
    logger.debug("board compiled: backend=%s", deps.backend.name)
    return Board(compiled, settings, deps)
