"""Typed records of the Formal Case Ledger (paper §3.3-§3.6).

The ledger holds what the deliberation board may argue from and what it argued:

* the **Evidence Pack** (:class:`EvidencePack`) -- the retrieved citable units (:class:`EvidenceItem`)
  and the Link Hopper's **Hop Trace** (:class:`HopTraceEntry`);
* **claims** (:class:`Claim`) made by the board's sides, each citing verbatim spans
  (:class:`EvidenceRef`) of units on the pack, and the attempts the Evidence Exchange Protocol
  refused (:class:`RejectedClaim`);
* the Trust Auditor's **findings** (:class:`TrustFinding`) and the score's components
  (:class:`TrustComponents`);
* per-role run status (:class:`RoleStatus`) and the Trust Gate's release status
  (:class:`ReleaseStatus`).

Every record forbids unknown fields and serialises to a stable, canonical JSON string with
:meth:`LedgerRecord.stable_json` (sorted keys, no insignificant whitespace, UTF-8 kept), so equal
records always produce byte-identical JSON (used for hashing and for diffing runs).

The membership rule of the Evidence Exchange Protocol (paper §3.4) is checked by :class:`Claim`
when it is validated with a ledger context (``context={"ledger_node_ids": ...}``); the public
construction path is :func:`labourcrew.deliberation.eep.make_claim`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from labourcrew.errors import EvidenceError
from labourcrew.statute.model import EdgeType, Level

__all__ = [
    "LedgerRecord",
    "EvidenceItem",
    "LEARNED_FIELDS",
    "HopTraceEntry",
    "EvidencePack",
    "EvidenceRef",
    "Side",
    "ClaimCategory",
    "Verdict",
    "Direction",
    "Claim",
    "RejectedClaim",
    "RejectionCode",
    "TrustFinding",
    "TrustComponents",
    "RoleStatus",
    "ReleaseStatus",
    "LEDGER_CONTEXT_NODES",
    "LEDGER_CONTEXT_CLAIMS",
    "ledger_context",
]

# Keys of the pydantic validation context that carry the ledger (see Claim._check_ledger).
LEDGER_CONTEXT_NODES = "ledger_node_ids"
LEDGER_CONTEXT_CLAIMS = "ledger_claim_ids"


class LedgerRecord(BaseModel):
    """Base of all ledger records: unknown fields forbidden, canonical JSON."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def stable_json(self) -> str:
        """Canonical JSON: sorted keys, compact separators, non-ASCII kept verbatim.

        Returns:
            A string that is byte-identical for equal records; ``type(self).from_json`` of it
            returns an equal record.
        """
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )

    @classmethod
    def from_json(cls, data: str | bytes) -> Self:
        """Parse a record from JSON (inverse of :meth:`stable_json`).

        Raises:
            pydantic.ValidationError: when the JSON does not describe a valid record.
        """
        return cls.model_validate_json(data)


class Side(StrEnum):
    """Who makes a claim on the board (paper §3.3)."""

    WORKER = "worker"
    EMPLOYER = "employer"
    INTERPRETER = "interpreter"


class ClaimCategory(StrEnum):
    """What kind of statement a claim is (drives which checks the Trust Auditor runs)."""

    NUMERIC = "numeric"  # amounts, counts, days, percentages
    TEMPORAL = "temporal"  # deadlines, periods, dates
    OBLIGATION = "obligation"  # who must / may / must not do what
    FACTUAL = "factual"  # definitions and other statements of the law's content


class Verdict(StrEnum):
    """The Trust Auditor's verdict on a claim against its cited evidence (paper §3.5)."""

    SUPPORT = "SUPPORT"
    REFUTE = "REFUTE"
    NEI = "NEI"  # not enough information in the cited evidence


class Direction(StrEnum):
    """How a not-fully-supported claim departs from its evidence."""

    MISSING_CONDITION = "missing_condition"  # the claim drops a condition/proviso of the rule
    EXTRA_CONDITION = "extra_condition"  # the claim adds a condition the rule does not have


class ReleaseStatus(StrEnum):
    """Trust Gate outcome for an answer (paper §3.6).

    ``TGLO``: every released claim passed the calibrated threshold (trust-gated, ledger-only
    answer); ``DEGRADED``: some claims withheld or a role failed; ``UNDECIDED``: nothing could be
    released (e.g. no calibration record, so the gate failed closed).
    """

    TGLO = "TGLO"
    DEGRADED = "DEGRADED"
    UNDECIDED = "UNDECIDED"


# ---------------------------------------------------------------- evidence pack and hop trace


LEARNED_FIELDS = ("relevance", "trust_relevance")
"""The :class:`EvidenceItem` fields the learned relevance model writes (kept when packs merge)."""


class EvidenceItem(LedgerRecord):
    """One retrieved citable unit on the Evidence Pack (paper §3.3)."""

    node_id: str = Field(min_length=1, description="StatuteGraph node id, e.g. '2025:27(1)'.")
    section: str | None = Field(
        description="ASCII section label the unit belongs to (None for a chapter unit)."
    )
    level: Level = Field(description="Structural level of the unit.")
    text: str = Field(description="Verbatim unit text as stored in the StatuteGraph.")
    channels: list[str] = Field(
        min_length=1,
        description="Retrieval channels that produced this unit: 'dense', 'lexical', 'exact', 'hop'.",
    )
    score: float = Field(description="Fused retrieval score (higher is better; scale is the retriever's).")
    provenance: float = Field(
        ge=0.0,
        le=1.0,
        description="Retrieval provenance in [0,1]: how directly retrieval reached this unit.",
    )
    hop_depth: int = Field(
        default=0, ge=0, description="Link Hopper depth: 0 for directly retrieved units."
    )
    via: str | None = Field(
        default=None, description="Node id the Link Hopper came from (None when hop_depth is 0)."
    )
    relevance: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="Learned P(the unit governs the answer) (None when no relevance model ran).",
    )
    trust_relevance: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="Learned P(the unit governs the answer) read against the question's other candidates, "
                    "comparable across questions: the trust score's r (None when no relevance model ran).",
    )

    @model_validator(mode="after")
    def _hop_consistent(self) -> Self:
        # A hop-reached unit must say where it came from, a direct one must not.
        if (self.hop_depth > 0) != (self.via is not None):
            raise ValueError("via must be set exactly when hop_depth > 0")
        if self.via == self.node_id:
            raise ValueError("a unit cannot be reached via itself")
        return self


class HopTraceEntry(LedgerRecord):
    """One edge the Link Hopper followed (paper §3.3, Hop Trace)."""

    source: str = Field(min_length=1, description="Node id the hop started from.")
    edge: EdgeType = Field(description="Typed StatuteGraph edge followed.")
    target: str = Field(min_length=1, description="Node id the hop reached.")
    depth: int = Field(ge=1, description="Hop depth of the target (1 = one edge from a seed).")


class EvidencePack(LedgerRecord):
    """The units the board may cite, plus how the Link Hopper reached them."""

    items: list[EvidenceItem] = Field(
        default_factory=list, description="Retrieved units, best first; node ids are unique."
    )
    hop_trace: list[HopTraceEntry] = Field(
        default_factory=list, description="Edges followed by the Link Hopper, in order."
    )

    @field_validator("items")
    @classmethod
    def _unique_nodes(cls, items: list[EvidenceItem]) -> list[EvidenceItem]:
        counts = Counter(i.node_id for i in items)
        dupes = sorted(n for n, k in counts.items() if k > 1)
        if dupes:
            raise ValueError(f"duplicate node ids on the Evidence Pack: {dupes}")
        return items

    def node_ids(self) -> frozenset[str]:
        """All node ids on the pack."""
        return frozenset(i.node_id for i in self.items)

    def get(self, node_id: str) -> EvidenceItem | None:
        """The item for ``node_id`` or None when it is not on the pack."""
        for item in self.items:
            if item.node_id == node_id:
                return item
        return None

    def by_id(self) -> dict[str, EvidenceItem]:
        """Items keyed by node id."""
        return {i.node_id: i for i in self.items}


# ---------------------------------------------------------------- claims


class EvidenceRef(LedgerRecord):
    """A citation inside a claim: a node on the pack and a verbatim span of its text."""

    node_id: str = Field(min_length=1, description="Cited node id; must be on the Evidence Pack.")
    span: str = Field(
        description="Verbatim quote from the cited unit's text (matched after normalize())."
    )
    path_id: str | None = Field(
        default=None, description="Id of the Hop Trace path that reached the node, if any."
    )

    @field_validator("span")
    @classmethod
    def _span_not_blank(cls, span: str) -> str:
        if not span.strip():
            raise PydanticCustomError("empty_span", "the cited span is empty")
        return span


def _ledger_error(code: str, message: str) -> EvidenceError:
    # The code travels on the exception so the EEP can record it without parsing the message.
    err = EvidenceError(message)
    err.code = code  # type: ignore[attr-defined]
    return err


class Claim(LedgerRecord):
    """A claim a side puts on the ledger (paper §3.4).

    Validated with a ledger context (``context={LEDGER_CONTEXT_NODES: frozenset[str],
    LEDGER_CONTEXT_CLAIMS: frozenset[str]}``), construction raises
    :class:`~labourcrew.errors.EvidenceError` when a citation is off the ledger, the claim
    challenges an unknown claim, or reuses a claim id. Without context (e.g. reloading a stored
    ledger) only the shape is checked: new claims must go through
    :func:`labourcrew.deliberation.eep.make_claim`.
    """

    claim_id: str = Field(min_length=1, description="Unique id of the claim within a run.")
    side: Side = Field(description="Side that made the claim.")
    text: str = Field(description="The claim in plain language.")
    evidence: list[EvidenceRef] = Field(
        description="Citations backing the claim; at least one."
    )
    confidence: float = Field(ge=0.0, le=1.0, description="Self-reported confidence in [0,1].")
    challenge_to: str | None = Field(
        default=None, description="claim_id this claim challenges (None for an opening claim)."
    )
    round: int = Field(default=0, ge=0, description="Deliberation round (0-based) within its retrieval round.")
    retrieval_round: int = Field(default=0, ge=0, description="Retrieval round it was made in (0: before any re-entry).")

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, text: str) -> str:
        if not text.strip():
            raise PydanticCustomError("empty_text", "the claim text is empty")
        return text

    @field_validator("evidence")
    @classmethod
    def _evidence_not_empty(cls, evidence: list[EvidenceRef]) -> list[EvidenceRef]:
        if not evidence:
            raise PydanticCustomError("empty_evidence", "a claim must cite at least one node")
        return evidence

    @model_validator(mode="after")
    def _check_ledger(self, info: ValidationInfo) -> Self:
        if self.challenge_to is not None and self.challenge_to == self.claim_id:
            raise PydanticCustomError("self_challenge", "a claim cannot challenge itself")
        ctx = info.context or {}
        allowed = ctx.get(LEDGER_CONTEXT_NODES)
        if allowed is None:
            return self
        off = sorted({r.node_id for r in self.evidence if r.node_id not in allowed})
        if off:
            raise _ledger_error(
                "off_ledger", f"cites node(s) not on the Evidence Pack: {', '.join(off)}"
            )
        known = ctx.get(LEDGER_CONTEXT_CLAIMS)
        if known is not None:
            if self.claim_id in known:
                raise _ledger_error(
                    "duplicate_claim_id", f"claim id {self.claim_id!r} is already on the ledger"
                )
            if self.challenge_to is not None and self.challenge_to not in known:
                raise _ledger_error(
                    "unknown_challenge",
                    f"challenges claim {self.challenge_to!r}, which is not on the ledger",
                )
        return self

    def cited_node_ids(self) -> list[str]:
        """Cited node ids in citation order, without repeats."""
        return list(dict.fromkeys(r.node_id for r in self.evidence))


RejectionCode = Literal[
    "off_ledger",
    "empty_evidence",
    "empty_span",
    "empty_text",
    "unknown_challenge",
    "self_challenge",
    "duplicate_claim_id",
    "invalid_shape",
]


class RejectedClaim(LedgerRecord):
    """A claim attempt the Evidence Exchange Protocol refused (kept on the ledger for audit)."""

    attempted: dict[str, Any] = Field(
        description="The attempted claim fields, made JSON-safe (unknown objects as repr)."
    )
    code: RejectionCode = Field(description="Machine-readable rejection kind.")
    reason: str = Field(min_length=1, description="Why it was rejected, for people.")
    side: Side | None = Field(
        default=None, description="Side that attempted the claim (None if it was not valid)."
    )


# ---------------------------------------------------------------- audit and run status


class TrustFinding(LedgerRecord):
    """The Trust Auditor's finding on one claim (paper §3.5)."""

    claim_id: str = Field(min_length=1, description="The audited claim.")
    verdict: Verdict = Field(description="SUPPORT / REFUTE / NEI against the cited evidence.")
    category: ClaimCategory = Field(description="Kind of claim.")
    direction: Direction | None = Field(
        default=None, description="How the claim departs from its evidence (None if it does not)."
    )
    checks: dict[str, bool] = Field(
        default_factory=dict,
        description="Named deterministic checks and their outcome, e.g. {'citations_valid': True}.",
    )
    notes: str = Field(default="", description="Free-text auditor notes.")


class TrustComponents(LedgerRecord):
    """Inputs of the composite trust score, each in [0,1] (see labourcrew.audit.trust_score)."""

    citation_validity: float = Field(
        ge=0.0, le=1.0, description="Fraction of the claim's citations that pass the Citation Checker."
    )
    span_fidelity: float = Field(
        ge=0.0, le=1.0, description="Length/coverage quality of the verified spans."
    )
    verdict_score: float = Field(
        ge=0.0, le=1.0, description="Auditor verdict mapped to [0,1] (SUPPORT 1, NEI 0.4, REFUTE 0)."
    )
    provenance: float = Field(
        ge=0.0, le=1.0, description="Mean retrieval provenance of the cited evidence."
    )
    confidence: float = Field(ge=0.0, le=1.0, description="The claim's self-reported confidence.")
    relevance: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="Learned P(the cited unit governs the answer) read against the question's other candidates "
                    "(EvidenceItem.trust_relevance), best over the citations (None: no model).",
    )


class RoleStatus(LedgerRecord):
    """How one board role ran (recorded by the Supervisor)."""

    role: str = Field(min_length=1, description="Role name, e.g. 'worker_advocate'.")
    status: Literal["ok", "retried", "failed"] = Field(
        description="ok: first attempt succeeded; retried: succeeded after retries; failed."
    )
    attempts: int = Field(ge=0, description="Number of attempts made.")
    error: str | None = Field(default=None, description="Last error message (None if none).")
    latency_ms: float = Field(ge=0.0, description="Wall-clock time over all attempts, milliseconds.")
    tokens_in: int = Field(default=0, ge=0, description="Prompt tokens over all attempts.")
    tokens_out: int = Field(default=0, ge=0, description="Completion tokens over all attempts.")
    backend: str = Field(description="Model backend used, e.g. 'llama.cpp:qwen2.5-3b' or 'stub'.")


def ledger_context(node_ids: Iterable[str], claim_ids: Iterable[str] | None = None) -> dict[str, Any]:
    """Build the pydantic validation context that makes :class:`Claim` enforce the EEP.

    Args:
        node_ids: node ids on the Evidence Pack.
        claim_ids: claim ids already on the ledger, or None to skip the challenge/duplicate checks.
    """
    ctx: dict[str, Any] = {LEDGER_CONTEXT_NODES: frozenset(node_ids)}
    if claim_ids is not None:
        ctx[LEDGER_CONTEXT_CLAIMS] = frozenset(claim_ids)
    return ctx
