"""Baselines (paper B.3): the same questions without the board's safeguards.

* **single-pass RAG** (:func:`single_pass_rag`) -- retrieve once (the full retrieval pipeline:
  Issue Spotter, planner, hybrid search, Link Hopper; no re-entry), then answer directly: the top
  :data:`SINGLE_PASS_CLAIMS` units of the Evidence Pack are stated as claims, each citing its own
  full text. No deliberation, no audit, no gate: every claim is in the answer, and nothing is ever
  withheld (the baseline cannot abstain).
* **unconstrained debate** (:func:`unconstrained_debate`) -- the shared retrieval still fills the
  ledger's Evidence Pack, but each counsel also **retrieves directly** (Worker Counsel: dense
  search of the question; Employer Counsel: BM25 of the question; top :data:`DIRECT_K`, no hops)
  and argues from its private results. There is no Evidence Exchange Protocol: a claim may cite a
  unit that was never put on the ledger. Two rounds (opening, rebuttal with the other side's
  claims), then the Legal Interpreter over the ledger pack; no audit, no gate. The
  unsupported-claim rate measures what the EEP prevents.

Both return a :class:`BaselineResult`, saved by the runner like a board run, and read by
:func:`labourcrew.eval.adapter.from_baseline`. The language roles are whatever backend the
configuration uses (offline: deterministic and extractive).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from labourcrew.board.deps import RetrievalPort
from labourcrew.gate.trust_gate import coverage, premise_errors, primary_issue
from labourcrew.graph.statute_graph import StatuteGraph
from labourcrew.ledger.records import (
    Claim,
    EvidenceItem,
    EvidencePack,
    EvidenceRef,
    Side,
)
from labourcrew.ledger.retrieval import IssueSpotting
from labourcrew.ledger.roles import (
    CallUsage,
    CounselInput,
    InterpreterInput,
    ProposedClaim,
    RoleBackend,
)
from labourcrew.retrieval.exact import resolve_label
from labourcrew.retrieval.issue_spotter import spot_issues
from labourcrew.retrieval.planner import make_plan
from labourcrew.settings import Settings

__all__ = [
    "BASELINES",
    "SINGLE_PASS_CLAIMS",
    "DIRECT_K",
    "BaselineResult",
    "single_pass_rag",
    "unconstrained_debate",
]

logger = logging.getLogger(__name__)

BASELINES: tuple[str, ...] = ("single_pass_rag", "unconstrained_debate")
SINGLE_PASS_CLAIMS = 3
"""Pack units the single-pass baseline states as its answer."""
DIRECT_K = 10
"""Units each counsel retrieves directly in the unconstrained debate."""


class BaselineResult(BaseModel):
    """One question answered by a baseline (the run record the runner saves)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(description="Unique id of the run.")
    created: str = Field(description="Start time, ISO 8601 UTC.")
    baseline: Literal["single_pass_rag", "unconstrained_debate"] = Field(description="Which baseline.")
    question: str = Field(description="The question.")
    statute_version: str = Field(description="Statute version answered from.")
    backend: str = Field(description="Backend of the language roles ('none' for single-pass RAG).")
    question_type: str = Field(description="Issue Spotter question type.")
    pack: EvidencePack = Field(description="The ledger's Evidence Pack (shared retrieval).")
    private_packs: dict[str, list[str]] = Field(
        default_factory=dict, description="Side -> node ids that side retrieved directly (unconstrained debate)."
    )
    claims: list[Claim] = Field(description="Every claim stated (all are in the answer: no gate).")
    latency_s: float = Field(ge=0.0, description="Wall-clock seconds.")
    retrieval_rounds: int = Field(ge=1, description="Retrieval passes (always 1).")
    deliberation_rounds: int = Field(ge=0, description="Counsel rounds (0 for single-pass RAG).")
    llm_calls: int = Field(ge=0, description="Chat-model calls.")
    sequential_llm_calls: int = Field(ge=0, description="Chat-model calls on the critical path.")
    coverage_share: float = Field(ge=0.0, le=1.0, description="Trust-Gate coverage share of the answer's claims.")
    premise_errors: list[str] = Field(
        default_factory=list, description="Sections the question names that do not exist."
    )
    error: str | None = Field(default=None, description="Set when the baseline itself stopped.")




def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _retrieve(
    question: str, version: str, graph: StatuteGraph, port: RetrievalPort, settings: Settings
) -> tuple[IssueSpotting, EvidencePack, list[str]]:
    spotting = spot_issues(question)
    plan = make_plan(spotting, settings, graph=graph, version=version)
    direct = port.search(plan, version)
    pack = port.expand(direct, plan, version)
    resolved = {lb: resolve_label(graph, version, lb) for lb in spotting.section_labels}
    return spotting, pack, premise_errors(spotting.section_labels, resolved, version, graph)


def _coverage(spotting: IssueSpotting, claims: list[Claim], graph: StatuteGraph, version: str) -> float:
    section_ids = [n for n in (resolve_label(graph, version, lb) for lb in spotting.section_labels) if n]
    primary = primary_issue(spotting, list(dict.fromkeys(section_ids)), spotting.question)
    return coverage(primary, claims, graph.section_context).share


def single_pass_rag(
    question: str,
    version: str,
    *,
    graph: StatuteGraph,
    port: RetrievalPort,
    settings: Settings,
    clock: Callable[[], float] = time.perf_counter,
) -> BaselineResult:
    """Retrieve once and state the top pack units as the answer (module docstring)."""
    t0 = clock()
    spotting, pack, premise = _retrieve(question, version, graph, port, settings)
    claims: list[Claim] = []
    for item in pack.items:
        if len(claims) >= SINGLE_PASS_CLAIMS:
            break
        if not item.text.strip():
            continue
        claims.append(
            Claim(
                claim_id=f"r{len(claims) + 1}",
                side=Side.INTERPRETER,
                text=item.text,
                evidence=[EvidenceRef(node_id=item.node_id, span=item.text)],
                confidence=min(1.0, item.provenance),
            )
        )
    return BaselineResult(
        run_id=uuid.uuid4().hex[:12],
        created=_now(),
        baseline="single_pass_rag",
        question=question,
        statute_version=version,
        backend="none",
        question_type=spotting.question_type.value,
        pack=pack,
        claims=claims,
        latency_s=round(clock() - t0, 4),
        retrieval_rounds=1,
        deliberation_rounds=0,
        llm_calls=0,
        sequential_llm_calls=0,
        coverage_share=_coverage(spotting, claims, graph, version),
        premise_errors=premise,
    )


def _statute_retriever(port: RetrievalPort) -> Any:
    inner = getattr(port, "inner", port)  # CachedRetrieval and ablation wrappers keep the port as .inner
    while hasattr(inner, "inner"):
        inner = inner.inner
    retriever = getattr(inner, "retriever", None)
    return retriever.statute if retriever is not None else getattr(inner, "statute", None)


def _direct_pack(graph: StatuteGraph, hits: list[tuple[str, float]]) -> EvidencePack:
    items = []
    seen: set[str] = set()
    for node_id, score in hits:
        u = graph.units.get(node_id)
        if u is None or node_id in seen:
            continue
        seen.add(node_id)
        items.append(
            EvidenceItem(
                node_id=node_id,
                section=u.section,
                level=u.level,
                text=u.text,
                channels=["direct"],
                score=float(score),
                provenance=1.0,
            )
        )
    return EvidencePack(items=items)


def _private_packs(question: str, version: str, graph: StatuteGraph, port: RetrievalPort) -> dict[Side, EvidencePack]:
    statute = _statute_retriever(port)
    if statute is None:  # no search channels to call: fall back to the shared pack
        return {}
    lexical = statute.lexical_search(question, version, DIRECT_K)
    try:
        dense = statute.dense(question, version, DIRECT_K)
    except Exception as exc:  # noqa: BLE001 -- no vector index (tests): the worker searches lexically too
        logger.info("unconstrained debate: dense search unavailable (%s); worker uses BM25", exc)
        dense = lexical
    return {Side.WORKER: _direct_pack(graph, dense), Side.EMPLOYER: _direct_pack(graph, lexical)}


def _claims_from(side: Side, proposed: list[ProposedClaim], start: int, round_: int, known: set[str]) -> list[Claim]:
    prefix = {Side.WORKER: "w", Side.EMPLOYER: "e", Side.INTERPRETER: "i"}[side]
    out: list[Claim] = []
    for k, p in enumerate(proposed, start=start):
        try:  # no EEP: only the claim's shape is checked, never the ledger
            out.append(
                Claim(
                    claim_id=f"{prefix}{k}",
                    side=side,
                    text=p.text,
                    evidence=[EvidenceRef(node_id=c.node_id, span=c.span) for c in p.citations],
                    confidence=p.confidence,
                    challenge_to=p.challenge_to if p.challenge_to in known else None,
                    round=round_,
                )
            )
        except ValidationError as exc:
            logger.debug("unconstrained debate: dropped a malformed claim: %s", exc.errors()[0]["msg"])
    return out


def unconstrained_debate(
    question: str,
    version: str,
    *,
    graph: StatuteGraph,
    port: RetrievalPort,
    backend: RoleBackend,
    settings: Settings,
    clock: Callable[[], float] = time.perf_counter,
) -> BaselineResult:
    """Counsels argue from their own direct retrieval, without the EEP, audit or gate (module docstring)."""
    from labourcrew.board.roles import issues_of

    t0 = clock()
    spotting, ledger, premise = _retrieve(question, version, graph, port, settings)
    private = _private_packs(question, version, graph, port)
    issues = issues_of(spotting, question)
    claims: list[Claim] = []
    calls = seq = 0
    counters = {Side.WORKER: 1, Side.EMPLOYER: 1}
    for round_ in (0, 1):
        stage_max = 0
        fresh: list[Claim] = []
        for side in (Side.WORKER, Side.EMPLOYER):
            others = [c for c in claims if c.side not in (side, Side.INTERPRETER)] if round_ else []
            inp = CounselInput(
                side=side,
                question=question,
                issues=issues,
                facts=[],
                pack=private.get(side, ledger),
                round=round_,
                other_claims=others,
            )
            out, usage = backend.counsel(inp)
            usage = usage if isinstance(usage, CallUsage) else CallUsage(backend="unknown")
            calls += usage.llm_calls
            stage_max = max(stage_max, usage.llm_calls)
            made = _claims_from(side, list(out.claims), counters[side], round_, {c.claim_id for c in claims})
            counters[side] += len(made)
            fresh += made
        seq += stage_max
        claims += fresh
        if not any(c.side == Side.WORKER for c in claims) or not any(c.side == Side.EMPLOYER for c in claims):
            break
    out_i, usage_i = backend.interpret(InterpreterInput(question=question, issues=issues, pack=ledger, claims=claims))
    calls += usage_i.llm_calls
    seq += usage_i.llm_calls
    if out_i.governing_rule is not None:
        claims += _claims_from(Side.INTERPRETER, [out_i.governing_rule], 1, 0, set())
    return BaselineResult(
        run_id=uuid.uuid4().hex[:12],
        created=_now(),
        baseline="unconstrained_debate",
        question=question,
        statute_version=version,
        backend=backend.name,
        question_type=spotting.question_type.value,
        pack=ledger,
        private_packs={s.value: [i.node_id for i in p.items] for s, p in private.items()},
        claims=claims,
        latency_s=round(clock() - t0, 4),
        retrieval_rounds=1,
        deliberation_rounds=2 if any(c.round == 1 for c in claims) else 1,
        llm_calls=calls,
        sequential_llm_calls=seq,
        coverage_share=_coverage(spotting, claims, graph, version),
        premise_errors=premise,
    )
