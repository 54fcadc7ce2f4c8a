"""Records of one run: what it was made with, each role call, and the ``ask`` result.

:class:`RunMeta` is stamped on every run; :class:`RoleCall` is one invocation of one role;
:class:`AskResult` is the ``python -m labourcrew ask --json`` object and the saved run;
:class:`RunSummary` is one line of the run list.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.ledger.audit import ClaimConflict
from labourcrew.ledger.gate import Clarification, Coverage, Fact, GatedClaim, Opinion, Tau
from labourcrew.ledger.records import (
    EvidencePack,
    HopTraceEntry,
    LedgerRecord,
    RejectedClaim,
    ReleaseStatus,
    RoleStatus,
    TrustFinding,
)
from labourcrew.ledger.roles import RetrievalRequest

__all__ = ["STATUS_ORDER", "RunMeta", "RoleCall", "RoundUsage", "AskResult", "RunSummary"]


STATUS_ORDER = {"ok": 0, "retried": 1, "failed": 2}
"""Severity of a role status; aggregation keeps the worst."""


class RunMeta(LedgerRecord):
    """What a run was made with (stamped on every saved run)."""

    run_id: str = Field(description="Unique id of the run.")
    created: str = Field(description="Start time, ISO 8601 UTC.")
    statute_version: str = Field(description="Statute version the board answers from.")
    settings_hash: str = Field(description="Settings.hash() of the settings used.")
    backend: str = Field(description="Name of the model backend configured for the language roles.")
    prompt_hashes: dict[str, str] = Field(default_factory=dict, description="Role -> sha256 of its prompt (LLM backends).")
    gate_mode: Literal["calibrated", "categorical"] = Field(description="Trust Gate mode.")


class RoleCall(LedgerRecord):
    """One invocation of one role, as the Supervisor records it (paper §3.1)."""

    status: RoleStatus = Field(description="Outcome of this invocation over all its attempts.")
    stage: str = Field(description="Board stage, e.g. 'counsel@d0' (parallel calls share a stage).")
    retrieval_round: int = Field(ge=0, description="Retrieval round (0 = first pass).")
    llm_calls: int = Field(
        default=0, ge=0, description="Chat requests sent over all attempts (failed and retried ones included)."
    )
    cost_usd: float = Field(default=0.0, ge=0.0, description="Estimated cost of those requests.")
    claim_id: str | None = Field(default=None, description="Audited claim, for per-claim audit calls.")
    fallback: str | None = Field(default=None, description="What the board used instead after a failure.")


class RoundUsage(BaseModel):
    """Model calls of one retrieval round."""

    model_config = ConfigDict(extra="forbid")

    round: int = Field(ge=0, description="Retrieval round (0 = first pass).")
    llm_calls: int = Field(ge=0, description="Chat-model calls in the round.")
    sequential_llm_calls: int = Field(
        ge=0, description="Calls on the critical path: per stage the largest parallel call, summed."
    )
    stages: dict[str, int] = Field(description="Stage -> calls on its critical path.")


class AskResult(BaseModel):
    """One answered question: the ``ask --json`` object and the saved run (module docstring)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(description="Unique id of the run.")
    created: str = Field(description="Start time, ISO 8601 UTC.")
    question: str = Field(description="The validated question.")
    statute_version: str = Field(description="Statute version answered from.")
    status: ReleaseStatus = Field(description="TGLO, DEGRADED or UNDECIDED.")
    status_reason: str = Field(description="Why this status.")
    backend: str = Field(description="Model backend configured for the language roles.")
    backends: dict[str, str] = Field(description="Role -> backend(s) that actually answered it.")
    question_type: str | None = Field(description="Issue Spotter question type.")
    spotting: dict[str, Any] | None = Field(description="The Issue Spotter's record.")
    evidence_pack: EvidencePack = Field(description="The Evidence Pack (as in retrieval), all rounds merged.")
    hop_trace: list[HopTraceEntry] = Field(description="The Link Hopper's trace (same as evidence_pack.hop_trace).")
    claims: list[GatedClaim] = Field(description="Every claim with verdict, trust score, components and the gate's decision.")
    rejected_by_eep: list[RejectedClaim] = Field(description="Claim attempts the Evidence Exchange Protocol refused.")
    findings: dict[str, TrustFinding] = Field(description="Trust Auditor findings by claim id.")
    tau: Tau = Field(description="Trust Gate threshold ('inf' when the gate fails closed).")
    alpha: float = Field(description="Target risk α.")
    gate_mode: str = Field(description="calibrated or categorical.")
    calibration_note: str | None = Field(description="Why τ is infinite, when it is.")
    coverage: Coverage = Field(description="Coverage of the primary issue by the released claims.")
    premise_errors: list[str] = Field(description="Problems with the question's premise.")
    opinion_bn: str = Field(description="The Bangla narrative (released claims only).")
    opinion_en: str | None = Field(description="English rendering (when requested).")
    opinion: Opinion = Field(description="The narrative with its sentences and post-check.")
    role_status: dict[str, dict[str, Any]] = Field(
        description="Per role: status ok/retried/failed, calls, attempts, retries, error, latency_ms, tokens, backend."
    )
    role_calls: list[RoleCall] = Field(description="Every role invocation in order.")
    rounds: int = Field(ge=1, description="Retrieval rounds run (1 + Supervisor re-entries).")
    deliberation_rounds: int = Field(ge=0, description="Counsel rounds in the last retrieval round.")
    retrieval_requests: list[RetrievalRequest] = Field(
        description="Retrieval requests: the Supervisor's evidence gaps and the Trust Auditor's requests, in order."
    )
    conflicts: list[ClaimConflict] = Field(
        default_factory=list, description="Contradictions between claims (same unit, opposite modal polarity)."
    )
    interpreter_notes: str = Field(description="The Legal Interpreter's notes.")
    usage: list[RoundUsage] = Field(description="Model calls per retrieval round.")
    latency_s: float = Field(ge=0.0, description="Wall-clock seconds of the run.")
    settings_hash: str = Field(description="Settings.hash() of the run.")
    prompt_hashes: dict[str, str] = Field(description="Role -> prompt sha256 (LLM backends).")
    error: str | None = Field(default=None, description="Set only when the board itself stopped.")
    facts: list[Fact] = Field(default_factory=list, description="Facts the user supplied (ask --fact); the answer assumed them.")
    clarifications: list[Clarification] = Field(
        default_factory=list, description="Clarifying questions for facts that decide the answer (at most two)."
    )

    def to_json(self, *, indent: int | None = 2) -> str:
        """Stable JSON (sorted keys, non-ASCII kept): byte-identical for equal results."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, indent=indent)

    def accepted(self) -> list[GatedClaim]:
        """Released claims."""
        return [c for c in self.claims if c.accepted]


class RunSummary(BaseModel):
    """One saved run, for listings."""

    model_config = ConfigDict(extra="forbid")

    run_id: str = Field(description="Run id.")
    created: str = Field(description="Start time.")
    question: str = Field(description="The question.")
    status: str = Field(description="Release status.")
    statute_version: str = Field(description="Statute version.")
    backend: str = Field(description="Configured backend.")
    path: str = Field(description="The run file.")
