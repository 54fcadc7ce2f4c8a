"""The Formal Case Ledger as the deliberation board's state (paper §3.1).

:class:`CaseLedger` is a ``TypedDict`` whose values are pydantic records of
:mod:`labourcrew.ledger.records` (and a few defined here). Every key written by more than one node
-- Worker Counsel, Employer Counsel and the Legal Interpreter run in parallel, every role reports
its status -- has a **named reducer** (``Annotated[..., reducer]``); the others are written by
exactly one role and use LangGraph's last-value channel.

=====================  ==================================  ===========================================
key                    written by                          reducer
=====================  ==================================  ===========================================
meta                   input                               --
question, version      input                               --
want_english           input                               --
facts                  input (ask --fact, clarifications)  --
clarification_round    input                               --
spotting               issue_spotter (or its fallback)     --
premise_errors         issue_spotter                       --
answerable             issue_spotter                       --
plan                   retrieval_planner                   --
retrieved              statute_retriever                   --
pack                   link_hopper (or its fallback)       :func:`merge_packs`
retrieval_round        supervisor                          --
deliberation_round     supervisor                          --
phase                  supervisor                          --
requests_consumed      supervisor                          --
pending_request        supervisor                          --
next_step              supervisor                          --
section_ids            issue_spotter                       --
claims                 worker/employer counsel, interp.    :func:`add_claims`
rejected_by_eep        worker/employer counsel, interp.    :func:`add_rejected`
citation_checks        citation_checker                    :func:`merge_by_claim`
findings               trust_auditor (one task per round)  :func:`merge_by_claim`
retrieval_requests     supervisor (evidence gap), auditor  :func:`add_requests`
role_calls             every role + failure recorder       :func:`add_role_calls`
interpreter_notes      legal_interpreter                   --
conflicts              supervisor (after the audits)       --
gate                   trust_gate                          --
opinion                trust_gate                          --
=====================  ==================================  ===========================================

Reducers are pure, deterministic and order-preserving (left first), so saved runs diff cleanly.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal, TypedDict, TypeVar

from labourcrew.ledger.audit import ClaimCheck, ClaimConflict
from labourcrew.ledger.gate import Fact, GateResult, Opinion
from labourcrew.ledger.records import (
    LEARNED_FIELDS,
    Claim,
    EvidenceItem,
    EvidencePack,
    HopTraceEntry,
    RejectedClaim,
    RoleStatus,
    TrustFinding,
)
from labourcrew.ledger.retrieval import IssueSpotting, RetrievalPlan
from labourcrew.ledger.roles import RetrievalRequest
from labourcrew.ledger.run import STATUS_ORDER, RoleCall, RunMeta

__all__ = [
    "NextStep",
    "CaseLedger",
    "merge_packs",
    "add_claims",
    "add_rejected",
    "merge_by_claim",
    "add_requests",
    "add_role_calls",
    "summarise_roles",
    "aggregate_status",
]

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------- reducers


def _better(a: EvidenceItem, b: EvidenceItem) -> EvidenceItem:
    """Of two pack items for the same node, the more direct one; channels are unioned."""
    key_a = (a.hop_depth, -a.provenance, -a.score)
    key_b = (b.hop_depth, -b.provenance, -b.score)
    best, other = (a, b) if key_a <= key_b else (b, a)
    channels = list(dict.fromkeys([*best.channels, *other.channels]))
    update: dict = {}
    if channels != best.channels:
        update["channels"] = channels
    for field in LEARNED_FIELDS:  # keep the learned scores either way
        if getattr(best, field) is None and getattr(other, field) is not None:
            update[field] = getattr(other, field)
    return best.model_copy(update=update) if update else best


def merge_packs(left: EvidencePack | None, right: EvidencePack | None) -> EvidencePack:
    """Reducer of ``pack``: union by node id, left order first, new units appended.

    A node on both sides keeps the more direct item (smaller hop depth, then higher provenance,
    then score) with the union of channels; the Hop Trace is concatenated without repeats.
    """
    if left is None:
        return right if right is not None else EvidencePack()
    if right is None:
        return left
    merged: dict[str, EvidenceItem] = {i.node_id: i for i in left.items}
    order = [i.node_id for i in left.items]
    for item in right.items:
        if item.node_id in merged:
            merged[item.node_id] = _better(merged[item.node_id], item)
        else:
            merged[item.node_id] = item
            order.append(item.node_id)
    trace: list[HopTraceEntry] = list(left.hop_trace)
    seen = {t.stable_json() for t in trace}
    for t in right.hop_trace:
        key = t.stable_json()
        if key not in seen:
            trace.append(t)
            seen.add(key)
    return EvidencePack(items=[merged[n] for n in order], hop_trace=trace)


def add_claims(left: Sequence[Claim] | None, right: Sequence[Claim] | None) -> list[Claim]:
    """Reducer of ``claims``: append in order; a repeated claim id keeps the first claim."""
    out = list(left or [])
    ids = {c.claim_id for c in out}
    for claim in right or []:
        if claim.claim_id in ids:
            logger.warning("claim id %s written twice; keeping the first", claim.claim_id)
            continue
        out.append(claim)
        ids.add(claim.claim_id)
    return out


def add_rejected(left: Sequence[RejectedClaim] | None, right: Sequence[RejectedClaim] | None) -> list[RejectedClaim]:
    """Reducer of ``rejected_by_eep``: append in order, dropping exact repeats."""
    out = list(left or [])
    seen = {r.stable_json() for r in out}
    for r in right or []:
        key = r.stable_json()
        if key not in seen:
            out.append(r)
            seen.add(key)
    return out


_R = TypeVar("_R", ClaimCheck, TrustFinding)


def merge_by_claim(left: Mapping[str, _R] | None, right: Mapping[str, _R] | None) -> dict[str, _R]:
    """Reducer of ``findings`` and ``citation_checks``: dict union, a newer entry replaces an older.

    An audit round writes the claims it audited; a re-audit after a retrieval round replaces the
    claim's earlier finding.
    """
    out = dict(left or {})
    out.update(right or {})
    return out


def add_requests(left: Sequence[RetrievalRequest] | None, right: Sequence[RetrievalRequest] | None) -> list[RetrievalRequest]:
    """Reducer of ``retrieval_requests``: append in order, dropping exact repeats."""
    out = list(left or [])
    seen = {r.model_dump_json() for r in out}
    for r in right or []:
        key = r.model_dump_json()
        if key not in seen:
            out.append(r)
            seen.add(key)
    return out


def add_role_calls(left: Sequence[RoleCall] | None, right: Sequence[RoleCall] | None) -> list[RoleCall]:
    """Reducer of ``role_calls``: append in order (every invocation is kept)."""
    return [*(left or []), *(right or [])]


def summarise_roles(calls: Iterable[RoleCall]) -> dict[str, dict[str, Any]]:
    """Per-role summary of the run: the worst status over its calls, attempts and costs summed.

    Returns:
        ``{role: {"status": "ok"|"retried"|"failed", "calls", "attempts", "retries",
        "error", "latency_ms", "tokens_in", "tokens_out", "llm_calls", "backend"}}`` in first-call
        order. ``retries`` = attempts beyond the first, summed over calls.
    """
    out: dict[str, dict[str, Any]] = {}
    for call in calls:
        s = call.status
        cur = out.get(s.role)
        if cur is None:
            cur = out[s.role] = {
                "status": "ok", "calls": 0, "attempts": 0, "retries": 0, "error": None,
                "latency_ms": 0.0, "tokens_in": 0, "tokens_out": 0, "llm_calls": 0, "backends": [],
            }
        cur["calls"] += 1
        cur["attempts"] += s.attempts
        cur["retries"] += max(s.attempts - 1, 0)
        cur["latency_ms"] = round(cur["latency_ms"] + s.latency_ms, 3)
        cur["tokens_in"] += s.tokens_in
        cur["tokens_out"] += s.tokens_out
        cur["llm_calls"] += call.llm_calls
        if STATUS_ORDER[s.status] > STATUS_ORDER[cur["status"]]:
            cur["status"] = s.status
        if s.error:
            cur["error"] = s.error
        if s.backend not in cur["backends"]:
            cur["backends"].append(s.backend)
    for cur in out.values():
        cur["backend"] = ", ".join(cur.pop("backends"))
    return out


def aggregate_status(calls: Iterable[RoleCall]) -> dict[str, RoleStatus]:
    """Per-role :class:`RoleStatus` (worst status, summed attempts/latency/tokens)."""
    return {
        role: RoleStatus(
            role=role,
            status=v["status"],
            attempts=v["attempts"],
            error=v["error"],
            latency_ms=v["latency_ms"],
            tokens_in=v["tokens_in"],
            tokens_out=v["tokens_out"],
            backend=v["backend"],
        )
        for role, v in summarise_roles(calls).items()
    }


# ---------------------------------------------------------------- the ledger


class NextStep(StrEnum):
    """The Supervisor's routing decision (paper §3.1), read by :func:`~labourcrew.board.routing.route_supervisor`."""

    REBUT = "rebut"  # a rebuttal round: both counsels again (the sides' claims contradict)
    CHECK = "check"  # the Citation Checker on the round's claims
    RETRIEVE = "retrieve"  # re-enter retrieval (an evidence gap, or the auditor's request)
    AUDIT = "audit"  # the Trust Auditor on every claim without a finding, in one call
    COMPOSE = "compose"  # the Trust Gate composes the answer


class CaseLedger(TypedDict, total=False):
    """The Formal Case Ledger (paper §3.1): the board's whole state. Keys: module docstring."""

    # inputs
    meta: RunMeta
    question: str
    version: str
    want_english: bool
    facts: list[Fact]
    clarification_round: int
    # issue spotting and retrieval
    spotting: IssueSpotting
    premise_errors: list[str]
    answerable: str
    section_ids: list[str]
    plan: RetrievalPlan
    retrieved: EvidencePack
    pack: Annotated[EvidencePack, merge_packs]
    # supervision
    retrieval_round: int
    deliberation_round: int
    phase: Literal["deliberation", "check", "audit"]
    requests_consumed: int
    pending_request: RetrievalRequest | None
    next_step: NextStep
    # deliberation
    claims: Annotated[list[Claim], add_claims]
    rejected_by_eep: Annotated[list[RejectedClaim], add_rejected]
    interpreter_notes: str
    # audit
    citation_checks: Annotated[dict[str, ClaimCheck], merge_by_claim]
    findings: Annotated[dict[str, TrustFinding], merge_by_claim]
    retrieval_requests: Annotated[list[RetrievalRequest], add_requests]
    role_calls: Annotated[list[RoleCall], add_role_calls]
    conflicts: list[ClaimConflict]
    # release
    gate: GateResult
    opinion: Opinion
