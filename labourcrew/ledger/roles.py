"""The contract between the deliberation board and its model backends (paper §3.1, App. D).

Every *language* role of the board (Issue Spotter, Worker/Employer Counsel, Legal Interpreter,
Trust Auditor) is one method of a :class:`RoleBackend` (the Trust Auditor has two: ``audit_batch``
for all claims of a round in one call, ``audit`` for one claim, the fallback when a batch reply is
malformed). Two backends implement it:

* ``offline`` (:mod:`labourcrew.deliberation.extractive`) -- deterministic and extractive: claims are verbatim
  clause-level spans of the Evidence Pack; never invents text. The embedded default.
* ``openai`` (:mod:`labourcrew.llm.openai_backend`) -- ``langchain-openai`` ``ChatOpenAI`` against any
  OpenAI-compatible endpoint, structured output into the models below.

The board never trusts a backend's output: proposed claims are turned into ledger claims by the
Evidence Exchange Protocol (:func:`labourcrew.deliberation.eep.make_claim`), which refuses citations
of nodes that are not on the Evidence Pack, and every span is re-verified by the Citation Checker.
Deterministic roles (planner, retriever, hopper, supervisor, citation checker, gate, opinion
writer) are not part of this contract.

Errors: a backend raises :class:`~labourcrew.errors.TransientRoleError` for failures a retry may
fix (timeout, rate limit, malformed output) and :class:`~labourcrew.errors.PermanentRoleError` for
those it cannot (refusal, schema never satisfied). It must not swallow them: the Supervisor and
LangGraph's ``RetryPolicy`` decide what happens next.

Accounting: every method returns a :class:`CallUsage` with its output; a method that made chat
calls and then raised attaches theirs to the exception (:func:`attach_usage`, read back with
:func:`usage_of`), so the board counts the calls and tokens of failed attempts too.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from labourcrew.ledger.records import (
    Claim,
    ClaimCategory,
    Direction,
    EvidencePack,
    Side,
    Verdict,
)

__all__ = [
    "BackendWrapper",
    "Role",
    "LANGUAGE_ROLES",
    "ProposedCitation",
    "ProposedClaim",
    "CounselInput",
    "CounselOutput",
    "InterpreterInput",
    "InterpreterOutput",
    "AuditInput",
    "RetrievalRequest",
    "AuditOutput",
    "AuditBatchInput",
    "AuditVerdict",
    "AuditBatchOutput",
    "batch_problems",
    "CallUsage",
    "USAGE_ATTR",
    "attach_usage",
    "usage_of",
    "RoleBackend",
]


class Role(StrEnum):
    """Board roles; node names and prompt file names (``prompts/<role>.md``) use these values."""

    ISSUE_SPOTTER = "issue_spotter"
    RETRIEVAL_PLANNER = "retrieval_planner"
    STATUTE_RETRIEVER = "statute_retriever"
    LINK_HOPPER = "link_hopper"
    WORKER_COUNSEL = "worker_counsel"
    EMPLOYER_COUNSEL = "employer_counsel"
    LEGAL_INTERPRETER = "legal_interpreter"
    TRUST_AUDITOR = "trust_auditor"
    SUPERVISOR = "supervisor"
    CITATION_CHECKER = "citation_checker"
    TRUST_GATE = "trust_gate"  # Trust Gate + Opinion Writer


LANGUAGE_ROLES = (
    Role.ISSUE_SPOTTER,
    Role.WORKER_COUNSEL,
    Role.EMPLOYER_COUNSEL,
    Role.LEGAL_INTERPRETER,
    Role.TRUST_AUDITOR,
)


class _IO(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProposedCitation(_IO):
    """A citation as a backend proposes it (not yet checked against the ledger)."""

    node_id: str = Field(description="Node id the backend cites, e.g. '2025:27(1)'.")
    span: str = Field(description="Verbatim quote from that unit's text.")


class ProposedClaim(_IO):
    """A claim as a backend proposes it; the EEP turns it into a ledger Claim or a RejectedClaim."""

    text: str = Field(description="The claim, in Bangla (the question's language).")
    citations: list[ProposedCitation] = Field(description="Evidence for the claim; at least one.")
    confidence: float = Field(ge=0.0, le=1.0, description="Self-reported confidence in [0,1].")
    challenge_to: str | None = Field(default=None, description="claim_id of the other side's claim it challenges.")


class CounselInput(_IO):
    """What a counsel sees: the question, the Issue Spotter's analysis and the Evidence Pack only."""

    side: Side = Field(description="worker or employer.")
    question: str = Field(description="The user's question, verbatim.")
    issues: list[str] = Field(default_factory=list, description="Primary/secondary issues from the Issue Spotter.")
    facts: list[str] = Field(default_factory=list, description="Facts stated in the question.")
    pack: EvidencePack = Field(description="The Evidence Pack on the ledger (the only citable material).")
    round: int = Field(default=0, ge=0, description="Deliberation round (0 = opening).")
    other_claims: list[Claim] = Field(default_factory=list, description="The other side's claims (round >= 1).")


class CounselOutput(_IO):
    """A counsel's claims for one round."""

    claims: list[ProposedClaim] = Field(default_factory=list, description="Proposed claims, best first.")


class InterpreterInput(_IO):
    """What the Legal Interpreter sees: the question, the pack and whatever claims exist."""

    question: str = Field(description="The user's question.")
    issues: list[str] = Field(default_factory=list, description="Issues from the Issue Spotter.")
    pack: EvidencePack = Field(description="The Evidence Pack.")
    claims: list[Claim] = Field(default_factory=list, description="Claims of both sides (one side if a counsel failed).")


class InterpreterOutput(_IO):
    """The governing rule, stated with citations, without declaring a winner."""

    governing_rule: ProposedClaim | None = Field(description="The governing rule as a cited claim (None if none found).")
    notes: str = Field(default="", description="Short reasoning notes (not shown as law).")


class AuditInput(_IO):
    """One claim with the full text of every unit it cites."""

    question: str = Field(description="The user's question.")
    claim: Claim = Field(description="The claim under audit.")
    cited_texts: dict[str, str] = Field(description="node_id -> verbatim unit text for each cited node on the pack.")


class RetrievalRequest(_IO):
    """A structured request for more evidence (Supervisor evidence gap or Trust Auditor -> Retrieval Planner)."""

    seeds: list[str] = Field(default_factory=list, description="Node ids to expand from.")
    edge_types: list[str] = Field(default_factory=lambda: ["proviso", "cross_ref"], description="Edge types to follow.")
    hops: int = Field(default=1, ge=0, le=3, description="Hop budget (clamped by the question-type ceiling).")
    queries: list[str] = Field(default_factory=list, description="Extra semantic queries, if any.")
    reason: str = Field(default="", description="What evidence is missing.")


class AuditOutput(_IO):
    """The Trust Auditor's reading of one claim (paper §3.5; LegalHalluLens categories)."""

    verdict: Verdict = Field(description="SUPPORT / REFUTE / NEI against the cited spans.")
    category: ClaimCategory = Field(description="numeric, temporal, obligation or factual.")
    direction: Direction | None = Field(default=None, description="For a contradicted claim: omission or invention.")
    checks: dict[str, bool] = Field(default_factory=dict, description="Typed skeptic checks, e.g. {'numbers_match': True}.")
    notes: str = Field(default="", description="Short notes.")
    retrieval_request: RetrievalRequest | None = Field(default=None, description="Set when evidence is missing.")


class AuditBatchInput(_IO):
    """All claims of one round with the verbatim text of every unit they cite (one auditor call)."""

    question: str = Field(description="The user's question.")
    claims: list[Claim] = Field(min_length=1, description="The claims under audit, in ledger order (distinct ids).")
    cited_texts: dict[str, str] = Field(
        description="node_id -> verbatim unit text for each node on the pack cited by any of the claims."
    )

    def single(self, claim: Claim) -> AuditInput:
        """The per-claim input of one of the claims (the fallback when a batch reply is malformed)."""
        return AuditInput(
            question=self.question,
            claim=claim,
            cited_texts={n: self.cited_texts[n] for n in claim.cited_node_ids() if n in self.cited_texts},
        )


class AuditVerdict(AuditOutput):
    """The Trust Auditor's reading of one claim of a batch: :class:`AuditOutput` plus the claim id."""

    claim_id: str = Field(description="Id of the audited claim, exactly as given in the input.")

    def output(self) -> AuditOutput:
        """The verdict without its claim id."""
        return AuditOutput.model_validate(self.model_dump(exclude={"claim_id"}))


class AuditBatchOutput(_IO):
    """One verdict per claim of an :class:`AuditBatchInput`, in any order."""

    verdicts: list[AuditVerdict] = Field(description="Exactly one verdict per audited claim.")

    def by_claim(self) -> dict[str, AuditOutput]:
        """Claim id -> its verdict (call :func:`batch_problems` first: ids must match the input)."""
        return {v.claim_id: v.output() for v in self.verdicts}


def batch_problems(inp: AuditBatchInput, out: AuditBatchOutput) -> list[str]:
    """What makes a batch reply malformed: a claim id missing, extra or repeated (empty when none).

    Returns:
        Human-readable problems, e.g. ``["missing claim id(s) ['w2']", "duplicate claim id(s) ['e1']"]``.
    """
    want = [c.claim_id for c in inp.claims]
    got = [v.claim_id for v in out.verdicts]
    problems = []
    missing = [c for c in want if c not in got]
    extra = list(dict.fromkeys(c for c in got if c not in want))
    dupes = list(dict.fromkeys(c for c in got if got.count(c) > 1))
    if missing:
        problems.append(f"missing claim id(s) {missing}")
    if extra:
        problems.append(f"extra claim id(s) {extra}")
    if dupes:
        problems.append(f"duplicate claim id(s) {dupes}")
    return problems


class CallUsage(_IO):
    """Accounting of one backend call (the board sums these into RoleStatus)."""

    backend: str = Field(description="Which backend answered, e.g. 'offline-extractive' or 'openai:gpt-4o-mini'.")
    tokens_in: int = Field(default=0, ge=0, description="Prompt tokens.")
    tokens_out: int = Field(default=0, ge=0, description="Completion tokens.")
    cost_usd: float = Field(default=0.0, ge=0.0, description="Estimated cost in US dollars (0 when unknown).")
    llm_calls: int = Field(
        default=0, ge=0, description="Chat requests sent, failed ones included (a timed-out request counts)."
    )

    @classmethod
    def total(cls, usages: Iterable[CallUsage], backend: str) -> CallUsage:
        """The sum of ``usages``: tokens, cost and calls added, backend names joined in order.

        Args:
            usages: the usages to add (may be empty).
            backend: the backend name when ``usages`` is empty.
        """
        items = list(usages)
        names = list(dict.fromkeys(u.backend for u in items))
        return cls(
            backend=", ".join(names) or backend,
            tokens_in=sum(u.tokens_in for u in items),
            tokens_out=sum(u.tokens_out for u in items),
            cost_usd=sum(u.cost_usd for u in items),
            llm_calls=sum(u.llm_calls for u in items),
        )


USAGE_ATTR = "usage"
"""Attribute of a raised exception holding the :class:`CallUsage` of the calls made before it."""

_E = TypeVar("_E", bound=BaseException)


def attach_usage(exc: _E, usage: CallUsage) -> _E:
    """Record on ``exc`` the usage of the chat call(s) that ended in it; returns ``exc``.

    A usage already attached (by a backend this one wraps) is replaced: the caller passes the
    complete usage. Exceptions that take no attributes (``__slots__``) are returned unchanged.
    """
    try:
        setattr(exc, USAGE_ATTR, usage)
    except (AttributeError, TypeError):
        pass
    return exc


def usage_of(exc: BaseException) -> CallUsage | None:
    """The :class:`CallUsage` attached to ``exc`` by :func:`attach_usage` (None when there is none)."""
    usage = getattr(exc, USAGE_ATTR, None)
    return usage if isinstance(usage, CallUsage) else None


@runtime_checkable
class RoleBackend(Protocol):
    """The language roles of the board. Each method returns ``(output, usage)``.

    The Issue Spotter returns the same record as the rule-based spotter of
    :mod:`labourcrew.retrieval.issue_spotter` (``IssueSpotting``).
    """

    name: str

    @property
    def prompt_hashes(self) -> dict[str, str]:
        """Role -> sha256 of its prompt template (empty for backends without prompts)."""
        ...

    def spot_issues(self, question: str) -> tuple[BaseModel, CallUsage]: ...

    def counsel(self, inp: CounselInput) -> tuple[CounselOutput, CallUsage]: ...

    def interpret(self, inp: InterpreterInput) -> tuple[InterpreterOutput, CallUsage]: ...

    def audit(self, inp: AuditInput) -> tuple[AuditOutput, CallUsage]: ...

    def audit_batch(self, inp: AuditBatchInput) -> tuple[AuditBatchOutput, CallUsage]:
        """Trust Auditor on all claims of a round in one call: one verdict per claim id.

        The board checks the ids (:func:`batch_problems`) and falls back to :meth:`audit` per claim
        when the reply is malformed.
        """
        ...


class BackendWrapper:
    """Base of backends that wrap another one (fault injection, call accounting, ablations).

    Every role method goes through :meth:`_call`, which by default delegates to ``inner``; a
    wrapper overrides that one hook instead of re-writing each role method.

    Args:
        inner: the wrapped backend.
        name: the name recorded for its calls (default: the wrapped backend's).
    """

    def __init__(self, inner: RoleBackend, name: str | None = None) -> None:
        self.inner = inner
        self.name = name or inner.name

    @property
    def prompt_hashes(self) -> dict[str, str]:
        """The wrapped backend's prompt hashes."""
        return self.inner.prompt_hashes

    def _call(self, method: str, inp: Any) -> tuple[Any, CallUsage]:
        return getattr(self.inner, method)(inp)

    def spot_issues(self, question: str) -> tuple[BaseModel, CallUsage]:
        """Issue Spotter (see :class:`RoleBackend`)."""
        return self._call("spot_issues", question)

    def counsel(self, inp: CounselInput) -> tuple[CounselOutput, CallUsage]:
        """Worker or Employer Counsel."""
        return self._call("counsel", inp)

    def interpret(self, inp: InterpreterInput) -> tuple[InterpreterOutput, CallUsage]:
        """Legal Interpreter."""
        return self._call("interpret", inp)

    def audit(self, inp: AuditInput) -> tuple[AuditOutput, CallUsage]:
        """Trust Auditor, one claim."""
        return self._call("audit", inp)

    def audit_batch(self, inp: AuditBatchInput) -> tuple[AuditBatchOutput, CallUsage]:
        """Trust Auditor, all claims of a round."""
        return self._call("audit_batch", inp)
